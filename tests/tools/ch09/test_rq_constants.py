"""Chapter 9's requantization constants pinned independently of the code that makes them.

batch.rq_params computes the six (m, s) pairs with quant.mantissa_shift, and both the
builder (program) and the integer reference (int_reference) take them from there, so a
wrong constant is invisible to the batching oracle. This file derives them again from
the spec's formulas with its own code (no quant.mantissa_shift, no batch.rq_params):

    ratios    q: x*wq/q   k: x*wk/k   v: x*wv/v   scores: q*k/sqrt(D)*16
              weights: 127/65536   out: v/(127*o)          (D = 16, the scales of make_batch)
    (m, s)    s = the shift that puts r*2^s in [2^14, 2^15), m = round(r*2^s), ties up;
              a mantissa that rounds up to 2^15 becomes 2^14 with s - 1.
              m is a 16-bit unsigned field, s a 6-bit one.

and types in hand-checked literals for fixed seeds. A test of the test shows that one
constant off by one (in m or in s) fails it.
"""
import math
from fractions import Fraction

import pytest

from model import batch

NAMES = ("q", "k", "v", "scores", "weights", "out")


def spec_ratios(scales):
    """The six scale ratios, as the spec writes them (the same float operation order)."""
    s = scales
    return {
        "q": s["x"] * s["wq"] / s["q"],
        "k": s["x"] * s["wk"] / s["k"],
        "v": s["x"] * s["wv"] / s["v"],
        "scores": s["q"] * s["k"] / math.sqrt(16) * 16,
        "weights": 127 / 65536,
        "out": s["v"] / (127 * s["o"]),
    }


def spec_mantissa_shift(r):
    """(m, s) from the spec's definition, by frexp: r = f * 2^e with 0.5 <= f < 1, so
    r * 2^(15 - e) = f * 2^15 lies in [2^14, 2^15); m rounds it half up (exactly)."""
    assert r > 0
    _, e = math.frexp(r)
    s = 15 - e
    x = Fraction(r) * 2 ** s                  # exact: r is a float, 2^s a power of two
    assert 2 ** 14 <= x < 2 ** 15
    m = math.floor(x + Fraction(1, 2))
    if m == 2 ** 15:
        m, s = 2 ** 14, s - 1
    return m, s


def mismatches(configs):
    """Where batch.rq_params differs from the spec (or leaves the fields' ranges)."""
    bad = []
    for nseq, L, seed in configs:
        ex = batch.make_batch(nseq, L, seed)
        got = batch.rq_params(ex)
        want = {k: spec_mantissa_shift(r) for k, r in spec_ratios(ex["scales"]).items()}
        for k in NAMES:
            m, s = got[k]
            if (m, s) != want[k]:
                bad.append(f"make_batch({nseq}, {L}, {seed}) {k}: rq_params {got[k]} != spec {want[k]}")
            if not (0 <= m < 1 << 16 and 0 <= s < 1 << 6):
                bad.append(f"make_batch({nseq}, {L}, {seed}) {k}: {got[k]} outside the 16/6-bit fields")
    return bad


# every (B, L, seed) make_batch that check_batching's invariance part uses, plus the ragged data
CONFIGS = [(B, L, seed) for seed in (1, 2) for B in (1, 2, 3, 4) for L in (1, 2, 5, 9, 16)] + [(4, 14, 1)]

# Hand-checked literals (make_batch scales as printed by repr, ratios by a calculator):
#  weights: 127/65536 = 127 * 2^-16; 127 * 2^7 = 16256 < 2^14, 127 * 2^8 = 32512 in
#           [2^14, 2^15), so m = 32512, s = 16 + 8 = 24 and m/2^s = 127/65536 exactly.
#  (4, 16, 1) out: v/(127*o) = 0.03002600185510234 / (127 * 0.021040900389316667)
#           = 0.0112364588...; 2^-7 = 0.0078125 <= r < 2^-6, so s = 15 + 6 = 21 and
#           r * 2^21 = 23564.56 -> m = 23565.
#  (4, 16, 1) scores: q*k/4*16 = 0.033468096490911786 * 0.032483811416098816 * 4
#           = 0.0043486853...; 2^-8 <= r < 2^-7, s = 22, r * 2^22 = 18239.71 -> m = 18240.
#  (4, 16, 1) q: x*wq/q = 0.024802874142096355 * 0.00570128138488756 / 0.033468096490911786
#           = 0.0042251630...; s = 22, r * 2^22 = 17721.62 -> m = 17722.
HAND = {
    (4, 16, 1): {"q": (17722, 22), "k": (18009, 22), "v": (20196, 22), "scores": (18240, 22),
                 "weights": (32512, 24), "out": (23565, 21)},
    (1, 1, 1): {"q": (27248, 22), "k": (26747, 22), "v": (30432, 22), "scores": (20141, 25),
                "weights": (32512, 24), "out": (16513, 21)},
    (2, 9, 2): {"q": (31472, 22), "k": (19436, 22), "v": (24853, 22), "scores": (20931, 23),
                "weights": (32512, 24), "out": (18704, 21)},
    (4, 14, 1): {"q": (17722, 22), "k": (18009, 22), "v": (20196, 22), "scores": (18240, 22),
                 "weights": (32512, 24), "out": (18541, 21)},
}


def test_spec_mantissa_shift_by_hand():
    assert spec_mantissa_shift(127 / 65536) == (32512, 24)
    assert spec_mantissa_shift(1.0) == (16384, 14)
    assert spec_mantissa_shift(0.75) == (24576, 15)
    assert spec_mantissa_shift((2 ** 15 - 0.25) / 2 ** 20) == (16384, 19)    # rounds up to 2^15
    assert spec_mantissa_shift((2 ** 14 + 0.5) / 2 ** 20) == (16385, 20)     # a tie rounds up


def test_rq_params_equal_the_spec_formulas():
    assert mismatches(CONFIGS) == []


def test_rq_params_equal_the_hand_checked_literals():
    for (nseq, L, seed), want in HAND.items():
        assert batch.rq_params(batch.make_batch(nseq, L, seed)) == want, (nseq, L, seed)
        ex = batch.make_batch(nseq, L, seed)
        assert {k: spec_mantissa_shift(r) for k, r in spec_ratios(ex["scales"]).items()} == want


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("field, delta", [(0, 1), (0, -1), (1, 1)])
def test_a_constant_off_by_one_fails(monkeypatch, name, field, delta):
    """The test of the test: rq_params with one constant off by one in m or s is caught."""
    real = batch.rq_params

    def off(ex):
        P = dict(real(ex))
        ms = list(P[name])
        ms[field] += delta
        P[name] = tuple(ms)
        return P
    monkeypatch.setattr(batch, "rq_params", off)
    configs = [(4, 16, 1), (2, 9, 2)]
    bad = mismatches(configs)
    assert len(bad) == len(configs) and all(f" {name}: " in b for b in bad), bad
    with pytest.raises(AssertionError):
        test_rq_params_equal_the_hand_checked_literals()
