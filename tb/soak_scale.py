"""The soak at scale (make soak-100k): measure the rate, project the wall time, run what fits.

  python -m tb.soak_scale [--n 100000] [--icarus-n 10000] [--probe 2000] [--budget 2700]
                          [--fit] [--seed 1] [--workers 2] [--journal FILE] [--resume]
  python -m tb.soak_scale --report [--journal FILE]

1. Probe: --probe programs per timing mode on Verilator (on Icarus the same share of
   --icarus-n; both in whole chunks of tb/soak.py's 250, at least one per worker: 2,000 and
   500 by default) through tb/soak.py on one local Dask cluster of --workers workers, timed
   after the builds: the rate of each simulator and mode. The probe's programs are the next
   chunks the journal does not hold (all of them are new, so the rate is measured even on
   --resume).
2. Projection: the wall time of the programs still to run (--n per mode on Verilator and
   --icarus-n per mode on Icarus, less what the journal and the probe hold) at those rates
   (derived), printed with the rates and the CPU seconds per program.
3. The run: when the projection fits --budget seconds (the run after the probe), the full
   soak; otherwise, with --fit, the largest counts that fit (what is left of each scaled by
   one factor, whole chunks), else nothing. The probe's chunks are the run's first chunks
   (same seed, chunk size and journal), so the run resumes them instead of running them again.

--report prints what a journal holds, per simulator and mode (programs, mismatches, faults
aside, cycles, the CPU seconds its chunks took in the workers): the figures of a soak that
was stopped (killed at a deadline) as well as of one that ended.

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
    wall seconds after the build, soak()'s stats: programs resumed and new, their CPU seconds)."""
    cfg = config.DEFAULT.replace(mode=mode)
    soak.build_stamp(sim, cfg)                       # the build, outside the timed part
    t0, st = time.time(), {}
    res = soak.soak(sim, n, seed, cfg, soak.CHUNK, scheduler=scheduler, journal=journal,
                    resume=resume, progress=False, stats=st)
    wall = time.time() - t0
    return [r for r in res if not r[6]], [r for r in res if r[6]], wall, st


def _line(sim, mode, res, faults, wall, st):
    progs, ok, cyc = sum(r[1] for r in res), sum(r[2] for r in res), sum(r[3] for r in res)
    verdict = "FAIL" if ok != progs else "FAULT" if faults else "PASS"
    new = st["new"]
    return (f"{verdict} {sim} [{mode}]: {progs} programs, {progs - ok} mismatches, {cyc} cycles "
            f"(from the chip's counters), {wall:.1f} s wall for {new} new programs, "
            f"{new / max(wall, 1e-9):.1f} programs/s, {1000 * st['cpu'] / max(new, 1):.1f} ms of CPU per "
            f"program (workers and simulators)" + (f"; {len(faults)} chunks faulted" if faults else ""))


def done_programs(journal, sim, mode, seed, build):
    """Programs of the soak (sim, mode, seed, tb/soak.py's chunk size, the default memory, the
    build's stamp) the journal holds as whole chunks from chunk 0 on without a gap."""
    cfg = config.DEFAULT.replace(mode=mode)
    key = soak.journal_key(sim, seed, cfg, soak.CHUNK, build)
    held = {tuple(e["result"])[0] for e in soak.read_journal(journal)
            if {k: e.get(k) for k in key} == key and e["result"][1] == soak.CHUNK}
    c = 0
    while c in held:
        c += 1
    return c * soak.CHUNK


def report(journal):
    """Lines of what the journal holds per (simulator, mode, seed)."""
    acc = {}
    for e in soak.read_journal(journal):
        r = e["result"]
        a = acc.setdefault((e.get("sim"), e.get("mode"), e.get("seed"), e.get("ext_words")),
                           {"chunks": 0, "progs": 0, "ok": 0, "cycles": 0, "cpu": 0.0, "timed": 0, "bad": []})
        a["chunks"] += 1
        a["progs"] += r[1]
        a["ok"] += r[2]
        a["cycles"] += r[3]
        if r[4] >= 0:
            a["bad"].append(f"chunk {r[0]} program {r[4]}")
        if "cpu" in e:
            a["cpu"] += e["cpu"]
            a["timed"] += r[1]
    out = []
    for (sim, mode, seed, ext), a in sorted(acc.items(), key=lambda kv: tuple(map(str, kv[0]))):
        cpu = (f", CPU {a['cpu']:.0f} s for {a['timed']} of them ({1000 * a['cpu'] / a['timed']:.1f} ms a program)"
               if a["timed"] else "")
        out.append(f"{'FAIL' if a['ok'] != a['progs'] else 'PASS'} {sim} [{mode}] seed {seed} ext {ext}: "
                   f"{a['progs']} programs in {a['chunks']} chunks, {a['progs'] - a['ok']} mismatches, "
                   f"{a['cycles']} cycles (from the chip's counters){cpu}"
                   + (f"; failing: {', '.join(a['bad'][:5])}" if a["bad"] else ""))
    return out


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
    ap.add_argument("--journal", default=str(JOURNAL), type=cli.out_file(regular=True),
                    help="the soak journal (default %(default)s)")
    ap.add_argument("--resume", action="store_true", help="keep the journal's finished chunks")
    ap.add_argument("--report", action="store_true", help="print what the journal holds and stop")
    a = ap.parse_args(argv)
    if a.resume or a.report:
        if not os.path.exists(a.journal):
            return cli.refuse(ap.prog, f"--report: no journal {a.journal}" if a.report
                              else f"--resume: no journal {a.journal} to resume from")
        try:
            lines = report(a.journal)
        except ValueError as e:
            return cli.refuse(ap.prog, e)
        if a.report:
            print("\n".join(lines) or f"{a.journal}: no chunks")
            return 1 if any(ln.startswith("FAIL") for ln in lines) else 0
    else:
        soak.start_journal(a.journal)
    from distributed import LocalCluster
    want = {"verilator": a.n, "icarus": a.icarus_n}
    sms = [(s, m) for s in ("verilator", "icarus") for m in config.MODES if want[s]]
    # whole chunks (so the run resumes them), at least one per worker (so the rate is theirs)
    def chunks(k):
        return max(a.workers * soak.CHUNK, k // soak.CHUNK * soak.CHUNK)
    probe = {"verilator": chunks(a.probe), "icarus": chunks(a.probe * a.icarus_n // a.n) if a.icarus_n else 0}
    # one cluster for the probe and the run (its start-up is outside every timed soak)
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        scheduler = cluster.scheduler_address
        rates, cpus, done, rc = {}, {}, {}, 0
        print(f"probe: {probe['verilator']} programs per mode on Verilator, {probe['icarus']} on Icarus "
              f"({a.workers} Dask workers)", flush=True)
        for sim, mode in sms:
            stamp = soak.build_stamp(sim, config.DEFAULT.replace(mode=mode))
            held = done_programs(a.journal, sim, mode, a.seed, stamp)
            n = min(want[sim], held + probe[sim])
            if n <= held:                                    # this soak is complete already
                done[sim, mode] = held
                print(f"  {sim} [{mode}]: {held} programs held by the journal: complete", flush=True)
                continue
            res, faults, wall, st = _run(sim, mode, n, a.seed, scheduler, a.journal)
            rates[sim, mode] = st["new"] / max(wall, 1e-9)
            cpus[sim, mode] = st["cpu"] / max(st["new"], 1)
            done[sim, mode] = n
            print("  " + _line(sim, mode, res, faults, wall, st), flush=True)
            rc = 1 if any(r[4] >= 0 for r in res) else rc or (soak.EXIT_FAULT if faults else 0)
        left = {sm: want[sm[0]] - done[sm] for sm in rates}
        proj = sum(left[sm] / rates[sm] for sm in rates)
        cpu = sum(left[sm] * cpus[sm] for sm in rates)
        print(f"projected wall time of the rest of {a.n} per mode on Verilator and {a.icarus_n} per mode on "
              f"Icarus ({sum(left.values())} programs; derived from the probe's rates): {proj:.0f} s "
              f"({proj / 60:.1f} min), {cpu:.0f} s of CPU; budget {a.budget:.0f} s", flush=True)
        target = {sm: want[sm[0]] for sm in rates}
        if proj > a.budget:
            if not a.fit:
                print("does not fit the budget: not run (--fit runs the largest counts that fit)")
                return rc
            f = a.budget / proj                # what is left of each, scaled by one factor
            target = {sm: done[sm] + int(left[sm] * f) // soak.CHUNK * soak.CHUNK for sm in rates}
            print("running the largest counts that fit: " + ", ".join(
                f"{s} [{m}] {target[s, m]}" for s, m in rates) + f" (projected "
                f"{sum((target[sm] - done[sm]) / rates[sm] for sm in rates):.0f} s more)", flush=True)
        t_all = time.time()
        for sm in rates:
            if target[sm] <= done[sm]:
                continue
            res, faults, wall, st = _run(*sm, target[sm], a.seed, scheduler, a.journal)
            print(_line(*sm, res, faults, wall, st), flush=True)
            if faults and rc == 0:
                rc = soak.EXIT_FAULT
            if any(r[4] >= 0 for r in res):
                rc = 1
        print(f"soak at scale: {time.time() - t_all:.0f} s wall after the probe")
    print("the journal now holds:\n  " + "\n  ".join(report(a.journal)))
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
