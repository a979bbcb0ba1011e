"""cocotb driver of the GA-2 wrapper (tb/hdl/ga2_tb.v) for a live run: the next program
is chosen by the host after the previous one's outcome (tb/sim/live.py Live).

For k = 0, 1, ...: wait (blocking the simulator: no simulated time passes) until the
host has written program k's inputs and pK_go.txt, or end.txt (tb/protocol.py
live_next); then run program k as a job of one program (first = k, count = 1, bump
`req`, await `ack`): the wrapper reads its files, runs it and writes its outcome, which
the host reads and judges before it writes the next program. A host that goes away
without ending the run is not waited for: the driver ends the simulation when the host's
process (+live_host=PID) is gone, or after +live_idle=SECONDS (default 900) with nothing
to do (the host, if still there, reports the missing outcome as a fault of the run).
"""
import os
import time

import cocotb
from cocotb.triggers import Timer

from tb import protocol

POLL = 0.002          # seconds between looks at the run directory


def _alive(pid):
    """Whether process pid (0: unknown) still runs."""
    if not pid:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _plusarg(name, default):
    try:
        return float(cocotb.plusargs.get(name, default))
    except (TypeError, ValueError):
        return default


@cocotb.test()
async def run_live(dut):
    """Run the host's programs one at a time, as the host decides them."""
    idle = _plusarg("live_idle", 900.0)
    host = int(_plusarg("live_host", 0))
    await Timer(1, unit="ns")
    k = 0
    while True:
        t0 = time.monotonic()
        what = protocol.live_next(".", k)
        n = 0
        while what is None and time.monotonic() - t0 < idle and (n % 250 or _alive(host)):
            time.sleep(POLL)
            n += 1
            what = protocol.live_next(".", k)
        if what != "go":
            break
        tag = k % 0xFFFF + 1              # never 0, the wrapper's ack at reset
        dut.first.value = k
        dut.count.value = 1
        dut.req.value = tag
        while True:
            await dut.ack.value_change
            if int(dut.ack.value) == tag:
                break
        k += 1
    dut._log.info("live: %d programs (%s)", k, "ended by the host" if what == "end" else "host gone or idle")
