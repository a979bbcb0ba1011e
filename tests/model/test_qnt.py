"""QNT in the twin against its definition (model/ops/qnt.py's docstring, docs/isa.md), each
check independent of the record's code: the scale word against the exact real scale in
Fraction arithmetic (relative error < 2^-15, plain and RMSNorm mode, int8 and 16 bits,
random rows with outliers like the residual stream's one channel at 23,800.0 in Q12 with a
median of 47), the q_i against round half away from zero of x_i * qmax / amax (exact for
amax <= 2^15, at most one more in magnitude otherwise and only just below a half), the
all-zero row, the streamed pass with dst ahead of src, the busy cycles."""
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from model import config, isa, timing
from model.machine import Machine
from model.wide import sc_fields, sc_value

CFG = config.DEFAULT
HALT = isa.build("HALT")
REL = Fraction(1, 1 << 15)


def run(prog, sp):
    m = Machine(CFG)
    m.sp[:len(sp)] = sp
    return m.run(prog + [HALT], [])


def qnt(xs, q=12, b16=1, rms=0, src=0, dst=None):
    """(q_i list, scale word) of one QNT of the row xs on a fresh Machine."""
    n = len(xs)
    dst = n + 3 if dst is None else dst
    r = run([isa.build("QNT", dst=dst, src=src, len=n, q=q, b16=b16, rms=rms)], [0] * src + list(xs))
    return [int(v) for v in r.sp[dst:dst + n]], int(r.sp[dst + n])


def round_half_away(f):
    a = abs(f)
    r = math.floor(a)
    r += a - r >= Fraction(1, 2)
    return -r if f < 0 else r


def rows(seed, count):
    """Random int32 rows of many kinds: full range, int8 range, tiny, Q12 activations with
    one outlier channel (23,800.0 with a median of 47), every magnitude, a lone spike."""
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(1, 1537)) if t % 3 else int(rng.integers(1, 9))
        kind = t % 6
        if kind == 0:
            x = rng.integers(-(1 << 31), 1 << 31, size=n)
        elif kind == 1:
            x = rng.integers(-128, 128, size=n)
        elif kind == 2:
            x = np.round(rng.laplace(0, 47 / math.log(2), n) * 4096).astype(np.int64)
            x[int(rng.integers(0, n))] = 23800 * 4096 * int(rng.choice([-1, 1]))
        elif kind == 3:
            x = rng.integers(-3, 4, size=n)
        elif kind == 4:
            x = rng.integers(-(1 << 31), 1 << 31, size=n) >> int(rng.integers(0, 32))
        else:
            x = np.zeros(n, dtype=np.int64)
            x[int(rng.integers(0, n))] = int(rng.integers(1, 1 << 31))
        yield [int(v) for v in np.clip(x, -(1 << 31), (1 << 31) - 1)], int(rng.integers(0, 32)), \
            int(rng.integers(0, 2)), int(rng.integers(0, 2))


def check_row(xs, q, b16, rms):
    """Check one row; the scale word's relative error against the exact real scale (0.0
    for an all-zero row)."""
    got, word = qnt(xs, q=q, b16=b16, rms=rms)
    qmax = 32767 if b16 else 127
    A = max(abs(x) for x in xs)
    if A == 0:
        assert got == [0] * len(xs) and word == 0
        return 0.0
    m, e = sc_fields(word)
    assert (1 << 15) <= m < (1 << 16) and word >> 24 == 0
    s = sc_value(word)
    if rms:                   # s = A / (qmax * sqrt(ss / n)): compare squares, exactly
        ratio = s * s * qmax * qmax * sum(x * x for x in xs) / (len(xs) * A * A)
        assert (1 - REL) ** 2 < ratio < (1 + REL) ** 2, (xs[:8], q, b16, rms, float(ratio))
        err = abs(math.sqrt(ratio) - 1)
    else:
        exact = Fraction(A, qmax << q)
        assert abs(s / exact - 1) < REL, (xs[:8], q, b16, float(s / exact))
        err = float(abs(s / exact - 1))
    for x, qi in zip(xs, got):
        v = Fraction(x * qmax, A)
        want = round_half_away(v)
        if qi != want:        # only for amax > 2^15, just below a half, one step away from zero
            frac = abs(v) - math.floor(abs(v))
            assert A > 1 << 15 and Fraction(1, 2) - Fraction(1, 1 << 16) <= frac < Fraction(1, 2) \
                and qi - want == (1 if x > 0 else -1), (x, qi, want, A)
        assert abs(qi) <= qmax
    return err


@pytest.mark.parametrize("seed", [1, 2])
def test_scale_word_and_values_against_fractions(seed):
    for xs, q, b16, rms in rows(seed, 60):
        check_row(xs, q, b16, rms)


@pytest.mark.long
def test_scale_word_and_values_many_rows():
    """2,000 rows; prints the worst relative error of the scale word in units of 2^-15
    (docs/measurements.md: pytest -s)."""
    worst = max(check_row(xs, q, b16, rms) for xs, q, b16, rms in rows(3, 2000))
    print(f"QNT scale word: worst relative error {worst * 2 ** 15:.4f} * 2^-15 over 2,000 rows")


def test_edges():
    """len 1, the int32 extremes (|-2^31| = 2^31), ties (x * qmax / A = k + 1/2), an
    all-zero row in both modes, values just below a power of two of the scale (the
    mantissa rounds up to 2^16)."""
    cases = [[1], [-1], [-(1 << 31)], [(1 << 31) - 1], [-(1 << 31), (1 << 31) - 1, 0, 1, -1],
             [254, 1, -1, 3, -3, 127, -127], [2, 1, -1], [0] * 9, [32767 * 65536 - 1, 5, -7],
             [127 * (1 << 24) - 1, 1], [1 << 15, 1, -(1 << 14) - 1], [(1 << 15) + 1, 1]]
    for xs in cases:
        for b16 in (0, 1):
            for rms in (0, 1):
                for q in (0, 12, 31):
                    check_row(xs, q, b16, rms)
    assert qnt([0] * 5, rms=1) == ([0] * 5, 0)
    # A / qmax = 2^16 - 1/32767 rounds to 2^16: m = 2^15 with e = 16
    _, w = qnt([32767 * 65536 - 1], q=0, b16=1)
    assert sc_fields(w) == (1 << 15, 16)


def test_outlier_row_residual_stream():
    """The residual stream's shape: Q12, median 47, one channel at 23,800.0: the outlier is
    +-qmax, the scale word within 2^-15 of 23,800 / 32,767 (plain) or of amax / rms."""
    rng = np.random.default_rng(37)
    xs = [int(v) for v in np.round(rng.laplace(0, 47 / math.log(2), 576) * 4096)]
    xs[123] = -23800 * 4096
    for rms in (0, 1):
        got, word = qnt(xs, q=12, b16=1, rms=rms)
        assert got[123] == -32767
        check_row(xs, 12, 1, rms)
    _, word = qnt(xs, q=12, b16=1, rms=0)
    assert abs(sc_value(word) / Fraction(23800, 32767) - 1) < REL


def test_streams_with_dst_ahead():
    """Pass 2 reads element i in its cycle i and writes q_i the next: with dst = src + d
    (0 < d < len) element i reads q_{i-d} when i >= d; the scale word comes from pass 1
    (every original input) and is written last, at dst + len."""
    rng = random.Random(5)
    for d in (1, 3, 7):
        for b16 in (0, 1):
            xs = [rng.randrange(-(1 << 20), 1 << 20) for _ in range(12)]
            A = max(abs(x) for x in xs)
            qmax = 32767 if b16 else 127
            sh = 32 - A.bit_length()
            R = -((-qmax << 48) // (A << sh))               # the ceiling
            mem = list(xs) + [0] * d
            for i in range(len(xs)):
                ax = abs(mem[i])
                v = (((ax << sh) % (1 << 32)) * R + (1 << 47)) >> 48
                mem[i + d] = -v if mem[i] < 0 else v
            r = run([isa.build("QNT", dst=100 + d, src=100, len=12, q=3, b16=b16, rms=0)], [0] * 100 + xs)
            assert r.sp[100 + d:112 + d].tolist() == mem[d:12 + d]
            assert int(r.sp[112 + d]) == qnt(xs, q=3, b16=b16)[1]


def test_busy_cycles():
    for n in (1, 2, 576, 1536):
        for rms, tail in ((0, 62), (1, 176)):
            ins = isa.build("QNT", dst=2000, src=0, len=n, q=12, b16=1, rms=rms)
            for mode in config.MODES:
                assert timing.busy_cycles(ins, CFG.replace(mode=mode)) == 2 * n + tail


def test_qm_never_sets_both_top_bits():
    """The scale word's Qm = floor(Pt * 2^19 / c) stays below 3 * 2^17, so its bits 18 and
    17 are never both set (rtl/ga2_qnt.v forms j from them without a priority): Pt = (An *
    KQ) >> 33 with An < 2^32 and KQ = round(2^(31+n) / qmax), and c >= 2^31 (plain: 2^31;
    rms: isqrt of a value >= 2^74 >> 12 = 2^62). From the definitions, not the record."""
    for n in (15, 7):
        qmax = (1 << n) - 1
        kq = round(Fraction(1 << (31 + n), qmax))
        pt = ((1 << 32) - 1) * kq >> 33
        assert pt < 1 << 31                              # the remainder starts below c
        assert (pt << 19) // (1 << 31) < 3 << 17, n
    assert math.isqrt((1 << 74) >> 12) == 1 << 31
    # and on rows whose Qm is largest: An at its top (A = 2^31 - 1 and just above a power of
    # two), the smallest c (plain mode, rms with one dominant element)
    for xs in ([(1 << 31) - 1], [-(1 << 31)], [(1 << 30) + 1, 1], [65535] + [1] * 40, [3] * 7):
        for b16 in (0, 1):
            for rms in (0, 1):
                got, word = qnt(xs, q=0, b16=b16, rms=rms)
                assert 1 << 15 <= sc_fields(word)[0] < 1 << 16
