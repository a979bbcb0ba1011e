"""QNT: per-token dynamic activation quantization of a row of int32 words (issue 37), with
an RMSNorm mode: sp[dst+i] = q_i (16-bit or int8 values, sign-extended words) and
sp[dst+len] = the row's scale word (model/wide.py), so that x_i * 2^-q ~= q_i * scale
(plain mode) or x_i / rms ~= q_i * scale (rms mode; RMSNorm's gain vector is folded into
the next matmul's weights by the compiler).

Exact integers, as the RTL (rtl/ga2_qnt.v) computes them. n = 15 (b16 = 1) or 7 (b16 = 0),
qmax = 2^n - 1 (32,767 or 127); x_i = the int32 word sp[src+i], A = max |x_i| (<= 2^31).
- A = 0 (an all-zero row): every q_i = 0 and the scale word is 0 (value 0), both modes.
- Normalised amax: sh = 32 - bitlen(A) (0..31), An = A << sh (2^31 <= An < 2^32).
- The reciprocal: R = ceil(qmax * 2^48 / An) (< 2^32), and
  q_i = sign(x_i) * ((xn_i * R + 2^47) >> 48) with xn_i = (|x_i| << sh) mod 2^32:
  round half away from zero of x_i * qmax / A, exactly when A <= 2^15 (and at every tie);
  for a larger A it may be one larger in magnitude when the fraction of |x_i| qmax / A lies
  in [1/2 - 2^-16, 1/2) (the reciprocal's error is below 2^-16 of a step). |q_i| <= qmax.
- The scale word: Pt = (An * KQ[b16]) >> 33 (2^29 <= Pt < 2^31) with KQ = round(2^(31+n)
  / qmax), then a divisor c and an exponent offset X:
  plain: c = 2^31, X = 29 - n - sh - q: scale = A / (qmax * 2^q);
  rms:   ss = sum x_i^2 (exact: < 2^75), y = the largest even shift with ss << y < 2^76,
         mn = (ss << y) // len, y2 = the largest even shift with mn << y2 < 2^76,
         c = isqrt((mn << y2) >> 12) (2^31 <= c < 2^32), X = (y + y2) / 2 - 8 - n - sh:
         scale = A / (qmax * rms), rms = sqrt(ss / len) (the field q is not used);
  Qm = (Pt << 19) // c (2^16 <= Qm < 2^19), j = bitlen(Qm) - 16 (1..3),
  m = (Qm >> j) + bit j-1 of Qm (round half up of Pt * 2^(19-j) / c), e = X + j; when m
  reaches 2^16: m = 2^15, e + 1. The word's relative error against the exact real scale
  is below 2^-16 + 2^-27 (tests/model/test_qnt.py checks < 2^-15 with Fractions).

Timing: pass 1 reads every x_i (len + 1 cycles: amax and the sum of squares, one
multiplier), then the tail: normalisation (6), in rms mode the division by len (76), a
second normalisation (6) and the square root (32); the reciprocal's load and 32 steps;
pass 2 (len + 1) streams as ga2_vec_rq does: element i read in its cycle i, q_i written in the next,
so with dst ahead of src by less than len an element reads the result already written
(the quantization is then applied to it with the row's R and sh); last the mantissa's
load and 19 division steps and the scale word's write at dst + len, after every read.
Busy 2*len + 62 (plain) or 2*len + 176 (rms).
"""
import math

import numpy as np

from ..quant import w32
from ..wide import sc_word
from . import SP, Op, Rng, Shape
from .expr import Cond, Field

LEN = Field("len")
SS_W = 76                     # the sum of squares' register: 8191 * 2^62 < 2^75
# busy cycles beyond the two passes' 2 * len: normalisation 6, reciprocal load 1 + 32,
# the mantissa's load 1 + 19, the scale word's write 1, the passes' two read latencies 2
TAIL_PLAIN = 2 + 6 + 1 + 32 + 1 + 19 + 1
TAIL_RMS = TAIL_PLAIN + SS_W + 6 + 32       # + the division by len, renormalisation, isqrt


def qmax_bits(b16):
    """n of qmax = 2^n - 1."""
    return 15 if b16 else 7


def kq(b16):
    """KQ: round(2^(31+n) / qmax), the constant 1 / qmax in [2^31, 2^32)."""
    n = qmax_bits(b16)
    qmax = (1 << n) - 1
    return ((1 << (32 + n)) + qmax) // (2 * qmax)


def even_norm(v):
    """The largest even y <= 126 with v << y < 2^SS_W (the RTL's shifts by 64, 32, .. 2)."""
    y = 0
    for k in (64, 32, 16, 8, 4, 2):
        if (v << y) >> (SS_W - k) == 0:
            y += k
    return y


def sum_squares(x):
    """sum x_i^2 of int64 values x (|x_i| <= 2^31), exactly (16-bit halves in int64)."""
    ax = np.abs(x)
    hi, lo = ax >> 16, ax & 0xFFFF
    return (int(np.dot(hi, hi)) << 32) + (int(np.dot(hi, lo)) << 17) + int(np.dot(lo, lo))


def row_params(x, q, b16, rms):
    """(R, sh, scale word) of a row x (int64 array of int32 values): the module docstring."""
    A = int(np.max(np.abs(x)))
    if A == 0:
        return 0, 0, 0
    n = qmax_bits(b16)
    qmax = (1 << n) - 1
    sh = 32 - A.bit_length()
    An = A << sh
    R = ((qmax << 48) - 1) // An + 1
    Pt = (An * kq(b16)) >> 33
    if rms:
        ss = sum_squares(x)
        y = even_norm(ss)
        mn = (ss << y) // len(x)
        y2 = even_norm(mn)
        c = math.isqrt((mn << y2) >> 12)
        X = (y + y2) // 2 - 8 - n - sh
    else:
        c, X = 1 << 31, 29 - n - sh - q
    Qm = (Pt << 19) // c
    j = Qm.bit_length() - 16
    m, e = (Qm >> j) + ((Qm >> (j - 1)) & 1), X + j
    if m == 1 << 16:
        m, e = 1 << 15, e + 1
    return R, sh, sc_word(m, e)


def quantize_vec(x, R, sh):
    """q_i of int64 values x (int32 range) for the row's R and sh: the module docstring."""
    ax = np.abs(x).astype(np.uint64)
    xn = (ax << np.uint64(sh)) & np.uint64(0xFFFFFFFF)
    v = ((xn * np.uint64(R) + np.uint64(1 << 47)) >> np.uint64(48)).astype(np.int64)
    return np.where(x < 0, -v, v)


def execute(a, extra, ext, sp):
    d, s, n, q, b16, rms = a
    x = np.array([w32(v) for v in sp[s:s + n]], dtype=np.int64)
    R, sh, word = row_params(x, q, b16, rms)
    if 0 < d - s < n:        # pass 2 streams: an element reads the result already written
        for i in range(n):
            sp[d + i] = int(quantize_vec(np.array([w32(sp[s + i])], dtype=np.int64), R, sh)[0])
    else:
        sp[d:d + n] = quantize_vec(x, R, sh)
    sp[d + n] = word


QNT = Op(
    name="QNT", code=16, unit="vec", module="ga2_qnt",
    summary="sp[dst ..) = round(x * qmax / max|x|) of the int32 x = sp[src ..), sp[dst+len] = the "
            "scale word (x * 2^-q, or x / rms with rms)",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("q", 5), ("b16", 1), ("rms", 1)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", LEN + 1, wr=True)),
    busy=2 * LEN + Cond("rms", TAIL_RMS, TAIL_PLAIN), sp_reads=2 * LEN,
    execute=execute,
    stim={"len": 2048, "dst": "near:src", "weight": 1},
)
