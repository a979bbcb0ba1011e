"""Int8 quantization numerics of GA-2, exactly as docs/contract.md fixes them.

These functions are the arithmetic contract shared by the reference Machine, the
program builders and the RTL's requantization unit (tests hold the RTL to them).
"""
import math
from fractions import Fraction

QMAX = 127
M_MIN, M_MAX = 1 << 14, (1 << 15) - 1   # mantissa range of mantissa_shift
S_MAX = 62                              # largest shift mantissa_shift returns


def scale_for(values):
    """Symmetric int8 scale: max |v| / 127, or 1.0 when every value is zero."""
    peak = max((abs(float(v)) for v in values), default=0.0)
    return peak / QMAX if peak > 0 else 1.0


def round_half_away(x):
    """Round to the nearest integer, ties away from zero (not banker's rounding)."""
    # floor(|x| + 0.5) in floating point is wrong just below a half (0.49999999999999994
    # + 0.5 rounds to 1.0); |x| - floor(|x|) is exact, so compare the fraction instead.
    a = abs(x)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return -r if x < 0 else r


def quantize(v, s):
    """round_half_away(v / s), saturated to [-127, 127]."""
    return max(-QMAX, min(QMAX, round_half_away(v / s)))


def mantissa_shift(scale):
    """(m, s) with 2^14 <= m < 2^15, 0 <= s <= 62 and m * 2^-s nearest to scale.

    Exact rational arithmetic, so the mantissa is the nearest one (ties round up).
    Raises ValueError when scale is not a positive finite number or needs s outside 0..62.
    """
    if not isinstance(scale, (int, float, Fraction)) or isinstance(scale, bool):
        raise ValueError(f"mantissa_shift: scale must be a number, got {scale!r}")
    if not (scale > 0) or (isinstance(scale, float) and not math.isfinite(scale)):
        raise ValueError(f"mantissa_shift: scale must be positive and finite, got {scale!r}")
    exact = Fraction(scale)
    # Exponent from exact integer bit lengths (float(exact) would underflow to 0 or
    # overflow for extreme Fractions and ints); the estimate is off by at most one.
    e = exact.numerator.bit_length() - exact.denominator.bit_length()
    s = 15 - e                            # then scale * 2^s lies in about [2^14, 2^15)
    while exact * Fraction(2) ** s < M_MIN:
        s += 1
    while exact * Fraction(2) ** s >= M_MAX + 1:
        s -= 1
    m = math.floor(exact * Fraction(2) ** s + Fraction(1, 2))
    if m > M_MAX:                         # rounded up to 2^15: renormalise
        m, s = m >> 1, s - 1
    if not 0 <= s <= S_MAX:
        shown = repr(scale) if len(repr(scale)) <= 40 else repr(scale)[:37] + "..."
        raise ValueError(
            f"mantissa_shift: scale {shown} out of range (needs shift {s}, allowed 0..{S_MAX})")
    return m, s


def requant(a, m, s):
    """clamp((a*m + 2^(s-1)) >> s, -128, 127); arithmetic (floor) shift; no rounding term at s=0."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return max(-128, min(127, p >> s))


def matmul_int8(A, B):
    """Exact integer product of A (rows) and B (rows), as lists of lists of int."""
    if not A or not B:
        raise ValueError("matmul_int8: empty operand")
    k = len(B)
    if any(len(row) != k for row in A):
        raise ValueError(f"matmul_int8: inner dimensions differ (A rows vs {k} rows of B)")
    cols = list(zip(*B))
    return [[sum(int(x) * int(y) for x, y in zip(row, col)) for col in cols] for row in A]


def s8(w):
    """The low 8 bits of a word read as two's complement."""
    return ((int(w) & 0xFF) ^ 0x80) - 0x80


def w32(v):
    """v wrapped to a 32-bit word, as a signed integer."""
    return ((int(v) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
