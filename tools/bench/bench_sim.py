"""Simulation speed of the GA-2 chip: simulated cycles per wall second, per simulator.

Two paths run the same long valid program: the cocotb path (tb.hw.run, the one every
test uses) and the plain Verilog bench tb/hdl/tb_plain.v (no Python in the loop). Both
paths' results are judged against the reference (tb/judge.py compare: memory, the five
counters, the retire trace, errors; the cocotb path also the host-contract monitors and
the bus log), and both must run the model's cycles. Cycles are the chip's own cycle
counter. The figure compared is the simulator call of each path: its wall time, process
start included (the cocotb path's is tb/sim/run.py's cocotb_test, timed inside hw.run;
the plain path's the bench's process). Printed beside it: the cocotb path's whole hw.run
call, whose host side (writing the inputs, reading the outcomes back, the reference
Machine and the judge) is measured as the difference and said so; the CPU seconds of
both simulator calls and the cycles per CPU second (steadier than wall time on a shared
machine); and, derived, the
cocotb rate without its fixed start-up (a HALT-only call, run first, which also does
the host's one-time import of cocotb, so that is in neither figure; builds are in
neither). Both paths run the program --runs times in one simulator process (default: 1
on Icarus, 8 on Verilator, whose fast simulation otherwise hides behind that start-up),
so throughput is compared, as a test suite running many programs per call sees it.

  python -m tools.bench.bench_sim [--sim icarus|verilator|both] [--mode inorder|overlap|both]
                                  [--groups N] [--runs R]

Both timing modes by default (the same program; the overlap mode runs it in fewer cycles,
so its cycles per second say how fast the simulator runs the busier circuit). Exit 1 when a
path disagrees with the reference (a FAIL line), 4 when a simulator itself crashed, hung
or was killed (a FAULT line: nothing was measured).
"""
import resource
import sys
import tempfile
import time

import numpy as np

from model import config, isa, timing
from model.machine import Machine
from tb import cli, hw, judge

DEFAULT_GROUPS = {"icarus": 12, "verilator": 120}
DEFAULT_RUNS = {"icarus": 1, "verilator": 8}


def long_program(groups, ext=None):
    """(prog, image): `groups` repetitions of LD, MM, RQ, 4 SM, ST (about 9,900 cycles each)."""
    ext = config.DEFAULT.ext_words if ext is None else ext
    if not 1 <= groups <= (config.DEFAULT.imem_depth - 1) // 8:
        raise ValueError(f"groups must be 1..{(config.DEFAULT.imem_depth - 1) // 8}, got {groups}")
    n = min(256, ext)
    def b(op, **f):
        return isa.build(op, cfg=config.DEFAULT.replace(ext_words=ext), **f)
    prog = []
    for g in range(groups):
        prog += [b("LD", dst=0, src=(g * 7) % (ext - n + 1), len=n),
                 b("MM", dst=1024, A=0, B=64, M=4, K=64, N=4, tb=1, lda=64, ldb=64, ldc=4),
                 b("RQ", dst=2048, src=0, len=n, m=20000, s=16),
                 b("SM", dst=2560, src=2048, len=64),
                 b("SM", dst=2624, src=2048, len=64),
                 b("SM", dst=2688, src=2560, len=64),
                 b("SM", dst=2752, src=2624, len=64),
                 b("ST", src=2560, dst=(g * 3) % (ext - 64 + 1), len=64)]
    prog.append(b("HALT"))
    image = np.random.default_rng(1).integers(-128, 128, size=ext)
    return prog, image


def build_plain(sim, cfg):
    """The plain bench (tb/sim/plain.py) for sim on cfg; the command."""
    return hw.plain.build(sim, cfg)


def _child_cpu():
    """CPU seconds (user + system) of this process's finished children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_plain(sim, prog, image, cfg, runs=1):
    """(cycles from the chip's counter summed over the runs, wall seconds, CPU seconds,
    problems) of one tb_plain call; problems: each run judged against the reference."""
    cmd = build_plain(sim, cfg)
    with tempfile.TemporaryDirectory() as d:
        c0 = _child_cpu()
        r = hw.plain.run(cmd, prog, image, cfg, d, runs=runs, max_cycles=10_000_000, trace=True)
        cpu = _child_cpu() - c0
    refs = judge.references(Machine(cfg), [(isa.as_words(prog), image, None)] * runs)
    bad = [f"plain run {k}: {m}" for k, (ref, got) in enumerate(zip(refs, hw.plain.outcomes(r)))
           for m in [judge.compare(ref, got)] if m]
    return sum(st["cycles"] for st in r.status), r.wall, cpu, bad


def run_cocotb(sim, prog, image, cfg, runs=1):
    """(cycles from the chip's counter summed over the runs, wall seconds of the whole
    hw.run call, wall and CPU seconds of its simulator call, problems) of one hw.run."""
    hw.build(sim, cfg=cfg)
    with hw.simulator_calls() as calls:
        t0 = time.perf_counter()
        res = hw.run_programs(sim, [(prog, image)] * runs, cfg=cfg, max_cycles=10_000_000)
        wall = time.perf_counter() - t0
    (s_wall, s_cpu), = calls
    bad = [f"cocotb run {k}: {r.mismatch}" for k, r in enumerate(res) if not r.ok]
    return sum(int(r.counters.cycles) for r in res), wall, s_wall, s_cpu, bad


def main(argv=None):
    ap = cli.Parser(prog="tools.bench.bench_sim", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--groups", type=cli.integer(1, (config.DEFAULT.imem_depth - 1) // 8), default=None,
                    help="LD/MM/RQ/SM/ST groups in the program (default: 12 Icarus, 120 Verilator)")
    ap.add_argument("--runs", type=cli.integer(1, 1000), default=None,
                    help="runs of the program per simulator call (default: 1 Icarus, 8 Verilator)")
    ap.add_argument("--mode", default="both", choices=config.MODES + ("both",),
                    help="timing mode(s) of the chip (default: both)")
    a = ap.parse_args(argv)
    ext = config.DEFAULT.ext_words
    sims = hw.SIMS if a.sim == "both" else (a.sim,)
    modes = config.MODES if a.mode == "both" else (a.mode,)
    rc = faults = 0
    for sim, mode in ((s, m) for s in sims for m in modes):
        cfg = config.DEFAULT.replace(mode=mode)
        prog, image = long_program(a.groups or DEFAULT_GROUPS[sim], ext)
        runs = a.runs or DEFAULT_RUNS[sim]
        expect = timing.schedule(prog, cfg).cycles * runs
        try:
            build_plain(sim, cfg)
            _, _, c_start, _, _ = run_cocotb(sim, [isa.build("HALT")], None, cfg)   # fixed start-up
            c_cyc, c_all, c_wall, c_cpu, c_bad = run_cocotb(sim, prog, image, cfg, runs)
            p_cyc, p_wall, p_cpu, p_bad = run_plain(sim, prog, image, cfg, runs)
        except hw.ToolFault as e:    # nothing is measured of the chip: a FAULT, not a figure
            print(f"FAULT {sim} [{mode}]: {e}")
            faults += 1
            continue
        if c_bad or p_bad or c_cyc != expect or p_cyc != expect:
            print(f"FAIL {sim} [{mode}]: cycles cocotb {c_cyc}, plain {p_cyc}, model {expect}; "
                  + "; ".join((c_bad + p_bad)[:4]))
            rc = 1
            continue
        c_rate, p_rate = c_cyc / c_wall, p_cyc / p_wall
        print(f"{sim:9s} [{mode}]: {len(prog)} instructions x {runs} runs, {c_cyc} cycles (chip counter), "
              f"both paths equal to the reference")
        print(f"{'':9s}  cocotb {c_rate:,.0f} cycles/s (simulator call {c_wall:.2f} s, CPU {c_cpu:.2f} s), "
              f"plain {p_rate:,.0f} cycles/s ({p_wall:.2f} s, CPU {p_cpu:.2f} s); "
              f"plain/cocotb = {p_rate / c_rate:.2f}x (CPU {c_cpu / p_cpu:.2f}x)")
        print(f"{'':9s}  per CPU second: cocotb {c_cyc / c_cpu:,.0f} cycles, plain {p_cyc / p_cpu:,.0f} "
              f"(the figure a shared machine moves least)")
        print(f"{'':9s}  whole hw.run {c_all:.2f} s: {c_cyc / c_all:,.0f} cycles/s, plain/cocotb = "
              f"{p_rate * c_all / c_cyc:.2f}x; its host side (inputs, reading back, reference "
              f"Machine, judge) {c_all - c_wall:.2f} s")
        if c_wall > c_start:
            steady = c_cyc / (c_wall - c_start)
            print(f"{'':9s}  derived: cocotb start-up {c_start:.2f} s (HALT-only simulator call); "
                  f"without it {steady:,.0f} cycles/s, plain/cocotb = {p_rate / steady:.2f}x")
    return 4 if faults else rc      # tools.ga2's exit codes: 4 a fault of the simulator itself


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
