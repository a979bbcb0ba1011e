"""SmolLM2's decode throughput against the batch (issue 38 item 6): `make smollm2-curve`.

python -m tools.smollm2.curve [--points B:T ...] [--modes inorder overlap] [--json PATH] [--png PATH]
                              [--sim model|verilator|icarus]

Per point (B sequences, each at position T: its cache holding T rows, the step attending
T + 1) and timing mode: the whole model's decode step compiled by the wide path
(tools/lm/compiler/wide.py; a layout of ctx = T + 2, every row writing its next token),
its cycles from the cycle-exact timing model (model/timing.schedule: a function of the
program alone, so no weights are needed; sim "model"), and its roofline bound, the toy's
definitions (tools/lm/sweep.py, docs/lm.md): the program's words moved at one a cycle
(cfg.dma_words_per_cycle: the memory roof), its MACs at 16 a cycle (cfg.peak_macs: the
array's roof), the vector unit's busy cycles; bound = the largest, its unit the binding
one. tokens per 1,000 cycles = 1000 B / cycles. Each point also keeps the unit counters
(dma, mm, vec busy cycles) and the instructions; an overlap point of the timing model also
its binding unit's idle cycles by cause (model/stalls.py: "idle_unit" and "idle", printed
after the table and drawn in the figure's second panel).

The goals (issue 38): B = 1 at 95% of the memory ceiling or better (words / cycles), every
point at 90% of its bound or better (bound / cycles), and the B = 16 / B = 1 throughput
ratio at T = 256 within 10% of the roofline's (the ratio of the bounds' throughputs);
goals() measures them. A point the chip cannot hold (its external memory, 2^29 words,
holds the weights and B x ctx cache rows; its instruction memory, 2^21 - 1 words, the step)
is skipped and said so.

Writes out/smollm2_curve.json ({"points": [{"B", "T", "mode", "sim", "cycles",
"bound_cycles", "tokens_per_kcycle", ...}], "skipped": [...], "goals": {...}}) and the
figure out/smollm2_curve.png; prints the table. With --sim verilator (or icarus) each point's
step runs on the simulated RTL (on_sim: the real weights, judged against the Machine, its
cycles held to the timing model's) into out/smollm2_curve_<sim>.json and .png.
"""
import argparse
import json
import sys
import time

from model import config, isa, stalls, timing
from tb import ROOT, cli
from tools.lm.compiler.wide import Row, step_program
from tools.lm.compiler.wide_layout import WideLayout

OUT = ROOT / "out"
POINTS = ((1, 256), (2, 256), (4, 256), (8, 256), (16, 256), (1, 1024), (8, 1024), (16, 1024))
MODES = ("inorder", "overlap")
GOAL_B1 = 0.95            # B = 1: of the memory ceiling
GOAL_POINT = 0.90         # every point: of its bound
GOAL_RATIO = 0.10         # B = 16 / B = 1 within 10% of the roofline's ratio


def chip(mode):
    """The whole model's chip (tools/smollm2/chip.full_chip) with the largest external
    memory its addresses reach (2^29 words: the batches' caches beside the weights) and
    the deepest instruction memory (a B = 16 step at T = 1,024 is 1,202,620 instructions)."""
    from tools.smollm2.chip import full_chip
    return full_chip(mode, imem_depth=config.IMEM_MAX, ext_words=config.Config().ext_max)


def layout(desc, B, T, cfg):
    """The WideLayout of B sequences at position T (ctx = T + 2: the row's next token at
    T + 1); ValueError when the chip cannot hold it."""
    return WideLayout(desc, B, T + 2, cfg)


class NotHeld(ValueError):
    """The chip cannot hold a point's step program (its instruction memory): the point is
    skipped and said so, as one its memory cannot hold."""


def _held(prog, cfg, B, T):
    if len(prog) > cfg.imem_depth:
        raise NotHeld(f"B = {B}, T = {T}: its step is {len(prog):,} instructions, past the chip's "
                      f"{cfg.imem_depth:,} (the pc is {config.PC_W} bits)")
    return prog


def bound(words, macs, vec, cfg):
    """(bound cycles, binding unit): the roofline's three ceilings, the largest."""
    return max((words / cfg.dma_words_per_cycle, "dma"), (macs / cfg.peak_macs, "mm"), (vec, "vec"))


def measure(desc, B, T, mode):
    """One point: the step's program scheduled; a dict of the JSON's fields."""
    cfg = chip(mode)
    t0 = time.perf_counter()
    lay = layout(desc, B, T, cfg)
    prog = _held(step_program(lay, [Row(b, T, True) for b in range(B)]), cfg, B, T)
    c = timing.schedule(prog, cfg).counters
    words, macs = isa.program_words(prog), isa.program_macs(prog)
    bc, unit = bound(words, macs, c.vec, cfg)
    idle = dict(idle_unit=unit, idle=stalls.idle(prog, cfg, unit)) if mode == "overlap" else {}
    return dict(B=B, T=T, mode=mode, sim="model", cycles=c.cycles, bound_cycles=bc,
                binding=unit, of_bound=bc / c.cycles, tokens_per_kcycle=1000 * B / c.cycles,
                bound_tokens_per_kcycle=1000 * B / bc, of_memory=words / c.cycles, words=words,
                macs=macs, dma=c.dma, mm=c.mm, vec=c.vec, instructions=len(prog),
                seconds=round(time.perf_counter() - t0, 1), **idle)


def on_sim(W, desc, B, T, mode, sim):
    """One point run on a simulated RTL (sim "verilator" or "icarus"): the same step with
    the real weights W and every cache row zero (timing is the program's alone), in the
    smallest whole-model chip that holds it (chip.full_chip: 2^17 instructions and 180 x
    2^20 external words when they suffice: one Verilator build for the points that fit;
    past them the step's external words rounded up to 2^20, not the 2^29 the addresses
    reach: the image file and the simulator's memory are 4 bytes a word),
    judged against the Machine (hw: memory in the read-back window of the token areas and
    caches, counters, trace); the chip's counters, and its cycles held to the timing model's."""
    from tb import hw
    from tools.smollm2.chip import FULL_EXT, full_chip
    big = chip(mode)
    lay = layout(desc, B, T, big)
    prog = _held(step_program(lay, [Row(b, T, True) for b in range(B)]), big, B, T)
    cfg = full_chip(mode, imem_depth=(1 << 17) if len(prog) <= 1 << 17 else big.imem_depth,
                    ext_words=FULL_EXT if lay.ext_words <= FULL_EXT else
                    min(big.ext_words, -(-lay.ext_words >> 20) << 20))
    t0 = time.perf_counter()
    image = lay.image(W, [[198] * (T + 1)] * B)           # the token at T: " the" (any id)
    r = hw.run_programs(sim, [hw.Item(prog, image)], cfg=cfg, window=(lay.tokens, lay.ext_words))[0]
    if not r.ok:
        raise RuntimeError(f"B = {B}, T = {T}, {mode} on {sim}: {r.mismatch or r.error}")
    c = r.counters
    want = timing.schedule(prog, cfg).cycles
    if int(c.cycles) != want:
        raise RuntimeError(f"B = {B}, T = {T}, {mode} on {sim}: {c.cycles} cycles, the timing model {want}")
    words, macs = isa.program_words(prog), isa.program_macs(prog)
    bc, unit = bound(words, macs, int(c.vec), cfg)
    cyc = int(c.cycles)
    return dict(B=B, T=T, mode=mode, sim=sim, cycles=cyc, bound_cycles=bc, binding=unit,
                of_bound=bc / cyc, tokens_per_kcycle=1000 * B / cyc, bound_tokens_per_kcycle=1000 * B / bc,
                of_memory=words / cyc, words=words, macs=macs, dma=int(c.dma), mm=int(c.mm),
                vec=int(c.vec), instructions=len(prog), seconds=round(time.perf_counter() - t0, 1))


def goals(points):
    """The issue's three goals measured on points (those present), per timing mode: a
    dict mode -> goal -> {goal, measured, met, ...}."""
    out = {}
    for mode in MODES:
        pts = [p for p in points if p["mode"] == mode]
        if not pts:
            continue
        g = out[mode] = {}
        at = {(p["B"], p["T"]): p for p in pts}
        b1 = [p for p in pts if p["B"] == 1]
        if b1:
            worst = min(b1, key=lambda p: p["of_memory"])
            g["b1_memory"] = dict(goal=GOAL_B1, measured=worst["of_memory"], at_T=worst["T"],
                                  met=worst["of_memory"] >= GOAL_B1)
        worst = min(pts, key=lambda p: p["of_bound"])
        g["every_point"] = dict(goal=GOAL_POINT, measured=worst["of_bound"], at=[worst["B"], worst["T"]],
                                below=[[p["B"], p["T"]] for p in pts if p["of_bound"] < GOAL_POINT],
                                met=worst["of_bound"] >= GOAL_POINT)
        for T in sorted({T for _, T in at}):
            if (1, T) in at and (16, T) in at:
                one, six = at[(1, T)], at[(16, T)]
                got = six["tokens_per_kcycle"] / one["tokens_per_kcycle"]
                roof = six["bound_tokens_per_kcycle"] / one["bound_tokens_per_kcycle"]
                g[f"ratio_T{T}"] = dict(goal=GOAL_RATIO, measured=got, roofline=roof,
                                        of_roofline=got / roof, met=abs(got / roof - 1) <= GOAL_RATIO)
    return out


def table(points):
    head = (f"{'B':>3} {'T':>5} {'mode':<8} {'cycles':>12} {'bound':>12} {'unit':>4} {'of bnd':>6} "
            f"{'of mem':>6} {'tok/kcyc':>9} {'dma':>12} {'mm':>12} {'vec':>11} {'instr':>7}")
    out = [head]
    for p in points:
        out.append(f"{p['B']:>3} {p['T']:>5} {p['mode']:<8} {p['cycles']:>12,} {p['bound_cycles']:>12,.0f} "
                   f"{p['binding']:>4} {100 * p['of_bound']:>5.1f}% {100 * p['of_memory']:>5.1f}% "
                   f"{p['tokens_per_kcycle']:>9.3e} {p['dma']:>12,} {p['mm']:>12,} {p['vec']:>11,} "
                   f"{p['instructions']:>7,}")
    sims = sorted({p["sim"] for p in points})
    out.append(f"cycles, dma, mm, vec: {', '.join(sims)} (model: the cycle-exact timing model; a "
               "simulator: the chip's counters); bound: max(words / 1 a cycle, MACs / 16 a cycle, vec "
               "busy); of mem: words / cycles")
    return "\n".join(out)


def idle_line(p):
    """An overlap point's binding unit's idle cycles by cause (model/stalls.py)."""
    return (f"B = {p['B']}, T = {p['T']}, overlap: its binding unit ({p['idle_unit']}) idles (the timing model's "
            f"schedule) " + stalls.describe(p["idle"]))


def figure(points, path):
    """The throughput against B (both modes, the roofline bound beside); with overlap points
    of the timing model, a second panel: each one's cycles above its bound, as the binding
    unit's idle cycles grouped by what held it (model/stalls.by_unit)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    idle = [p for p in points if "idle" in p]
    fig, axes = plt.subplots(1, 2 if idle else 1, figsize=(12.0 if idle else 6.4, 4.4), squeeze=False)
    ax = axes[0][0]
    for k, T in enumerate(sorted({p["T"] for p in points})):
        for mode, ls in (("inorder", "--"), ("overlap", "-")):
            pts = sorted((p["B"], p["tokens_per_kcycle"]) for p in points if p["T"] == T and p["mode"] == mode)
            if pts:
                ax.plot(*zip(*pts), ls, marker="o", color=f"C{k}", label=f"T = {T:,}, {mode}")
        roof = sorted({(p["B"], p["bound_tokens_per_kcycle"]) for p in points if p["T"] == T})
        if roof:
            ax.plot(*zip(*roof), ":", marker="x", color=f"C{k}", alpha=0.7, label=f"T = {T:,}, roofline bound")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch B (sequences per decode step)")
    ax.set_ylabel("generated tokens per 1,000 cycles")
    ax.set_title("SmolLM2-135M decoding on GA-2 (timing model)")
    ax.grid(alpha=0.3, which="both")
    if points:                                     # none: every point skipped
        ax.legend(fontsize=7)
    if idle:
        ax = axes[0][1]
        labels = [f"B = {p['B']}, T = {p['T']:,}" for p in idle]
        left = [0.0] * len(idle)
        for k, g in enumerate(stalls.GROUPS):
            share = [100 * stalls.by_unit(p["idle"])[g] / p["cycles"] for p in idle]
            ax.barh(labels, share, left=left, color=f"C{k}", label=IDLE_TEXT[g])
            left = [a + b for a, b in zip(left, share)]
        ax.set_xlabel("% of the step's cycles the binding unit idles (overlap)")
        ax.set_title("where the binding unit idles, by what held it")
        ax.invert_yaxis()
        ax.grid(alpha=0.3, axis="x")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


IDLE_TEXT = {"issue": "FETCH and DECODE cycles", "dma": "waiting on the DMA", "mm": "waiting on the array",
             "vec": "waiting on the vector unit", "end": "after its last instruction"}


def _point(text):
    b, sep, t = str(text).partition(":")
    try:
        B, T = int(b), int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a point is B:T (integers)") from None
    if not sep or B < 1 or T < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a point is B:T with B, T >= 1")
    return B, T


def main(argv=None):
    from tools.smollm2 import gguf_model
    from tools.smollm2.chip import describe
    ap = cli.Parser(prog="tools.smollm2.curve", description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=_point, nargs="+", default=list(POINTS), metavar="B:T")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--json", type=cli.out_file(), default=None, help="default out/smollm2_curve[_SIM].json")
    ap.add_argument("--png", type=cli.out_file(), default=None, help="default out/smollm2_curve[_SIM].png")
    ap.add_argument("--sim", default="model", choices=("model", "verilator", "icarus"),
                    help="model: the timing model (default); a simulator runs each step on the RTL "
                         "with the real weights, judged against the Machine")
    a = ap.parse_args(argv)
    tail = "" if a.sim == "model" else f"_{a.sim}"
    a.json = a.json or str(OUT / f"smollm2_curve{tail}.json")
    a.png = a.png or str(OUT / f"smollm2_curve{tail}.png")
    shape = gguf_model.SHAPES
    desc = describe(shape, shape.ctx)
    try:
        for B, T in a.points:
            if T + 2 > shape.ctx:
                raise ValueError(f"--points {B}:{T}: T + 2 positions beyond the context of {shape.ctx}")
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    W = None
    if a.sim != "model":
        from tb import hw
        from tools.smollm2 import intweights
        if a.sim not in hw.available_sims():
            return cli.refuse(ap.prog, ValueError(f"simulator {a.sim} is not installed (make setup installs it)"))
        W = intweights.prepare(gguf_model.load())
    points, skipped = [], []
    for B, T in a.points:
        try:
            layout(desc, B, T, chip("overlap"))
        except ValueError as e:
            skipped.append(dict(B=B, T=T, why=str(e)))
            print(f"skipped B = {B}, T = {T}: {e}", flush=True)
            continue
        for mode in a.modes:
            try:
                p = measure(desc, B, T, mode) if W is None else on_sim(W, desc, B, T, mode, a.sim)
            except NotHeld as e:
                skipped.append(dict(B=B, T=T, mode=mode, why=str(e)))
                print(f"skipped B = {B}, T = {T}, {mode}: {e}", flush=True)
                continue
            points.append(p)
            print(f"B = {B:>2}, T = {T:>4}, {mode:<7}: {p['cycles']:>12,} cycles, {100 * p['of_bound']:.1f}% "
                  f"of its bound ({p['binding']}), {p['tokens_per_kcycle']:.3e} tokens / 1,000 cycles "
                  f"[{p['seconds']:.0f} s]", flush=True)
    print(table(points))
    for p in points:
        if "idle" in p:
            print(idle_line(p))
    g = goals(points)
    for mode, gm in g.items():
        for name, v in gm.items():
            print(f"goal {mode} {name}: {'met' if v['met'] else 'NOT met'}: "
                  + ", ".join(f"{k} {v[k]:.4f}" if isinstance(v[k], float) else f"{k} {v[k]}"
                              for k in v if k != "met"))
    from pathlib import Path
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(dict(points=points, skipped=skipped, goals=g), indent=1) + "\n")
    figure(points, a.png)
    print(f"wrote {a.json}, {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.guard(main))
