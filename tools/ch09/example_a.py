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

The chapter's exercises are options (the defaults are the chapter's; a bad value is
exit 2 and one line naming it):

    python -m tools.ch09_example_a --chip D:40e9:1e12 --chip E:16e9:3e12   # chips NAME:CAP:BW
    python -m tools.ch09_example_a --chips my_chips.json                   # or .csv name,capacity,bandwidth
    python -m tools.ch09_example_a --weight-bytes 3.5e9 --kv-per-token 131072 --contexts 4096,16384
"""
import csv
import io
import json
import math
import os
import sys
from pathlib import Path

from tb import ROOT, cli
from tools.ch09.cli import int_list

# the 7B-class model of the chapter (also section 5 of tools/ch09/run.py): 7e9 weights,
# 32 layers of 32 heads of 128, int8 K and V cached per token
MODEL_7B = {"params": 7e9, "layers": 32, "heads": 32, "head_dim": 128}
WEIGHTS = MODEL_7B["params"] * 1                 # bytes (int8): 7e9
KV_PER_TOKEN = 2 * MODEL_7B["layers"] * MODEL_7B["heads"] * MODEL_7B["head_dim"]   # bytes: 256 KiB
CHIPS = {"A": (24e9, 0.5e12), "B": (80e9, 2e12), "C": (192e9, 5e12)}   # capacity bytes, bytes/s
CONTEXTS = (2048, 8192, 32768)
BATCHES = (1, 4, 16, 64)


MAX_CONTEXT = 1 << 53     # the largest context whose tokens a float holds exactly


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


def plan(chips=None, contexts=CONTEXTS, weights=WEIGHTS, kv_tok=KV_PER_TOKEN):
    """Every (chip, context) row: max batch, tokens/s at 1, 4, 16, 64 (None where b does not fit),
    best and limit. chips: {name: (capacity bytes, bandwidth bytes/s)} (default CHIPS)."""
    rows = []
    for chip, (cap, bw) in (CHIPS if chips is None else chips).items():
        for ctx in contexts:
            mb = max_batch(cap, ctx, weights, kv_tok)
            rows.append({
                "chip": chip, "capacity": cap, "bw": bw, "context": ctx, "max_batch": mb,
                "tok_s": {str(b): (tokens_per_s(b, bw, ctx, weights, kv_tok) if b <= mb else None)
                          for b in BATCHES},
                "best": tokens_per_s(mb, bw, ctx, weights, kv_tok) if mb >= 1 else None,
                "limit": bw / (kv_tok * ctx)})
    return rows


# ---------------------------------------------------------------- the command line's values
def positive(text, what):
    """A positive finite number of a command-line string (7e9, 0.5e12, 262144)."""
    try:
        x = float(str(text).strip())
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{what} {text!r} must be a positive number")
    return int(x) if x == int(x) and abs(x) < 2 ** 63 else x


def _chip(name, cap, bw, where):
    name = str(name).strip()
    if not name:
        raise ValueError(f"{where}: a chip without a name")
    return name, (positive(cap, f"{where}: chip {name!r} capacity"),
                  positive(bw, f"{where}: chip {name!r} bandwidth"))


def parse_chip(spec):
    """(name, (capacity, bandwidth)) of --chip NAME:CAP:BW (bytes, bytes/s)."""
    parts = str(spec).split(":")
    if len(parts) != 3:
        raise ValueError(f"--chip {spec!r}: expected NAME:CAPACITY:BANDWIDTH (bytes, bytes/s), e.g. D:40e9:1e12")
    return _chip(*parts, where=f"--chip {spec!r}")


def load_chips(path):
    """[(name, (capacity, bandwidth))] of a chips file: JSON (a list of {"name", "capacity",
    "bandwidth"} objects, or {"chips": that list}) or CSV (header name,capacity,bandwidth;
    `#` comment lines allowed)."""
    path = Path(path)
    where = f"--chips {path}"
    text = cli.text_file(path, where)
    if path.suffix.lower() == ".json":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}: malformed JSON: {e}") from None
        if isinstance(obj, dict):
            obj = obj.get("chips")
        if not isinstance(obj, list) or not obj:
            raise ValueError(f"{where}: expected a non-empty list of chips (name, capacity, bandwidth)")
        out = []
        for i, c in enumerate(obj, 1):
            if not isinstance(c, dict) or set(c) != {"name", "capacity", "bandwidth"}:
                raise ValueError(f"{where}: chip #{i} must have exactly name, capacity, bandwidth")
            out.append(_chip(c["name"], c["capacity"], c["bandwidth"], where))
        return out
    if path.suffix.lower() == ".csv":
        rows = [r for r in csv.reader(io.StringIO(text))
                if r and any(x.strip() for x in r) and not r[0].lstrip().startswith("#")]
        if not rows or [x.strip() for x in rows[0]] != ["name", "capacity", "bandwidth"]:
            raise ValueError(f"{where}: the CSV header must be name,capacity,bandwidth")
        if len(rows) < 2:
            raise ValueError(f"{where}: no chips")
        out = []
        for ln, r in enumerate(rows[1:], 2):
            if len(r) != 3:
                raise ValueError(f"{where}: CSV line {ln} has {len(r)} fields, expected 3")
            out.append(_chip(*r, where=f"{where} line {ln}"))
        return out
    raise ValueError(f"{where}: the file must end in .json or .csv")


def chips_of(files=(), specs=()):
    """{name: (capacity, bandwidth)} of the --chips files then the --chip specs (CHIPS when
    neither is given); ValueError for a duplicate name."""
    got = [c for f in files for c in load_chips(f)] + [parse_chip(s) for s in specs]
    if not got:
        return dict(CHIPS)
    out = {}
    for name, v in got:
        if name in out:
            raise ValueError(f"chip {name!r} given twice")
        out[name] = v
    return out


def sci(x):
    """7e9 as '7e9', 1.4e10 as '1.4e10'."""
    m, e = f"{x:e}".split("e")
    return f"{m.rstrip('0').rstrip('.')}e{int(e)}"


def _weights_text(weights):
    return f"{sci(weights)} bytes of {'int8 ' if weights == WEIGHTS else ''}weights"


def _kib(n):
    return f"{n // 1024} KiB" if n == int(n) and int(n) % 1024 == 0 else f"{n:g} bytes"


def figure(rows, path, contexts=CONTEXTS, weights=WEIGHTS, kv_tok=KV_PER_TOKEN):
    """Fig 9.5: tokens/s against b for the chips, each curve ending at its max batch."""
    import numpy as np

    from tools.ch09.figures import plt, save  # matplotlib on Agg
    fig, axes = plt.subplots(1, len(contexts), figsize=(13 if len(contexts) == 3 else 4.4 * len(contexts), 4.3),
                             sharey=True, squeeze=False)
    names = list(dict.fromkeys(r["chip"] for r in rows))
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
               "tab:olive", "tab:cyan", "tab:grey"]
    colors = {n: palette[i % len(palette)] for i, n in enumerate(names)}
    fits = any(r["max_batch"] >= 1 for r in rows)
    for ax, ctx in zip(axes[0], contexts):
        for r in (r for r in rows if r["context"] == ctx):
            if r["max_batch"] < 1:
                ax.plot([], [], color=colors[r["chip"]], label=f"chip {r['chip']}: does not fit")
                continue
            b = np.unique(np.round(np.logspace(0, math.log10(r["max_batch"]), 200)).astype(int))
            ax.plot(b, [tokens_per_s(x, r["bw"], ctx, weights, kv_tok) for x in b], color=colors[r["chip"]],
                    label=f"chip {r['chip']}: max batch {r['max_batch']}")
            ax.plot([b[-1]], [tokens_per_s(b[-1], r["bw"], ctx, weights, kv_tok)], "x", color=colors[r["chip"]],
                    ms=9)
            ax.axhline(r["limit"], color=colors[r["chip"]], ls=":", lw=1)
        if fits:        # a log axis needs a curve somewhere (sharey: any panel's will do)
            ax.set_xscale("log")
            ax.set_yscale("log")
        if not any(r["context"] == ctx and r["max_batch"] >= 1 for r in rows):
            ax.text(0.5, 0.5, "no chip fits the weights\nand one request's KV cache", ha="center",
                    va="center", transform=ax.transAxes)
        ax.set_xlabel("batch size b (requests)")
        ax.set_title(f"context {ctx} tokens")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("decode throughput (tokens/s, derived)")
    model = "a 7B int8 model" if weights == WEIGHTS else f"{sci(weights)} bytes of weights"
    fig.suptitle(f"Fig 9.5  Example A: throughput against batch for {model}\nx = memory full, "
                 "dotted = cache-bound limit BW / KV per request (all derived)", fontsize=10)
    return save(fig, path, dpi=100)


def main(argv=None):
    ap = cli.Parser(prog="ch09_example_a", description=__doc__.splitlines()[0])
    ap.add_argument("--chips", action="append", default=[], metavar="FILE",
                    help="chips from a file: JSON [{name, capacity, bandwidth}, ...] or CSV "
                         "name,capacity,bandwidth (bytes, bytes/s); repeatable")
    ap.add_argument("--chip", action="append", default=[], metavar="NAME:CAP:BW",
                    help="one chip, e.g. D:40e9:1e12 (capacity bytes, bandwidth bytes/s); repeatable; "
                         "default the chapter's A, B, C")
    ap.add_argument("--weight-bytes", default=None, help=f"bytes of weights (default {sci(WEIGHTS)}: 7B int8)")
    ap.add_argument("--kv-per-token", default=None, help=f"KV-cache bytes per token (default {KV_PER_TOKEN})")
    ap.add_argument("--contexts", default=None,
                    help=f"context lengths in tokens, comma-separated (default {','.join(map(str, CONTEXTS))})")
    ap.add_argument("--out", default=os.path.join(ROOT, "out"), type=cli.out_dir)
    a = ap.parse_args(argv)
    try:
        chips = chips_of(a.chips, a.chip)
        weights = WEIGHTS if a.weight_bytes is None else positive(a.weight_bytes, "--weight-bytes")
        kv_tok = KV_PER_TOKEN if a.kv_per_token is None else positive(a.kv_per_token, "--kv-per-token")
        contexts = CONTEXTS if a.contexts is None else tuple(int_list(a.contexts, "--contexts"))
        for c in contexts:
            if c < 1:
                raise ValueError(f"--contexts {a.contexts!r}: context {c} must be at least 1 token")
            if c > MAX_CONTEXT:
                raise ValueError(f"--contexts {a.contexts!r}: context {c} is past {MAX_CONTEXT} tokens "
                                 "(2^53: the planner's arithmetic is in floats)")
        if len(set(contexts)) != len(contexts):
            raise ValueError(f"--contexts {a.contexts!r}: a context given twice")
        rows = plan(chips, contexts, weights, kv_tok)
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    w = max([5] + [len(n) + 1 for n in chips])
    print(f"Example A: capacity planner (derived; {_weights_text(weights)}, {_kib(kv_tok)} KV per token)")
    print(f"{'chip':<{w}}{'capacity':>10}{'BW B/s':>9}{'context':>9}{'max b':>7}"
          + "".join(f"{'b=' + str(b):>9}" for b in BATCHES) + f"{'best':>9}{'limit':>9}")
    for r in rows:
        cells = "".join(f"{r['tok_s'][str(b)]:>9.1f}" if r["tok_s"][str(b)] is not None else f"{'--':>9}"
                        for b in BATCHES)
        best = f"{r['best']:>9.1f}" if r["best"] is not None else f"{'--':>9}"
        print(f"{r['chip']:<{w}}{r['capacity'] / 1e9:>8.0f}GB{r['bw'] / 1e12:>7.1f}T{r['context']:>9}"
              f"{r['max_batch']:>7}{cells}{best}{r['limit']:>9.1f}")
    print("(tokens/s; '--' = that batch does not fit in memory)")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "ch09_example_a.json")
    with open(path, "w") as f:
        json.dump({"weights_bytes": weights, "kv_bytes_per_token": kv_tok, "rows": rows,
                   "derived": True}, f, indent=1)
    print(f"wrote {path}")
    print(f"wrote {figure(rows, os.path.join(a.out, 'fig9_5_capacity.png'), contexts, weights, kv_tok)}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
