"""A fixed CPU workload to time beside the tests: `make test`'s last line.

Why: `make test`'s wall time says little on its own (the machine, its other load); the
same machine's time for one fixed piece of work, taken just after the tests, lets two
runs on different machines be compared (the ratio tests / workload). The workload never
changes with the repository: a pure-Python integer loop (the interpreter: what the
reference model and cocotb spend their time in) and numpy int64 matrix products (no BLAS,
so one core whatever the library's threads): about 0.5 s a run on the machine it was
written on (two shared cores), each half about half. It checks its own result (CHECKSUM)
so a changed workload cannot pass for the old one.

    python -m tools.bench.calibrate [--repeat 3]

prints the best of --repeat runs (the least disturbed by other processes) and each run.
"""
import resource
import sys
import time

import numpy as np

from tb import cli

LOOP = 800_000          # iterations of the pure-Python loop
MAT = 128               # the numpy products are MAT x MAT int64
PRODUCTS = 80
# the workload's result (loop, products): pinned, so the work timed is always this work
CHECKSUM = (207120, 537047480)
NAME = (f"fixed CPU workload (tools/bench/calibrate.py: {LOOP:,} pure-Python loop steps, "
        f"{PRODUCTS} int64 numpy {MAT} x {MAT} products)")


def workload():
    """The fixed work; returns its checksum (equal to CHECKSUM)."""
    x, acc = 1, 0
    for i in range(LOOP):                       # a linear congruential walk: no shortcut
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        acc = (acc + (x >> 16) + i) % 1_000_003
    a = (np.arange(MAT * MAT, dtype=np.int64).reshape(MAT, MAT) * 7 + 3) % 101 - 50
    m = a.copy()
    for _ in range(PRODUCTS):
        m = (m @ a) % 65_521                    # stays small: no overflow, no float
    return acc, int(m.sum())


def measure(repeat=3):
    """(best seconds, [seconds of each run]) of repeat runs; RuntimeError when a run's
    checksum is not CHECKSUM (the workload was changed)."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        got = workload()
        runs.append(time.perf_counter() - t0)
        if got != CHECKSUM:
            raise RuntimeError(f"calibration workload checksum {got} != {CHECKSUM}: the workload changed")
    return min(runs), runs


def line(best, runs, tests_seconds=None, cpu_seconds=None):
    """The one line `make test` ends with. cpu_seconds: the CPU time (user + system) of the
    run's every process; on a shared host a slow hour shows there too (the same tests take
    more CPU seconds), where a best-of-3 workload of a quarter second may not see it."""
    out = f"calibration: {NAME}: {best:.2f} s, best of {len(runs)} on this machine"
    if tests_seconds is not None:
        out += f"; the tests' {tests_seconds:.0f} s wall = {tests_seconds / best:.0f}x the workload"
    if cpu_seconds is not None:
        out += f"; their CPU {cpu_seconds:.0f} s (user + system, every process)"
    return out


def cpu_seconds():
    """User + system CPU seconds of this process and of every child it has waited for (with
    theirs): after pytest-xdist's workers end, the whole run's."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None):
    ap = cli.Parser(prog="tools.bench.calibrate", description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=cli.integer(1, 100), default=3, help="runs; the best is reported (default 3)")
    a = ap.parse_args(argv)
    best, runs = measure(a.repeat)
    print(line(best, runs) + " (runs: " + ", ".join(f"{s:.3f}" for s in runs) + " s)")
    return 0


if __name__ == "__main__":
    sys.exit(cli.guard(main))
