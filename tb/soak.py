"""Soak: many seeded random programs on each simulator against the reference, in parallel.

  python -m tb.soak --sim both --n 10000 [--seed S] [--chunk 250] [--jobs 2]
                           [--scheduler ADDRESS] [--ext-words N] [--mode inorder|overlap|both]
                           [--journal FILE] [--resume]

--mode both (what `make fuzz` and `make soak` run) soaks each simulator in the in-order
and the overlap timing mode: the same programs, a build per mode.

The programs (tb/stimulus/randprog.py random_program; in the overlap mode half of them built to
collide by tb/stimulus/collide.py) go out in chunks; each chunk is one
simulator process (tb.hw.run_programs) run by a worker: a local process pool by
default, or a Dask distributed scheduler (--scheduler tcp://host:8786) when the work
outgrows this machine. One tqdm progress bar shows programs done and the rate. A chunk
result is a plain tuple, so a local run and a cluster run of the same seed give equal
results (tests/tb/test_soak.py checks that on a local two-worker cluster).

On a mismatch the first failing program is shrunk to a minimal reproducer
(tb/shrink.py) and saved under out/ as assembly text with the command that
replays it; the exit code is then 1.

A simulator that crashes, is killed or hangs in a chunk (tb/sim/run.py SimulatorFault) is
a FAULT line naming the chunk, its job and program, and the simulator's exit code or
signal -- never a pass, never a mismatch; the other chunks still run, and the exit code
is 4 when no chunk mismatched. Bad arguments exit 2 (tb/cli.py).

Every finished chunk is appended to a journal (--journal, default out/soak_journal.jsonl,
one JSON line a chunk: simulator, mode, external memory, seed, chunk size, the build's
content stamp, the chunk's result and the CPU seconds it took in its worker, "cpu":
generation, files, simulator, reference and judge; `python -m tb.soak_scale --report`
sums a journal). --resume runs only the chunks of the same soak the
journal does not hold yet (a soak killed half way resumes where it stopped; a faulted
chunk is not journaled, so it runs again); without --resume the journal starts afresh.
"""
import concurrent.futures as cf
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

from model import config, isa
from tb import ROOT, cli, parallel

CHUNK = 250
MAX_N = 10 ** 8                    # programs per simulator: beyond this a typing mistake
JOURNAL = ROOT / "out" / "soak_journal.jsonl"
JOURNAL_HEAD = {"soak_journal": 1}
EXIT_FAULT = 4                     # a simulator crashed, was killed or hung (no mismatch)
DESIGN_CHECK = "a check of the design stopped the simulation: "


def chunk_seed(seed, c):
    """The randprog seed of chunk c of a soak with seed `seed` (independent streams)."""
    return seed * 1_000_003 + c


def chunk_programs(seed, c, k, cfg):
    """The k (prog, image) pairs of chunk c: randprog's random programs; in the overlap mode
    every other one is built to collide (tb/stimulus/collide.py, the softmax included, one in eight
    of those ending in a fault behind busy units)."""
    from tb.stimulus import collide, randprog
    if cfg.mode != "overlap":
        return randprog.random_programs(chunk_seed(seed, c), k, cfg=cfg)
    rng = np.random.default_rng(chunk_seed(seed, c))
    return [randprog.random_program(rng, cfg) if i % 2 == 0 else
            collide.collide_program(rng, cfg, with_sm=True, fault=(i % 16 == 15)) for i in range(k)]


def run_chunk(sim, seed, c, k, cfg):
    """(c, programs, ok, cycles, first failing index or -1, its mismatch, fault) for chunk
    c; fault is '' or the SimulatorFault's message (then nothing is known of the chunk's
    programs: 0 ok, 0 cycles, no failing index)."""
    from tb import hw
    pairs = chunk_programs(seed, c, k, cfg)
    try:
        res = hw.run_programs(sim, pairs, cfg=cfg)
    except hw.ToolFault as e:
        return (c, k, 0, 0, -1, "", f"chunk {c} (programs {c * k}..): {e}")
    except hw.DesignAssertion as e:          # the chip's own check fired: a FAIL of the chip
        return (c, k, 0, 0, e.item, f"{DESIGN_CHECK}{e.assertion}", "")
    bad = next((i for i, r in enumerate(res) if not r.ok), -1)
    return (c, len(res), sum(r.ok for r in res), sum(int(r.counters.cycles) for r in res),
            bad, res[bad].mismatch if bad >= 0 else "", "")


def _cpu():
    """CPU seconds of this thread (the worker's one job at a time) and of its reaped children
    (the simulator processes it ran)."""
    me = resource.getrusage(getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF))
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def run_chunk_timed(sim, seed, c, k, cfg):
    """(run_chunk's result, CPU seconds it took in the worker: generation, files, simulator,
    reference and judge)."""
    c0 = _cpu()
    r = run_chunk(sim, seed, c, k, cfg)
    return r, _cpu() - c0


def journal_key(sim, seed, cfg, chunk, build):
    """What a journal line must match to stand for a chunk of this soak."""
    return {"sim": sim, "mode": cfg.mode, "ext_words": cfg.ext_words, "seed": seed, "chunk": chunk,
            "build": build}


def read_journal(path):
    """The entries of a soak journal (dicts with journal_key's fields and "result");
    ValueError naming the file and line when it is not one. A torn last line (the soak
    was killed while writing it) is dropped."""
    out, head = [], False
    for n, line, e in cli.journal_lines(path, "soak"):
        if not head:
            if e != JOURNAL_HEAD:
                raise ValueError(f"--journal {path}: not a soak journal (first line {line[:60]!r})")
            head = True
            continue
        if not isinstance(e, dict) or not isinstance(e.get("result"), list) or len(e["result"]) != 7:
            raise ValueError(f"--journal {path}:{n}: not a soak journal line")
        out.append(e)
    return out


def start_journal(path):
    """An empty journal at path (its directory made)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(JOURNAL_HEAD) + "\n")


def build_stamp(sim, cfg):
    """Build the simulation (once, before the workers share it); its content stamp, so a
    journal of another design or build is never resumed."""
    from tb import hw
    stamp = Path(hw.build(sim, cfg=cfg)) / "build.stamp"
    return stamp.read_text().strip() if stamp.exists() else ""


def soak(sim, n, seed=1, cfg=None, chunk=CHUNK, scheduler=None, jobs=2, progress=True, journal=None,
         resume=False, stats=None):
    """Run n programs on sim; the sorted list of chunk results (see run_chunk).

    journal: a file each finished chunk is appended to (started by start_journal; each line
    also holds the chunk's CPU seconds in the worker, "cpu");
    resume: take the chunks of this soak the journal already holds instead of running them;
    stats: a dict that gets "resumed" and "new" (programs taken from the journal and run now)
    and "cpu" (CPU seconds of the new chunks in the workers, simulators included).
    """
    from tqdm import tqdm
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    cfg = config.resolve(cfg)
    key = journal_key(sim, seed, cfg, chunk, build_stamp(sim, cfg))
    sizes = [min(chunk, n - s) for s in range(0, n, chunk)]
    done = {}
    if journal is not None and resume:
        entries = read_journal(journal)
        cli.drop_torn_tail(journal)
        for e in entries:
            r = tuple(e["result"])
            if {k: e.get(k) for k in key} == key and 0 <= r[0] < len(sizes) and r[1] == sizes[r[0]]:
                done[r[0]] = r
        if done and progress:
            print(f"soak {sim} [{cfg.mode}]: {len(done)} of {len(sizes)} chunks resumed from {journal}",
                  file=sys.stderr)
    out = list(done.values())
    todo = [(c, k) for c, k in enumerate(sizes) if c not in done]
    st = {"resumed": sum(r[1] for r in out), "new": sum(k for _, k in todo), "cpu": 0.0}
    if stats is not None:
        stats.update(st)
    if journal is not None and (not Path(journal).exists() or not Path(journal).stat().st_size):
        start_journal(journal)
    jf = open(journal, "a") if journal is not None else None
    try:
        with parallel.executor(scheduler, jobs) as ex, \
                tqdm(total=n, initial=sum(r[1] for r in out), unit="prog", desc=f"soak {sim}",
                     disable=not progress, file=sys.stderr) as bar:
            futs = [ex.submit(run_chunk_timed, sim, seed, c, k, cfg) for c, k in todo]
            cycles = sum(r[3] for r in out)
            for f in cf.as_completed(futs):
                r, cpu = f.result()
                r = tuple(r)
                out.append(r)
                st["cpu"] += cpu
                if stats is not None:
                    stats["cpu"] = st["cpu"]
                if jf is not None and not r[6]:
                    jf.write(json.dumps({**key, "result": list(r), "cpu": round(cpu, 3)}) + "\n")
                    jf.flush()
                    os.fsync(jf.fileno())
                cycles += r[3]
                bar.update(r[1])
                bar.set_postfix(cycles=cycles, bad=sum(x[1] - x[2] for x in out if not x[6]),
                                faults=sum(1 for x in out if x[6]))
    finally:
        if jf is not None:
            jf.close()
    return sorted(out)


def reproduce(sim, seed, result, cfg, out_dir=None):
    """Shrink the first failing program of a chunk result; the saved path and replay command."""
    from tb import shrink
    c, _, _, _, bad, mismatch = result[:6]
    pairs = chunk_programs(seed, c, bad + 1, cfg)
    prog, image = pairs[bad]
    small, img = shrink.shrink(prog, image, shrink.chip_oracle(sim, cfg), cfg)
    path = (out_dir or ROOT / "out") / f"soak_{sim}_seed{seed}_chunk{c}_prog{bad}.s"
    cmd = shrink.save(small, img, path, note=f"{sim}: {mismatch[:200]}")
    return path, cmd, small


def main(argv=None):
    from tb import hw
    ap = cli.Parser(prog="tb.soak", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--n", type=cli.integer(1, MAX_N), default=10000, help="programs per simulator")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--chunk", type=cli.integer(1, MAX_N), default=CHUNK, help="programs per simulator process")
    ap.add_argument("--jobs", type=cli.jobs, default=2, help="local worker processes")
    ap.add_argument("--scheduler", default=None, type=cli.scheduler,
                    help="Dask scheduler address (tcp://...), or local:N for a local N-worker cluster")
    ap.add_argument("--ext-words", default=None, type=cli.integer(1, 1 << config.ADDR_W),
                    help="external memory words (default 4096)")
    ap.add_argument("--mode", default="inorder", choices=config.MODES + ("both",),
                    help="timing mode(s) of the chip (default %(default)s)")
    ap.add_argument("--journal", default=str(JOURNAL), type=cli.out_file(regular=True),
                    help="append each finished chunk here (default %(default)s)")
    ap.add_argument("--resume", action="store_true",
                    help="run only the chunks the journal does not hold yet (same soak, same build)")
    a = ap.parse_args(argv)
    cfg = config.DEFAULT if a.ext_words is None else config.parse_ext(a.ext_words)
    if a.resume:
        if not os.path.exists(a.journal):
            return cli.refuse(ap.prog, f"--resume: no journal {a.journal} to resume from")
        try:
            read_journal(a.journal)
        except ValueError as e:
            return cli.refuse(ap.prog, e)
    else:
        start_journal(a.journal)
    rc = 0
    modes = config.MODES if a.mode == "both" else (a.mode,)
    for sim, mode in ((s, m) for s in (hw.SIMS if a.sim == "both" else (a.sim,)) for m in modes):
        cfg = cfg.replace(mode=mode)
        t0, st = time.time(), {}
        res = soak(sim, a.n, a.seed, cfg, a.chunk, a.scheduler, a.jobs, journal=a.journal, resume=a.resume,
                   stats=st)
        wall = time.time() - t0
        faults = [r for r in res if r[6]]
        res = [r for r in res if not r[6]]
        progs, ok, cyc = sum(r[1] for r in res), sum(r[2] for r in res), sum(r[3] for r in res)
        verdict = "FAIL" if ok != progs else "FAULT" if faults else "PASS"
        print(f"{verdict} {sim} [{mode}]: {progs} programs, {progs - ok} mismatches, "
              f"{cyc} cycles (from the chip's counters), {wall:.1f} s wall, {progs / max(wall, 1e-9):.1f} programs/s, "
              f"{cyc / max(wall, 1e-9):.0f} cycles/s, {1000 * st['cpu'] / max(st['new'], 1):.1f} ms of CPU per new "
              f"program" + (f"; {len(faults)} chunks not run to their end (the "
                                               f"simulator failed, nothing known of their programs)"
                                               if faults else ""))
        for r in faults:
            print(f"  FAULT {r[6]}")
        if faults and rc == 0:
            rc = EXIT_FAULT
        failing = [r for r in res if r[4] >= 0]
        if failing:
            rc = 1
            if failing[0][5].startswith(DESIGN_CHECK):   # no judge's verdict to shrink against
                print(f"  first failure: chunk {failing[0][0]} program {failing[0][4]}: {failing[0][5]}")
                continue
            path, cmd, small = reproduce(sim, a.seed, failing[0], cfg)
            print(f"  first mismatch: chunk {failing[0][0]} program {failing[0][4]}: {failing[0][5]}")
            print(f"  shrunk to {len(small)} instructions: {path}\n  replay: {cmd}")
            print(isa.disasm(small))
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
