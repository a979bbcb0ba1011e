"""cocotb driver of the GA-2 wrapper (toplevel tb/hdl/ga2_tb.v): a pure driver.

The host (tb/sim/run.py) has written every program's hex files into the run directory
(this simulation's cwd) and jobs.txt (tb/protocol.py read_jobs: first, count, wait per
job). For each job this sets the wrapper's first/count, bumps `req` and awaits `ack`;
the wrapper runs the programs in HDL time (no per-cycle Python) and leaves their results
on disk, where the host reads and judges them. Nothing else happens here: no reference,
no comparison.

The wait: a value-change callback on `ack` is tested by the simulator after every
evaluation (on Verilator about a tenth of a cycle's instructions), so the driver first
sleeps through the job's wait (a lower bound of its length from the timing model,
computed by the host) and only then watches `ack`. A chip slower than the bound is
watched from then on; one that finished sooner has its outcome on disk and sits idle
until the wait ends; either way the outcome is the files' (the counters, not the wait).
"""
import cocotb
from cocotb.triggers import Timer

from tb import protocol


@cocotb.test()
async def run_job(dut):
    """Run every job of jobs.txt on the chip, in order."""
    jobs = protocol.read_jobs(".")
    await Timer(1, unit="ns")
    for n, (first, count, wait) in enumerate(jobs):
        tag = n % 0xFFFF + 1              # never 0, the wrapper's ack at reset
        dut.first.value = first
        dut.count.value = count
        dut.req.value = tag
        if wait > 0:
            await Timer(wait, unit="ns")
        while int(dut.ack.value) != tag:
            await dut.ack.value_change
    dut._log.info("%d jobs, %d programs", len(jobs), sum(c for _, c, _ in jobs))
