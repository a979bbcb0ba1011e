"""The integer ops of tools/lm/int8.py against independent, straightforward implementations.

requant against model.quant.requant, the causal softmax against
model.softmax_gold.softmax_fixed row by row, isqrt against math.isqrt, NORM against the
float RMSNorm formula within its stated bound, ADD's saturation and ARGMAX's ties by plain
Python, and bad input (a character outside the vocabulary, a prompt past the context).
"""
import math
import random

import numpy as np
import pytest

from model.quant import mantissa_shift, requant
from model.softmax_gold import softmax_fixed
from tools.lm import data, int8
from tools.lm import model as M


def test_requant_is_the_chips():
    rng = random.Random(1)
    for _ in range(40):
        m, s = rng.randrange(1 << 14, 1 << 15), rng.choice([0, 1, 2, 7, 15, 24, 31, 46, 62])
        a = [rng.randrange(-(1 << 31), 1 << 31) for _ in range(50)] + [0, -1, 1, -(1 << 31)]
        assert int8.requant(a, m, s).tolist() == [requant(v, m, s) for v in a]


def test_requant_refuses_values_outside_int32():
    with pytest.raises(ValueError, match="int32"):
        int8.requant([1 << 31], 16384, 14)


def test_add8_saturates_every_pair():
    v = np.arange(-128, 128)
    got = int8.add8(v[:, None], v[None, :])
    want = [[max(-128, min(127, a + b)) for b in range(-128, 128)] for a in range(-128, 128)]
    assert got.tolist() == want


def test_relu8():
    assert int8.relu8([-128, -1, 0, 1, 127]).tolist() == [0, 0, 0, 1, 127]


def test_isqrt_is_exact():
    rng = random.Random(2)
    ns = [0, 1, 2, 3, 4, 15, 16, 17, (1 << 31) - 1, 1 << 31, (1 << 29)]
    ns += [k * k + d for k in (3, 46340, 23170, 65535) for d in (-1, 0, 1)]
    ns += [rng.randrange(0, 1 << 32) for _ in range(2000)]
    assert int8.isqrt(ns).tolist() == [math.isqrt(n) for n in ns]


def test_norm_matches_the_float_formula_within_its_bound():
    """|y - clamp(x sqrt(n) / sqrt(sum x^2) / scale)| <= 0.5 + |ideal| (1/q + 2^-14).

    (0.5: the requant's rounding; 1/q: the floors of isqrt and of the reciprocal, q =
    isqrt(ss << 10) >= 32; 2^-14: the nearest 15-bit mantissa of the scale.)
    """
    rng = np.random.default_rng(3)
    n = 32
    xs = [rng.integers(-128, 128, n), np.full(n, -128), np.full(n, 127), np.eye(n, dtype=int)[5],
          np.eye(n, dtype=int)[0] * -1, rng.integers(-3, 4, n)]
    xs += [rng.integers(-lim, lim + 1, n) for lim in (1, 2, 10, 50, 127) for _ in range(40)]
    for scale in (4 / 127, math.sqrt(n) / 127, 2 / 127):
        m, s = mantissa_shift(math.sqrt(n) / (int8.NORM_GAIN * scale))
        for x in xs:
            y = int8.rmsnorm(x, m, s)
            ss = int(np.sum(x.astype(np.int64) ** 2))
            if ss == 0:
                assert not y.any()
                continue
            ideal = x * math.sqrt(n) / math.sqrt(ss) / scale
            q = math.isqrt(ss << 10)
            bound = 0.5 + np.abs(ideal) * (1 / q + 2 ** -14)
            assert np.all(np.abs(y - np.clip(ideal, -128, 127)) <= bound), (x, scale)


def test_norm_is_its_specification_exactly():
    """docs/lm.md's NORM in plain Python integers: ss, isqrt(ss * 2^10), 2^29 // q, requant."""
    rng = random.Random(6)
    for _ in range(300):
        lim = rng.choice([1, 3, 20, 128])
        x = [rng.randrange(-lim, lim) for _ in range(32)]
        m, s = rng.randrange(1 << 14, 1 << 15), rng.randrange(20, 40)
        ss = sum(v * v for v in x)
        want = [0] * 32 if ss == 0 else [requant(v * ((1 << 29) // math.isqrt(ss * 1024)), m, s)
                                         for v in x]
        assert int8.rmsnorm(np.array(x), m, s).tolist() == want


def test_norm_of_zeros_is_zeros():
    assert int8.rmsnorm(np.zeros((2, 32), dtype=int), 20000, 30).tolist() == [[0] * 32] * 2


def test_softmax_causal_rows_are_the_chips():
    rng = np.random.default_rng(4)
    sc = rng.integers(-128, 128, (3, 64, 64))
    sc[0, 10] = 127
    sc[1] = -128
    got = int8.softmax_causal(sc)
    for b in range(3):
        for t in range(64):
            assert got[b, t, :t + 1].tolist() == softmax_fixed(sc[b, t, :t + 1].tolist())
            assert not got[b, t, t + 1:].any()


def test_argmax_lowest_index_wins_ties():
    cases = [[3, 7, 7, 1], [5, 5, 5, 5], [-9, -2, -2, -7], [0, 1 << 30, -(1 << 31), 1 << 30],
             [(1 << 31) - 1, (1 << 31) - 1]]
    for v in cases:
        assert int(int8.argmax(v)) == min(i for i, x in enumerate(v) if x == max(v))
    assert int8.argmax([[1, 2, 2], [4, 4, 0]]).tolist() == [1, 0]


def test_a_character_outside_the_vocabulary_is_named():
    with pytest.raises(ValueError, match="'é' at position 3"):
        data.encode("café")
    with pytest.raises(ValueError, match=r"'\\t' at position 0"):
        data.encode("\tx")


def test_a_prompt_past_the_context_is_refused():
    cfg = M.Config(vocab=12)
    def logits(ids):
        return np.zeros(ids.shape + (cfg.vocab,), dtype=np.int64)
    with pytest.raises(ValueError, match="65 tokens is longer than the context 64"):
        int8.greedy(logits, np.zeros((1, 65), dtype=int), 0, cfg.ctx)
    with pytest.raises(ValueError, match="60 prompt tokens \\+ 5 new ones exceed the context 64"):
        int8.greedy(logits, np.zeros((1, 60), dtype=int), 5, cfg.ctx)
    with pytest.raises(ValueError, match="length 65 is longer than the context 64"):
        M.forward(M.init(cfg, 0), cfg, np.zeros((1, 65), dtype=int))
    with pytest.raises(ValueError, match="id 12 is outside the vocabulary 0..11"):
        M.forward(M.init(cfg, 0), cfg, np.array([[1, 12]]))
