"""Soak: many seeded random programs on each simulator against the reference, in parallel.

  python -m tb.soak --sim both --n 10000 [--seed S] [--chunk 250] [--jobs 2]
                           [--scheduler ADDRESS] [--ext-words N] [--mode inorder|overlap|both]

--mode both (what `make fuzz` and `make soak` run) soaks each simulator in the in-order
and the overlap timing mode: the same programs, a build per mode.

The programs (tb/stimulus/progen.py random_program; in the overlap mode half of them built to
collide by tb/stimulus/collide.py) go out in chunks; each chunk is one
simulator process (tb.hw.run_programs) run by a worker: a local process pool by
default, or a Dask distributed scheduler (--scheduler tcp://host:8786) when the work
outgrows this machine. One tqdm progress bar shows programs done and the rate. A chunk
result is a plain tuple, so a local run and a cluster run of the same seed give equal
results (tests/tb/test_soak.py checks that on a local two-worker cluster).

On a mismatch the first failing program is shrunk to a minimal reproducer
(tb/shrink.py) and saved under out/ as assembly text with the command that
replays it; the exit code is then 1.
"""
import argparse
import concurrent.futures as cf
import sys
import time

import numpy as np

from model import config, isa
from tb import ROOT, parallel

CHUNK = 250


def chunk_seed(seed, c):
    """The progen seed of chunk c of a soak with seed `seed` (independent streams)."""
    return seed * 1_000_003 + c


def chunk_programs(seed, c, k, cfg):
    """The k (prog, image) pairs of chunk c: progen's random programs; in the overlap mode
    every other one is built to collide (tb/stimulus/collide.py, SM included, one in eight
    of those ending in a fault behind busy units)."""
    from tb.stimulus import collide, progen
    if cfg.mode != "overlap":
        return progen.random_programs(chunk_seed(seed, c), k, cfg=cfg)
    rng = np.random.default_rng(chunk_seed(seed, c))
    return [progen.random_program(rng, cfg) if i % 2 == 0 else
            collide.collide_program(rng, cfg, with_sm=True, fault=(i % 16 == 15)) for i in range(k)]


def run_chunk(sim, seed, c, k, cfg):
    """(c, programs, ok, cycles, first failing index or -1, its mismatch) for chunk c."""
    from tb import hw
    pairs = chunk_programs(seed, c, k, cfg)
    res = hw.run_programs(sim, pairs, cfg=cfg)
    bad = next((i for i, r in enumerate(res) if not r.ok), -1)
    return (c, len(res), sum(r.ok for r in res), sum(int(r.counters.cycles) for r in res),
            bad, res[bad].mismatch if bad >= 0 else "")


def soak(sim, n, seed=1, cfg=None, chunk=CHUNK, scheduler=None, jobs=2, progress=True):
    """Run n programs on sim; the sorted list of chunk results (see run_chunk)."""
    from tqdm import tqdm
    from tb import hw
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    cfg = config.resolve(cfg)
    hw.build(sim, cfg=cfg)                       # once, before the workers share it
    sizes = [min(chunk, n - s) for s in range(0, n, chunk)]
    out = []
    with parallel.executor(scheduler, jobs) as ex, \
            tqdm(total=n, unit="prog", desc=f"soak {sim}", disable=not progress, file=sys.stderr) as bar:
        futs = [ex.submit(run_chunk, sim, seed, c, k, cfg) for c, k in enumerate(sizes)]
        cycles = 0
        for f in cf.as_completed(futs):
            r = f.result()
            out.append(r)
            cycles += r[3]
            bar.update(r[1])
            bar.set_postfix(cycles=cycles, bad=sum(x[1] - x[2] for x in out))
    return sorted(out)


def reproduce(sim, seed, result, cfg, out_dir=None):
    """Shrink the first failing program of a chunk result; the saved path and replay command."""
    from tb.stimulus import progen
    from tb import shrink
    c, _, _, _, bad, mismatch = result
    pairs = chunk_programs(seed, c, bad + 1, cfg)
    prog, image = pairs[bad]
    small, img = shrink.shrink(prog, image, shrink.chip_oracle(sim, cfg), cfg)
    path = (out_dir or ROOT / "out") / f"soak_{sim}_seed{seed}_chunk{c}_prog{bad}.s"
    cmd = shrink.save(small, img, path, note=f"{sim}: {mismatch[:200]}")
    return path, cmd, small


def main(argv=None):
    from tb import hw
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--n", type=int, default=10000, help="programs per simulator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=CHUNK, help="programs per simulator process")
    ap.add_argument("--jobs", type=int, default=2, help="local worker processes")
    ap.add_argument("--scheduler", default=None,
                    help="Dask scheduler address (tcp://...), or local:N for a local N-worker cluster")
    ap.add_argument("--ext-words", default=None, help="external memory words (default 4096)")
    ap.add_argument("--mode", default="inorder", choices=config.MODES + ("both",),
                    help="timing mode(s) of the chip (default %(default)s)")
    a = ap.parse_args(argv)
    if a.n < 1 or a.chunk < 1 or a.jobs < 1:
        ap.error("--n, --chunk and --jobs must be >= 1")
    if a.seed < 0:
        ap.error(f"--seed must be >= 0, got {a.seed}")
    try:
        cfg = config.parse_ext(a.ext_words) if a.ext_words else config.DEFAULT
    except ValueError as e:
        ap.error(str(e))
    rc = 0
    modes = config.MODES if a.mode == "both" else (a.mode,)
    for sim, mode in ((s, m) for s in (hw.SIMS if a.sim == "both" else (a.sim,)) for m in modes):
        cfg = cfg.replace(mode=mode)
        t0 = time.time()
        res = soak(sim, a.n, a.seed, cfg, a.chunk, a.scheduler, a.jobs)
        wall = time.time() - t0
        progs, ok, cyc = sum(r[1] for r in res), sum(r[2] for r in res), sum(r[3] for r in res)
        print(f"{'PASS' if ok == progs else 'FAIL'} {sim} [{mode}]: {progs} programs, {progs - ok} mismatches, "
              f"{cyc} cycles (from the chip's counters), {wall:.1f} s wall, {progs / wall:.1f} programs/s, "
              f"{cyc / wall:.0f} cycles/s")
        failing = [r for r in res if r[4] >= 0]
        if failing:
            rc = 1
            path, cmd, small = reproduce(sim, a.seed, failing[0], cfg)
            print(f"  first mismatch: chunk {failing[0][0]} program {failing[0][4]}: {failing[0][5]}")
            print(f"  shrunk to {len(small)} instructions: {path}\n  replay: {cmd}")
            print(isa.disasm(small))
    return rc


if __name__ == "__main__":
    sys.exit(main())
