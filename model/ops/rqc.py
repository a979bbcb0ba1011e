"""RQC: requantize an int32 matmul tile per output channel, the activation's per-token
scale carried in: sp[dst + i*N + j] = sat32(round(acc_ij * rs_i * cs_j * 2^q)).

acc_ij = the int32 word sp[src + i*ld + j] (i < M rows, j < N columns); rs_i the scale
word sp[rsc + i*rstride] (the activation's per-token scale, QNT's word at the end of its
row), cs_j the scale word sp[csc + j] (the weight's per-output-channel scale); scale
words as model/wide.py (mantissa m, exponent e: m * 2^(e-15)); q the output's fraction
bits (12: the residual stream's Q12). Exact integers: with F = acc * m_r * m_c (|F| <
2^63) and sh = 30 - q - e_r - e_c the result is floor(F / 2^sh + 1/2) (round half up,
as RQ's requant), saturated to int32; F * 2^-sh for sh <= 0.

Element by element, row by row (i, then j): each row's scale word is read before the
row's first element, each element reads its acc word and its column scale and is
written before the next element (or row scale) is read, so with dst over a source an
element sees every result written before it (the unit: rtl/ga2_rqc.v, busy M*(3N+1)+1).
"""
import numpy as np

from ..quant import w32
from . import SP, Op, Rng, Shape
from .expr import Field
from .mm import hull

M, N, LD, RSTRIDE = (Field(n) for n in ("M", "N", "ld", "rstride"))
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def rqc_int(acc, rs, cs, q):
    """RQC of one element: acc an int32 word, rs and cs scale words (their bits 31:24
    ignored), q the fraction bits; Python integers, exact."""
    rs, cs = int(rs) & 0xFFFFFFFF, int(cs) & 0xFFFFFFFF
    er, ec = ((rs >> 16) & 0xFF) ^ 0x80, ((cs >> 16) & 0xFF) ^ 0x80
    f = w32(acc) * (rs & 0xFFFF) * (cs & 0xFFFF)
    sh = 30 - q - (er - 0x80) - (ec - 0x80)
    v = f << -sh if sh <= 0 else (f + (1 << (sh - 1))) >> sh
    return max(I32_MIN, min(I32_MAX, v))


def rqc_rows(acc, rs, cs, q):
    """RQC of an M x N array of int32 words acc (int64) with M row and N column scale
    words (numpy, exact: |acc * m_r * m_c| < 2^63 fits int64, and the rounding is done
    as floor(floor(F / 2^(sh-1)) + 1) / 2), which never overflows)."""
    rs = np.asarray(rs, dtype=np.int64) & 0xFFFFFFFF
    cs = np.asarray(cs, dtype=np.int64) & 0xFFFFFFFF
    er = (((rs >> 16) & 0xFF) ^ 0x80) - 0x80
    ec = (((cs >> 16) & 0xFF) ^ 0x80) - 0x80
    f = ((acc & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    f = f * (rs & 0xFFFF)[:, None] * (cs & 0xFFFF)[None, :]
    sh = 30 - q - er[:, None] - ec[None, :]
    right = (np.right_shift(f, np.clip(sh - 1, 0, 63)) + 1) >> 1        # sh >= 1
    left = np.left_shift(np.clip(f, I32_MIN, I32_MAX), np.clip(-sh, 0, 32))   # sh <= 0
    return np.clip(np.where(sh >= 1, right, left), I32_MIN, I32_MAX)


def execute(a, extra, ext, sp):
    d, src, m, n, ld, rsc, rstride, csc, q = a
    rows = src + ld * np.arange(m)[:, None] + np.arange(n)
    srows = rsc + rstride * np.arange(m)
    lo, hi = d, d + m * n
    disjoint = all(hi <= first or last < lo for first, last in
                   ((src, src + (m - 1) * ld + n - 1), (rsc, rsc + (m - 1) * rstride), (csc, csc + n - 1)))
    if disjoint:
        sp[d:d + m * n] = rqc_rows(sp[rows], sp[srows], sp[csc:csc + n], q).reshape(-1)
        return
    for i in range(m):                   # dst over a source: one element at a time, in order
        rs = int(sp[rsc + i * rstride])
        for j in range(n):
            cs = int(sp[csc + j])
            sp[d + i * n + j] = rqc_int(int(sp[src + i * ld + j]), rs, cs, q)


RQC = Op(
    name="RQC", code=17, unit="vec", module="ga2_rqc",
    summary="sp[dst + i*N + j] = sat32(round(sp[src + i*ld + j] * rs_i * cs_j * 2^q)): "
            "int32 -> Q(q) with a row (per-token) and a column (per-channel) scale word",
    fields=(("dst", 16), ("src", 16), ("M", 8), ("N", 13), ("ld", 13), ("rsc", 16), ("rstride", 13),
            ("csc", 16), ("q", 5)),
    defaults={"q": 12},
    shape=(Shape("M"), Shape("N")),
    ranges=(Rng(SP, "src", hull(M, LD, N), rd=True, hull=True),
            Rng(SP, "rsc", hull(M, RSTRIDE, 1), rd=True, hull=True),
            Rng(SP, "csc", N, rd=True),
            Rng(SP, "dst", M * N, wr=True)),
    busy=M * (3 * N + 1) + 1, sp_reads=M * (2 * N + 1),
    execute=execute,
    stim={"M": 6, "N": 48, "ld": "stride:N", "rstride": "stride:1", "dst": "near:src|rsc|csc", "weight": 1},
)
