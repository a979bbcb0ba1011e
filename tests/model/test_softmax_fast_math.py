"""The fast softmax's arithmetic (rtl/ga2_softmax.v, FAST = 1), in Python integers.

The unit computes R = floor(C / S) once (C = 2^32 - 1), then per element
q0 = floor(e R / 2^16), r = (e 2^16 - q0 S) mod 2^23, p = q0 + (r >= S). Two claims:
1. p = floor(e 2^16 / S) for every sum S the unit can see (S = a sum of len <= 64 LUT
   values that include LUT[0] = 65535: 65535 <= S <= 64 * 65535) and every LUT value
   e <= S. Checked here on the sums where the estimate is tightest (near the bounds and
   the divisors of 2^32 - 1) and on a seeded random sample; the full range was checked
   off-line (docs/rtl.md).
2. The RTL mutation run's survivor "C = 2^32 - 2" is equivalent: floor((2^32 - 2)/S)
   differs from floor((2^32 - 1)/S) only when S divides 2^32 - 1, and for every such S in
   range and every e the result is still exact -- an exhaustive check of exactly the
   cases where the mutant differs (tb/mutation/rtl/equivalents.txt cites this test).
"""
import random

from model.softmax_gold import LUT

LO, HI = 65535, 64 * 65535
ES = sorted(set(LUT))


def fast(e, S, C=(1 << 32) - 1):
    R = C // S
    q0 = (e * R) >> 16
    r = ((e << 16) - q0 * S) % (1 << 23)
    return q0 + (r >= S)


def divisors_in_range(n=(1 << 32) - 1):
    out, d = set(), 1
    while d * d <= n:
        if n % d == 0:
            out |= {d, n // d}
        d += 1
    return sorted(x for x in out if LO <= x <= HI)


def test_divisors_of_the_reciprocal_constant():
    ds = divisors_in_range()
    assert 65535 in ds and 65537 in ds and len(ds) >= 5
    for S in ds:
        for e in ES:
            if e <= S:
                want = (e << 16) // S
                assert fast(e, S) == want, (e, S)
                assert fast(e, S, (1 << 32) - 2) == want, (e, S)     # the survivor: equivalent


def test_bounds_and_a_seeded_sample():
    rng = random.Random(11)
    sums = list(range(LO, LO + 2000)) + list(range(HI - 2000, HI + 1)) + \
        [rng.randint(LO, HI) for _ in range(3000)]
    for S in sums:
        for e in ES:
            if e <= S:
                assert fast(e, S) == (e << 16) // S, (e, S)


def test_the_check_sees_a_wrong_constant():
    # a reciprocal far too small (C = 2^31: the estimate up to half off) breaks the result
    bad = [(e, S) for S in (65535, 65537, 131071) for e in ES
           if e <= S and fast(e, S, 1 << 31) != (e << 16) // S]
    assert bad
