"""The model's decode throughput against the batch, measured on the chip's counters.

python -m tools.lm.sweep [--sim model|icarus|verilator|both] [--ctx 8 16] [--batch 1 2 4 8 16 32]

For each context T, batch B and timing mode: one decode step of B rows at position T - 1
(the step that reads T cached rows per sequence and layer), run on the chosen simulators
(each judged against the reference Machine by tb.hw: counters, trace and memory) and on
the reference. Printed per step: the chip's cycles and unit counters, words moved and MACs
(from the program: isa.program_words / program_macs), the intensity (MACs per word), the
tokens per 1,000 cycles (B tokens a step), the share of the KV cache in the words moved,
and the step against its ceiling: the busiest unit's cycles (DMA: the memory roof; MM:
the array; vec: the vector unit) over the step's cycles; after the table, for each
overlap step, where its binding unit idles (model/stalls.py, the timing model's schedule). A batch that does not fit the
chip (its external memory holds the weights and B x T KV rows) is skipped and said so.

Writes out/lm_sweep.json and the figures out/lm_throughput.png (tokens per 1,000 cycles
against B) and out/lm_roofline.png (MACs per cycle against intensity, on the roofline).
"""
import json
import sys

import numpy as np

from model import isa, stalls
from model.machine import Machine
from tb import ROOT, cli
from tb.hw import ToolFault
from tools.flow.clock import clock  # GA-2's measured clock (make fpga: docs/fpga.md)
from tools.lm import compiler as C
from tools.lm.generate import load_model
from tools.lm.generation import Generation

OUT = ROOT / "out"
CTX = (8, 16)
BATCH = (1, 2, 4, 8, 16)     # 32 fits at no context of CTX (docs/lm.md)


def step(model, B, T, cfg):
    """(Layout, program) of one step of B rows at position T - 1."""
    g = Generation(model, [[0] * (T - 1)] * B, 1, chip=cfg)
    return g, C.step_program(model, g.layout, g.steps[-1])


def measure(model, B, T, cfg, sims):
    """One row of the table: the reference's counters and each simulator's."""
    g, prog = step(model, B, T, cfg)
    image = g.image()
    ref = Machine(cfg).run(prog, image)
    words, macs = isa.program_words(prog), isa.program_macs(prog)
    kv0 = g.layout.kv0                 # the KV cache: every external address from kv0 up
    kv_words = sum(i.len for i in prog if (i.op == "LD" and i.src >= kv0)
                   or (i.op == "ST" and i.dst >= kv0))
    row = dict(B=B, T=T, mode=cfg.mode, instructions=len(prog), words=words, macs=macs,
               kv_words=kv_words, intensity=macs / words, sims={})
    c = ref.counters
    row["reference"] = c._asdict()
    for sim in sims:
        from tb import hw
        (r,) = hw.run_programs(sim, [(prog, image)], cfg=cfg)
        row["sims"][sim] = dict(r.counters._asdict(), ok=bool(r.ok), mismatch=r.mismatch)
    if sims:                           # the table's figures: the first simulator's counters
        first = row["sims"][sims[0]]
        c = type(c)(*(first[f] for f in c._fields))
    row["counters"] = dict(c._asdict(), source=sims[0] if sims else "model")
    cyc = c.cycles
    row.update(cycles=cyc, tok_per_kcycle=1000 * B / cyc,
               bound=max(("dma", c.dma), ("mm", c.mm), ("vec", c.vec), key=lambda x: x[1])[0],
               of_ceiling=max(c.dma, c.mm, c.vec) / cyc, of_memory=c.dma / cyc,
               macs_per_cycle=macs / cyc,
               tok_per_s_derived=B * clock(cfg.mode, "lm").mhz * 1e6 / cyc,
               clock_build=clock(cfg.mode, "lm").build)
    if cfg.mode == "overlap":          # where the binding unit idles (the timing model's schedule)
        row.update(idle_unit=row["bound"], idle=stalls.idle(prog, cfg, row["bound"]))
    return row


def table(rows):
    head = (f"{'T':>3} {'B':>3} {'mode':<8} {'cycles':>8} {'dma':>7} {'mm':>7} {'vec':>7} "
            f"{'words':>7} {'KV %':>5} {'MACs':>8} {'MAC/w':>6} {'tok/kcyc':>8} {'bound':>5} "
            f"{'ceil %':>6} {'tok/s*':>7}")
    out = [head]
    for r in rows:
        c = r["counters"]
        out.append(f"{r['T']:>3} {r['B']:>3} {r['mode']:<8} {c['cycles']:>8} {c['dma']:>7} "
                   f"{c['mm']:>7} {c['vec']:>7} {r['words']:>7} "
                   f"{100 * r['kv_words'] / r['words']:>5.1f} {r['macs']:>8} "
                   f"{r['intensity']:>6.2f} {r['tok_per_kcycle']:>8.3f} {r['bound']:>5} "
                   f"{100 * r['of_ceiling']:>6.1f} {r['tok_per_s_derived']:>7.0f}")
    src = sorted({r["counters"]["source"] for r in rows})
    out.append(f"cycles, dma, mm, vec: the counters of {', '.join(src)}"
               + (" (the reference chip: run with --sim for the circuit's)" if src == ["model"] else "")
               + "; words, MACs: the program's fields")
    for mode in sorted({r["mode"] for r in rows}):
        out.append(f"* {mode} rows: tokens per second derived at {clock(mode, 'lm').label}")
    return "\n".join(out)


def figures(rows, path_tp, path_rf):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for T in sorted({r["T"] for r in rows}):
        for mode, ls in (("inorder", "--"), ("overlap", "-")):
            pts = [(r["B"], r["tok_per_kcycle"]) for r in rows if r["T"] == T and r["mode"] == mode]
            if pts:
                ax.plot(*zip(*pts), ls, marker="o", label=f"T = {T}, {mode}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch B (sequences per step)")
    ax.set_ylabel("generated tokens per 1,000 cycles")
    ax.set_title("GA-2 decoding the text model: throughput against batch (counters)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path_tp, dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    x = np.logspace(-1, 2, 200)
    ax.plot(x, np.minimum(16, x), "k-", lw=1, label="roofline: min(16 MAC/cycle, 1 word/cycle x I)")
    for r in rows:
        if r["mode"] == "overlap":
            ax.plot(r["intensity"], r["macs_per_cycle"], "o", color=f"C{int(np.log2(r['B']))}")
            ax.annotate(f"B{r['B']} T{r['T']}", (r["intensity"], r["macs_per_cycle"]),
                        fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("intensity (MACs per word moved)")
    ax.set_ylabel("MACs per cycle (overlap mode)")
    ax.set_title("the text model's decode steps on the roofline")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path_rf, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.sweep", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator", "both"))
    ap.add_argument("--ctx", type=cli.integer(), nargs="+", default=list(CTX))
    ap.add_argument("--batch", type=cli.integer(), nargs="+", default=list(BATCH))
    ap.add_argument("--task", default="text", choices=("text", "add"))
    a = ap.parse_args(argv)
    sims = {"model": (), "both": ("icarus", "verilator")}.get(a.sim, (a.sim,))
    try:
        model = load_model(a.task)
        for T in a.ctx:
            if not 2 <= T <= model.cfg.ctx:
                raise ValueError(f"--ctx {T}: outside 2..{model.cfg.ctx}")
        for B in a.batch:
            if B < 1:
                raise ValueError(f"--batch {B}: must be >= 1")
            fits = []
            for T in a.ctx:
                for cfg in (C.LM_CHIP, C.LM_CHIP_OVERLAP):
                    try:
                        fits.append(C.Layout(C.describe(model), B, T, cfg))
                    except ValueError as e:
                        why = e
            if not fits:
                raise ValueError(f"--batch {B}: fits the chip at no --ctx ({why})")
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    rows, skipped = [], []
    for T in a.ctx:
        for B in a.batch:
            for cfg in (C.LM_CHIP, C.LM_CHIP_OVERLAP):
                try:
                    rows.append(measure(model, B, T, cfg, sims))
                except ValueError as e:
                    skipped.append(f"B = {B}, T = {T}: {e}")
                    break
                except ToolFault as e:  # nothing is known of the chip: not a FAIL of it
                    print(f"FAULT B = {B}, T = {T}, {cfg.mode}: {e}")
                    return 4
    print(table(rows))
    for r in rows:
        if "idle" in r:
            print(f"B = {r['B']}, T = {r['T']}, overlap: its binding unit ({r['idle_unit']}) idles (the timing "
                  f"model's schedule) " + stalls.describe(r["idle"]))
    for s in skipped:
        print(f"skipped {s}")
    bad = [(r["B"], r["T"], r["mode"], s) for r in rows for s, v in r["sims"].items() if not v["ok"]]
    for r in rows:
        for s, v in r["sims"].items():
            if v["cycles"] != r["reference"]["cycles"]:
                bad.append((r["B"], r["T"], r["mode"], s))
    if sims:
        n = sum(len(r["sims"]) for r in rows)
        print(f"{'FAIL' if bad else 'PASS'}: {n - len(bad)}/{n} steps on {', '.join(sims)} equal "
              "to the reference (counters, trace, memory)")
    OUT.mkdir(exist_ok=True)
    (OUT / "lm_sweep.json").write_text(json.dumps(dict(rows=rows, skipped=skipped), indent=1))
    figures(rows, OUT / "lm_throughput.png", OUT / "lm_roofline.png")
    print(f"wrote {OUT / 'lm_sweep.json'}, {OUT / 'lm_throughput.png'}, {OUT / 'lm_roofline.png'}")
    return 1 if bad else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
