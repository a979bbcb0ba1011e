"""cocotb driver of the GA-2 wrapper (toplevel tb/hdl/ga2_tb.v): a pure driver.

The host (tb/sim/run.py) has written every program's hex files into the run directory
(this simulation's cwd) and jobs.txt, one line "first count" per job. For each job this
sets the wrapper's first/count, bumps `req` and awaits `ack`; the wrapper runs the
programs in HDL time (no per-cycle Python) and leaves their results on disk, where the
host reads and judges them. Nothing else happens here: no reference, no comparison.
"""
from pathlib import Path

import cocotb
from cocotb.triggers import Edge, Timer


@cocotb.test()
async def run_job(dut):
    """Run every job of jobs.txt on the chip, in order."""
    jobs = [tuple(int(x) for x in line.split())
            for line in Path("jobs.txt").read_text().splitlines() if line.strip()]
    await Timer(1, units="ns")
    for n, (first, count) in enumerate(jobs):
        tag = n % 0xFFFF + 1              # never 0, the wrapper's ack at reset
        dut.first.value = first
        dut.count.value = count
        dut.req.value = tag
        while True:
            await Edge(dut.ack)
            if int(dut.ack.value) == tag:
                break
    dut._log.info("%d jobs, %d programs", len(jobs), sum(c for _, c in jobs))
