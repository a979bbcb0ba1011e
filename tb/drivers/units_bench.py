"""units_tb's bench library for its cocotb tests (tb/drivers/units_job.py): the bench's sizes
and scale, the req/ack protocol (Runner), the hex files of its scratchpad and the value
helpers. Kept apart from the tests so each test module reads as what it checks."""
import os
from pathlib import Path

import numpy as np

from model import config

MEM = 4096
EXT = config.DEFAULT.ext_words       # units_tb's external memory (the DMA's jobs)
V_DMA = 31                           # units_tb's f_var of the DMA
SEED = int(os.environ.get("GA2_UNIT_SEED", "1"))
SCALE = float(os.environ.get("GA2_UNIT_SCALE", "1"))
NONE = 0xFFFFFFFF


# every test ends within this much simulated time (the longest, test_softmax, takes about
# 1 ms at SCALE 1): a unit that never raises last or never drops busy fails its test there
# instead of hanging the simulator (tests/tb/test_units_cosim.py runs the eight in one process)
TIMEOUT_MS = 20 * max(1.0, SCALE)


def scaled(k):
    """k vectors at this run's SCALE (at least one)."""
    return max(1, int(k * SCALE))


def lengths(k):
    """The lengths 1..k, or at SCALE below 1 every (1 / SCALE)-th of them and both ends of
    each (1, 2, k - 1, k): in make test, Icarus's third of the softmax's random vectors."""
    if SCALE >= 1:
        return list(range(1, k + 1))
    step = max(1, round(1 / SCALE))
    return sorted(set(range(1, k + 1, step)) | {1, 2, k - 1, k})


def s8(a):
    return ((np.asarray(a, dtype=np.int64) & 0xFF) ^ 0x80) - 0x80


def w32(a):
    return ((np.asarray(a, dtype=np.int64) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


class Runner:
    """Drives the req/ack protocol of units_tb."""

    def __init__(self, dut):
        self.dut, self.tag = dut, 0
        dut.f_fast.value = 0
        dut.f_relu.value = 0

    async def run(self, sel, mem=None, **fields):
        d = self.dut
        if mem is not None:
            write_hex("mem_in.hex", mem)
        d.sel.value = sel
        for name, v in fields.items():
            getattr(d, name).value = int(v)
        self.tag = (self.tag + 1) & 0xFFFF
        d.req.value = self.tag
        while True:
            await d.ack.value_change
            if int(d.ack.value) == self.tag:
                break
        out = {k: int(getattr(d, k).value) for k in
               ("busy_cycles", "last_cycle", "last_read", "first_write", "n_writes", "div_q", "div_r")}
        if mem is not None:
            out["mem"] = read_hex("mem_out.hex")
        return out


def fill(rng, n):
    """n words of one random kind: int8 values, full 32-bit words, or the int8 corners."""
    kind = rng.integers(0, 3)
    if kind == 0:
        return rng.integers(-128, 128, size=n)
    if kind == 1:
        return rng.integers(-(1 << 31), 1 << 31, size=n)
    return rng.choice([-128, 127, 0, -1, 1], size=n)
CLK_NS = 10              # units_tb's clock: always #5 clk = ~clk


def ascii_of(sig):
    """A Verilog string output (zero-padded on the left) as text."""
    v = sig.value
    if not v.is_resolvable:
        return str(v)
    n = len(v) // 8
    return int(v).to_bytes(n, "big").lstrip(b"\0").decode("ascii", "replace")


def write_hex(path, words):
    """words as the bench's $readmemh file (32-bit two's complement)."""
    Path(path).write_text("\n".join(map("{:08x}".format, (np.asarray(words, dtype=np.int64)
                                                           & 0xFFFFFFFF).tolist())) + "\n")


def read_hex(path):
    """The bench's $writememh file as signed words; x or z in it fails."""
    lines = [ln for ln in Path(path).read_text().split("\n") if ln and not ln.startswith("//")]
    assert not any(c in "".join(lines).lower() for c in "xz"), f"x/z in {path}"
    return w32([int(ln, 16) for ln in lines])
