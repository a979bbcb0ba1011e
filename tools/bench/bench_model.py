#!/usr/bin/env python3
"""Speed of the Python reference Machine (model/machine.py): a benchmark, not a test.

Prints
  1. instructions per CPU second over a long seeded mix of random valid programs (LD,
     ST, MM, RQ, SM with the shapes the chapter-9 programs use), each run once;
  2. where that time goes: the steps of Machine.run timed one by one on fresh programs
     of the same mix (host checks of the image and the program, the schedule, executing
     the retired instructions, the trace);
  3. instructions per CPU second per op (programs of one op only);
  4. milliseconds for one 100-instruction program of 4x4 tiles (MM M=N=4, K=16 mostly,
     with LD and RQ around it), median of repeated runs on a fresh Machine (the Machine
     caches decoded words, so the first run is also printed).
The mix and per-op programs are all freshly generated, so decode caches do not help them.
The wall times are this host's; the chip cycles printed for the tile program come from
its schedule (model/timing.py, the timing contract), labelled as such.

    python tools/bench/bench_model.py [--seconds 3] [--seed 1] [--json out/bench_model.json]
"""
import json
import os
import pathlib
import random
import statistics
import sys
import time

from model import config, func, isa, timing
from model.machine import Machine
from tb import cli

CFG = config.DEFAULT
EXT = CFG.ext_words
OPS_MIX = ["LD"] * 3 + ["ST"] + ["MM"] * 4 + ["RQ"] * 2 + ["SM"]


def random_instr(rng, op):
    """One valid instruction of op with random fields (ext = 4096 words)."""
    if op in ("LD", "ST"):
        n = rng.randint(1, 64)
        spa, exa = rng.randint(0, CFG.sp_words - n), rng.randint(0, EXT - n)
        f = dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)
        return isa.build(op, cfg=CFG, len=n, **f)
    if op == "MM":
        M, N, tb = rng.randint(1, 4), rng.randint(1, 4), rng.randint(0, 1)
        K = rng.choice([16, 16, 16, 32, 64, 4, 1])
        lda = rng.choice([K, K + 3, 64])
        ldb = rng.choice([K, 64]) if tb else rng.choice([N, 4, 64])
        ldc = rng.choice([N, 4, 64])
        ra, rc = (M - 1) * lda + K - 1, (M - 1) * ldc + N - 1
        rb = (N - 1) * ldb + K - 1 if tb else (K - 1) * ldb + N - 1
        return isa.build("MM", cfg=CFG, dst=rng.randint(0, 4095 - rc), A=rng.randint(0, 4095 - ra),
                         B=rng.randint(0, 4095 - rb), M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc)
    n = rng.randint(1, 64)
    f = dict(dst=rng.randint(0, CFG.sp_words - n), src=rng.randint(0, CFG.sp_words - n), len=n)
    if op == "RQ":
        f.update(m=rng.randint(1 << 14, (1 << 15) - 1), s=rng.randint(10, 30))
    return isa.build(op, cfg=CFG, **f)


def random_program(rng, n, ops=OPS_MIX):
    return [random_instr(rng, rng.choice(ops)) for _ in range(n)] + [isa.build("HALT")]


def rate(programs, image):
    """(instructions/s of CPU time, instructions/s of wall time, instructions) running each
    program once. CPU time is the figure to judge: the host is shared, wall time is not ours."""
    m = Machine(CFG)
    done = 0
    c0, t0 = time.process_time(), time.perf_counter()
    for prog in programs:
        done += m.run(prog, image).counters.instret
    return done / (time.process_time() - c0), done / (time.perf_counter() - t0), done


def steps(programs, image):
    """CPU seconds per step of Machine.run (model/machine.py), the steps called one by one
    as run() calls them, each program once; and the instructions executed."""
    m = Machine(CFG)
    t = dict.fromkeys(("host checks: image", "host checks: program words", "schedule",
                       "execute", "trace"), 0.0)
    done = 0
    clock = time.process_time
    for prog in programs:
        c0 = clock()
        ext = m.image(image)
        c1 = clock()
        words = isa.as_words(prog)
        c2 = clock()
        sched = timing._schedule(words, m.cfg)
        c3 = clock()
        n = len(sched.events)
        func.execute_words(words[:n], ext, m.sp)
        c4 = clock()
        timing.trace(sched)
        c5 = clock()
        for k, a, b in zip(t, (c0, c1, c2, c3, c4), (c1, c2, c3, c4, c5)):
            t[k] += b - a
        done += n
    return t, done


def tile_program():
    """100 instructions: 4x4 output tiles of a (16 x 64) @ (64 x 16) product, K = 16 steps."""
    def B(op, **f):
        return isa.build(op, cfg=CFG, **f)
    prog = [B("LD", dst=0, src=0, len=1024),           # A: 16 rows x 64
            B("LD", dst=1024, src=1024, len=1024)]     # B stored transposed: 16 rows x 64
    tiles = [(i, j) for i in range(4) for j in range(4)]
    t = 0
    while len(prog) < 99:
        i, j = tiles[t % len(tiles)]
        k = (t // len(tiles)) % 4
        c = 2048 + 16 * (t % 64)
        if len(prog) % 6 == 5:
            prog.append(B("RQ", dst=3072 + 16 * (t % 32), src=c, len=16, m=20000, s=20))
        elif len(prog) % 12 == 4:
            prog.append(B("LD", dst=3600, src=2048 + 64 * (t % 16), len=64))
        else:
            prog.append(B("MM", dst=c, A=64 * 4 * i + 16 * k, B=1024 + 64 * 4 * j + 16 * k,
                          M=4, K=16, N=4, tb=1, lda=64, ldb=64, ldc=4))
            t += 1
    return prog + [B("HALT")]


def main(argv=None):
    ap = cli.Parser(prog="tools.bench.bench_model", description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=cli.number(hi=3600, above=0), default=3.0, help="rough length of the mix run")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--json", type=lambda t: pathlib.Path(cli.out_file()(t)), help="also write the figures here")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    image = [rng.randint(-128, 127) for _ in range(EXT)]
    load = os.getloadavg()[0]
    out = {"host": "Python reference speed on this host; not chip figures",
           "load_avg_1min_at_start": round(load, 2), "cpus": os.cpu_count()}
    print(f"host: {os.cpu_count()} CPUs, 1-minute load average {load:.2f} at start "
          f"(wall-clock rates shrink when other jobs share the CPUs; CPU-time rates do not)")

    # warm-up and calibration: how many 1000-instruction programs fit in --seconds
    probe = [random_program(rng, 999)]
    r0, _, _ = rate(probe, image)
    n_progs = max(2, int(args.seconds * r0 / 1000))
    progs = [random_program(rng, 999) for _ in range(n_progs)]
    ips, ips_wall, done = rate(progs, image)
    out["mix_instr_per_s_cpu"] = round(ips)
    out["mix_instr_per_s_wall"] = round(ips_wall)
    out["mix_instructions"] = done
    print(f"random valid mix: {done} instructions in {n_progs} programs: {ips:,.0f} instructions"
          f" per CPU second ({1e6 / ips:.1f} us each); {ips_wall:,.0f} per wall-clock second")

    # where the time goes: the steps of run() one by one (fresh programs; a quarter as many)
    t, n = steps([random_program(rng, 999) for _ in range(max(2, n_progs // 4))], image)
    total = sum(t.values())
    out["mix_steps_us_per_instr_cpu"] = {k: round(v * 1e6 / n, 2) for k, v in t.items()}
    print(f"  the steps of Machine.run on {n} more instructions of the mix, CPU time per "
          f"instruction (together {n / total:,.0f} instructions per CPU second):")
    for k, v in t.items():
        print(f"    {k:<28} {v * 1e6 / n:6.2f} us  {100 * v / total:5.1f}%")

    out["per_op_instr_per_s_cpu"] = {}
    for op in ("LD", "ST", "MM", "RQ", "SM"):
        ps = [random_program(rng, 400, [op]) for _ in range(2)]
        r, _, _ = rate(ps, image)
        out["per_op_instr_per_s_cpu"][op] = round(r)
        print(f"  {op:<3} only: {r:10,.0f} instructions per CPU second ({1e6 / r:6.1f} us each)")

    prog = tile_program()
    ops = {op: sum(1 for i in prog if i.op == op) for op in ("LD", "MM", "RQ", "HALT")}
    times = []
    for _ in range(30):
        m = Machine(CFG)
        t0 = time.process_time()
        res = m.run(prog, image)
        times.append((time.process_time() - t0) * 1e3)
    ms = statistics.median(times)
    sched = timing.schedule(prog, CFG)
    out["tile_program"] = {"instructions": len(prog), "ops": ops, "ms_median": round(ms, 3),
                           "ms_min": round(min(times), 3), "ms_first_run": round(times[0], 3),
                           "chip_cycles_derived": sched.cycles,
                           "macs": isa.program_macs(prog)}
    assert sched.fault is None and res.counters == sched.counters
    print(f"4x4-tile program ({len(prog)} instructions: {ops}): {ms:.2f} ms of CPU time median"
          f" (min {min(times):.2f} ms, first run with cold decode caches {times[0]:.2f} ms, 30 runs)")
    print(f"  its chip cycles (derived from its schedule, not measured here):"
          f" {sched.cycles}")
    target = 50000
    verdict = "meets" if ips >= target else "BELOW"
    print(f"target >= {target:,} instructions per CPU second on the mix: {verdict}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
