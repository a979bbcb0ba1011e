"""SMW: softmax over wide scores (int32, log2 units in Q8) as Q15 probabilities.

The compiler scales a row of attention scores to s = round(score * log2(e) * 2^8) (int32
words; the valid length of a causal row is len). Three passes, busy a function of len:
  1. mx = max(s_i) (signed);
  2. d_i = mx - s_i (32 bits), e_i = EXP2[d_i & 255] >> (d_i >> 8) (model/wide.py's
     2^(-d/256) table, Q16: e_i <= 2^16), e_i = 0 when d_i >> 8 >= EXP_CUT (16): a key
     2^16 or further below the maximum contributes exactly nothing; S = sum e_i, 29 bits
     (S <= 8191 * 2^16 < 2^29, and S >= 2^16: the maximum's own e is EXP2[0] = 2^16);
  3. p_i = round(e_i * 2^15 / S), halves up: floor((e_i * 2^15 + floor(S / 2)) / S), by a
     serial divider per element (16 quotient steps: e_i <= S, so p_i <= 2^15), written to
     sp[dst + i]. Cycles: DIV_CYCLES per element, independent of the data.
Pass 3 streams: it re-reads s_i (recomputing e_i) in the cycle p_(i-1) is written
(the scratchpad is write-first), so with dst ahead of src by less than len, element i
reads a probability already written, exactly the in-order loop of `execute` (d_i is then
the 32-bit difference mx - word modulo 2^32). Passes 1 and 2 read every word before any
write; with dst at or behind src (in place included) the result is the plain softmax.
"""
import numpy as np

from ..wide import EXP2, EXP_CUT
from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")
Q_BITS = 15                  # p_i in Q15: 2^15 is probability 1
DIV_STEPS = Q_BITS + 1       # quotient bits of p_i <= 2^15
DIV_CYCLES = DIV_STEPS + 1   # per element in pass 3: the load (e_i from the word read) and the steps
S_BITS = 29                  # the sum's width: 8191 * 2^16 < 2^29
_EXP2 = np.array(EXP2, dtype=np.int64)
_M32 = 0xFFFFFFFF


def _w32(a):
    """int32 values of scratchpad words (int64 array)."""
    return ((np.asarray(a, dtype=np.int64) & _M32) ^ 0x80000000) - 0x80000000


def exps(x, mx):
    """e of int32 words x (int64 array) below the maximum mx: EXP2[d & 255] >> (d >> 8)
    with d = (mx - x) mod 2^32, 0 when d >> 8 >= EXP_CUT."""
    d = (mx - x) & _M32
    k = d >> 8
    return np.where(k < EXP_CUT, _EXP2[d & 255] >> np.minimum(k, EXP_CUT - 1), 0)


def probs(e, s):
    """p = round(e * 2^15 / s), halves up (int64 arrays; s the sum, >= 1)."""
    return ((e << Q_BITS) + (s >> 1)) // s


def smw_vec(x):
    """SMW of int32 scores x (int64 array, len >= 1): the Q15 probabilities."""
    mx = int(x.max())
    e = exps(x, mx)
    return probs(e, int(e.sum()))


def execute(a, extra, ext, sp):
    dst, src, n = a
    x = _w32(sp[src:src + n])
    if 0 < dst - src < n:          # pass 3 streams: element i reads results already written
        mx = int(x.max())
        s = int(exps(x, mx).sum())
        for i in range(n):
            xi = _w32(np.array([sp[src + i]]))
            sp[dst + i] = int(probs(exps(xi, mx), s)[0])
    else:
        sp[dst:dst + n] = smw_vec(x)


SMW = Op(
    name="SMW", code=20, unit="vec", module="ga2_smw",
    summary="sp[dst ..) = round(2^15 softmax) of the int32 log2-Q8 scores sp[src .. src+len) (EXP2 table, cut 16)",
    fields=(("dst", 16), ("src", 16), ("len", 13)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", LEN, wr=True)),
    busy=2 * (LEN + 1) + DIV_CYCLES * LEN + 1, sp_reads=3 * LEN,
    execute=execute,
    stim={"len": 128, "dst": "near:src", "weight": 0.5},
)
