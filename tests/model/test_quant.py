"""Independent checks of model/quant.py: requant, mantissa_shift, quantize, scale_for.

Expected values are hand-computed (comments show the arithmetic) or come from exact
Fraction arithmetic written here, never from the functions under test.
"""
import math
import random
from fractions import Fraction

import pytest

from model.quant import mantissa_shift, matmul_int8, quantize, requant, round_half_away, scale_for


def ref_requant(a, m, s):
    """Round half up of a*m / 2^s (exact rationals), clamped to int8."""
    v = Fraction(a * m, 2 ** s)
    r = math.floor(v + Fraction(1, 2)) if s > 0 else a * m
    return max(-128, min(127, r))


# ---------------------------------------------------------------- requant
@pytest.mark.parametrize("p, want", [
    (-5, -2), (-4, -2), (-3, -1), (-2, -1), (-1, 0), (0, 0),
    (1, 1), (2, 1), (3, 2), (4, 2), (5, 3)])
def test_requant_s1_ties_go_up(p, want):
    # s = 1: p/2 with halves rounded towards +inf (-2.5 -> -2, -0.5 -> 0, 1.5 -> 2)
    assert requant(p, 1, 1) == want


@pytest.mark.parametrize("s", [1, 2, 7, 15, 30, 47])
def test_requant_exact_half_boundaries(s):
    # a*m = 3 * 2^(s-1) is exactly 1.5 -> 2; -1.5 -> -1; 2^(s-1) is 0.5 -> 1; -0.5 -> 0
    half = 1 << (s - 1)
    assert requant(3 * half, 1, s) == 2
    assert requant(-3 * half, 1, s) == -1
    assert requant(half, 1, s) == 1
    assert requant(-half, 1, s) == 0
    # just off the tie: below rounds down, above rounds up
    if s > 1:
        assert requant(3 * half - 1, 1, s) == 1
        assert requant(-3 * half - 1, 1, s) == -2


def test_requant_tie_split_between_a_and_m():
    # a = 3*2^20, m = 2^15, s = 36: a*m = 3*2^35 = 1.5 * 2^36 -> 2; negated -> -1
    assert requant(3 << 20, 1 << 15, 36) == 2
    assert requant(-(3 << 20), 1 << 15, 36) == -1


@pytest.mark.parametrize("a, want", [
    (253, 127),    # 126.5 -> 127
    (254, 127),    # 127.0
    (255, 127),    # 127.5 -> 128 -> saturates
    (10 ** 6, 127),
    (-255, -127),  # -127.5 -> -127
    (-256, -128),  # -128.0
    (-257, -128),  # -128.5 -> -128 (tie up)
    (-258, -128),  # -129 -> saturates
    (-10 ** 6, -128)])
def test_requant_saturation(a, want):
    assert requant(a, 1, 1) == want


def test_requant_s0_has_no_rounding_term():
    assert requant(5, 3, 0) == 15
    assert requant(-1, 1, 0) == -1
    assert requant(-7, 9, 0) == -63
    assert requant(100, 2, 0) == 127
    assert requant(-100, 2, 0) == -128
    assert requant(0, 65535, 0) == 0


def test_requant_48_bit_products():
    a_max, a_min, m = (1 << 31) - 1, -(1 << 31), 65535
    # (2^31-1)*65535 = 140735340806145; / 2^46 = 1.99997 -> 2
    assert a_max * m == 140735340806145
    assert requant(a_max, m, 46) == 2
    # / 2^40 = 127.998 -> 128 -> saturates at 127
    assert requant(a_max, m, 40) == 127
    # -2^31 * 65535 / 2^46 = -65535/2^15 = -1.99997 -> -2
    assert requant(a_min, m, 46) == -2
    assert requant(a_min, m, 40) == -128
    # 10^6 * 20000 / 2^30 = 18.626 -> 19 ; negated -18.626 -> -19
    assert requant(10 ** 6, 20000, 30) == 19
    assert requant(-10 ** 6, 20000, 30) == -19
    # the largest shifts the RQ field allows (6 bits)
    assert requant(a_max, m, 63) == 0
    assert requant(a_min, m, 47) == -1   # -65535/2^16 = -0.99998 -> -1


def test_requant_brute_force_against_fractions():
    for p in range(-600, 601):
        for s in range(0, 6):
            assert requant(p, 1, s) == ref_requant(p, 1, s), (p, s)
    rng = random.Random(7)
    for _ in range(3000):
        a = rng.randint(-(1 << 31), (1 << 31) - 1)
        m = rng.randint(0, 65535)
        s = rng.randint(0, 63)
        assert requant(a, m, s) == ref_requant(a, m, s), (a, m, s)


# ---------------------------------------------------------------- mantissa_shift
def check_nearest(scale, m, s):
    assert 1 << 14 <= m < 1 << 15
    assert 0 <= s <= 62
    err = abs(Fraction(m, 2 ** s) - Fraction(scale))
    assert err <= Fraction(1, 2 ** (s + 1)), (scale, m, s)


@pytest.mark.parametrize("k", range(-48, 15))
def test_mantissa_shift_powers_of_two(k):
    scale = 2.0 ** k
    assert mantissa_shift(scale) == (1 << 14, 14 - k)   # 2^14 * 2^-(14-k) = 2^k


def test_mantissa_shift_hand_values():
    # 0.1 * 2^18 = 26214.4 (the double 0.1 is 0.1000000000000000055...) -> 26214
    assert mantissa_shift(0.1) == (26214, 18)
    # (2^14 + 0.5) / 2^14 exactly: a tie, which rounds up to 16385
    assert mantissa_shift(Fraction(2 * 16384 + 1, 2 ** 15)) == (16385, 14)
    assert mantissa_shift(1.000030517578125) == (16385, 14)
    # 32767.4 -> m = 32767 at s = 0
    assert mantissa_shift(32767.4) == (32767, 0)
    # just below 2^15 * 2^-s rounds up to 2^15: renormalised to 2^14 at s-1
    assert mantissa_shift(Fraction(2 ** 15 * 4 - 1, 4 * 2 ** 10)) == (16384, 9)
    # integers and Fractions work too
    assert mantissa_shift(3) == (24576, 13)               # 3 * 2^13 = 24576
    assert mantissa_shift(Fraction(1, 3)) == (21845, 16)  # 65536/3 = 21845.33


def test_mantissa_shift_precision_random():
    rng = random.Random(3)
    for _ in range(2000):
        scale = 2.0 ** rng.uniform(-47.9, 14.9)
        m, s = mantissa_shift(scale)
        check_nearest(scale, m, s)
    # the smallest and largest accepted scales
    check_nearest(2.0 ** -48, *mantissa_shift(2.0 ** -48))
    check_nearest(32767.49, *mantissa_shift(32767.49))


@pytest.mark.parametrize("bad", [0, 0.0, -0.0, -1, -1e-9, float("nan"), float("inf"),
                                 float("-inf"), "1.0", None, True])
def test_mantissa_shift_rejects_non_positive_or_non_numbers(bad):
    with pytest.raises(ValueError, match="mantissa_shift"):
        mantissa_shift(bad)


@pytest.mark.parametrize("bad", [32767.5, 2.0 ** 15, 1e6, 10 ** 400])
def test_mantissa_shift_too_large_needs_negative_shift(bad):
    with pytest.raises(ValueError, match="out of range"):
        mantissa_shift(bad)


@pytest.mark.parametrize("bad", [2.0 ** -49, 2.0 ** -48 * 0.99, 1e-300, 1e-310,
                                 Fraction(1, 10 ** 400)])
def test_mantissa_shift_too_small_needs_shift_over_62(bad):
    with pytest.raises(ValueError, match="out of range"):
        mantissa_shift(bad)


def test_an_out_of_range_scale_is_named_in_at_most_40_characters():
    """A scale's repr longer than 40 characters (a Fraction of 400 digits) is shown as its
    first 37 and "...": 40 in all, on one line; a short one whole."""
    with pytest.raises(ValueError) as e:
        mantissa_shift(Fraction(1, 10 ** 400))
    shown = str(e.value).split("scale ", 1)[1].split(" out of range", 1)[0]
    assert len(shown) == 40 and shown.endswith("...") and shown.startswith("Fraction(1, 1000")
    with pytest.raises(ValueError) as e:
        mantissa_shift(1e6)
    assert "scale 1000000.0 out of range" in str(e.value)


# ---------------------------------------------------------------- quantize / rounding
@pytest.mark.parametrize("v, s, want", [
    (2.5, 1, 3), (-2.5, 1, -3), (0.5, 1, 1), (-0.5, 1, -1), (1.5, 1, 2), (-1.5, 1, -2),
    (3, 2, 2), (-3, 2, -2), (0.25, 0.5, 1), (-0.25, 0.5, -1), (0.2, 0.5, 0),
    (2.4, 1, 2), (-2.4, 1, -2), (2.6, 1, 3), (-2.6, 1, -3), (0, 1, 0),
    (0.49999999999999994, 1, 0), (-0.49999999999999994, 1, 0),
    (126.5, 1, 127), (127.4, 1, 127), (127.5, 1, 127), (200, 1, 127), (1e30, 1, 127),
    (-126.5, 1, -127), (-127.5, 1, -127), (-128, 1, -127), (-1e30, 1, -127)])
def test_quantize(v, s, want):
    assert quantize(v, s) == want


def test_round_half_away():
    assert [round_half_away(x) for x in (-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5)] == \
        [-4, -3, -2, -1, 1, 2, 3, 4]
    assert isinstance(round_half_away(2.5), int)


# ---------------------------------------------------------------- scale_for
def test_scale_for():
    assert scale_for([0, 0, 0]) == 1.0
    assert scale_for([]) == 1.0
    assert scale_for([-127]) == 1.0
    assert scale_for([-254, 127, 3]) == 2.0
    assert scale_for([0.5, -1.27]) == pytest.approx(0.01)


def test_scale_for_makes_peak_quantize_to_127():
    rng = random.Random(5)
    for _ in range(200):
        vals = [rng.uniform(-5, 5) for _ in range(10)]
        sc = scale_for(vals)
        q = [quantize(v, sc) for v in vals]
        assert max(abs(x) for x in q) == 127


def test_matmul_int8():
    # [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]]
    assert matmul_int8([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
    assert matmul_int8([[-128]], [[-128]]) == [[16384]]
    with pytest.raises(ValueError):
        matmul_int8([], [[1]])
    with pytest.raises(ValueError):
        matmul_int8([[1, 2]], [[1]])
