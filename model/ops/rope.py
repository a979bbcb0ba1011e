"""ROPE: rotary position embedding of `heads` heads of 2 pairs int32 Q12 words at sp[src ..),
every head by the one row of cos/sin words at sp[cs ..) (Q14, interleaved: cos_j at
cs + 2j, sin_j at cs + 2j + 1; only a word's low 16 bits count, as a signed number).

For head h < heads and pair j < pairs, with x0, x1 = sp[src + 2q], sp[src + 2q + 1] and
q = h * pairs + j (the heads one after another, 2 pairs words each):
    sp[dst + 2q]     = sat32(floor((x0 cos_j - x1 sin_j + 2^13) / 2^14))
    sp[dst + 2q + 1] = sat32(floor((x0 sin_j + x1 cos_j + 2^13) / 2^14))
(rounded half up), consecutive pairs as llama.cpp's "normal" RoPE on a GGUF's q and k
(its converter permuted their rows; tools/smollm2/float_ref.py rope()). Pair by pair in
increasing q: the unit reads cos_j, sin_j, x0, x1, then writes y0 and y1 (y1 in the cycle
it reads the next pair's cos; the scratchpad is write-first), so with dst ahead of src by
less than 2 pairs heads words, or dst over the cos/sin row, later pairs read results
already written. One 32 x 16-bit multiplier, four products a pair (rtl/ga2_rope.v): busy
6 pairs heads + 1.

The position is the chip's: the table of rows (rope_table(): row p = the cos/sin words of
position p) lies in the external memory and LDX loads row sp[pos] (a position word kept on
chip, incremented by the program, e.g. MM acc with 1 x 1) to sp[cs ..), so one program
serves every position. rope_table() is exact: theta_i = base^(-2i / head_dim), the row's
words round_half_up(2^14 cos(p theta_i)), round_half_up(2^14 sin(p theta_i)), computed in
exact integer arithmetic (no libm, the same integers on any machine); rope_row(p) is the
same row by a second, direct computation (tests compare them).
"""
import decimal
import functools

import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Field

PAIRS, HEADS = Field("pairs"), Field("heads")
PERIOD = 6                      # cycles a pair (the unit's phases)
MAX_PAIRS = 32                  # a head of up to 64 values (SmolLM2's head_dim)
CS_BITS = 14                    # cos and sin in Q14
ROPE_BASE = 100000              # SmolLM2-135M's rope.freq_base
HEAD_DIM = 64
POSITIONS = 8192                # SmolLM2-135M's context

_PREC = 80                      # decimal digits of the constants
_K = 224                        # fixed-point bits of the table's recurrence


def s16(w):
    """The low 16 bits of int64 words as signed numbers (the unit's cos / sin)."""
    return ((np.asarray(w, dtype=np.int64) & 0xFFFF) ^ 0x8000) - 0x8000


def rope_pairs(x0, x1, c, s):
    """(y0, y1) of int64 arrays: x0 c - x1 s and x0 s + x1 c in Q14 back to Q12 words,
    rounded half up and int32-saturated (|x c| < 2^47: exact)."""
    half = 1 << (CS_BITS - 1)
    lo, hi = -(1 << 31), (1 << 31) - 1
    y0 = np.clip((x0 * c - x1 * s + half) >> CS_BITS, lo, hi)
    y1 = np.clip((x0 * s + x1 * c + half) >> CS_BITS, lo, hi)
    return y0, y1


def execute(a, extra, ext, sp):
    d, x, p, c, nh = a
    n = 2 * p * nh
    if 0 < d - x < n or (d < c + 2 * p and c < d + n):     # pair by pair: later pairs see results
        for q in range(p * nh):
            j = q % p
            cs = s16(sp[c + 2 * j:c + 2 * j + 2])
            y0, y1 = rope_pairs(sp[x + 2 * q], sp[x + 2 * q + 1], cs[0], cs[1])
            sp[d + 2 * q], sp[d + 2 * q + 1] = int(y0), int(y1)
    else:
        cs = s16(sp[c:c + 2 * p])
        v = sp[x:x + n].reshape(nh, p, 2)
        y0, y1 = rope_pairs(v[..., 0], v[..., 1], cs[0::2], cs[1::2])
        out = np.empty((nh, p, 2), dtype=np.int64)
        out[..., 0], out[..., 1] = y0, y1
        sp[d:d + n] = out.reshape(-1)


ROPE = Op(
    name="ROPE", code=19, unit="vec", module="ga2_rope",
    summary="rotate the pairs of heads x 2 pairs int32 Q12 words at sp[src ..) by the Q14 cos/sin "
            "row at sp[cs ..) (interleaved) into sp[dst ..)",
    fields=(("dst", 16), ("src", 16), ("pairs", 6), ("cs", 16), ("heads", 8)),
    shape=(Shape("pairs", 1, MAX_PAIRS, who="the rope unit"), Shape("heads")),
    ranges=(Rng(SP, "src", 2 * PAIRS * HEADS, rd=True), Rng(SP, "cs", 2 * PAIRS, rd=True),
            Rng(SP, "dst", 2 * PAIRS * HEADS, wr=True)),
    busy=PERIOD * PAIRS * HEADS + 1, sp_reads=4 * PAIRS * HEADS,
    execute=execute,
    stim={"heads": 12, "dst": "near:src|cs", "weight": 1},
)


# ---------------------------------------------------------------- the cos/sin table
def _ctx():
    return decimal.Context(prec=_PREC)


def _pi(ctx):
    """pi to the context's precision (the decimal module's recipe)."""
    ctx = decimal.Context(prec=ctx.prec + 5)
    three = decimal.Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, three, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = ctx.divide(ctx.multiply(t, n), d)
        s = ctx.add(s, t)
    return s


def _cos_sin(x, ctx):
    """(cos x, sin x) of a Decimal |x| <= 4 by their Taylor series."""
    c, s = decimal.Decimal(0), decimal.Decimal(0)
    term, k = decimal.Decimal(1), 0          # x^k / k!
    eps = decimal.Decimal(10) ** (-ctx.prec - 2)
    while abs(term) > eps or k < 2:
        if k % 4 == 0:
            c += term
        elif k % 4 == 1:
            s += term
        elif k % 4 == 2:
            c -= term
        else:
            s -= term
        k += 1
        term = ctx.divide(ctx.multiply(term, x), k)
    return ctx.plus(c), ctx.plus(s)


def _thetas(head_dim, base, ctx):
    lnb = ctx.ln(decimal.Decimal(base))
    return [ctx.exp(-lnb * 2 * i / head_dim) for i in range(head_dim // 2)]


def _q14(v):
    """round_half_up(2^14 v) of a Decimal (in the caller's 80-digit context)."""
    return int((v * (1 << CS_BITS) + decimal.Decimal(1) / 2).to_integral_value(decimal.ROUND_FLOOR))


def rope_row(pos, head_dim=HEAD_DIM, base=ROPE_BASE):
    """The cos/sin row of position pos (head_dim int words: cos_i, sin_i interleaved, Q14),
    directly: each angle pos * theta_i reduced modulo 2 pi and its Taylor series, in
    80-digit decimal arithmetic."""
    if pos < 0 or head_dim < 2 or head_dim % 2:
        raise ValueError(f"rope_row: position {pos} or head_dim {head_dim} out of range")
    with decimal.localcontext(_ctx()) as ctx:
        two_pi = 2 * _pi(ctx)
        out = []
        for th in _thetas(head_dim, base, ctx):
            ang = decimal.Decimal(pos) * th
            ang -= two_pi * (ang / two_pi).to_integral_value(decimal.ROUND_HALF_EVEN)
            c, s = _cos_sin(ang, ctx)
            out += [_q14(c), _q14(s)]
    return out


@functools.lru_cache(maxsize=4)
def rope_table(positions=POSITIONS, head_dim=HEAD_DIM, base=ROPE_BASE):
    """The ROPE rows of positions 0 .. positions-1: an int64 array (positions, head_dim),
    row p = cos(p theta_i), sin(p theta_i) interleaved, Q14 rounded half up (the table
    LDX reads a row of; read-only).

    Exact: cos and sin of theta_i from 80-digit decimals, then the rotation recurrence
    (c, s) <- (c cos t - s sin t, s cos t + c sin t) in 224-bit fixed-point integers, whose
    error after 2^13 steps is below 2^-200; every value is checked to lie further than
    2^-190 from a rounding tie, so each word is the correctly rounded one (ValueError
    otherwise, which no table of these sizes meets)."""
    if not 1 <= positions <= 1 << 16 or head_dim < 2 or head_dim % 2:
        raise ValueError(f"rope_table: {positions} positions or head_dim {head_dim} out of range")
    one, K = 1 << _K, _K
    half = 1 << (K - 1)
    slack = 1 << (K - 190)
    mask = one - 1
    out = np.empty((positions, head_dim), dtype=np.int64)
    with decimal.localcontext(_ctx()) as ctx:
        consts = [[int((v * one).to_integral_value(decimal.ROUND_HALF_EVEN)) for v in _cos_sin(th, ctx)]
                  for th in _thetas(head_dim, base, ctx)]
    for i, (ct, st) in enumerate(consts):
        c, s = one, 0
        col_c, col_s = [], []
        for _ in range(positions):
            for v, col in ((c, col_c), (s, col_s)):
                t = (v << CS_BITS) + half               # round half up at bit K
                if (t & mask) < slack or one - (t & mask) < slack:
                    raise ValueError("rope_table: a value too near a rounding tie to decide")
                col.append(t >> K)
            c, s = (c * ct - s * st) >> K, (s * ct + c * st) >> K
        out[:, 2 * i], out[:, 2 * i + 1] = col_c, col_s
    out.setflags(write=False)
    return out
