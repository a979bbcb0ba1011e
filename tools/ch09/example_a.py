"""Chapter 9, running example A: a capacity planner for batched decode (pure arithmetic).

A 7B-class model with int8 weights (7e9 bytes) and 256 KiB of KV cache per token, on
three assumed chips (A: 24e9 bytes at 0.5e12 B/s; B: 80e9 at 2e12; C: 192e9 at 5e12), at
contexts 2048, 8192, 32768 tokens. Decode is memory-bound, so a step reads the weights
once and every request's cache once:

    max batch  = floor((capacity - weights) / (KV per token x context))
    tokens/s(b) = b x BW / (weights + b x KV per request)
    best        = tokens/s at the max batch;  limit = BW / KV per request.

Everything here is derived from assumptions (no chip is measured). Writes
out/ch09_example_a.json and figure 9.5 (throughput against b, each curve ending where
memory is full).
"""
import argparse
import json
import math
import os
import sys

WEIGHTS = 7e9                    # bytes (int8)
KV_PER_TOKEN = 256 * 1024        # bytes
CHIPS = {"A": (24e9, 0.5e12), "B": (80e9, 2e12), "C": (192e9, 5e12)}   # capacity bytes, bytes/s
CONTEXTS = (2048, 8192, 32768)
BATCHES = (1, 4, 16, 64)
from tools import ROOT


def max_batch(capacity, context, weights=WEIGHTS, kv_tok=KV_PER_TOKEN):
    """Most requests whose caches fit beside the weights (0 when the weights alone do not fit)."""
    if capacity <= 0 or context <= 0 or kv_tok <= 0:
        raise ValueError(f"max_batch: capacity, context and KV per token must be positive "
                         f"(got {capacity}, {context}, {kv_tok})")
    return max(0, math.floor((capacity - weights) / (kv_tok * context)))


def tokens_per_s(b, bw, context, weights=WEIGHTS, kv_tok=KV_PER_TOKEN):
    """Decode tokens/s of b requests when every step reads the weights and b caches once."""
    if b < 1:
        raise ValueError(f"tokens_per_s: batch {b} < 1")
    return b * bw / (weights + b * kv_tok * context)


def plan():
    """Every (chip, context) row: max batch, tokens/s at 1, 4, 16, 64 (None where b does not fit),
    best and limit."""
    rows = []
    for chip, (cap, bw) in CHIPS.items():
        for ctx in CONTEXTS:
            mb = max_batch(cap, ctx)
            rows.append({
                "chip": chip, "capacity": cap, "bw": bw, "context": ctx, "max_batch": mb,
                "tok_s": {str(b): (tokens_per_s(b, bw, ctx) if b <= mb else None) for b in BATCHES},
                "best": tokens_per_s(mb, bw, ctx) if mb >= 1 else None,
                "limit": bw / (KV_PER_TOKEN * ctx)})
    return rows


def figure(rows, path):
    """Fig 9.5: tokens/s against b for the three chips, each curve ending at its max batch."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, axes = plt.subplots(1, len(CONTEXTS), figsize=(13, 4.3), sharey=True)
    colors = {"A": "tab:blue", "B": "tab:orange", "C": "tab:green"}
    for ax, ctx in zip(axes, CONTEXTS):
        for r in (r for r in rows if r["context"] == ctx):
            if r["max_batch"] < 1:
                ax.plot([], [], color=colors[r["chip"]], label=f"chip {r['chip']}: does not fit")
                continue
            b = np.unique(np.round(np.logspace(0, math.log10(r["max_batch"]), 200)).astype(int))
            ax.plot(b, [tokens_per_s(x, r["bw"], ctx) for x in b], color=colors[r["chip"]],
                    label=f"chip {r['chip']}: max batch {r['max_batch']}")
            ax.plot([b[-1]], [tokens_per_s(b[-1], r["bw"], ctx)], "x", color=colors[r["chip"]], ms=9)
            ax.axhline(r["limit"], color=colors[r["chip"]], ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("batch size b (requests)")
        ax.set_title(f"context {ctx} tokens")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0].set_ylabel("decode throughput (tokens/s, derived)")
    fig.suptitle("Fig 9.5  Example A: throughput against batch for a 7B int8 model; x = memory full, "
                 "dotted = cache-bound limit BW / KV per request (all derived)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "out"))
    a = ap.parse_args(argv)
    rows = plan()
    print("Example A: capacity planner (derived; 7e9 bytes of int8 weights, 256 KiB KV per token)")
    print(f"{'chip':<5}{'capacity':>10}{'BW B/s':>9}{'context':>9}{'max b':>7}"
          + "".join(f"{'b=' + str(b):>9}" for b in BATCHES) + f"{'best':>9}{'limit':>9}")
    for r in rows:
        cells = "".join(f"{r['tok_s'][str(b)]:>9.1f}" if r["tok_s"][str(b)] is not None else f"{'--':>9}"
                        for b in BATCHES)
        best = f"{r['best']:>9.1f}" if r["best"] is not None else f"{'--':>9}"
        print(f"{r['chip']:<5}{r['capacity'] / 1e9:>8.0f}GB{r['bw'] / 1e12:>7.1f}T{r['context']:>9}"
              f"{r['max_batch']:>7}{cells}{best}{r['limit']:>9.1f}")
    print("(tokens/s; '--' = that batch does not fit in memory)")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "ch09_example_a.json")
    with open(path, "w") as f:
        json.dump({"weights_bytes": WEIGHTS, "kv_bytes_per_token": KV_PER_TOKEN, "rows": rows,
                   "derived": True}, f, indent=1)
    print(f"wrote {path}")
    print(f"wrote {figure(rows, os.path.join(a.out, 'fig9_5_capacity.png'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
