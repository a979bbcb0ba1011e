"""The chapter's remedies in the server, measured: `python -m tools.serve.lm_remedies
[--sim model|verilator|icarus] [--mode overlap|inorder]` (make serve-lm-remedies;
docs/serving_lm.md "Remedies in the server").

One Poisson workload (REQUESTS requests, long prompts) served under preempt+chunked by
the unmodified int8 model and by each remedy (VARIANTS: the multi-query model, the
4-bit cache, a window of 16 with 4 sinks, all three), every variant's pool the SAME
external-memory words (WORDS: a smaller row means more blocks). Per variant: generated
tokens per 1,000 cycles, mean and p50 latency (arrival to the last token), peak
concurrent requests, preemptions, the pool's blocks, KV words per token position
(derived: 2 x layers x the pool's row). On --sim model the cycles are the reference chip's (= the timing model's); on a
simulator every step runs live on the circuit (tb.hw.Live), judged against the reference
chip before the server decides the next from the chip's outcome, and the figures are the
chip's counters. Each request's tokens held to it decoded alone by tools/lm/remedies_ref.py
(the unmodified model: tools/lm/int8.py). The quality each remedy costs is docs/lm.md's
("Remedies", Quality). Writes out/serve_lm_remedies_<sim>_<mode>.json; exit 1 on a problem.
"""
import contextlib
import json
import os
import time

import numpy as np

from tb import cli
from tools.lm import compiler as C
from tools.lm import generate
from tools.serve import lm_memory as lmm
from tools.serve import lm_run as L
from tools.serve import report as R
from tools.serve import requests as rq

REQUESTS, RATE, SEED = 32, 20.0, 1
PROMPT, MAX_NEW = (12, 20), (4, 12)
BASE_BLOCKS = 16                 # the unmodified model's blocks in WORDS
# name: (kv_heads, kv_bits, Remedies or None)
VARIANTS = {"unmodified int8": (0, 8, None),
            "GQA (1 KV head)": (1, 8, None),
            "4-bit KV": (0, 4, C.Remedies(kv_bits=4)),
            "window 16, 4 sinks": (0, 8, C.Remedies(window=16, sinks=4)),
            "all three": (1, 4, C.Remedies(kv_bits=4, window=16, sinks=4))}


def pool_words(mcfg, blocks, row_words):
    return 2 * mcfg.layers * blocks * lmm.BLOCK_TOKENS * row_words


def measure(name, reqs, mode, chip=None):
    """(figures, problems) of one variant."""
    kvh, bits, rem = VARIANTS[name]
    model = generate.load_model("text", kv_heads=kvh, kv_bits=bits)
    words = pool_words(model.cfg, BASE_BLOCKS, model.cfg.d)
    row = lmm.MemoryMap(model, 1, 1, remedies=rem).pool.row_words
    blocks = words // pool_words(model.cfg, 1, row)
    runs, probs = L.serve_all(model, reqs, blocks, mode, [("preempt", "chunked")], chip=chip,
                              remedies=rem)
    run = runs[0]
    m = R.metrics(run)
    toks = m["tokens"]
    fin = [e for _, e in R.timeline(run, [st.cycles for st in run.steps])]
    lat = [fin[k] - a for k, a in zip(run.finish_step, run.arrival)]
    out = {"variant": name, "blocks": blocks, "pool_words": words, "row_words": row,
           "kv_words_per_token": 2 * model.cfg.layers * row, "steps": len(run.steps),
           "tokens": toks, "cycles": m["busy_cycles"], "span": m["span_cycles"],
           "tokens_per_kcycle": m["tokens_per_kcycle"], "latency_mean": float(np.mean(lat)),
           "latency_p50": m["latency"][50], "peak_running": max(st.running for st in run.steps),
           "preemptions": m["preemptions"], "recomputed": m["recomputed"],
           "returned_blocks": sum(x is None for st in run.steps for t in st.tables.values() for x in t)}
    return out, [f"{name}: {p}" for p in probs]


HEAD = ("| variant | pool blocks (same words) | KV words / token (derived) | steps | tokens | "
        "tokens / 1,000 cycles | latency mean | latency p50 | peak concurrent | preemptions | "
        "recomputed rows |")


def table(rows):
    out = [HEAD, "|" + "---|" * 11]
    for r in rows:
        out.append(f"| {r['variant']} | {r['blocks']} | {r['kv_words_per_token']} | {r['steps']} | "
                   f"{r['tokens']} | {r['tokens_per_kcycle']:.3f} | {r['latency_mean']:,.0f} | "
                   f"{r['latency_p50']:,.0f} | {r['peak_running']} | {r['preemptions']} | "
                   f"{r['recomputed']} |")
    return out


def main(argv=None):
    ap = cli.Parser(prog="tools.serve.lm_remedies", description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    ap.add_argument("--requests", type=cli.integer(1, 256), default=REQUESTS)
    a = ap.parse_args(argv)
    try:
        reqs = rq.poisson(a.requests, RATE, SEED, prompt_len=PROMPT, max_new=MAX_NEW)
        session = L.live(a.sim, a.mode) if a.sim != "model" else contextlib.nullcontext()
        rows, probs, t0 = [], [], time.time()
        with session as chip:
            for name in VARIANTS:
                t1 = time.time()
                r, p = measure(name, reqs, a.mode, chip)
                r["wall"] = round(time.time() - t1, 1)
                rows.append(r)
                probs += p
                print(f"{name}: {r['steps']} steps, {r['cycles']:,} cycles, {r['wall']} s", flush=True)
    except L.STOPS as e:
        return L.stopped(ap.prog, e)
    label = (f"the chip's counters ({a.sim}, live)" if a.sim != "model"
             else "cycle-exact model (the timing model's cycles)")
    os.makedirs(L.OUT, exist_ok=True)
    json.dump({"rows": rows, "problems": probs, "cycles": label, "mode": a.mode, "sim": a.sim,
               "requests": a.requests, "rate": RATE, "seed": SEED, "prompt_len": PROMPT,
               "max_new": MAX_NEW, "wall": round(time.time() - t0, 1)},
              open(os.path.join(L.OUT, f"serve_lm_remedies_{a.sim}_{a.mode}.json"), "w"), indent=1)
    print(f"{a.requests} Poisson requests at {RATE:g} per million cycles (seed {SEED}, prompts of "
          f"{PROMPT[0]}..{PROMPT[1]} characters, limits {MAX_NEW[0]}..{MAX_NEW[1]}), preempt+chunked, "
          f"every pool {rows[0]['pool_words']:,} words, {a.mode} mode; cycles: {label}; latency in cycles")
    for line in table(rows):
        print(line)
    print("PASS: every request's tokens equal to it decoded alone" if not probs
          else "FAIL\n" + "\n".join(probs[:20]))
    return 0 if not probs else 1


if __name__ == "__main__":
    from tb.cli import guard
    raise SystemExit(guard(main))
