"""The bit-exact and cycle-exact reference of the GA-2 chip.

Machine(ext).run(prog, image) executes a program (Instr objects or instruction words) on
an external-memory image and returns the final external memory, the scratchpad, the five
counters and the retire trace [(pc, cycle), ...] the RTL must reproduce exactly.
Faults raise GA2Error(code, pc) carrying the state and counters up to the fault; the
faulting instruction writes nothing. The scratchpad persists across runs, as on the chip
(it powers up zero and start does not clear it).
"""
from collections import namedtuple

import numpy as np

from . import ga2_isa as isa
from .softmax_gold import LUT, Q16

Result = namedtuple("Result", "ext sp counters trace")
_LUT = np.array(LUT, dtype=np.int64)


class GA2Error(Exception):
    """A chip fault: code (1..5), pc, and the state when the chip halted."""

    def __init__(self, code, pc, ext=None, sp=None, counters=None, trace=None, reason=""):
        self.code, self.pc = code, pc
        self.ext, self.sp, self.counters, self.trace = ext, sp, counters, trace
        super().__init__(f"GA-2 error {code} ({isa.ERROR_NAMES.get(code, '?')}) at pc {pc}"
                         + (f": {reason}" if reason else ""))


def _s8(a):
    return ((a & 0xFF) ^ 0x80) - 0x80


def _w32(a):
    return ((a & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


def requant_vec(a, m, s):
    """quant.requant over an int64 array (exact: |a*m| < 2^47)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return np.clip(p >> s, -128, 127)


class Machine:
    """The GA-2 reference: Machine(ext=GA2_EXT words of external memory)."""

    def __init__(self, ext=None):
        self.ext_words = isa.ext_size() if ext is None else int(ext)
        if not 1 <= self.ext_words <= isa.EXT_MAX:
            raise ValueError(f"Machine: ext={self.ext_words} outside 1..{isa.EXT_MAX}")
        self.sp = np.zeros(isa.SP_WORDS, dtype=np.int64)

    def image(self, image):
        """An external-memory array of ext words from a shorter list or array (zero-padded)."""
        img = np.zeros(self.ext_words, dtype=np.int64)
        data = np.asarray(image if image is not None else [], dtype=np.int64).ravel()
        if len(data) > self.ext_words:
            raise ValueError(f"image of {len(data)} words larger than external memory ({self.ext_words})")
        img[:len(data)] = _w32(data)
        return img

    def run(self, prog, image=None):
        ext = self.image(image)
        sp = self.sp
        words = isa.as_words(prog)
        if len(words) > isa.IMEM_DEPTH:
            raise ValueError(f"program of {len(words)} instructions exceeds instruction memory ({isa.IMEM_DEPTH})")
        words = words + [0] * (isa.IMEM_DEPTH - len(words))
        cnt = {"cycles": 0, "mm": 0, "dma": 0, "vec": 0, "instret": 0}
        trace = []

        def fault(code, pc, reason=""):
            return GA2Error(code, pc, ext, sp.copy(), isa.Counters(**cnt), trace, reason)

        pc = 0
        while True:
            if pc >= isa.IMEM_DEPTH:
                cnt["cycles"] += 1                      # the FETCH that finds no instruction
                raise fault(isa.ERR_PC, pc)
            cnt["cycles"] += isa.ISSUE_CYCLES
            try:
                ins = isa.decode(words[pc])
            except ValueError as e:
                raise fault(isa.ERR_OPCODE, pc, str(e)) from None
            bad = isa.check(ins, self.ext_words)
            if bad:
                raise fault(bad[0], pc, f"{ins.op} {bad[2]}")
            if ins.op == "HALT":
                cnt["instret"] += 1
                trace.append((pc, cnt["cycles"]))
                return Result(ext, sp.copy(), isa.Counters(**cnt), trace)
            self._execute(ins, ext)
            busy = isa.busy_cycles(ins)
            cnt["cycles"] += busy
            cnt[isa.UNIT[ins.op]] += busy
            cnt["instret"] += 1
            trace.append((pc, cnt["cycles"]))
            pc += 1

    def _execute(self, ins, ext):
        sp, op = self.sp, ins.op
        if op == "LD":
            sp[ins.dst:ins.dst + ins.len] = ext[ins.src:ins.src + ins.len]
        elif op == "ST":
            ext[ins.dst:ins.dst + ins.len] = sp[ins.src:ins.src + ins.len]
        elif op == "MM":
            M, K, N = ins.M, ins.K, ins.N
            i, k, j = np.arange(M)[:, None], np.arange(K)[None, :], np.arange(N)[None, :]
            a = _s8(sp[ins.A + i * ins.lda + k])                              # M x K
            bidx = ins.B + (j.T * ins.ldb + k if ins.tb else k.T * ins.ldb + j)
            b = _s8(sp[bidx])                                                 # (N x K) or (K x N)
            c = a @ (b.T if ins.tb else b)                                    # M x N, exact int64
            for r in range(M):                                                # row-major drain order
                for col in range(N):
                    sp[ins.dst + r * ins.ldc + col] = c[r, col]
        elif op == "RQ":
            d, s, n = ins.dst, ins.src, ins.len
            if 0 < d - s < n:        # dst overlaps ahead of src: the chip streams element by element
                for x in range(n):
                    sp[d + x] = requant_vec(sp[s + x:s + x + 1], ins.m, ins.s)[0]
            else:
                sp[d:d + n] = requant_vec(sp[s:s + n].copy(), ins.m, ins.s)
        elif op == "SM":
            x = _s8(sp[ins.src:ins.src + ins.len])
            e = _LUT[x.max() - x]
            sp[ins.dst:ins.dst + ins.len] = e * Q16 // e.sum()
        else:  # pragma: no cover - decode only yields known ops
            raise AssertionError(op)
