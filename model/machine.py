"""The bit-exact and cycle-exact reference of the GA-2 chip.

Machine(cfg).run(prog, image) executes a program (Instr objects or instruction words) on
an external-memory image and returns the final external memory, the scratchpad, the five
counters and the retire trace [(pc, cycle), ...] the RTL must reproduce exactly.
Faults raise GA2Error(code, pc) carrying the state and counters up to the fault; the
faulting instruction writes nothing. The scratchpad persists across runs, as on the chip
(it powers up zero and start does not clear it).
"""
from collections import namedtuple

import numpy as np

from . import config, isa
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
    return np.minimum(np.maximum(p >> s, -128), 127)


def _requant_int(a, m, s):
    """quant.requant on one Python int (the element-by-element RQ path)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return max(-128, min(127, p >> s))


# Speed (tools/bench/bench_model.py): decoding, checking and costing an instruction word is
# cached per (word, ext) -- the result depends on nothing else -- and busy_cycles gets a
# plain namedtuple view of the fields, whose attributes are cheaper than Instr's lookup.
_VIEWS = {op: namedtuple(f"_{op}View", ["op"] + [f for f, _ in fields])
          for op, fields in isa.FIELDS.items()}
_PREP = {}
_PREP_MAX = 1 << 17
_WORDS = {}
_AR = np.arange(256, dtype=np.int64)
_OFFSETS = {}

# astype(int8) keeps the low byte as two's complement (s8), one numpy call instead of three
assert np.array([128, 255, 261, -129, -1 << 31], dtype=np.int64).astype(np.int8).tolist() == \
    [-128, -1, 5, 127, 0], "numpy int64 -> int8 cast does not wrap"


def _offsets(rows, cols, ld):
    """ld * i + j for i < rows, j < cols (cached: the shapes of a program repeat)."""
    key = (rows, cols, ld)
    off = _OFFSETS.get(key)
    if off is None:
        if len(_OFFSETS) >= _PREP_MAX:
            _OFFSETS.clear()
        off = _OFFSETS[key] = (ld * _AR[:rows])[:, None] + _AR[:cols]
    return off


def _prepare(word, cfg):
    """(Instr or None, fault (code, field, reason) or None, busy cycles, MM index arrays)."""
    key = (word, cfg)
    prep = _PREP.get(key)
    if prep is None:
        try:
            ins = isa.decode(word)
        except ValueError as e:
            prep = (None, (isa.ERR_OPCODE, None, str(e)), 0, None)
        else:
            bad = isa.check(ins, cfg)
            extra = None
            if ins.op == "MM" and not bad:      # the operand and result addresses, M x K etc.
                dst, A, B, M, K, N, tb, lda, ldb, ldc = ins.args
                extra = (A + _offsets(M, K, lda),
                         B + (_offsets(N, K, ldb) if tb else _offsets(K, N, ldb)),
                         dst + _offsets(M, N, ldc) if (M == 1 or ldc >= N) else None)
            prep = (ins, bad, isa.busy_cycles(_VIEWS[ins.op](ins.op, *ins.args), cfg), extra)
        if len(_PREP) >= _PREP_MAX:
            _PREP.clear()
        _PREP[key] = prep
    return prep


def _as_words(prog):
    """isa.as_words with the Instr -> word encoding cached."""
    out = []
    for item in prog:
        if isinstance(item, isa.Instr):
            w = _WORDS.get(item)
            if w is None:
                w = isa.encode(item)
                if len(_WORDS) >= _PREP_MAX:
                    _WORDS.clear()
                _WORDS[item] = w
            out.append(w)
        else:
            out.append(int(item))
    return out


class Machine:
    """The GA-2 reference of the chip cfg (a model.config.Config, default config.DEFAULT)."""

    def __init__(self, cfg=None):
        self.cfg = config.resolve(cfg)
        self.ext_words = self.cfg.ext_words
        self.sp = np.zeros(self.cfg.sp_words, dtype=np.int64)

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
        words = _as_words(prog)
        cfg = self.cfg
        depth = cfg.imem_depth
        if len(words) > depth:
            raise ValueError(f"program of {len(words)} instructions exceeds instruction memory ({depth})")
        cyc = n_mm = n_dma = n_vec = ret = 0
        trace = []
        n_words = len(words)

        def fault(code, pc, reason=""):
            cnt = isa.Counters(cyc, n_mm, n_dma, n_vec, ret)
            return GA2Error(code, pc, ext, sp.copy(), cnt, trace, reason)

        pc = 0
        while True:
            if pc >= depth:
                cyc += 1                                # the FETCH that finds no instruction
                raise fault(isa.ERR_PC, pc)
            cyc += cfg.issue_cycles
            # the host clears the instruction memory: past the program the word is 0
            ins, bad, busy, extra = _prepare(words[pc] if pc < n_words else 0, cfg)
            if bad:
                raise fault(bad[0], pc, bad[2] if ins is None else f"{ins.op} {bad[2]}")
            op = ins.op
            if op == "HALT":
                ret += 1
                trace.append((pc, cyc))
                return Result(ext, sp.copy(), isa.Counters(cyc, n_mm, n_dma, n_vec, ret), trace)
            self._execute(op, ins.args, ext, extra)
            cyc += busy
            if op == "MM":
                n_mm += busy
            elif op == "LD" or op == "ST":
                n_dma += busy
            else:
                n_vec += busy
            ret += 1
            trace.append((pc, cyc))
            pc += 1

    def _execute(self, op, args, ext, extra):
        sp = self.sp
        if op == "LD":
            dst, src, n = args
            sp[dst:dst + n] = ext[src:src + n]
        elif op == "ST":
            src, dst, n = args
            ext[dst:dst + n] = sp[src:src + n]
        elif op == "MM":
            dst, A, B, M, K, N, tb, lda, ldb, ldc = args
            aidx, bidx, cidx = extra
            a = sp[aidx].astype(np.int8)                                    # M x K of s8
            b = sp[bidx].astype(np.int8)                                    # N x K (tb) or K x N
            c = np.matmul(a, b.T if tb else b, dtype=np.int64)              # M x N, exact
            if cidx is not None:                        # no two results share a word
                sp[cidx] = c
            else:                                       # overlapping rows: row-major, later wins
                cl = c.tolist()
                for r in range(M):
                    base = dst + r * ldc
                    sp[base:base + N] = cl[r]
        elif op == "RQ":
            d, s, n, m, sh = args
            if 0 < d - s < n:        # dst overlaps ahead of src: the chip streams element by element
                for x in range(n):
                    sp[d + x] = _requant_int(int(sp[s + x]), m, sh)
            else:
                sp[d:d + n] = requant_vec(sp[s:s + n], m, sh)
        elif op == "SM":
            dst, src, n = args
            x = sp[src:src + n].astype(np.int8).astype(np.int64)
            e = _LUT[x.max() - x]
            sp[dst:dst + n] = e * Q16 // e.sum()
        else:  # pragma: no cover - decode only yields known ops
            raise AssertionError(op)
