"""The one entry point to the GA-2 chip in simulation (Icarus or Verilator, via cocotb).

A facade over the library in tb/sim: build.py (simulators, flags, builds), tb/protocol.py
(hex files), run.py (running jobs, the reference next to them), tb/judge.py (the
judgement), plain.py (the plain Verilog bench). Call sites use hw.build(sim, cfg=...),
hw.run(sim, jobs, cfg=...), hw.run_programs(sim, pairs, cfg=..., max_cycles=...),
hw.compare(ref, got) and hw.summary(results).

CLI: python -m tb.hw --sim icarus|verilator|both [--demo | --build]
"""
import argparse
import sys
import time

import numpy as np

from model import config, isa
from tb.sim.build import SIMS, available_sims, build, default_build_dir  # noqa: F401
from tb.sim.build import ICARUS_ARGS, VERILATOR_ARGS, cfg_parameters, sources  # noqa: F401  (the FuseSoC cores)
from tb.judge import ProgResult, compare, expected, reference  # noqa: F401
from tb.sim.run import DEFAULT_GAP, KEEP_EXT, Item, cycle_limit, prepare_jobs, read_raw, run, run_programs, summary  # noqa: F401
from tb.sim.files import rtl_files, top_file  # noqa: F401
from tb.sim import plain  # noqa: F401  (the plain Verilog bench: plain.build, plain.run)


def demo_programs(cfg=None):
    """A small fixed set of programs touching every op (LD, MM both layouts, RQ, SM, ST)."""
    cfg = config.resolve(cfg)
    ext = cfg.ext_words
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    rng = np.random.default_rng(7)
    image = rng.integers(-128, 128, size=min(ext, 256))
    p1 = [b("LD", dst=0, src=0, len=64),
          b("MM", dst=100, A=0, B=16, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4),
          b("MM", dst=120, A=0, B=16, M=3, K=4, N=2, tb=1, lda=4, ldb=4, ldc=2),
          b("RQ", dst=140, src=100, len=16, m=20000, s=20),
          b("SM", dst=160, src=0, len=16),
          b("ST", src=100, dst=min(ext - 64, 300), len=64),
          b("HALT")]
    p2 = [b("LD", dst=200, src=0, len=8), b("ST", src=200, dst=0, len=8),
          b("ST", src=160, dst=8, len=16), b("HALT")]
    return [(p1, image), (p2, image)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="icarus", choices=SIMS + ("both",))
    ap.add_argument("--demo", action="store_true", help="run the demo programs against the reference")
    ap.add_argument("--build", action="store_true", help="only build")
    a = ap.parse_args(argv)
    sims = SIMS if a.sim == "both" else (a.sim,)
    rc = 0
    for sim in sims:
        t0 = time.time()
        bdir = build(sim)
        print(f"built {sim} in {bdir} ({time.time() - t0:.1f} s)")
        if a.demo or not a.build:
            t0 = time.time()
            res = run_programs(sim, demo_programs())
            n, ok, cyc = summary([res])
            for i, p in enumerate(res):
                print(f"  program {i}: {'ok' if p.ok else 'MISMATCH ' + p.mismatch}; counters {tuple(p.counters)}")
            print(f"{'PASS' if ok == n else 'FAIL'} {sim}: {ok}/{n} programs, {cyc} cycles "
                  f"(from the chip's counters), {time.time() - t0:.1f} s wall")
            rc |= ok != n
    return rc


if __name__ == "__main__":
    sys.exit(main())
