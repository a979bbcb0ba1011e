"""Long programs through the ga2 command: wall and CPU seconds of `ga2 cycles` and of
`ga2 run --sim S` on a program of --n instructions (default 150,000: past the old 16-bit
pc), and how fast each simulator loads the instruction memory.

The program is tb/stimulus/longprog.py's (blocks of LD, LD, MM, ST, then HALT), written as
.hex files the way a user hands them to the command; each command runs in this process
(tools/ga2.py main, its output to /dev/null) and must exit 0: every simulator equal to the
reference. A build of the chip for the program's instruction memory (the smallest power of
two holding it) is made first and timed apart. CPU seconds are this process's and its
children's (the simulator): on a shared machine they are steadier than wall seconds.

The load speed: the cocotb wrapper (tb/hdl/ga2_tb.v) loads the host's binary image of the
instruction memory, padded to its depth (tb/protocol.py write_bin; one $fread), before
each program (tools/bench/bench_load.py times it, and the external memory's, apart from
the per-program work). One simulator call runs --loads + 1 HALT-only programs, another one;
the difference of their simulator processes' CPU seconds, over --loads, is the cost of one
load of the whole memory (words / s = depth / that).

  python -m tools.bench.bench_long [--n N] [--sim icarus|verilator|both] [--loads K]

Exit 1 when a command does not exit 0, 4 when a simulator itself failed.
"""
import contextlib
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from model import config, isa
from tb import cli, hw
from tb.stimulus import longprog
from tools import ga2


def _cpu():
    """CPU seconds (user + system) of this process and its finished children."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def timed(argv):
    """(exit code, wall seconds, CPU seconds) of ga2.main(argv), its output discarded."""
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        c0, t0 = _cpu(), time.perf_counter()
        rc = ga2.main([str(a) for a in argv])
        return rc, time.perf_counter() - t0, _cpu() - c0


def write_files(d, n, cfg):
    """PROG.hex and its external image (.hex) of longprog.long_program(n) in folder d."""
    words, image = longprog.long_program(n, cfg)
    prog, ext = Path(d) / f"long{n}.hex", Path(d) / f"long{n}_ext.hex"
    prog.write_text("".join(f"{w:032x}\n" for w in words))
    ext.write_text("".join(f"{int(v) & 0xFFFFFFFF:08x}\n" for v in image))
    return prog, ext


def load_speed(sim, cfg, loads):
    """(seconds per load of cfg's whole instruction memory, words per second): the CPU
    seconds of a simulator call of loads + 1 HALT programs minus one of 1, over loads."""
    halt = [isa.build("HALT")]
    cpu = []
    for k in (1, loads + 1):
        with hw.simulator_calls() as calls:
            res = hw.run_programs(sim, [(halt, None)] * k, cfg=cfg)
        if not all(r.ok for r in res):
            raise RuntimeError(f"{sim}: a HALT program differs from the reference: {res[0].mismatch}")
        cpu.append(calls[0][1])
    per = max(cpu[1] - cpu[0], 1e-9) / loads
    return per, cfg.imem_depth / per


def main(argv=None):
    ap = cli.Parser(prog="tools.bench.bench_long", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=cli.integer(2, config.IMEM_MAX), default=150000,
                    help="instructions in the program (default 150000)")
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--loads", type=cli.integer(1, 100), default=4,
                    help="extra instruction-memory loads timed per simulator (default 4)")
    a = ap.parse_args(argv)
    sims = hw.SIMS if a.sim == "both" else (a.sim,)
    cfg = config.DEFAULT.for_program(a.n)
    rc = 0
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        prog, ext = write_files(d, a.n, cfg)
        print(f"program: {a.n} instructions (tb/stimulus/longprog.py), instruction memory {cfg.imem_depth} "
              f"words; written in {time.perf_counter() - t0:.1f} s ({prog.stat().st_size:,} bytes)")
        code, wall, cpu = timed(["cycles", prog])
        print(f"ga2 cycles: exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU")
        rc |= code != 0
        for sim in sims:
            try:
                t0 = time.perf_counter()
                hw.build(sim, cfg=cfg)
                built = time.perf_counter() - t0
                code, wall, cpu = timed(["run", prog, "--ext", ext, "--sim", sim])
                per, rate = load_speed(sim, cfg, a.loads)
            except hw.ToolFault as e:
                print(f"FAULT {sim}: {e}")
                return 4
            print(f"ga2 run --sim {sim}: exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU "
                  f"(the build before it: {built:.1f} s wall)")
            print(f"  {sim} loads the instruction memory ({cfg.imem_depth} words of 128 bits) in {per:.2f} s "
                  f"CPU: {rate:,.0f} words/s")
            rc |= code != 0
    return 1 if rc else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
