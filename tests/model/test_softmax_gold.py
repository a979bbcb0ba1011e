"""Independent checks of model/softmax_gold.py (the SM instruction's numerics).

The table is checked against the formula evaluated with 50-digit decimals; small cases
are worked by hand (values in the comments); random cases check the invariants.
"""
import random
from decimal import ROUND_FLOOR, Decimal, getcontext

import pytest

from model.softmax_gold import LUT, LUT_SIZE, Q16, softmax_fixed


def exact_lut(d):
    """floor(65535 * exp(-d/16) + 0.5) with 50 significant digits."""
    getcontext().prec = 50
    v = Decimal(65535) * (Decimal(-d) / Decimal(16)).exp() + Decimal("0.5")
    return int(v.to_integral_value(rounding=ROUND_FLOOR))


def test_lut_hand_values():
    assert LUT_SIZE == 256 and len(LUT) == 256 and Q16 == 65536
    assert LUT[0] == 65535
    assert LUT[1] == 61564       # 65535 * e^(-1/16)  = 61563.9
    assert LUT[16] == 24109      # 65535 / e          = 24108.97
    assert LUT[32] == 8869       # 65535 / e^2        = 8869.1
    assert LUT[188] == 1         # last non-zero entry
    assert LUT[189] == 0 and LUT[255] == 0


def test_lut_matches_formula_exactly():
    for d in range(256):
        assert LUT[d] == exact_lut(d), d


def test_lut_no_entry_near_a_tie():
    # so that a float and an exact evaluation of the formula cannot disagree
    getcontext().prec = 50
    for d in range(256):
        frac = (Decimal(65535) * (Decimal(-d) / 16).exp()) % 1
        assert abs(frac - Decimal("0.5")) > Decimal("1e-9"), d


def test_lut_non_increasing():
    assert all(a >= b for a, b in zip(LUT, LUT[1:]))


@pytest.mark.parametrize("x, want", [
    ([0], [65536]),
    ([-128], [65536]),
    ([127], [65536]),
    ([5, 5], [32768, 32768]),
    ([-7, -7, -7, -7], [16384] * 4),
    # 255 apart: LUT[255] = 0, so all of the mass goes to the maximum
    ([127, -128], [65536, 0]),
    # d = [0,16,16]: e = [65535, 24109, 24109], S = 113753;
    # 65535*65536/113753 = 37756.3, 24109*65536/113753 = 13889.8
    ([16, 0, 0], [37756, 13889, 13889]),
    # d = [0,2,3]: e = [65535, 57834, 54330], S = 177699; 24169.2, 21329.9, 20037.3
    ([3, 1, 0], [24169, 21329, 20037]),
    # three equal: 65535*65536/196605 = 21845.33 each
    ([9, 9, 9], [21845] * 3),
])
def test_softmax_hand_cases(x, want):
    assert softmax_fixed(x) == want


def ref_softmax(x):
    """The formula written again with the decimal table: floor(e_i * 2^16 / S)."""
    mx = max(x)
    e = [exact_lut(mx - v) for v in x]
    return [ei * 65536 // sum(e) for ei in e]


def test_softmax_random_invariants_and_reference():
    rng = random.Random(11)
    for _ in range(400):
        n = rng.randint(1, 64)
        lo = rng.choice([-128, -20, 0])
        x = [rng.randint(lo, 127) for _ in range(n)]
        p = softmax_fixed(x)
        assert len(p) == n
        assert all(isinstance(v, int) and 0 <= v <= 65536 for v in p)
        # each floor loses less than 1
        assert 65536 - n < sum(p) <= 65536
        for i in range(n):
            for j in range(n):
                if x[i] > x[j]:
                    assert p[i] >= p[j]
                elif x[i] == x[j]:
                    assert p[i] == p[j]
        assert p == ref_softmax(x)


def test_softmax_accepts_any_int_sequence():
    assert softmax_fixed((4, 4)) == [32768, 32768]
    assert softmax_fixed(range(2)) == softmax_fixed([0, 1])


@pytest.mark.parametrize("bad, msg", [
    ([], "empty"), ([128], "int8"), ([-129], "int8"), ([0, 1, 300], "int8")])
def test_softmax_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        softmax_fixed(bad)
