"""MM: one output tile of the 4 x 4 systolic array, dst (+)= A x B in int32.

For i < M, j < N: C[i][j] = sum over k < KE of a(i, k) * b(k, j), with the depth
KE = K + 256 * khi (1 .. 2,047: the real model's 576 and 1,536 in one instruction), a(i, k)
= s8(A[i*lda + k]), or s16 with a16 = 1 (16-bit activations: each PE multiplies 16 x 8
bits, in the same cycles), and b(k, j) = s8(B[k*ldb + j]) (tb = 0) or s8(B[j*ldb + k])
(tb = 1: B stored transposed, a key cache read row-wise); acc = 1 adds C to the words it
replaces (int32 wraparound, as VTA's GEMM reset flag), acc = 0 overwrites them. Semantics
kept exactly (docs/isa.md): every operand is read before any write; results are written
row by row (i, then j), so with overlapping output rows (ldc < N) the later write wins, and
with acc a later element adds to a word an earlier one already wrote.
"""
import numpy as np

from ..quant import w32
from . import SP, Op, Rng, Shape
from .expr import Cond, Field, Param

M, K, N, LDA, LDB, LDC, ACC, KHI = (Field(n) for n in ("M", "K", "N", "lda", "ldb", "ldc", "acc", "khi"))
KE = K + 256 * KHI                   # the depth: K's 8 bits and khi's 3 above them


def hull(rows, ld, cols):
    """The extent of a strided operand: rows of cols words, ld apart (its first to its
    last word; conservative: with ld > cols the words between rows are not touched):
    (rows - 1) * ld + cols (the generated decoder bounds it with rows at its shape limits,
    model/decoder_gen.py)."""
    return (rows - 1) * ld + cols


# Speed (tools/bench/bench_model.py): the offset grids ld*i + j of an MM's operands are
# shared between words of the same shape (an operand is sp[base:][grid]); bounded caches.
_OFFSETS = {}
_GRIDS = {}
_MAX = 1 << 17
_AR = np.arange(2048, dtype=np.int64)


def _offsets(rows, cols, ld):
    """ld * i + j for i < rows, j < cols (cached: the shapes of a program repeat)."""
    key = (rows, cols, ld)
    off = _OFFSETS.get(key)
    if off is None:
        if len(_OFFSETS) >= _MAX:
            _OFFSETS.clear()
        off = _OFFSETS[key] = (ld * _AR[:rows])[:, None] + _AR[:cols]
    return off


def prepare(a):
    """The (A, B, dst) offset grids from the fields; dst's is None when two results share
    a word (rows overlap: ldc < N with M > 1)."""
    shape = a[3:10] + a[11:12]
    g = _GRIDS.get(shape)
    if g is None:
        Mv, Kv, Nv, tb, lda, ldb, ldc, khi = shape
        Kv += khi << 8
        g = (_offsets(Mv, Kv, lda),
             _offsets(Nv, Kv, ldb) if tb else _offsets(Kv, Nv, ldb),
             _offsets(Mv, Nv, ldc) if (Mv == 1 or ldc >= Nv) else None)
        if len(_GRIDS) >= _MAX:
            _GRIDS.clear()
        _GRIDS[shape] = g
    return g


def execute(a, extra, ext, sp):
    """dst (+)= A x B (the module docstring)."""
    dst, A, B, Mv, Kv, Nv, tb, lda, ldb, ldc, acc, khi, a16 = a
    aoff, boff, coff = extra
    x = sp[A:][aoff].astype(np.int16 if a16 else np.int8)           # M x KE of s8 / s16
    y = sp[B:][boff].astype(np.int8)                                # N x K (tb) or K x N
    c = np.matmul(x, y.T if tb else y, dtype=np.int64)              # M x N, exact
    if acc and coff is not None:                # dst += A x B, no two results share a word
        cv = sp[dst:]                           # w32(old + c): the low 32 bits, sign-extended
        cv[coff] = ((((cv[coff] & 0xFFFFFFFF) + c) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    elif acc:                                   # dst += A x B, element by element
        cl = c.tolist()
        for r in range(Mv):
            base = dst + r * ldc
            for j in range(Nv):
                sp[base + j] = w32(int(sp[base + j]) + cl[r][j])
    elif coff is not None:                      # no two results share a word
        sp[dst:][coff] = c
    else:                                       # overlapping rows: row-major, later wins
        cl = c.tolist()
        for r in range(Mv):
            base = dst + r * ldc
            sp[base:base + Nv] = cl[r]


MM = Op(
    name="MM", code=3, unit="mm", module="ga2_mm_ctrl",
    summary="dst (+)= A x B: one M x N output tile (M, N <= 4), int8 (or int16 A) operands, "
            "int32 results",
    fields=(("dst", 16), ("A", 16), ("B", 16), ("M", 3), ("K", 8), ("N", 3), ("tb", 1),
            ("lda", 12), ("ldb", 12), ("ldc", 12), ("acc", 1), ("khi", 3), ("a16", 1)),
    defaults={"acc": 0, "khi": 0, "a16": 0},
    shape=(Shape("M", 1, Param("array"), style="range"),
           Shape("N", 1, Param("array"), style="range"),
           Shape("K", Cond("khi", 0, 1))),           # KE >= 1: K = 0 only with khi > 0
    ranges=(Rng(SP, "A", hull(M, LDA, KE), rd=True, hull=True),
            Rng(SP, "B", Cond("tb", hull(N, LDB, KE), hull(KE, LDB, N)), rd=True, hull=True),
            Rng(SP, "dst", hull(M, LDC, N), rd="acc", wr=True, hull=True)),
    busy=KE + Param("mm_fill") + M * N,
    sp_reads=(M + N) * KE + ACC * M * N,
    macs=M * N * KE, sizes=("M", KE, "N"),
    execute=execute, prepare=prepare, stim={"weight": 2.5, "khi": "rare"},
)
