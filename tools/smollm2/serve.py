"""`ga2 serve --model smollm2`: the language-model server's policies on SmolLM2-135M-Instruct
(docs/smollm2.md "Served").

The server is the toy's (tools/serve/lm_engine.Server: static, reserve and preempt
admission, whole or chunked prefill, continuous batching, preemption by recompute) with
SmolLM2's memory and steps: the weights at 0, a token area per request, and a paged KV
pool (tools/serve/wide_memory.py: blocks of BLOCK_TOKENS positions, every layer's and KV
head's K and V rows and scale words); each step is the step compiler's wide path
(wide.step_program) over the step's block tables (mem=WidePaged). A step's rows are the
server's (up to ROWS: prompt rows, one row of each decoding request, or both); the last
row of a request writes its next token (ARGMAX over all 49,152 entries on chip) to its
token area, where the next step reads it. A request ends at <|im_end|> (eos) or its limit.

  --sim model              every step on the cycle-exact Machine (every policy by default)
  --sim verilator|icarus   live on the circuit (tb.hw.Live, one simulator process): the
                           server decides each step from the chip's outcome (its tokens, its
                           counters), every step judged against the Machine first (the token
                           areas and KV pool read back, every write inside them), the chip's
                           bus held to the step's allowed set
Checked at the end: every request's tokens equal to it served alone by the integer
reference (tools/smollm2/int_ref.py, greedy, from the prompt), admissions in arrival
order, every step's cycles equal to the timing model. Exit 0 PASS, 1 FAIL, 2 bad input
(one line), 4 a simulator fault.
"""
import contextlib
import json
import os
import time

import numpy as np

from tb import ROOT, cli, hw
from tools.lm.compiler.wide import step_program
from tools.lm.compiler.wide_layout import PV_TILE
from tools.serve import lm_engine as E
from tools.serve import lm_run as L
from tools.serve import report as R
from tools.serve import requests as rq
from tools.serve import wide_memory as wm
from tools.smollm2 import chip as smol_chip
from tools.smollm2.generate import CYCLES_PER_S

CTX = 64              # a request's positions: prompt + generated tokens
ROWS = 4              # rows a step at most (the token budget; 8 rows take 153,266 instructions, past 2^17)
BLOCK_TOKENS = 4
BLOCKS = 6            # pool blocks: fewer than the four requests need at once (9), so the
                      # policies differ: reserve waits for blocks, preempt preempts
SLOTS = 4
PROMPTS = (("capital", "The capital of France is", 3), ("water", "Water boils at", 3),
           ("planet", "The largest planet is", 2), ("count", "One, two, three,", 2))
GAP = 100_000_000     # cycles before the default workload's last arrival (under a step)


def default_workload(gap=GAP):
    """Four requests: three at cycle 0, the fourth at `gap`."""
    return [rq.LMRequest(i, p, n, gap if k == len(PROMPTS) - 1 else 0)
            for k, (i, p, n) in enumerate(PROMPTS)]


class SmolServer(E.Server):
    """lm_engine.Server over SmolLM2's weights W (intweights.IntWeights) and tokenizer tok."""

    def __init__(self, W, reqs, tok, policy, prefill, n_blocks=BLOCKS, slots=SLOTS, rows=ROWS,
                 block_tokens=BLOCK_TOKENS, ctx=CTX, chip_cfg=None, garbage=1, chip=None):
        self.W, self.tok = W, tok
        super().__init__(W, reqs, encoder(tok), policy, prefill, n_blocks, slots=slots, rows=rows,
                         block_tokens=block_tokens, ctx=ctx,
                         chip_cfg=chip_cfg or smol_chip.full_chip(), garbage=garbage, chip=chip)

    def memory_map(self, n_blocks, block_tokens, ctx, rows, chip_cfg, remedies):
        return wm.WideMap(smol_chip.describe(self.W.config, ctx), len(self.reqs), n_blocks,
                          block_tokens, ctx, rows, chip_cfg)

    def stop_ids(self):
        return (self.tok.eos,)

    def compile(self, rows, tables, draft):
        prog = step_program(self.mm.lay, rows, mem=wm.WidePaged(self.mm, tables))
        if len(prog) > self.cfg.imem_depth:
            raise ValueError(f"a step of {len(prog)} instructions: the chip's instruction memory "
                             f"holds {self.cfg.imem_depth}")
        return prog, wm.allowed(self.mm, rows, tables)

    def image(self):
        ext = np.zeros(self.mm.ext_words, dtype=np.int64)
        w = self.mm.lay.image(self.W, [])
        ext[:w.size] = w
        for b, p in enumerate(self.prompt):
            ext[self.mm.token(b, 0):self.mm.token(b, 0) + len(p)] = p
        return ext


def encoder(tok):
    """The prompt text's ids (requests.ids's task for this model): ValueError if none."""
    def encode(text):
        ids = tok.encode(text)
        if not ids:
            raise ValueError("the prompt has no tokens")
        return ids
    return encode


def alone(W, prompts, reqs, eos):
    """Each request served alone: the integer reference's greedy tokens from its prompt."""
    from tools.smollm2 import int_ref
    ref = int_ref.IntRef(W, pv_tile=PV_TILE)        # the chip's tiles of the weighted sum of V
    return [ref.generate(p, q.max_new, eos=eos) for p, q in zip(prompts, reqs)]


def serve_all(W, tok, reqs, policies=L.ALL, chip_cfg=None, chip=None, log=None, **kw):
    """Every policy's Run (without its memory images: the whole model's are 1.3 GB each)
    and the problems found: on the Machine, or live on chip= (a tb.hw.Live session: the
    policies one after another in its simulator process)."""
    runs, probs, want = [], [], None
    for pol, pf in policies:
        t0 = time.time()
        srv = SmolServer(W, reqs, tok, pol, pf, chip_cfg=chip_cfg, chip=chip, **kw)
        if want is None:
            want = alone(W, srv.prompt, reqs, tok.eos)
        run = srv.run()
        probs += [f"{pol}/{pf}: {p}" for p in E.check_run(run, W, encoder(tok), want)]
        runs.append(run._replace(image=None, final=None))
        del srv, run
        if log:
            log(f"{pol}/{pf}: {len(runs[-1].steps)} steps, "
                f"{sum(st.cycles for st in runs[-1].steps):,} cycles, {time.time() - t0:.1f} s",
                flush=True)
    return runs, probs, want


def main(argv=None, prog="ga2 serve --model smollm2"):
    ap = cli.Parser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2", choices=("smollm2",))
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    ap.add_argument("--workload", default=None, type=cli.in_file,
                    help="a .json or .csv workload (id, prompt, max_new, arrival); default four requests")
    ap.add_argument("--requests", type=cli.integer(1, len(PROMPTS)), default=len(PROMPTS),
                    help="the first N of the default workload")
    ap.add_argument("--blocks", type=cli.integer(1, 4096), default=BLOCKS,
                    help=f"KV pool blocks (of {BLOCK_TOKENS} positions)")
    ap.add_argument("--slots", type=cli.integer(1, ROWS), default=SLOTS)
    ap.add_argument("--policies", default=None,
                    help="comma-separated policy[+chunked] names, or all (default: all on the "
                         "model, reserve+chunked live)")
    ap.add_argument("--json", default=None, help="the report's JSON (default out/serve_smollm2_<sim>_<mode>.json)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:                 # bad usage: the parser printed its one line
        return e.code
    try:
        pols = L.policies(a.policies or ("all" if a.sim == "model" else "reserve+chunked"))
        if a.sim != "model" and a.sim not in hw.available_sims():
            raise ValueError(f"simulator {a.sim} is not installed (make setup installs it)")
        from tools.smollm2 import gguf_model, intweights, tokenizer
        m = gguf_model.load()
        tok = tokenizer.load()
        enc = encoder(tok)
        reqs = (rq.load(a.workload, enc, CTX) if a.workload
                else rq.check(default_workload()[:a.requests], enc, CTX))
        cfg = smol_chip.full_chip(a.mode)
        mm = wm.WideMap(smol_chip.describe(m.config, CTX), len(reqs), a.blocks, BLOCK_TOKENS, CTX,
                        ROWS, cfg)
        for q in reqs:                  # the pool's refusal before the weights are prepared
            need = -(-(len(enc(q.prompt)) + q.max_new - 1) // BLOCK_TOKENS)
            if need > a.blocks:
                raise ValueError(f"request {q.id!r}: needs {need} blocks, the pool has {a.blocks}")
        W = intweights.prepare(m)
        print(f"SmolLM2-135M served, {a.sim} ({a.mode}): {len(reqs)} requests, {len(pols)} "
              f"{'policy' if len(pols) == 1 else 'policies'}, pool {a.blocks} blocks of "
              f"{BLOCK_TOKENS} positions, {a.slots} slots, {ROWS} rows a step; a step is about "
              f"135M cycles: about {135e6 / CYCLES_PER_S[a.sim] / 60:.1f} min a step (derived: "
              f"{CYCLES_PER_S[a.sim]:,.0f} cycles/s measured)", flush=True)
        t0 = time.time()
        session = (hw.Live(a.sim, cfg=cfg, max_cycles=1 << 30, window=(mm.tokens, mm.ext_words))
                   if a.sim != "model" else contextlib.nullcontext())
        with session as chip_:
            runs, probs, want = serve_all(W, tok, reqs, pols, chip_cfg=cfg, chip=chip_, log=print,
                                          n_blocks=a.blocks, slots=a.slots)
        label = ("the chip's counters (" + a.sim + ", live)" if a.sim != "model"
                 else "cycle-exact Machine (= the timing model's cycles)")
        ms = [R.metrics(r) for r in runs]
        for b, q in enumerate(reqs):
            print(f"  {q.id}: {q.prompt!r} -> {tok.decode(runs[0].tokens[b])!r}")
        for line in R.table(ms, label, a.mode):
            print(line)
        out = {"model": "smollm2", "sim": a.sim, "mode": a.mode, "requests": [q._asdict() for q in reqs],
               "tokens": [r.tokens for r in runs[:1]][0], "alone": want, "metrics": ms,
               "problems": probs, "wall": round(time.time() - t0, 1), "pass": not probs}
        if a.sim != "model":
            out["chip_cycles"] = sum(int(r.counters.cycles) for r in chip_.results)
            out["programs"] = len(chip_.results)
            print(f"{a.sim}, live: {out['programs']} step programs, {out['chip_cycles']:,} cycles, "
                  f"wall {out['wall']} s; every step judged against the Machine before the host "
                  "decided the next from the chip's outcome, bus inside its allowed set")
        path = a.json or os.path.join(ROOT, "out", f"serve_smollm2_{a.sim}_{a.mode}.json")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(out, f, indent=1, default=str)
        print("PASS: every request's tokens equal to it served alone by the integer reference"
              if not probs else "FAIL\n" + "\n".join(probs[:20]))
        return 0 if not probs else 1
    except L.STOPS as e:
        return L.stopped(ap.prog, e)

