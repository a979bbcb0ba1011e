"""The bit-exact and cycle-exact reference of the GA-2 chip.

Machine(cfg).run(prog, image) executes a program (Instr objects or instruction words) on
an external-memory image and returns the final external memory, the scratchpad, the six
counters, the retire trace [(pc, cycle), ...] the RTL must reproduce exactly, and the
number of scratchpad words the executed instructions read (func.sp_reads).
Faults raise GA2Error(code, pc) carrying the state and counters up to the fault; the
faulting instruction writes nothing. The one fault found from data (error 6, a lookup's
row index not below rows) lets the program run to its end (its timing does not change) and
is reported at the end, with the first such lookup's pc; it outranks a later DECODE fault. The scratchpad persists
across runs, as on the chip (it powers up zero and start does not clear it).

The Machine computes neither cycles nor semantics itself: it asks model/timing.py for the
program's schedule (which instructions retire, the counters, the trace, the fault) and
model/func.py for each retired instruction's effect on the memories, in program order.
"""
from collections import namedtuple

import numpy as np

from . import config, func, hostio, isa, timing

Result = namedtuple("Result", "ext sp counters trace sp_reads", defaults=(None,))
Result.__doc__ = """A run's outcome: ext, sp (arrays), counters (isa.Counters), trace [(pc, cycle)],
sp_reads: the scratchpad words the executed instructions read (func.sp_reads summed; None
when not computed), the count the benches compare with the chip's read ports."""


class GA2Error(Exception):
    """A chip fault: code (1..6), pc, and the state when the chip halted."""

    def __init__(self, code, pc, ext=None, sp=None, counters=None, trace=None, reason="",
                 sp_reads=None):
        self.code, self.pc = code, pc
        self.ext, self.sp, self.counters, self.trace = ext, sp, counters, trace
        self.sp_reads = sp_reads         # as Result.sp_reads: the instructions before the fault
        super().__init__(f"GA-2 error {code} ({isa.ERROR_NAMES.get(code, '?')}) at pc {pc}"
                         + (f": {reason}" if reason else ""))


def _w32(a):
    return ((a & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


class Machine:
    """The GA-2 reference of the chip cfg (a model.config.Config, default config.DEFAULT)."""

    def __init__(self, cfg=None):
        self.cfg = config.resolve(cfg)
        self.ext_words = self.cfg.ext_words
        self.sp = np.zeros(self.cfg.sp_words, dtype=np.int64)

    def image(self, image):
        """An external-memory array of ext words from a shorter image (zero-padded); the
        words are checked as the host's input is (model/hostio.py: integers that fit 32 bits)."""
        return hostio.memory_image(image, self.ext_words, "external memory")

    def run(self, prog, image=None):
        ext = self.image(image)
        sp = self.sp
        words = isa.as_words(prog)
        sched = timing._schedule(words, self.cfg)      # ValueError if prog is too long
        # The ISA has no branches: the retired instructions are pcs 0 .. instret-1 in any
        # timing mode, and their effects are applied in program order (HALT does nothing);
        # reads: their func.sp_reads summed.
        n = len(sched.events)
        reads, bad = func.execute_words(words[:n] if n < len(words) else words, ext, sp)
        trace = timing.trace(sched)
        if bad is not None:              # error 6, found in EXEC: the program ran to its end
            raise GA2Error(isa.ERR_INDEX, bad, ext, sp.copy(), sched.counters, trace,
                           f"{isa.decode(words[bad]).op} index not below rows", reads)
        if sched.fault is not None:
            code, pc = sched.fault
            raise GA2Error(code, pc, ext, sp.copy(), sched.counters, trace, sched.reason, reads)
        return Result(ext, sp.copy(), sched.counters, trace, reads)
