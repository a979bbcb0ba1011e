"""Build the GA-2 chip on both simulators and run a demo set of programs on each.

The demo set (tb/stimulus/demo.py demo_set: the demo programs touching every op, one bad
program per error code each followed by a clean program, and 20 seeded random programs),
all in one simulator call per simulator, every one compared with the reference. Prints per simulator
`PASS icarus: N programs, C cycles` (cycles from the chip's counters) or FAIL with the
first mismatch.

  python -m tb.demo [--sim icarus|verilator|both]
"""
import sys
import time

from tb import cli, hw
from tb.stimulus.demo import demo_set


def main(argv=None):
    ap = cli.Parser(prog="tb.demo", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    a = ap.parse_args(argv)
    sims = hw.SIMS if a.sim == "both" else (a.sim,)
    pairs = demo_set()
    rc = 0
    for sim in sims:
        t0 = time.time()
        hw.build(sim)
        t1 = time.time()
        res = hw.run_programs(sim, pairs)
        n, ok, cyc = hw.summary([res])
        errors = sum(r.error for r in res)
        if ok == n:
            print(f"PASS {sim}: {n} programs, {cyc} cycles ({errors} faulted as planned; "
                  f"build {t1 - t0:.1f} s, run {time.time() - t1:.1f} s)")
        else:
            i, r = next((i, r) for i, r in enumerate(res) if not r.ok)
            print(f"FAIL {sim}: {n - ok} of {n} programs differ; first, program {i}: {r.mismatch}")
            rc = 1
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
