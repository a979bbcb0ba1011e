"""Random-program fuzzing of the GA-2 chip against the reference, per simulator.

N seeded valid random programs (tools/gen/progen.py) run through tools/hw.run in chunks of
CHUNK programs per simulator call (one process per chunk; the scratchpad carries over
within a chunk on both chip and reference). Prints per simulator
`PASS icarus: N programs, C cycles` (cycles from the chip's counters) or FAIL with the
first mismatch and its program's disassembly.

  python tools/sim/fuzz.py --sim icarus|verilator|both --n N --seed S
"""
import argparse
import sys
import time

from model import config, isa  # noqa: E402
from tools.sim import hw  # noqa: E402
from tools.gen import progen  # noqa: E402

CHUNK = 250


def fuzz(sim, n, seed, cfg=None, chunk=CHUNK, log=print):
    """(ok, programs run, total chip cycles, first mismatch or '') for n programs on sim."""
    if n < 1:
        raise ValueError(f"--n must be >= 1, got {n}")
    cfg = config.resolve(cfg)
    hw.build(sim, cfg=cfg)
    done, cycles, bad = 0, 0, ""
    c = 0
    while done < n:
        k = min(chunk, n - done)
        pairs = progen.random_programs(seed * 1_000_003 + c, k, cfg=cfg)
        res = hw.run_programs(sim, pairs, cfg=cfg)
        for i, (pair, r) in enumerate(zip(pairs, res)):
            cycles += int(r.counters.cycles)
            if not r.ok and not bad:
                bad = (f"chunk {c} (seed {seed * 1_000_003 + c}) program {i}: {r.mismatch}\n"
                       + isa.disasm(pair[0]))
        done += k
        c += 1
        log(f"  {sim}: {done}/{n} programs, {cycles} cycles so far")
        if bad:
            break
    return bad == "", done, cycles, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--n", type=int, default=200, help="programs per simulator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ext", default=None, help="external memory words (default: config.DEFAULT's)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    try:
        cfg = config.parse_ext(a.ext) if a.ext is not None else config.DEFAULT
    except ValueError as e:
        ap.error(str(e))
    if a.n < 1:
        ap.error("--n must be >= 1")
    sims = hw.SIMS if a.sim == "both" else (a.sim,)
    rc = 0
    for sim in sims:
        t0 = time.time()
        ok, n, cyc, bad = fuzz(sim, a.n, a.seed, cfg=cfg, log=(lambda *_: None) if a.quiet else print)
        wall = time.time() - t0
        if ok:
            print(f"PASS {sim}: {n} programs, {cyc} cycles ({wall:.1f} s wall)")
        else:
            print(f"FAIL {sim}: after {n} programs, {cyc} cycles: {bad}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
