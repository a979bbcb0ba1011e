"""The compiled step programs checked on the reference chip: the oracle of tools/lm/mutants.py.

python -m tools.lm.check [--quick] [--first]

Runs generations on the reference Machine (model/machine.py), the scratchpad filled with
garbage before every step, in both timing modes: a ragged text batch (different prompt
lengths and start steps, so one step holds rows at different positions) and a batch of
eight addition problems; and (not --quick) sixteen addition problems in the overlap mode,
whose steps are pipelined. Every generated id and every cached K and V row is held to the
integer reference (tools/lm/int8.py, written from the spec); each step's weight tiles are
loaded exactly once (the output head's only when a row generates); and the overlap-mode
steps of four rows and the sixteen-row step at position 7 take at most 1/0.9 of their
busiest unit's cycles (the weights stream under the products; the pipelined step keeps
the matrix unit busy). Prints one PROBLEM line per failure; exit 1 if any. --first stops
after the first part (timing, generations, remedies: cheapest first) that has a problem.
"""
import sys

import numpy as np

from model import timing
from model.machine import GA2Error, Machine
from tb import cli
from tools.lm import compiler as C
from tools.lm import data
from tools.lm import generation as G
from tools.lm.generate import load_model, reference


def run_on_machine(g, cfg, seed=0):
    """Every step program of the generation g on one reference Machine of cfg, its
    scratchpad seeded garbage before each (a load a step forgot cannot be covered): the
    final external memory."""
    rng = np.random.default_rng(seed)
    m = Machine(cfg)
    ext = g.image()
    for prog in g.programs():
        m.sp[:] = rng.integers(-2 ** 31, 2 ** 31, size=m.sp.size)
        ext = m.run(prog, ext).ext
    return ext


def remedy_problems(quick=False):
    """The PROBLEM lines of the compiler's remedies (its tiled plan): generations with
    each remedy on the reference chip, garbage scratchpad, every id and every row the
    cache holds at the end against tools/lm/remedies_ref.py."""
    from tools.lm import remedies_ref as REF
    out = []

    def enc(w):
        return [int(t) for t in data.encode(w)]
    cases = [("GQA addition", load_model("add", kv_heads=1), C.Remedies(),
              [data.add_problem(a, b)[:4] for a, b in ((12, 34), (99, 99))], 3),
             ("4-bit cache", load_model("text", kv_bits=4), C.Remedies(kv_bits=4),
              [enc("The "), enc("x")], 5),
             ("window 8, 2 sinks", load_model("text"), C.Remedies(window=8, sinks=2),
              [enc("The "), enc("def ")], 10),
             ("tiles of 4", load_model("text"), C.Remedies(tile=4), [enc("A list is ")], 4),
             ("all, GQA", load_model("text", kv_heads=1, kv_bits=4),
              C.Remedies(kv_bits=4, window=6, sinks=1, tile=4), [enc("for "), enc("x")], 8),
             ("context 70 (positions past 64, tiles of 64)", load_model("text"), C.Remedies(),
              [enc("ab" * 33)], 4)]
    if not quick:          # past 64K words of external memory: xhi
        cases.append(("16 x 40 (xhi)", load_model("text"), C.Remedies(),
                      [enc("The ")] + [[1] * 36] * 15, 4))
    for name, model, rem, prompts, n in cases:
        for mode in ("overlap",) if quick else ("inorder", "overlap"):
            g = G.generation(model, prompts, n, rem, mode, start=[k % 2 for k in range(len(prompts))])
            try:
                ext = run_on_machine(g, g.layout.chip, seed=len(prompts))
            except GA2Error as e:          # a fault of the chip: the program is wrong
                out.append(f"remedy {name} {mode}: the chip faulted: {e}")
                continue
            toks = g.tokens(ext)
            for b, p in enumerate(g.prompts):
                want, kv = REF.decode(model, p, g.new[b], rem.window, rem.sinks)
                tag = f"remedy {name} {mode} sequence {b}"
                if toks[b] != want:
                    out.append(f"{tag}: tokens {toks[b]}, the reference's {want}")
                for i in range(model.cfg.layers):
                    for kind in (0, 1):
                        pos, words, vals = G.cache_rows(g, ext, i, kind, b)
                        if not np.array_equal(vals, kv[i][kind][pos]) or (
                                rem.kv_bits == 4 and not np.array_equal(
                                    words, REF.pack4(kv[i][kind][pos]))):
                            out.append(f"{tag}: layer {i} {'KV'[kind]} cache differs")
    return out


def problems(quick=False, first=False):
    """The PROBLEM lines (an empty list when everything holds). first: stop after the
    first part that has one (a mutant needs only to be caught: tools/lm/mutants.py). The
    parts run cheapest first: the overlap steps' timing, the generations of the whole plan,
    then the remedies (the tiled plan); without a problem every part runs, so what holds is the same."""
    out = []
    for part in (_timing_problems, _generation_problems, remedy_problems):
        out += part(quick)
        if first and out:
            break
    return out


def _generation_problems(quick):
    """The generations of the whole plan (the unmodified model) on the reference chip in
    both timing modes: every id and every cached row against the integer reference, each
    weight tile loaded once a step."""
    out = []
    text, add = load_model("text"), load_model("add")
    words = ["The ", "def ", "A list is ", "x"] if quick else \
        ["The ", "def ", "A list is ", "x", "class ", "for ", "Exceptions "]
    probs = [(3, 4), (99, 99), (50, 50), (12, 88)] + ([] if quick else
                                                       [(7, 93), (0, 0), (45, 67), (81, 19)])
    cases = [("text", text, [[int(t) for t in data.encode(w)] for w in words], 4,
              [k % 3 for k in range(len(words))]),
             ("add", add, [data.add_problem(a, b)[:4] for a, b in probs], 3, None)]
    sixteen = ("add, sixteen", add, [data.add_problem(a, (a * 37 + 11) % 100)[:4]
                                     for a in range(0, 96, 6)], 3, None)
    for mode_cfg in (C.LM_CHIP, C.LM_CHIP_OVERLAP):
        # sixteen rows: six tile buffers, the overlap steps pipelined (step_program)
        for name, model, prompts, n, start in cases + ([sixteen] if not quick and
                                                       mode_cfg.mode == "overlap" else []):
            g = G.Generation(model, prompts, n, start=start, chip=mode_cfg)
            ext = run_on_machine(g, mode_cfg, seed=len(prompts))
            ref = reference(model, g)
            toks = g.tokens(ext)
            for b, (want, kv) in enumerate(ref):
                tag = f"{name} {mode_cfg.mode} sequence {b}"
                if toks[b] != want:
                    out.append(f"{tag}: tokens {toks[b]}, the reference's {want}")
                for i in range(model.cfg.layers):
                    for kind in (0, 1):
                        if not np.array_equal(g.cache(ext, i, kind, b), kv[i][kind][0]):
                            out.append(f"{tag}: layer {i} {'KV'[kind]} cache differs")
            for k, prog in enumerate(g.programs()):
                tiles = sorted(i.src for i in prog if i.op == "LD" and i.src < g.layout.weight_words
                               and i.len > model.cfg.d)
                head = any(r.write for r in g.steps[k])      # the output head: if a row writes
                want = sorted(g.layout.w[nm] for nm, _, _ in C.matrices(g.desc)
                              if nm not in ("wte", "wpe") and (head or not nm.startswith("wout")))
                if tiles != want:
                    out.append(f"{name} {mode_cfg.mode} step {k}: weight tiles loaded "
                               f"{len(tiles)} times, not each once ({len(want)})")
    return out


def _timing_problems(quick):
    """The overlap steps that must stream: B = 4 and B = 16 at position 7 within 1/0.9 of
    their busiest unit's cycles (the timing model's schedule of the step programs; the
    same with and without quick)."""
    out = []
    text = load_model("text")
    g = G.Generation(text, [[1] * 7] * 4, 1, chip=C.LM_CHIP_OVERLAP)
    c = timing.schedule(C.step_program(text, g.layout, g.steps[-1]), C.LM_CHIP_OVERLAP).counters
    if max(c.dma, c.mm, c.vec) < 0.9 * c.cycles:
        out.append(f"overlap B = 4 step at position 7: {c.cycles} cycles, under 90% of its "
                   f"busiest unit ({max(c.dma, c.mm, c.vec)})")
    # the step bound by the matrix unit (B = 16 at position 7: docs/lm.md's sweep)
    g = G.Generation(text, [[1] * 7] * 16, 1, chip=C.LM_CHIP_OVERLAP)
    c = timing.schedule(C.step_program(text, g.layout, g.steps[-1]), C.LM_CHIP_OVERLAP).counters
    if max(c.dma, c.mm, c.vec) < 0.9 * c.cycles:
        out.append(f"overlap B = 16 step at position 7: {c.cycles} cycles, under 90% of its "
                   f"busiest unit ({max(c.dma, c.mm, c.vec)})")
    return out


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.check", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer prompts")
    ap.add_argument("--first", action="store_true",
                    help="stop at the first part with a problem (a mutant needs only to be caught)")
    a = ap.parse_args(argv)
    bad = problems(a.quick, a.first)
    for p in bad:
        print(f"PROBLEM: {p}")
    print(f"{'FAIL' if bad else 'OK'}: {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
