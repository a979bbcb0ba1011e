"""SWIGLU: the MLP's gate, sp[dst+i] = sat32(round(silu(g_i) * u_i)) for the int32 Q12 words
g = sp[src ..), u = sp[src2 ..) (value = word / 2^12), the result int32 Q12.

silu(g) = g * sigmoid(g), the sigmoid from model/wide.py's SIGMOID table (Q15, 257 entries
over -16 .. 16 in steps of 1/8) linearly interpolated, exact in Q24 (no rounding):
    g in -2^16 .. 2^16 - 1 (-16.0 .. 16.0 - 2^-12):  t = g + 2^16, k = t >> 9, f = t & 511,
        sig = SIGMOID[k] * 2^9 + (SIGMOID[k+1] - SIGMOID[k]) * f     (0 .. 2^24)
    g below -2^16: sig = 0;  g at or above 2^16: sig = 2^24.
    s = floor((g * sig + 2^23) / 2^24)       silu(g) in Q12, rounded half up (|s| <= |g|)
    h = sat32(floor((s * u + 2^11) / 2^12))   rounded half up, saturated to int32
The interpolated sigmoid is within SIG_ERR of the true one at every Q12 input (tests/model/
test_swiglu.py measures it), so, reading g, u, h as real values (word / 2^12) and h not
saturated: |h - silu(g) u| <= |g u| SIG_ERR + |u| 2^-13 + 2^-13.

Element by element (the unit reads g_i, then u_i, and writes h_i in the cycle it reads
g_{i+1}; the scratchpad is write-first): with dst ahead of an operand by less than len,
later elements read results already written. One 32 x 17-bit multiplier, used six times an
element (rtl/ga2_swiglu.v): busy 6 len + 1.
"""
import numpy as np

from ..wide import SIGMOID
from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")
PERIOD = 6                      # cycles an element (the unit's phases)
SIG_BITS = 24                   # the interpolated sigmoid's fraction bits (Q15 * 2^9 steps)
IN_LO, IN_HI = -(1 << 16), 1 << 16   # the table's input range in Q12 words: [IN_LO, IN_HI)
STEP_BITS = 9                   # 512 Q12 input steps an entry (1/8)
SIG_ERR = 2e-4                  # |interpolated sigmoid - sigmoid| at every Q12 input (measured 1.91e-4)

_S = np.array(SIGMOID, dtype=np.int64)
_D = _S[1:] - _S[:-1]           # the 256 slopes, 0 .. 1023


def sig_q24(g):
    """The interpolated sigmoid of int64 Q12 words g (array), in Q24 (0 .. 2^24)."""
    g = np.asarray(g, dtype=np.int64)
    inside = (g >= IN_LO) & (g < IN_HI)
    t = np.where(inside, g - IN_LO, 0)
    k, f = t >> STEP_BITS, t & ((1 << STEP_BITS) - 1)
    sig = (_S[k] << STEP_BITS) + _D[k] * f
    return np.where(inside, sig, np.where(g < 0, 0, 1 << SIG_BITS))


def silu_q12(g):
    """silu of int64 Q12 words g in Q12, rounded half up: floor((g * sig + 2^23) / 2^24)."""
    g = np.asarray(g, dtype=np.int64)
    return (g * sig_q24(g) + (1 << (SIG_BITS - 1))) >> SIG_BITS


def swiglu_vec(g, u):
    """SWIGLU of int64 arrays of Q12 words g, u (|g|, |u| <= 2^31): int32-saturated Q12."""
    s = silu_q12(g)
    h = (s * np.asarray(u, dtype=np.int64) + (1 << 11)) >> 12       # |s u| <= 2^62: exact
    return np.clip(h, -(1 << 31), (1 << 31) - 1)


def execute(a, extra, ext, sp):
    d, x, n, y = a
    if 0 < d - x < n or 0 < d - y < n:      # streamed: later elements see earlier results
        for i in range(n):
            sp[d + i] = int(swiglu_vec(sp[x + i:x + i + 1], sp[y + i:y + i + 1])[0])
    else:
        sp[d:d + n] = swiglu_vec(sp[x:x + n], sp[y:y + n])


SWIGLU = Op(
    name="SWIGLU", code=18, unit="vec", module="ga2_swiglu",
    summary="sp[dst+i] = sat32(silu(g_i) * u_i) of the int32 Q12 g = sp[src ..), u = sp[src2 ..): "
            "SiLU by the interpolated sigmoid table",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("src2", 16)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "src2", LEN, rd=True),
            Rng(SP, "dst", LEN, wr=True)),
    busy=PERIOD * LEN + 1, sp_reads=2 * LEN,
    execute=execute,
    stim={"len": 256, "dst": "near:src|src2", "src2": "same:src", "weight": 1},
)
