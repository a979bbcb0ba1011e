"""The wide numerics of the real-model operations (QNT, RQC, SWIGLU, ROPE, SMW): scale
words, the 2^x table and the sigmoid table, exactly as the RTL computes them.

A scale word holds a positive scale as a 16-bit mantissa m (bits 15:0; 2^15 <= m < 2^16,
or 0 for the scale 0) and a signed 8-bit exponent e (bits 23:16): value m * 2^(e - 15).
QNT writes one per row (the row's scale), RQC multiplies a row's and a column's.

EXP2[k] = round(2^16 * 2^(-k/256)), k < 256 (EXP2[0] = 65536): SMW's e = EXP2[d & 255] >> (d >> 8)
for a score d below the maximum in units of 2^-8 (log2), 0 when d >> 8 >= EXP_CUT.
SIGMOID[k] = round(2^15 * sigmoid(-16 + k/8)), k <= 256: SWIGLU's table, linearly
interpolated between entries (Q12 inputs, 512 input steps per entry).
"""
import decimal
import math
from fractions import Fraction

M_BITS = 16
EXP_CUT = 16                 # a key 2^-16 or further below the maximum contributes exactly 0
# the weighted sum of V (MM of a 16-bit QNT'd row of attention weights w >= 0 by int8 V
# rows): QNT scales the row's largest |w16| to 32,767, so with attention spread over n keys
# of a V channel near its rows' 127 the exact sum nears 32,767 * 127 * n: the most keys
# one int32 sum can take whatever the data
PV_TILE_SAFE = ((1 << 31) - 1) // (((1 << 15) - 1) * 127)      # 516


def sc_word(m, e):
    """The scale word of mantissa m (0 or 2^15..2^16-1) and exponent e (-128..127)."""
    if not (m == 0 or (1 << 15) <= m < (1 << 16)) or not -128 <= e <= 127:
        raise ValueError(f"scale word: mantissa {m} or exponent {e} out of range")
    return m | ((e & 0xFF) << 16)


def sc_fields(w):
    """(m, e) of a scale word (its bits 31:24 ignored)."""
    w = int(w) & 0xFFFFFFFF
    e = (w >> 16) & 0xFF
    return w & 0xFFFF, e - 256 if e >= 128 else e


def sc_value(w):
    """The exact value of a scale word, a Fraction."""
    m, e = sc_fields(w)
    return Fraction(m) * Fraction(2) ** (e - 15)


def sc_of(value):
    """The scale word nearest to a positive value (offline: the compiler's constants);
    ValueError when it is not representable."""
    v = Fraction(value)
    if v <= 0:
        raise ValueError(f"scale {value!r} must be positive")
    e = v.numerator.bit_length() - v.denominator.bit_length()
    m = None
    for ee in (e - 1, e, e + 1):
        mm = math.floor(v * Fraction(2) ** (15 - ee) + Fraction(1, 2))
        if (1 << 15) <= mm < (1 << 16):
            m, e = mm, ee
            break
    if m is None or not -128 <= e <= 127:
        raise ValueError(f"scale {float(value)!r} out of the scale words' range")
    return sc_word(m, e)


def _tables():
    """EXP2 and SIGMOID in exact decimal arithmetic (40 digits): the same integers on any
    machine (no libm's last bit decides a rounding)."""
    ctx = decimal.Context(prec=40)
    ln2 = ctx.ln(decimal.Decimal(2))
    half = decimal.Decimal(1) / 2
    exp2 = tuple(int((65536 * ctx.exp(-ln2 * k / 256) + half).to_integral_value(decimal.ROUND_FLOOR))
                 for k in range(256))
    sig = tuple(int((32768 / (1 + ctx.exp(decimal.Decimal(16) - decimal.Decimal(k) / 8)) + half)
                    .to_integral_value(decimal.ROUND_FLOOR)) for k in range(257))
    return exp2, sig


EXP2, SIGMOID = _tables()
