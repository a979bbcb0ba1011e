"""The one entry point to the GA-2 chip in simulation (Icarus or Verilator, via cocotb).

A facade over the library in tb/sim: build.py (simulators, flags, builds), run.py
(running jobs, the reference next to them), plain.py (the plain Verilog bench); with
tb/judge.py (the one judgement) and tb/protocol.py (the files). Call sites use
hw.build(sim, cfg=...), hw.run(sim, jobs, cfg=...), hw.run_programs(sim, pairs, cfg=...,
max_cycles=...), hw.Live(sim, cfg=...) (a run whose next program is chosen after the last
one's outcome: live.run(item) -> its judged ProgResult, ChipMismatch on a disagreement), hw.compare(ref, got) and
hw.summary(results); source_set="gls" (build, run) simulates the yosys netlist of ga2_top in place of the RTL
(tb/sim/gls.py, Icarus).

CLI: python -m tb.hw --sim icarus|verilator|both [--demo | --build] (the demo programs:
tb/stimulus/demo.py)
"""
import contextlib
import resource
import sys
import time

from tb import cli
from tb.judge import KEEP_EXT, compare
from tb.sim import gls, plain
from tb.sim.build import (
    ICARUS_ARGS,
    RTL_COVERAGE_ENV,
    SIMS,
    VERILATOR_ARGS,
    available_sims,
    build,
    cfg_parameters,
    sources,
)
from tb.sim.files import expand_macros, rtl_files
from tb.sim.live import ChipMismatch, Live
from tb.sim.process import ToolFault, error_line
from tb.sim.run import (
    DesignAssertion,
    Item,
    SimulatorFault,
    cycle_limit,
    prepare_jobs,
    read_raw,
    run,
    run_programs,
    summary,
)
from tb.sim.tools import CONFIG_MAKEFLAGS as VERILATOR_CONFIG_MAKEFLAGS
from tb.sim.tools import env as verilator_env
from tb.sim.tools import verilator
from tb.stimulus.demo import demo_programs

# the entry point's names: what tools/ and tests/ reach through tb.hw (the library's own, re-exported
# here on purpose); plain (the plain Verilog bench: plain.build, plain.run) and gls (the gate-level
# netlist: gls.netlist, gls.cells; run(..., source_set="gls")); ICARUS_ARGS, VERILATOR_ARGS,
# cfg_parameters, sources and expand_macros (the FuseSoC cores; the parameters' text); error_line
# (a tool's failing line, for the flows' own ToolFaults); verilator, verilator_env and
# VERILATOR_CONFIG_MAKEFLAGS (.venv's Verilator for lint and FuseSoC: tb/sim/tools.py)
__all__ = ["ChipMismatch", "DesignAssertion", "ICARUS_ARGS", "Item", "KEEP_EXT", "Live", "RTL_COVERAGE_ENV", "SIMS",
           "SimulatorFault", "ToolFault", "VERILATOR_ARGS", "VERILATOR_CONFIG_MAKEFLAGS", "available_sims", "build",
           "cfg_parameters", "compare", "cycle_limit", "error_line", "expand_macros", "gls", "main", "plain",
           "prepare_jobs", "read_raw", "rtl_files", "run", "run_programs", "simulator_calls", "sources", "summary",
           "verilator", "verilator_env"]


@contextlib.contextmanager
def simulator_calls():
    """Time the simulator calls run() makes in the block (tools/bench/bench_sim.py): yields
    a list that gets (wall seconds, CPU seconds of the simulator process) per call, the
    cocotb process from its start to its end (tb/sim/run.py's cocotb_test)."""
    from tb.sim import run as sim_run
    calls, untimed = [], sim_run.cocotb_test

    def cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    def timed(*a, **k):
        c0, t0 = cpu(), time.perf_counter()
        try:
            return untimed(*a, **k)
        finally:
            calls.append((time.perf_counter() - t0, cpu() - c0))
    sim_run.cocotb_test = timed
    try:
        yield calls
    finally:
        sim_run.cocotb_test = untimed


def main(argv=None):
    ap = cli.Parser(prog="tb.hw", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="icarus", choices=SIMS + ("both",))
    ap.add_argument("--demo", action="store_true", help="run the demo programs against the reference")
    ap.add_argument("--build", action="store_true", help="only build")
    a = ap.parse_args(argv)
    sims = SIMS if a.sim == "both" else (a.sim,)
    rc = 0
    for sim in sims:
        t0 = time.time()
        bdir = build(sim)
        print(f"built {sim} in {bdir} ({time.time() - t0:.1f} s)")
        if a.demo or not a.build:
            t0 = time.time()
            res = run_programs(sim, demo_programs())
            n, ok, cyc = summary([res])
            for i, p in enumerate(res):
                print(f"  program {i}: {'ok' if p.ok else 'MISMATCH ' + p.mismatch}; counters {tuple(p.counters)}")
            print(f"{'PASS' if ok == n else 'FAIL'} {sim}: {ok}/{n} programs, {cyc} cycles "
                  f"(from the chip's counters), {time.time() - t0:.1f} s wall")
            rc |= ok != n
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
