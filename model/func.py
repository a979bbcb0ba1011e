"""GA-2's functional semantics: what each instruction reads, writes and computes.

Views of one instruction, all independent of timing (model/timing.py says when it
runs and what it costs):

  reads(ins), writes(ins)   the memory it touches, as address ranges Range(space, first,
                            last): space "sp" (scratchpad) or "ext" (external memory),
                            first..last inclusive word addresses. For MM the ranges are
                            the hulls of the strided operands (base .. the last word the
                            strides reach): conservative, since with lda > K etc. the
                            words between rows are not touched, but exact at both ends.
                            The overlap timing mode uses them for hazards between units;
                            they are also the ranges isa.check tests against the sizes.
  execute(ins, ext, sp)     its effect on the external memory and the scratchpad (numpy
                            int64 arrays, changed in place), bit-exact with the RTL.
  sp_reads(ins)             how many scratchpad words its unit reads (read accesses, a
                            word read twice counts twice): the count the harness measures.

All assume an instruction the chip accepts (isa.check passes): a faulting instruction
writes nothing, so the reference never executes one (model/machine.py asks the schedule
which instructions retire). Ranges of zero length (len = 0, K = 0 ...) are left out.

Semantics beyond the spec (docs/isa.md), kept exactly:
  - MM reads all its operands before it writes; results are written row by row (i, then
    j), so with overlapping output rows (ldc < N) the later write wins.
  - MM with acc = 1 adds each result to the word it replaces (int32 wraparound, as the
    chip's adder), element by element in that row-major order: with overlapping output
    rows a later element adds to the word an earlier one already wrote. Its reads
    include the dst hull (it reads the old C words).
  - RQ streams one element per cycle, as if elements were processed one at a time in
    increasing order: with dst ahead of src by less than len, later elements read
    results already written.
  - SM reads all its inputs before it writes.
  - LDX reads its index word, then copies row `index` of the table; an index not below
    rows writes nothing (the chip's error 6, found in EXEC: execute returns True).
  - ADD and NORM's second pass stream like RQ (element i read, then written, before
    element i + 1 is read); NORM's first pass reads every element before any write;
    ARGMAX reads all its inputs before it writes its one word.
  - PACK4 reads x[2i], x[2i+1], then writes word i, pair by pair; UNPACK4 reads x[i],
    then writes words 2i and 2i+1, element by element: with dst overlapping src a later
    read sees a word already written (the scratchpad is write-first).
  - LD, ST and LDX address the external memory at xhi * 65536 + src (LD, LDX) or + dst (ST).
"""
import math
from collections import namedtuple

import numpy as np

from . import isa
from .softmax_gold import LUT, Q16

Range = namedtuple("Range", "space first last")
SP, EXT = "sp", "ext"
_LUT = np.array(LUT, dtype=np.int64)


# ---------------------------------------------------------------- what it touches
# Speed: the views below read an instruction's fields by position in Instr.args (isa.FIELDS
# order; an attribute like ins.src is a lookup through Instr.__getattr__). The positions:
_I = isa._INDEX
_SRC = {"LD": 1, "ST": 0, "RQ": 1, "SM": 1, "LDX": 1, "ADD": 1, "ARGMAX": 1, "NORM": 1,
        "PACK4": 1, "UNPACK4": 1}
_XHI = {"LD": 3, "ST": 3, "LDX": 5}                 # xhi, the external address's high bits
_LEN = 2
assert all(_I[op]["src"] == i and _I[op]["dst"] == 1 - i and _I[op]["len"] == _LEN
           for op, i in _SRC.items())
assert all(_I[op]["xhi"] == i for op, i in _XHI.items())
assert tuple(_I["MM"][f] for f in ("dst", "A", "B", "M", "K", "N", "tb", "lda", "ldb", "ldc", "acc")) \
    == tuple(range(11))


def _span(space, first, n):
    return (Range(space, first, first + n - 1),) if n > 0 else ()


def _mm_hulls(a):
    """mm_hulls from an MM's args."""
    dst, A, B, M, K, N, tb, lda, ldb, ldc = a[:10]
    b_rows, b_cols = (N, K) if tb else (K, N)
    return ((A, A + (M - 1) * lda + K - 1),
            (B, B + (b_rows - 1) * ldb + b_cols - 1),
            (dst, dst + (M - 1) * ldc + N - 1))


def mm_hulls(ins):
    """(A, B, dst) hulls of an MM as (first, last) pairs; last < first when a size is 0."""
    return _mm_hulls(ins.args)


def reads(ins):
    """The address ranges ins reads: a tuple of Range (see the module docstring)."""
    op, a = ins.op, ins.args
    if op == "LD":
        return _span(EXT, (a[3] << 16) + a[1], a[_LEN])
    if op in ("ST", "RQ", "SM", "ARGMAX", "NORM", "UNPACK4"):
        return _span(SP, a[_SRC[op]], a[_LEN])
    if op == "PACK4":
        return _span(SP, a[1], 2 * a[_LEN])
    if op == "ADD":
        return _span(SP, a[1], a[_LEN]) + _span(SP, a[3], a[_LEN])
    if op == "LDX":                     # the index word, and the whole table (its hull)
        return _span(SP, a[3], 1) + _span(EXT, (a[5] << 16) + a[1], a[_LEN] * a[4])
    if op == "MM":
        if not (a[3] and a[4] and a[5]):                            # M, K, N
            return ()
        (a0, a1), (b0, b1), (c0, c1) = _mm_hulls(a)
        if a[10]:                                                   # acc
            return (Range(SP, a0, a1), Range(SP, b0, b1), Range(SP, c0, c1))
        return (Range(SP, a0, a1), Range(SP, b0, b1))
    return ()


def writes(ins):
    """The address ranges ins writes: a tuple of Range (see the module docstring)."""
    op, a = ins.op, ins.args
    if op == "ST":
        return _span(EXT, (a[3] << 16) + a[1], a[_LEN])
    if op in ("LD", "RQ", "SM", "LDX", "ADD", "NORM", "PACK4"):
        return _span(SP, a[0], a[_LEN])
    if op == "UNPACK4":
        return _span(SP, a[0], 2 * a[_LEN])
    if op == "ARGMAX":
        return _span(SP, a[0], 1)
    if op == "MM":
        if not (a[3] and a[4] and a[5]):
            return ()
        _, _, (c0, c1) = _mm_hulls(a)
        return (Range(SP, c0, c1),)
    return ()


# ---------------------------------------------------------------- how many words it reads
def _sp_reads(op, a):
    """sp_reads from an op and its args (the formulas of sp_reads' docstring)."""
    if op == "ST" or op == "RQ" or op == "ARGMAX" or op == "UNPACK4":
        return a[_LEN]
    if op == "SM" or op == "ADD" or op == "NORM" or op == "PACK4":
        return 2 * a[_LEN]
    if op == "LDX":
        return 1
    if op == "MM":
        M, K, N = a[3], a[4], a[5]
        return (M + N) * K + (M * N if a[10] else 0)
    return 0                            # LD, HALT


def sp_reads(ins):
    """The scratchpad words a valid instruction (an Instr or its word) reads when it
    executes: its unit's scratchpad read accesses, one per word per read (a word read
    twice counts twice), independent of the data and of the timing mode.

    From the units' timing (the headers in rtl/):
      ST  len: ga2_dma.v reads word i at busy cycle i (dir = 1); LD reads only the external
          memory: 0;
      MM  M*K + N*K, plus M*N when acc = 1: ga2_mm_ctrl.v reads row i of A (i < M) and
          column j of B (j < N) once per k during its K-cycle feed window, rows >= M and
          columns >= N read nothing; acc = 1 reads each old C word once, the cycle before
          its write (read port 0);
      RQ  len: ga2_vec_rq.v reads element i at busy cycle i;
      SM  2*len: ga2_softmax.v's two read passes (max, then exp-and-sum) read every element
          once each, in both timing modes (FAST changes only the divide phase, which
          reads nothing);
      LDX 1: the index word (the row comes from the external memory);
      ADD 2*len: both operands, element by element; ARGMAX len;
      NORM 2*len: its two passes (the sum of squares, then the scaling);
      PACK4 2*len (two input words per output word); UNPACK4 len;
      HALT 0.
    A faulting instruction executes nothing: sum this over the executed (retired)
    instructions only, as model/machine.py does (Result.sp_reads), which the benches
    compare with the count of the scratchpad's enabled read ports (tb/hdl/ga2_harness.v
    mon_sp_reads).
    """
    if not isinstance(ins, isa.Instr):
        plan = _PLANS.get(ins)
        return (plan if plan is not None else _plan(ins, "func.sp_reads"))[3]
    return _sp_reads(ins.op, ins.args)


# ---------------------------------------------------------------- what it computes
def requant_vec(a, m, s):
    """quant.requant over an int64 array (exact: |a*m| < 2^47)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return np.minimum(np.maximum(p >> s, -128), 127)


def _requant_int(a, m, s):
    """quant.requant on one Python int (the element-by-element RQ path)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return max(-128, min(127, p >> s))


# astype(int8) keeps the low byte as two's complement (s8), one numpy call instead of three
assert np.array([128, 255, 261, -129, -1 << 31], dtype=np.int64).astype(np.int8).tolist() == \
    [-128, -1, 5, 127, 0], "numpy int64 -> int8 cast does not wrap"

# Speed (tools/bench/bench_model.py): per instruction word, its plan -- op, fields, for MM
# the offset grids of its operands and result, and its sp_reads -- is memoised (it depends
# on the word alone); the offset grids ld*i + j are shared between words of the same shape
# (an operand is sp[base:][grid]: indexing a view costs what indexing sp does, and a new
# word needs no index arithmetic). Both caches are bounded.
_PLANS = {}
_OFFSETS = {}
_GRIDS = {}
_MAX = 1 << 17
_AR = np.arange(256, dtype=np.int64)


def _offsets(rows, cols, ld):
    """ld * i + j for i < rows, j < cols (cached: the shapes of a program repeat)."""
    key = (rows, cols, ld)
    off = _OFFSETS.get(key)
    if off is None:
        if len(_OFFSETS) >= _MAX:
            _OFFSETS.clear()
        off = _OFFSETS[key] = (ld * _AR[:rows])[:, None] + _AR[:cols]
    return off


def _grids(shape):
    """An MM's (A, B, dst) offset grids from its (M, K, N, tb, lda, ldb, ldc); dst's is None
    when two results share a word (rows overlap: ldc < N with M > 1)."""
    g = _GRIDS.get(shape)
    if g is None:
        M, K, N, tb, lda, ldb, ldc = shape
        g = (_offsets(M, K, lda),
             _offsets(N, K, ldb) if tb else _offsets(K, N, ldb),
             _offsets(M, N, ldc) if (M == 1 or ldc >= N) else None)
        if len(_GRIDS) >= _MAX:
            _GRIDS.clear()
        _GRIDS[shape] = g
    return g


def _plan(word, who="func.execute"):
    """(op, fields, MM offset grids or None, sp_reads) of an instruction word."""
    ins, why = isa.decoded(word)
    if ins is None:
        raise ValueError(f"{who}: {why}")
    op, args = ins.op, ins.args
    # MM: the operand and result offsets, M x K etc., from args[3:10] = M, K, N, tb, lda, ldb, ldc
    p = (op, args, _grids(args[3:10]) if op == "MM" else None, _sp_reads(op, args))
    if len(_PLANS) >= _MAX:
        _PLANS.clear()
    _PLANS[word] = p
    return p


def execute(ins, ext, sp):
    """Apply one valid instruction (an Instr or its word) to ext and sp in place.

    HALT does nothing. The caller has checked the instruction (isa.check): out-of-range
    addresses are not re-checked here. True when it is an LDX whose index faulted (it
    wrote nothing), else None.
    """
    word = isa.as_words((ins,))[0] if isinstance(ins, isa.Instr) else ins
    plan = _PLANS.get(word)
    return _apply(plan if plan is not None else _plan(word), ext, sp)


def execute_words(words, ext, sp):
    """execute() each valid instruction word of words in order: (the sum of their
    sp_reads, the position of the first LDX whose index faulted or None) --
    model/machine.py's loop over the retired instructions."""
    get, reads, bad = _PLANS.get, 0, None
    for pc, word in enumerate(words):
        plan = get(word)
        if plan is None:
            plan = _plan(word)
        if _apply(plan, ext, sp) and bad is None:
            bad = pc
        reads += plan[3]
    return reads, bad


def norm_recip(ss):
    """NORM's reciprocal of a sum of squares ss >= 1: floor(2^29 / isqrt(ss * 2^10))."""
    return (1 << 29) // math.isqrt(ss << 10)


def norm_vec(x, m, s):
    """NORM of int8 values x (int64 array): requant(x * norm_recip(sum x^2), m, s); zeros
    when every x is 0 (docs/lm.md "Numerics")."""
    ss = int(np.dot(x, x))
    if ss == 0:
        return np.zeros_like(x)
    return requant_vec(x * norm_recip(ss), m, s)


def sat4(x):
    """Saturate int64 values to the signed 4-bit range -8..7."""
    return np.clip(x, -8, 7)


def pack4_vec(x):
    """PACK4 of int8 values x (int64 array of even length 2n): n words, word i =
    (sat4(x[2i]) & 0xF) | (sat4(x[2i+1]) & 0xF) << 4 (0..255)."""
    q = sat4(x) & 0xF
    return q[0::2] | (q[1::2] << 4)


def unpack4_vec(w):
    """UNPACK4 of words w (int64 array of n): 2n sign-extended 4-bit values, word 2i from
    bits 3..0 of w[i], word 2i+1 from bits 7..4."""
    out = np.empty(2 * len(w), dtype=np.int64)
    out[0::2] = ((w & 0xF) ^ 8) - 8
    out[1::2] = (((w >> 4) & 0xF) ^ 8) - 8
    return out


def _apply(plan, ext, sp):
    """An instruction's effect, from its plan (execute's body)."""
    op, args, extra, _ = plan
    if op == "LD":
        dst, src, n, xhi = args
        src += xhi << 16
        sp[dst:dst + n] = ext[src:src + n]
    elif op == "ST":
        src, dst, n, xhi = args
        dst += xhi << 16
        ext[dst:dst + n] = sp[src:src + n]
    elif op == "MM":
        dst, A, B, M, K, N, tb, lda, ldb, ldc, acc = args
        aoff, boff, coff = extra
        a = sp[A:][aoff].astype(np.int8)                                # M x K of s8
        b = sp[B:][boff].astype(np.int8)                                # N x K (tb) or K x N
        c = np.matmul(a, b.T if tb else b, dtype=np.int64)              # M x N, exact
        if acc and coff is not None:                # dst += A x B, no two results share a word
            cv = sp[dst:]                           # w32(old + c): the low 32 bits, sign-extended
            cv[coff] = ((((cv[coff] & 0xFFFFFFFF) + c) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
        elif acc:                                   # dst += A x B, element by element
            cl = c.tolist()
            for r in range(M):
                base = dst + r * ldc
                for j in range(N):
                    sp[base + j] = isa.w32(int(sp[base + j]) + cl[r][j])
        elif coff is not None:                      # no two results share a word
            sp[dst:][coff] = c
        else:                                       # overlapping rows: row-major, later wins
            cl = c.tolist()
            for r in range(M):
                base = dst + r * ldc
                sp[base:base + N] = cl[r]
    elif op == "RQ":
        d, s, n, m, sh, relu = args
        lo = 0 if relu else -128
        if 0 < d - s < n:        # dst overlaps ahead of src: the chip streams element by element
            for x in range(n):
                sp[d + x] = max(lo, _requant_int(int(sp[s + x]), m, sh))
        else:
            y = requant_vec(sp[s:s + n], m, sh)
            sp[d:d + n] = np.maximum(y, 0) if relu else y
    elif op == "LDX":
        dst, src, n, idx, rows, xhi = args
        tok = int(sp[idx]) & 0xFFFFFFFF                     # the index word, unsigned
        if tok >= rows:
            return True
        src += xhi << 16
        sp[dst:dst + n] = ext[src + tok * n:src + tok * n + n]
    elif op == "ADD":
        d, a, n, b = args
        if 0 < d - a < n or 0 < d - b < n:      # streamed: later elements see earlier results
            for x in range(n):
                sp[d + x] = max(-128, min(127, isa.s8(sp[a + x]) + isa.s8(sp[b + x])))
        else:
            sp[d:d + n] = np.clip(sp[a:a + n].astype(np.int8).astype(np.int64)
                                  + sp[b:b + n].astype(np.int8), -128, 127)
    elif op == "ARGMAX":
        dst, src, n = args
        sp[dst] = int(np.argmax(sp[src:src + n]))          # the first of equal maxima
    elif op == "NORM":
        d, s, n, m, sh = args
        x = sp[s:s + n].astype(np.int8).astype(np.int64)
        ss = int(np.dot(x, x))
        if 0 < d - s < n:        # the second pass streams: it reads results already written
            r = norm_recip(ss) if ss else 0
            for i in range(n):
                sp[d + i] = _requant_int(isa.s8(sp[s + i]) * r, m, sh) if ss else 0
        else:
            sp[d:d + n] = norm_vec(x, m, sh)
    elif op == "PACK4":
        d, s, n = args
        if d < s + 2 * n and s < d + n:     # overlapping: pair by pair, write-first
            for i in range(n):
                sp[d + i] = int(pack4_vec(sp[s + 2 * i:s + 2 * i + 2].astype(np.int8).astype(np.int64))[0])
        else:
            sp[d:d + n] = pack4_vec(sp[s:s + 2 * n].astype(np.int8).astype(np.int64))
    elif op == "UNPACK4":
        d, s, n = args
        if d < s + n and s < d + 2 * n:     # overlapping: element by element, write-first
            for i in range(n):
                sp[d + 2 * i:d + 2 * i + 2] = unpack4_vec(sp[s + i:s + i + 1])
        else:
            sp[d:d + 2 * n] = unpack4_vec(sp[s:s + n])
    elif op == "SM":
        dst, src, n = args
        x = sp[src:src + n].astype(np.int8).astype(np.int64)
        e = _LUT[x.max() - x]
        sp[dst:dst + n] = e * Q16 // e.sum()
    elif op != "HALT":  # pragma: no cover - decode only yields known ops
        raise AssertionError(op)
