"""The cost per step of the two ways to let the host choose each step after the last one's
outcome on a simulator (docs/serving_lm.md, "Live on the circuit"): one simulator process per
step (tb.hw.run, the build reused, the whole memory image passed in and read back each
time) against one live session (tb.hw.Live: one process that waits for each program).

    python -m tools.serve.live_cost [--sim verilator|icarus] [--steps 8]

The same first steps of a small serving run (3 requests, preempt+chunked, overlap mode),
decided on the reference chip, run both ways; every step judged against the reference
chip both ways. Wall times: the machine's, whatever else runs on it (labelled so).
"""
import time

import numpy as np

from model.machine import Machine
from tb import cli, hw
from tools.lm import generate
from tools.serve import lm_engine as E
from tools.serve import lm_run as L
from tools.serve import requests as rq


def measure(sim, n):
    """(steps, cycles, seconds a step with a process each, seconds a step live, live start)."""
    cfg = L.chip_cfg("overlap")
    model = generate.load_model("text")
    run = E.serve(model, rq.poisson(3, 60, seed=4, max_new=(4, 8)), "text", "preempt", "chunked", 6,
                  chip_cfg=cfg)
    steps = run.steps[:n]
    m, ext, images = Machine(cfg), run.image, []
    for st in steps:                       # the memory before each step, from the reference chip
        images.append(np.array(ext))
        m.sp[:] = st.sp
        ext = m.run(st.program, ext).ext
    hw.build(sim, cfg=cfg)
    t0 = time.time()
    for st, im in zip(steps, images):
        if not hw.run(sim, [[hw.Item(st.program, im, st.sp)]], cfg=cfg)[0][0].ok:
            raise AssertionError("a step differs from the reference chip")
    per_process = (time.time() - t0) / len(steps)
    t0 = time.time()
    with hw.Live(sim, cfg=cfg) as live:
        t1 = time.time()
        for i, st in enumerate(steps):
            live.run(hw.Item(st.program, images[0] if i == 0 else hw.KEEP_EXT, st.sp))
        per_live = (time.time() - t1) / len(steps)
    return len(steps), sum(st.cycles for st in steps), per_process, per_live, t1 - t0


def main(argv=None):
    ap = cli.Parser(prog="tools.serve.live_cost", description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="verilator", choices=hw.SIMS)
    ap.add_argument("--steps", type=cli.integer(1, 20), default=8)
    a = ap.parse_args(argv)
    if a.sim not in hw.available_sims():
        return cli.refuse(ap.prog, ValueError(f"simulator {a.sim} is not installed"))
    n, cyc, p, lv, start = measure(a.sim, a.steps)
    print(f"{a.sim}: {n} serving steps, {cyc:,} cycles (the chip's counters = the timing model's); "
          f"a simulator process per step {p:.2f} s a step; one live session {lv:.2f} s a step "
          f"(after a {start:.1f} s start): {p / lv:.1f}x (wall, shared machine)")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    raise SystemExit(guard(main))
