"""The soak at scale (make soak-100k): measure the rate, project the wall time, run what fits.

  python -m tb.soak_scale [--n 100000] [--icarus-n 10000] [--probe 2000] [--budget 2700]
                          [--fit] [--seed 1] [--workers 2] [--journal FILE] [--resume]

1. Probe: the first --probe programs per timing mode on Verilator (on Icarus the same share
   of --icarus-n; both in whole chunks of tb/soak.py's 250, at least one per worker: 2,000
   and 500 by default) through tb/soak.py on one local Dask cluster of --workers workers,
   timed after the builds: the rate of each simulator and mode.
2. Projection: the wall time of --n per mode on Verilator and --icarus-n per mode on Icarus
   at those rates (derived), printed with the rates.
3. The run: when the projection fits --budget seconds (the run after the probe; the probe
   itself is --probe programs, a fiftieth of the default run), the full soak; otherwise, with --fit,
   the largest counts that fit (both scaled by one factor, whole chunks), else nothing. The
   probe's chunks are the run's first chunks (same seed, chunk size and journal), so the run
   resumes them instead of running them again.

Every figure printed about the chip (programs, mismatches, cycles) is the soak's, from the
chip's counters against the reference; rates and wall times are this machine's, under
whatever else runs on it. Exit codes as tb/soak.py: 0 all equal, 1 a mismatch, 4 a
simulator fault, 2 bad arguments.
"""
import os
import sys
import time

from model import config
from tb import ROOT, cli, soak

JOURNAL = ROOT / "out" / "soak_scale_journal.jsonl"


def _run(sim, mode, n, seed, scheduler, journal, resume=True):
    """One soak of n programs on the cluster at scheduler; (results without faults, faults,
    wall seconds after the build)."""
    cfg = config.DEFAULT.replace(mode=mode)
    soak.build_stamp(sim, cfg)                       # the build, outside the timed part
    t0 = time.time()
    res = soak.soak(sim, n, seed, cfg, soak.CHUNK, scheduler=scheduler, journal=journal,
                    resume=resume, progress=False)
    wall = time.time() - t0
    return [r for r in res if not r[6]], [r for r in res if r[6]], wall


def _line(sim, mode, res, faults, wall, new):
    progs, ok, cyc = sum(r[1] for r in res), sum(r[2] for r in res), sum(r[3] for r in res)
    verdict = "FAIL" if ok != progs else "FAULT" if faults else "PASS"
    return (f"{verdict} {sim} [{mode}]: {progs} programs, {progs - ok} mismatches, {cyc} cycles "
            f"(from the chip's counters), {wall:.1f} s wall for {new} new programs, "
            f"{new / max(wall, 1e-9):.1f} programs/s" + (f"; {len(faults)} chunks faulted" if faults else ""))


def main(argv=None):
    ap = cli.Parser(prog="tb.soak_scale", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=cli.integer(1, soak.MAX_N), default=100_000,
                    help="programs per timing mode on Verilator (default %(default)s)")
    ap.add_argument("--icarus-n", type=cli.integer(0, soak.MAX_N), default=10_000,
                    help="programs per timing mode on Icarus (default %(default)s; 0: none)")
    ap.add_argument("--probe", type=cli.integer(1, soak.MAX_N), default=2000,
                    help="programs per mode of the rate probe on Verilator (default %(default)s)")
    ap.add_argument("--budget", type=cli.number(above=0), default=2700.0,
                    help="seconds of wall time the run after the probe may take (default %(default)s)")
    ap.add_argument("--fit", action="store_true",
                    help="when the projection exceeds the budget, run the largest counts that fit")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--workers", type=cli.integer(1, 256), default=2, help="Dask workers (default 2)")
    ap.add_argument("--journal", default=str(JOURNAL), type=cli.out_file(),
                    help="the soak journal (default %(default)s)")
    ap.add_argument("--resume", action="store_true", help="keep the journal's finished chunks")
    a = ap.parse_args(argv)
    if a.resume:
        if not os.path.exists(a.journal):
            return cli.refuse(ap.prog, f"--resume: no journal {a.journal} to resume from")
        try:
            soak.read_journal(a.journal)
        except ValueError as e:
            return cli.refuse(ap.prog, e)
    else:
        soak.start_journal(a.journal)
    from distributed import LocalCluster
    # one cluster for the probe and the run (its start-up is outside every timed soak)
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        scheduler = cluster.scheduler_address
        want = {"verilator": a.n, "icarus": a.icarus_n}
        # whole chunks (so the run resumes them), at least one per worker (so the rate is theirs)
        def chunks(k, cap):
            return min(cap, max(a.workers * soak.CHUNK, k // soak.CHUNK * soak.CHUNK))
        probe = {"verilator": chunks(a.probe, a.n),
                 "icarus": chunks(a.probe * a.icarus_n // a.n, a.icarus_n) if a.icarus_n else 0}
        rates, rc = {}, 0
        print(f"probe: {probe['verilator']} programs per mode on Verilator, {probe['icarus']} on Icarus "
              f"({a.workers} Dask workers)", flush=True)
        for sim in ("verilator", "icarus"):
            for mode in config.MODES:
                if not probe[sim]:
                    continue
                res, faults, wall = _run(sim, mode, probe[sim], a.seed, scheduler, a.journal)
                new = probe[sim]
                rates[sim, mode] = new / max(wall, 1e-9)
                print("  " + _line(sim, mode, res, faults, wall, new), flush=True)
                rc = 1 if any(r[4] >= 0 for r in res) else rc or (soak.EXIT_FAULT if faults else 0)
        proj = sum(want[s] / rates[s, m] for s, m in rates)
        print(f"projected wall time of {a.n} per mode on Verilator and {a.icarus_n} per mode on Icarus "
              f"(derived from the probe's rates): {proj:.0f} s ({proj / 60:.1f} min); budget {a.budget:.0f} s",
              flush=True)
        if proj > a.budget:
            if not a.fit:
                print("does not fit the budget: not run (--fit runs the largest counts that fit)")
                return rc
            # the probe's programs are done: scale what is left, in whole chunks
            f = a.budget / proj
            want = {s: max(probe[s], int(want[s] * f) // soak.CHUNK * soak.CHUNK) if want[s] else 0
                    for s in want}
            left = sum((want[s] - probe[s]) / rates[s, m] for s, m in rates)
            print(f"running the largest counts that fit: {want['verilator']} per mode on Verilator, "
                  f"{want['icarus']} on Icarus (projected {left:.0f} s more)", flush=True)
        t_all = time.time()
        for sim in ("verilator", "icarus"):
            for mode in config.MODES:
                if not want[sim]:
                    continue
                res, faults, wall = _run(sim, mode, want[sim], a.seed, scheduler, a.journal)
                new = want[sim] - probe[sim]
                if not new:
                    continue
                print(_line(sim, mode, res, faults, wall, new), flush=True)
                if faults and rc == 0:
                    rc = soak.EXIT_FAULT
                if any(r[4] >= 0 for r in res):
                    rc = 1
        print(f"soak at scale: {time.time() - t_all:.0f} s wall after the probe")
    return rc


if __name__ == "__main__":
    sys.exit(main())
