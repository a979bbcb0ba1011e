"""Independent checks of the reference Machine (model/machine.py), operation by operation
(LD / ST, MM, RQ, SM): hand-worked cases and plain-Python loops (tests/model/machine_ref.py)
written from the contract (docs/contract.md) and docs/isa.md."""
import random

import pytest
from machine_ref import EXT, HALT, B, rq, s8, w32

from model import config, isa
from model.machine import Machine
from model.softmax_gold import softmax_fixed


# ---------------------------------------------------------------- LD / ST
def test_ld_st_values_and_wrap():
    img = [1, -1, 127, -128, 2 ** 31 - 1, -2 ** 31, 2 ** 31, 2 ** 32 - 1, 0x1FF]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=100, src=0, len=9), B("ST", src=100, dst=200, len=9), HALT], img)
    want = [1, -1, 127, -128, 2 ** 31 - 1, -2 ** 31, -2 ** 31, -1, 0x1FF]
    assert list(r.sp[100:109]) == want
    assert list(r.ext[200:209]) == want
    assert list(r.ext[:9]) == want          # unsigned 32-bit words read as signed
    with pytest.raises(ValueError, match="word 7 = 4294967301 does not fit 32 bits"):
        m.run([HALT], img[:7] + [2 ** 32 + 5])                  # refused, not wrapped
    assert len(r.ext) == EXT and len(r.sp) == 4096
    assert not r.sp[:100].any() and not r.sp[109:].any()
    assert tuple(r.counters) == (12 + 12 + 2, 0, 20, 0, 3, 3)
    assert r.trace == [(0, 12), (1, 24), (2, 26)]


@pytest.mark.parametrize("ext_words", [4096, 8192, 100])
def test_ld_st_last_words_of_both_memories(ext_words):
    img = [0] * (ext_words - 3) + [7, -8, 9]
    m = Machine(config.DEFAULT.replace(ext_words=ext_words))
    prog = [isa.build("LD", cfg=config.DEFAULT.replace(ext_words=ext_words), dst=4093, src=ext_words - 3, len=3),
            isa.build("ST", cfg=config.DEFAULT.replace(ext_words=ext_words), src=4093, dst=ext_words - 1, len=1),
            isa.build("ST", cfg=config.DEFAULT.replace(ext_words=ext_words), src=4095, dst=0, len=1), HALT]
    r = m.run(prog, img)
    assert list(r.sp[4093:]) == [7, -8, 9]
    assert r.ext[ext_words - 1] == 7 and r.ext[0] == 9
    assert r.counters.dma == 4 + 2 + 2


def test_machine_rejects_bad_setup():
    for bad in (0, (1 << 29) + 1):             # external memory: 1..2^29 words
        with pytest.raises(ValueError, match="ext"):
            Machine(config.DEFAULT.replace(ext_words=bad))
    m = Machine(config.DEFAULT.replace(ext_words=10))
    with pytest.raises(ValueError, match="image of 11 words larger than the memory"):
        m.run([HALT], [0] * 11)
    with pytest.raises(ValueError, match="exceeds instruction memory"):
        m.run([HALT] * 1025)


def test_machine_takes_its_sizes_from_the_config():
    assert Machine().ext_words == 4096 and Machine().sp.size == 4096
    m = Machine(config.CH09)
    assert m.ext_words == 8192 and m.sp.size == 4096
    small = Machine(config.DEFAULT.replace(sp_words=64, imem_depth=4))
    assert small.sp.size == 64
    with pytest.raises(ValueError, match="exceeds instruction memory"):
        small.run([HALT] * 5)
    with pytest.raises(ValueError, match="Config"):
        Machine("8192")


# ---------------------------------------------------------------- MM
def mm_reference(sp, f):
    """Plain triple loop over the spec's definition; returns {address: value} writes in order."""
    writes = []
    for i in range(f["M"]):
        for j in range(f["N"]):
            acc = 0
            for k in range(f["K"]):
                a = s8(sp[f["A"] + i * f["lda"] + k])
                if f["tb"]:
                    b = s8(sp[f["B"] + j * f["ldb"] + k])
                else:
                    b = s8(sp[f["B"] + k * f["ldb"] + j])
                acc += a * b
            writes.append((f["dst"] + i * f["ldc"] + j, acc))
    return writes


def run_mm_case(rng, M, N, K, tb, lda, ldb, ldc, dst=2000, A=0, Bb=1000):
    # operands with garbage above the low byte: MM must read s8 of each word
    img = [rng.randint(-128, 127) + 256 * rng.randint(-1000, 1000) for _ in range(1000)]
    img += [rng.randint(-128, 127) + 256 * rng.randint(-1000, 1000) for _ in range(1000)]
    img += [0x5A5A5A5A] * 64                          # sentinel for the output region
    f = dict(dst=dst, A=A, B=Bb, M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc)
    prog = [B("LD", dst=0, src=0, len=2064), B("MM", **f), HALT]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run(prog, img)
    before = [w32(v) for v in img] + [0] * (4096 - len(img))
    want = list(before)
    for addr, v in mm_reference(before, f):
        want[addr] = v
    assert list(r.sp) == want
    assert r.counters.mm == K + 7 + M * N
    return r


@pytest.mark.parametrize("M", [1, 2, 3, 4])
@pytest.mark.parametrize("N", [1, 2, 3, 4])
@pytest.mark.parametrize("tb", [0, 1])
def test_mm_every_shape(M, N, tb):
    rng = random.Random(M * 100 + N * 10 + tb)
    for K in (1, 2, 16, 37):
        # strides different from K and N
        ldb = (N + 3) if not tb else (K + 2)
        run_mm_case(rng, M, N, K, tb, lda=K + 5, ldb=ldb, ldc=N + 2)
    # tight strides too
    run_mm_case(rng, M, N, 4, tb, lda=4, ldb=N if not tb else 4, ldc=N)


def test_mm_hand_2x2():
    # A = [[1,2],[3,4]] (rows), B = [[5,6],[7,8]] -> [[19,22],[43,50]]
    img = [1, 2, 3, 4, 5, 6, 7, 8]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=0, src=0, len=8),
               B("MM", dst=10, A=0, B=4, M=2, K=2, N=2, tb=0, lda=2, ldb=2, ldc=2), HALT], img)
    assert list(r.sp[10:14]) == [19, 22, 43, 50]
    # same B stored transposed ([[5,7],[6,8]]) with tb=1
    r = m.run([B("LD", dst=0, src=0, len=8),
               B("MM", dst=10, A=0, B=4, M=2, K=2, N=2, tb=1, lda=2, ldb=2, ldc=2), HALT],
              [1, 2, 3, 4, 5, 7, 6, 8])
    assert list(r.sp[10:14]) == [19, 22, 43, 50]
    # -128 * -128 * 255 = 4177920 fits int32; the accumulator does not wrap to int8
    r = m.run([B("LD", dst=1000, src=0, len=255),
               B("MM", dst=10, A=1000, B=1000, M=1, K=255, N=1, tb=0, lda=0, ldb=1, ldc=0), HALT],
              [0x80] * 255)
    assert r.sp[10] == 4177920


@pytest.mark.parametrize("ldc", [0, 1, 2, 3])
def test_mm_overlapping_outputs_later_write_wins(ldc):
    rng = random.Random(ldc)
    r = run_mm_case(rng, 3, 4, 5, 0, lda=5, ldb=4, ldc=ldc)
    # explicitly: with ldc = 0 only the last row survives
    if ldc == 0:
        a = [[s8(v) for v in r.sp[i * 5:i * 5 + 5]] for i in range(3)]
        b = [[s8(r.sp[1000 + k * 4 + j]) for j in range(4)] for k in range(5)]
        last = [sum(a[2][k] * b[k][j] for k in range(5)) for j in range(4)]
        assert list(r.sp[2000:2004]) == last


def test_mm_reads_all_operands_before_writing():
    # dst overlaps A and B: the result uses the operands as they were
    rng = random.Random(9)
    run_mm_case(rng, 4, 4, 8, 0, lda=8, ldb=4, ldc=4, dst=0, A=0, Bb=2)
    run_mm_case(rng, 4, 4, 8, 1, lda=8, ldb=8, ldc=1, dst=5, A=0, Bb=3)


# ---------------------------------------------------------------- RQ
def test_rq_hand_values():
    img = [3, -3, 255, -257, 2 ** 31 - 1, -2 ** 31, 1, -1, 0x180]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=0, src=0, len=9), B("RQ", dst=20, src=0, len=9, m=1, s=1),
               B("RQ", dst=40, src=0, len=9, m=3, s=0), B("ST", src=20, dst=100, len=9), HALT], img)
    # /2 rounded half up: 1.5->2, -1.5->-1, 127.5->127(sat), -128.5->-128, huge->127, -2^30->-128,
    # 0.5->1, -0.5->0, 0x180=384 -> 192 -> 127 (RQ takes the whole int32, not s8)
    assert list(r.sp[20:29]) == [2, -1, 127, -128, 127, -128, 1, 0, 127]
    assert list(r.ext[100:109]) == [2, -1, 127, -128, 127, -128, 1, 0, 127]
    # x3 with s = 0: 9, -9, 765->127, ...
    assert list(r.sp[40:49]) == [9, -9, 127, -128, 127, -128, 3, -3, 127]
    assert r.counters.vec == 20


def test_rq_large_products():
    img = [2 ** 31 - 1, -2 ** 31, 10 ** 6, -10 ** 6]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=0, src=0, len=4), B("RQ", dst=10, src=0, len=4, m=65535, s=46),
               B("RQ", dst=20, src=2, len=2, m=20000, s=30),
               B("RQ", dst=30, src=0, len=2, m=65535, s=63), HALT], img)
    assert list(r.sp[10:14]) == [2, -2, 0, 0]     # 1.99997 -> 2, -1.99997 -> -2, tiny -> 0
    assert list(r.sp[20:22]) == [19, -19]         # 18.63 -> 19
    assert list(r.sp[30:32]) == [0, 0]


def test_rq_overlap_dst_after_src_is_sequential():
    # dst = src + 1, m=1, s=1: each element halves the one just written
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=10, src=0, len=5), B("RQ", dst=11, src=10, len=5, m=1, s=1), HALT],
              [100, 1, 2, 3, 4])
    # sp[11] = 50, sp[12] = 25, sp[13] = 12.5 -> 13, sp[14] = 6.5 -> 7, sp[15] = 3.5 -> 4
    assert list(r.sp[10:16]) == [100, 50, 25, 13, 7, 4]


def test_rq_overlap_dst_before_src():
    # dst = src - 1: each element reads a word not yet overwritten
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=10, src=0, len=4), B("RQ", dst=9, src=10, len=4, m=1, s=1), HALT],
              [10, 20, 30, 40])
    assert list(r.sp[9:14]) == [5, 10, 15, 20, 40]


@pytest.mark.parametrize("shift", [-19, -3, -1, 0, 1, 2, 5, 18, 19, 20])
def test_rq_overlap_sequential_reference(shift):
    # n = 20: shift 19 is the last overlapping one (element 0 writes what element 19 reads)
    rng = random.Random(shift + 50)
    img = [rng.randint(-2 ** 31, 2 ** 31 - 1) for _ in range(20)]
    src, n, mm, ss = 100, 20, rng.randint(1, 65535), rng.randint(20, 40)
    img[0] = 2 ** 31 - 1                     # the first result differs from what it overwrites
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=src, src=0, len=n), B("RQ", dst=src + shift, src=src, len=n, m=mm, s=ss),
               HALT], img)
    sp = [0] * 4096
    sp[src:src + n] = img
    for x in range(n):                       # one element at a time, increasing order
        sp[src + shift + x] = rq(sp[src + x], mm, ss)
    assert list(r.sp) == sp


# ---------------------------------------------------------------- SM
def test_sm_against_softmax_fixed():
    rng = random.Random(4)
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    for n in (1, 2, 3, 17, 64):
        raw = [rng.randint(-128, 127) for _ in range(n)]
        img = [v + 256 * rng.randint(-5, 5) for v in raw]      # high bits ignored (s8)
        r = m.run([B("LD", dst=0, src=0, len=n), B("SM", dst=200, src=0, len=n),
                   B("SM", dst=0, src=0, len=n), HALT], img)   # second one in place
        assert list(r.sp[200:200 + n]) == softmax_fixed(raw)
        assert list(r.sp[0:n]) == softmax_fixed(raw)
        assert r.counters.vec == 2 * (2 * (n + 1) + 34 * n)


def test_sm_hand_case():
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    r = m.run([B("LD", dst=0, src=0, len=3), B("SM", dst=0, src=0, len=3), HALT], [16, 0, 0])
    assert list(r.sp[:3]) == [37756, 13889, 13889]
