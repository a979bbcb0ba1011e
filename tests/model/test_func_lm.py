"""The language model's operations in the twin (LDX, ADD, ARGMAX, NORM, RQ relu), each
against a plain-Python transcription of docs/lm.md "Numerics" and docs/isa.md written
here (Python integers, one element at a time), on a fresh Machine per case."""
import math
import random

import pytest

from model import config, isa, timing
from model.machine import GA2Error, Machine

CFG = config.DEFAULT
B = isa.build
HALT = isa.build("HALT")


def s8(v):
    return ((v & 0xFF) ^ 0x80) - 0x80


def rq(a, m, s):                          # docs/contract.md: RQ
    return max(-128, min(127, (a * m + ((1 << (s - 1)) if s else 0)) >> s))


def norm_ref(xs, m, s):                   # docs/lm.md: NORM
    ss = sum(x * x for x in xs)
    if ss == 0:
        return [0] * len(xs)
    q = math.isqrt(ss * 1024)
    r = (1 << 29) // q
    return [rq(x * r, m, s) for x in xs]


def run(prog, image=(), sp=None):
    m = Machine(CFG)
    if sp is not None:
        m.sp[:len(sp)] = sp
    return m.run(prog + [HALT], list(image))


def test_rq_relu_clamps_at_zero():
    rng = random.Random(1)
    vals = [rng.randrange(-2 ** 20, 2 ** 20) for _ in range(50)] + [0, -1, 1]
    for relu in (0, 1):
        r = run([B("RQ", dst=100, src=0, len=len(vals), m=300, s=12, relu=relu)], sp=vals)
        want = [rq(v, 300, 12) for v in vals]
        want = [max(0, w) for w in want] if relu else want
        assert r.sp[100:100 + len(vals)].tolist() == want


def test_add_saturates_and_reads_low_bytes():
    rng = random.Random(2)
    a = [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(40)] + [127, -128, 100, -100]
    b = [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(40)] + [127, -128, 100, -100]
    r = run([B("ADD", dst=500, src=0, len=44, src2=200)], sp=a + [0] * 156 + b)
    assert r.sp[500:544].tolist() == [max(-128, min(127, s8(x) + s8(y))) for x, y in zip(a, b)]
    assert r.sp[540:544].tolist() == [127, -128, 127, -128]


@pytest.mark.parametrize("shift", [0, 1, 3])
def test_add_streams_element_by_element(shift):
    # dst ahead of src by less than len: element i + shift reads the result of element i
    xs = [5, -7, 100, 3, -128, 90, 1, 2]
    ys = [1, 2, 3, 4, 5, 6, 7, 8]
    mem = list(xs) + [0] * 8 + ys
    r = run([B("ADD", dst=shift, src=0, len=8, src2=16)], sp=mem)
    want = list(mem)
    for i in range(8):
        want[shift + i] = max(-128, min(127, s8(want[i]) + s8(want[16 + i])))
    assert r.sp[:24].tolist() == want


def test_argmax_first_of_equal_maxima_signed():
    for vals in ([3, 9, 9, 1], [-5, -2, -2, -9], [7], [-2 ** 31, 2 ** 31 - 1, 2 ** 31 - 1],
                 [random.Random(k).randrange(-2 ** 31, 2 ** 31) for k in range(96)]):
        r = run([B("ARGMAX", dst=300, src=10, len=len(vals))], sp=[0] * 10 + vals)
        best = max(vals)
        assert r.sp[300] == vals.index(best)


@pytest.mark.parametrize("n", [1, 2, 31, 32, 64])
def test_norm_against_the_spec(n):
    rng = random.Random(n)
    for trial in range(6):
        xs = [rng.randrange(-128, 128) for _ in range(n)]
        if trial == 0:
            xs = [-128] * n               # the largest sum of squares
        if trial == 1:
            xs = [0] * n                  # ss = 0: zeros
        m, s = rng.randrange(1, 1 << 16), rng.randrange(0, 40)
        stray = [x + (rng.randrange(-50, 50) << 8) for x in xs]      # only the low byte counts
        r = run([B("NORM", dst=200, src=0, len=n, m=m, s=s)], sp=stray)
        assert r.sp[200:200 + n].tolist() == norm_ref(xs, m, s)


def test_norm_in_place_uses_the_first_pass_sum():
    xs = [10, -20, 30, 40, -50, 60, 70, -80]
    m, s = 40000, 26
    r = run([B("NORM", dst=0, src=0, len=8, m=m, s=s)], sp=xs)
    assert r.sp[:8].tolist() == norm_ref(xs, m, s)


def test_ldx_copies_the_row_the_index_names():
    table = list(range(1000, 1000 + 12 * 5))          # 12 rows of 5 words at ext 40
    for tok in (0, 5, 11):
        r = run([B("LDX", dst=700, src=40, len=5, idx=9, rows=12)], image=[0] * 40 + table,
                sp=[0] * 9 + [tok])
        assert r.sp[700:705].tolist() == table[5 * tok:5 * tok + 5]
        assert r.counters.dma == 5 + 3 and r.sp_reads == 1


@pytest.mark.parametrize("tok", [12, 13, 2 ** 31 - 1, -1])
def test_ldx_bad_index_is_error_6_at_the_end(tok):
    # the LDX writes nothing, the program runs on (its timing unchanged), error 6 names it
    prog = [B("LD", dst=0, src=0, len=4), B("LDX", dst=700, src=40, len=5, idx=9, rows=12),
            B("ST", src=0, dst=100, len=4)]
    img = [7, 8, 9, 10] + [0] * 36 + list(range(1000, 1060))
    m = Machine(CFG)
    m.sp[9] = tok
    m.sp[700:705] = [-3] * 5
    with pytest.raises(GA2Error) as ei:
        m.run(prog + [HALT], img)
    e = ei.value
    assert (e.code, e.pc) == (isa.ERR_INDEX, 1)
    assert e.sp[700:705].tolist() == [-3] * 5          # nothing written
    assert e.ext[100:104].tolist() == [7, 8, 9, 10]    # what follows still ran
    good = timing.schedule(prog + [HALT], CFG)
    assert e.counters == good.counters and e.counters.instret == 4


def test_ldx_index_error_outranks_a_later_decode_fault():
    prog = [B("LDX", dst=700, src=0, len=5, idx=9, rows=2), isa.raw("LD", dst=0, src=0, len=0)]
    m = Machine(CFG)
    m.sp[9] = 2
    with pytest.raises(GA2Error) as ei:
        m.run(prog + [HALT], [1] * 10)
    assert (ei.value.code, ei.value.pc) == (isa.ERR_INDEX, 0)
    assert ei.value.counters.instret == 1


@pytest.mark.parametrize("ins, code, field", [
    (isa.raw("LDX", dst=0, src=0, len=0, idx=0, rows=1), 4, "len"),
    (isa.raw("LDX", dst=0, src=0, len=1, idx=0, rows=0), 4, "rows"),
    (isa.raw("LDX", dst=0, src=0, len=4, idx=4096, rows=1), 2, "idx"),
    (isa.raw("LDX", dst=4093, src=0, len=4, idx=0, rows=1), 2, "dst"),
    (isa.raw("LDX", dst=0, src=4001, len=32, idx=0, rows=3), 3, "src"),     # 4001 + 96 > 4096
    (isa.raw("ADD", dst=0, src=4090, len=7, src2=0), 2, "src"),
    (isa.raw("ADD", dst=0, src=0, len=7, src2=4090), 2, "src2"),
    (isa.raw("ADD", dst=4090, src=0, len=7, src2=0), 2, "dst"),
    (isa.raw("ARGMAX", dst=4096, src=0, len=7), 2, "dst"),
    (isa.raw("ARGMAX", dst=0, src=4090, len=7), 2, "src"),
    (isa.raw("NORM", dst=0, src=0, len=65, m=1, s=0), 4, "len"),
    (isa.raw("NORM", dst=0, src=0, len=0, m=1, s=0), 4, "len"),
])
def test_decode_faults_of_ldx_add_argmax_norm(ins, code, field):
    bad = isa.check(ins, CFG)
    assert bad is not None and bad[:2] == (code, field)


def test_ldx_table_that_just_fits_is_accepted():
    # the whole table (rows x len words) must fit the external memory, not only a row
    assert isa.check(isa.raw("LDX", dst=0, src=4000, len=32, idx=4095, rows=3), CFG) is None
    assert isa.check(isa.raw("LDX", dst=0, src=4001, len=32, idx=4095, rows=3), CFG)[0] == 3
    assert isa.check(isa.raw("LDX", dst=0, src=4001, len=32, idx=4095, rows=2), CFG) is None
