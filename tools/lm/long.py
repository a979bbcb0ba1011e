"""Long contexts by tiles, held to the integer reference: `python -m tools.lm.long --ctx 256 --batch 16`.

One decode step at position T - 1 of B sequences of T tokens of held-out text (sequence b
starts at character 1000 b), the cache of positions 0 .. T - 2 prefilled by the host from
the integer reference (tools/lm/remedies_ref.py: what a prefill would have written, so a
long context costs one step, not T), run on the reference chip and, with --sim, on a
simulator (judged against the reference chip by tb.hw, cycle for cycle). PASS when every
sequence's next token and the K and V rows the step writes equal the reference's.
The attention streams the cache in tiles (tools/lm/compiler's tiled plan; --tile, default automatic)
with one softmax over the whole context (SM up to 1,024 scores); beyond the model's 64 or
256 learned positions the last position's embedding is used (docs/lm.md "Remedies").
"""
import sys
import time

import numpy as np

from model.machine import Machine
from tb import cli
from tools.lm import compiler as C
from tools.lm import data
from tools.lm import generation as G
from tools.lm import remedies_ref as REF
from tools.lm.generate import load_model


def case(net, rem, B, T, mode="overlap", cfg=None):
    """(gen, image with the cache prefilled, the last step's program, the reference's
    next tokens and rows at T - 1); cfg: the chip (default: generation.generation's)."""
    ids = data.text_split()[1]
    prompts = [[int(t) for t in ids[1000 * b:1000 * b + T]] for b in range(B)]
    gen = G.generation(net, prompts, 1, rem, mode) if cfg is None else \
        G.Generation(net, prompts, 1, remedies=rem, chip=cfg)
    ext = gen.image()
    want = []
    for b, p in enumerate(prompts):
        lg, kv = REF.forward(net, np.array([p]), rem.window, rem.sinks)
        held = [u for u in gen.layout.attended(T - 1) if u < T - 1]
        for i in range(net.cfg.layers):
            for kind in (0, 1):
                G.write_cache(gen, ext, i, kind, b, held, kv[i][kind][0][held])
        want.append((int(np.argmax(lg[0, -1])), [(kv[i][0][0][T - 1], kv[i][1][0][T - 1])
                                                  for i in range(net.cfg.layers)]))
    return gen, ext, C.step_program(net, gen.layout, gen.steps[-1]), want


def judge(gen, ext, want):
    """The problems: a sequence's next token or a written row differing from the reference."""
    bad = []
    lay, T = gen.layout, len(gen.prompts[0])
    for b, (tok, rows) in enumerate(want):
        got = gen.tokens(ext)[b][0]
        if got != tok:
            bad.append(f"sequence {b}: token {got}, the reference's {tok}")
        for i, kr in enumerate(rows):
            for kind in (0, 1):
                a = lay.kv(i, kind, b) + lay.desc.slot(T - 1) * lay.row_words
                w = np.asarray(ext[a:a + lay.row_words], dtype=np.int64)
                vals = G.unpack4(w) if lay.desc.kv_bits == 4 else w
                if not np.array_equal(vals, kr[kind]):
                    bad.append(f"sequence {b}: layer {i} {'KV'[kind]} row {T - 1} differs")
    return bad


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.long", description=__doc__.splitlines()[0])
    ap.add_argument("--ctx", type=cli.integer(2, C.SM_MAX), nargs="+", default=[256])
    ap.add_argument("--batch", type=cli.integer(1, 16), nargs="+", default=[1])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    ap.add_argument("--tile", type=cli.integer(0, C.MAX_TILE), default=0)
    ap.add_argument("--kv-bits", type=int, choices=(4, 8), default=8)
    ap.add_argument("--kv-heads", type=cli.integer(1, 2), default=0)
    ap.add_argument("--window", type=cli.integer(0, C.SM_MAX), default=0)
    ap.add_argument("--sinks", type=cli.integer(0, C.SM_MAX - 1), default=0)
    a = ap.parse_args(argv)
    try:
        rem = C.Remedies(kv_bits=a.kv_bits, window=a.window, sinks=a.sinks, tile=a.tile)
        models = {T: load_model("text", kv_heads=a.kv_heads, kv_bits=a.kv_bits, ctx=T)
                  for T in a.ctx}
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    fails = 0
    for T in a.ctx:
        for B in a.batch:
            t0 = time.time()
            try:
                gen, ext, prog, want = case(models[T], rem, B, T, a.mode)
            except ValueError as e:
                return cli.refuse(ap.prog, f"--ctx {T} --batch {B}: {e}")
            r = Machine(gen.layout.chip).run(prog, ext)
            bad, cyc, src = judge(gen, r.ext, want), r.counters.cycles, "model"
            if a.sim != "model":
                from tb import hw
                (h,) = hw.run_programs(a.sim, [(prog, ext)], cfg=gen.layout.chip)
                src = a.sim
                if not h.ok:
                    bad.append(f"{a.sim} differs from the reference chip: {h.mismatch}")
                else:
                    bad += judge(gen, h.ext, want)
                    cyc = h.counters.cycles
            fails += bool(bad)
            for p in bad:
                print(f"PROBLEM T {T} B {B}: {p}")
            print(f"{'PASS' if not bad else 'FAIL'} T {T:>4} B {B:>2} tile {gen.layout.tile:>3} "
                  f"({len(prog)} instructions): {cyc} cycles ({src}), {time.time() - t0:.0f} s wall",
                  flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
