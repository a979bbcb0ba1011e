"""Independent checks of the reference Machine (model/machine.py).

Expected values come from hand-worked cases, plain-Python loops written here from the
contract (docs/contract.md) and docs/isa.md, and a small list-based interpreter
(ref_run) that also recomputes the counters from the docs/isa.md timing table.
"""
import random

import numpy as np
import pytest

from model import config, isa, timing
from model.machine import GA2Error, Machine
from model.softmax_gold import softmax_fixed

EXT = 4096


def B(op, **f):
    return isa.build(op, cfg=config.DEFAULT.replace(ext_words=EXT), **f)


HALT = isa.build("HALT")


# ---------------------------------------------------------------- independent models
def s8(w):
    w = int(w) & 0xFF
    return w - 256 if w >= 128 else w


def w32(v):
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def rq(a, m, s):
    """Round half up of a*m/2^s, clamped (floor division, not a shift)."""
    p = a * m
    r = (p + 2 ** (s - 1)) // 2 ** s if s > 0 else p
    return max(-128, min(127, r))


def doc_busy(op, f):
    """docs/isa.md timing table, typed in again."""
    if op in ("LD", "ST", "RQ"):
        return f["len"] + 1
    if op == "MM":
        return f["K"] + 7 + f["M"] * f["N"]
    if op == "SM":
        return 2 * (f["len"] + 1) + 34 * f["len"]
    return 0


DOC_UNIT = {"LD": "dma", "ST": "dma", "MM": "mm", "RQ": "vec", "SM": "vec"}


def ref_run(prog, image, sp, ext_words=EXT):
    """A list-based interpreter of valid programs: (ext, sp, counters dict, trace)."""
    ext = [w32(v) for v in image] + [0] * (ext_words - len(image))
    sp = [int(v) for v in sp]
    cnt = dict(cycles=0, mm=0, dma=0, vec=0, instret=0, fetch=0)
    trace = []
    for pc, ins in enumerate(prog):
        op, f = ins.op, ins.fields()
        cnt["cycles"] += 2
        cnt["instret"] += 1
        cnt["fetch"] += 1
        if op == "HALT":
            trace.append((pc, cnt["cycles"]))
            return ext, sp, cnt, trace
        busy = doc_busy(op, f)
        cnt["cycles"] += busy
        cnt[DOC_UNIT[op]] += busy
        trace.append((pc, cnt["cycles"]))
        n = f.get("len")
        if op == "LD":
            for x in range(n):
                sp[f["dst"] + x] = ext[f["src"] + x]
        elif op == "ST":
            for x in range(n):
                ext[f["dst"] + x] = sp[f["src"] + x]
        elif op == "RQ":
            for x in range(n):
                sp[f["dst"] + x] = rq(w32(sp[f["src"] + x]), f["m"], f["s"])
        elif op == "SM":
            p = softmax_fixed([s8(sp[f["src"] + x]) for x in range(n)])
            for x in range(n):
                sp[f["dst"] + x] = p[x]
        elif op == "MM":
            M, K, N = f["M"], f["K"], f["N"]
            a = [[s8(sp[f["A"] + i * f["lda"] + k]) for k in range(K)] for i in range(M)]
            if f["tb"]:
                b = [[s8(sp[f["B"] + j * f["ldb"] + k]) for j in range(N)] for k in range(K)]
            else:
                b = [[s8(sp[f["B"] + k * f["ldb"] + j]) for j in range(N)] for k in range(K)]
            c = [[0] * N for _ in range(M)]
            for i in range(M):
                for j in range(N):
                    for k in range(K):
                        c[i][j] += a[i][k] * b[k][j]
            for i in range(M):
                for j in range(N):
                    sp[f["dst"] + i * f["ldc"] + j] = c[i][j]
    raise AssertionError("no HALT")


def doc_counters(prog):
    c = dict(cycles=0, mm=0, dma=0, vec=0, instret=0, fetch=0)
    for ins in prog:
        c["cycles"] += 2
        c["instret"] += 1
        c["fetch"] += 1
        if ins.op == "HALT":
            break
        b = doc_busy(ins.op, ins.fields())
        c["cycles"] += b
        c[DOC_UNIT[ins.op]] += b
    return (c["cycles"], c["mm"], c["dma"], c["vec"], c["instret"], c["fetch"])


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
    for bad in (0, (1 << 28) + 1):             # external memory: 1..2^28 words
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


# ---------------------------------------------------------------- faults
def fault_case(prog, img=(), pre=None, ext_words=EXT):
    """Run prog; return (GA2Error, sp before, ext image)."""
    m = Machine(config.DEFAULT.replace(ext_words=ext_words))
    if pre:
        m.run(pre, img)
    before = m.sp.copy()
    with pytest.raises(GA2Error) as ei:
        m.run(prog, img)
    return ei.value, before, m


def cost(ins):
    return 2 + doc_busy(ins.op, ins.fields())


LD8 = isa.build("LD", cfg=config.DEFAULT.replace(ext_words=EXT), dst=0, src=0, len=8)
SEED_IMG = list(range(1, 65))


@pytest.mark.parametrize("word", [0, 13, 14, 0xFF, (1 << 120) | 13])   # 0xFF: extended code 31
def test_error_1_illegal_opcode(word):
    prog = [LD8, B("RQ", dst=100, src=0, len=8, m=1, s=0), word, B("ST", src=0, dst=0, len=1), HALT]
    e, _, _ = fault_case(prog, SEED_IMG)
    assert (e.code, e.pc) == (1, 2)
    assert tuple(e.counters) == (cost(prog[0]) + cost(prog[1]) + 2, 0, 9, 9, 2, 3)   # the bad word fetched
    assert e.trace == [(0, cost(prog[0])), (1, cost(prog[0]) + cost(prog[1]))]
    assert list(e.sp[100:108]) == list(range(1, 9))
    assert "error 1" in str(e)


def test_error_1_running_off_a_short_program():
    # no HALT: the zero-filled instruction memory holds opcode 0
    e, _, _ = fault_case([LD8], SEED_IMG)
    assert (e.code, e.pc) == (1, 1)
    assert tuple(e.counters) == (cost(LD8) + 2, 0, 9, 0, 1, 2)


# faulting instructions with a write they must not make: (ins, code)
BAD = [
    (isa.raw("LD", dst=4090, src=0, len=7), 2),
    (isa.raw("LD", dst=0, src=4090, len=7), 3),
    (isa.raw("LD", dst=5000, src=5000, len=7), 2),
    (isa.raw("LD", dst=0, src=0, len=0), 4),
    (isa.raw("ST", src=4090, dst=0, len=7), 2),
    (isa.raw("ST", src=0, dst=4090, len=7), 3),
    (isa.raw("ST", src=0, dst=0, len=0), 4),
    (isa.raw("RQ", dst=4090, src=0, len=7, m=1, s=0), 2),
    (isa.raw("RQ", dst=0, src=4090, len=7, m=1, s=0), 2),
    (isa.raw("RQ", dst=0, src=0, len=0, m=1, s=0), 4),
    (isa.raw("SM", dst=0, src=0, len=65), 4),
    (isa.raw("SM", dst=0, src=0, len=0), 4),
    (isa.raw("SM", dst=4090, src=0, len=7), 2),
    (isa.raw("MM", dst=0, A=0, B=0, M=0, K=1, N=1, tb=0, lda=1, ldb=1, ldc=1), 4),
    (isa.raw("MM", dst=0, A=0, B=0, M=5, K=1, N=1, tb=0, lda=1, ldb=1, ldc=1), 4),
    (isa.raw("MM", dst=0, A=0, B=0, M=1, K=1, N=7, tb=0, lda=1, ldb=1, ldc=1), 4),
    (isa.raw("MM", dst=0, A=0, B=0, M=1, K=0, N=1, tb=0, lda=1, ldb=1, ldc=1), 4),
    (isa.raw("MM", dst=4095, A=0, B=0, M=2, K=1, N=1, tb=0, lda=1, ldb=1, ldc=1), 2),
    (isa.raw("MM", dst=0, A=4095, B=0, M=1, K=2, N=1, tb=0, lda=1, ldb=1, ldc=1), 2),
    (isa.raw("MM", dst=0, A=0, B=4000, M=1, K=1, N=4, tb=1, lda=1, ldb=100, ldc=1), 2),
    (isa.raw("MM", dst=0, A=0, B=4000, M=1, K=97, N=1, tb=0, lda=1, ldb=1, ldc=1), 2),
]


@pytest.mark.parametrize("bad, code", BAD)
def test_errors_2_3_4_no_write_and_counters(bad, code):
    pre = [B("LD", dst=0, src=0, len=64), B("LD", dst=4032, src=0, len=64), HALT]
    img = [v * 3 + 1 for v in range(4096)]
    ok = B("ST", src=0, dst=3000, len=4)
    prog = [ok, bad, HALT]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    m.run(pre, img)
    sp_before = m.sp.copy()
    with pytest.raises(GA2Error) as ei:
        m.run(prog, img)
    e = ei.value
    assert (e.code, e.pc) == (code, 1)
    assert tuple(e.counters) == (cost(ok) + 2, 0, 5, 0, 1, 2)
    assert e.trace == [(0, cost(ok))]
    # nothing written by the faulting instruction: sp as before, ext = image + the one ST
    assert np.array_equal(e.sp, sp_before) and np.array_equal(m.sp, sp_before)
    want_ext = list(img)
    want_ext[3000:3004] = [int(v) for v in sp_before[:4]]
    assert list(e.ext) == want_ext


def test_error_3_small_external_memory():
    m = Machine(config.DEFAULT.replace(ext_words=100))
    with pytest.raises(GA2Error) as ei:
        m.run([isa.raw("ST", src=0, dst=99, len=2), HALT], [5] * 100)
    assert (ei.value.code, ei.value.pc) == (3, 0)
    assert list(ei.value.ext) == [5] * 100
    assert tuple(ei.value.counters) == (2, 0, 0, 0, 0, 1)


def test_error_priority():
    # shape (4) before scratchpad (2) before external (3)
    e, _, _ = fault_case([isa.raw("LD", dst=5000, src=5000, len=0)])
    assert e.code == 4
    e, _, _ = fault_case([isa.raw("ST", src=5000, dst=5000, len=1)])
    assert e.code == 2
    e, _, _ = fault_case([isa.raw("MM", dst=5000, A=0, B=0, M=5, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)])
    assert e.code == 4


def test_error_5_ran_past_instruction_memory():
    prog = [B("LD", dst=x, src=x, len=1) for x in range(1024)]
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    with pytest.raises(GA2Error) as ei:
        m.run(prog, list(range(100, 1124)))
    e = ei.value
    assert (e.code, e.pc) == (5, 1024)
    # 1024 LDs of 2 + 2 cycles, plus the one FETCH that finds no instruction
    assert tuple(e.counters) == (1024 * 4 + 1, 0, 1024 * 2, 0, 1024, 1024)
    assert len(e.trace) == 1024 and e.trace[-1] == (1023, 4096)
    assert list(e.sp[:1024]) == list(range(100, 1124))


def test_error_5_only_when_instruction_memory_is_full():
    # 1023 instructions without HALT: pc 1023 holds the cleared word 0 -> error 1
    prog = [B("LD", dst=0, src=0, len=1)] * 1023
    e, _, _ = fault_case(prog)
    assert (e.code, e.pc) == (1, 1023)
    assert e.counters.cycles == 1023 * 4 + 2


def test_next_program_runs_normally_after_a_fault():
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    with pytest.raises(GA2Error):
        m.run([LD8, isa.raw("SM", dst=0, src=0, len=0)], SEED_IMG)
    r = m.run([B("ST", src=0, dst=500, len=8), HALT], [0] * 10)
    assert list(r.ext[500:508]) == list(range(1, 9))   # the scratchpad kept its words
    assert tuple(r.counters) == (2 + 9 + 2, 0, 9, 0, 2, 2)


# ---------------------------------------------------------------- persistence and trace
def test_scratchpad_persists_across_runs():
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    m.run([B("LD", dst=4000, src=0, len=3), HALT], [11, -22, 33])
    r = m.run([B("ST", src=4000, dst=0, len=3), HALT])        # empty image
    assert list(r.ext[:3]) == [11, -22, 33]
    assert list(m.sp[4000:4003]) == [11, -22, 33]
    fresh = Machine(config.DEFAULT.replace(ext_words=EXT)).run([B("ST", src=4000, dst=0, len=3), HALT])
    assert fresh.ext[:3].tolist() == [0, 0, 0]


def test_trace_cycles():
    prog = [B("LD", dst=0, src=0, len=16),
            B("MM", dst=100, A=0, B=0, M=2, K=4, N=3, tb=1, lda=4, ldb=4, ldc=3),
            B("RQ", dst=200, src=100, len=6, m=100, s=9),
            B("SM", dst=300, src=200, len=6),
            B("ST", src=300, dst=50, len=6), HALT]
    r = Machine(config.DEFAULT.replace(ext_words=EXT)).run(prog, list(range(-8, 8)))
    c = [2 + 17, 2 + 4 + 7 + 6, 2 + 7, 2 + 14 + 204, 2 + 7, 2]
    acc, want = 0, []
    for pc, x in enumerate(c):
        acc += x
        want.append((pc, acc))
    assert r.trace == want
    assert tuple(r.counters) == (acc, 17, 17 + 7, 7 + 218, 6, 6)


# ---------------------------------------------------------------- random programs
def random_program(rng, n, ext_words=EXT):
    prog = []
    for _ in range(n):
        op = rng.choice(["LD", "LD", "ST", "MM", "MM", "MM", "RQ", "RQ", "SM"])
        if op in ("LD", "ST"):
            ln = rng.randint(1, 80)
            spa, exa = rng.randint(0, 4096 - ln), rng.randint(0, ext_words - ln)
            f = dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)
            prog.append(isa.build(op, cfg=config.DEFAULT.replace(ext_words=ext_words), len=ln, **f))
        elif op == "MM":
            M, N, K, tb = rng.randint(1, 4), rng.randint(1, 4), rng.choice([1, 2, 5, 16, 40]), rng.randint(0, 1)
            lda, ldb, ldc = rng.randint(0, 50), rng.randint(0, 50), rng.randint(0, 6)
            ra = (M - 1) * lda + K - 1
            rb = ((N - 1) * ldb + K - 1) if tb else ((K - 1) * ldb + N - 1)
            rc = (M - 1) * ldc + N - 1
            if max(ra, rb, rc) > 4095:
                lda = ldb = 1
                ra, rb = (M - 1) + K - 1, ((N - 1) + K - 1)
            f = dict(A=rng.randint(0, 4095 - ra), B=rng.randint(0, 4095 - rb),
                     dst=rng.randint(0, 4095 - rc), M=M, N=N, K=K, tb=tb, lda=lda, ldb=ldb, ldc=ldc)
            prog.append(isa.build("MM", cfg=config.DEFAULT.replace(ext_words=ext_words), **f))
        elif op == "RQ":
            ln = rng.randint(1, 64)
            prog.append(isa.build("RQ", cfg=config.DEFAULT.replace(ext_words=ext_words), dst=rng.randint(0, 4096 - ln),
                                  src=rng.randint(0, 4096 - ln), len=ln,
                                  m=rng.randint(0, 65535), s=rng.randint(0, 63)))
        else:
            ln = rng.randint(1, 64)
            prog.append(isa.build("SM", cfg=config.DEFAULT.replace(ext_words=ext_words), dst=rng.randint(0, 4096 - ln),
                                  src=rng.randint(0, 4096 - ln), len=ln))
    return prog + [HALT]


def test_random_programs_against_list_interpreter_and_schedule():
    rng = random.Random(1234)
    m = Machine(config.DEFAULT.replace(ext_words=EXT))
    for t in range(300):
        # dense images near the addresses programs use
        img = [rng.randint(-2 ** 31, 2 ** 31 - 1) if rng.random() < 0.3 else rng.randint(-128, 127)
               for _ in range(rng.choice([0, 100, 4096]))]
        prog = random_program(rng, rng.randint(1, 12))
        sp0 = m.sp.copy()
        r = m.run(prog, img)
        ext, sp, cnt, trace = ref_run(prog, img, sp0)
        assert list(r.ext) == ext, t
        assert list(r.sp) == sp, t
        assert tuple(r.counters) == tuple(cnt.values()) == doc_counters(prog), t
        sched = timing.schedule(prog, config.DEFAULT.replace(ext_words=EXT))
        assert sched.fault is None and tuple(sched.counters) == tuple(r.counters), t
        assert timing.schedule(isa.as_words(prog), config.DEFAULT.replace(ext_words=EXT)) == sched, t
        assert timing.trace(sched) == r.trace, t
        assert r.trace == trace, t
        # words run the same as Instr objects (the persistent scratchpad is reset first)
        if t % 25 == 0:
            m2 = Machine(config.DEFAULT.replace(ext_words=EXT))
            m2.sp[:] = sp0
            r2 = m2.run(isa.as_words(prog), img)
            assert np.array_equal(r2.sp, r.sp) and r2.trace == r.trace


def test_random_faulting_programs_counters_up_to_fault():
    rng = random.Random(99)
    for t in range(150):
        prog = random_program(rng, rng.randint(1, 6))[:-1]
        bad = rng.choice(BAD)
        k = rng.randint(0, len(prog))
        prog.insert(k, bad[0])
        m = Machine(config.DEFAULT.replace(ext_words=EXT))
        with pytest.raises(GA2Error) as ei:
            m.run(prog + [HALT], [1] * 200)
        e = ei.value
        assert (e.code, e.pc) == (bad[1], k)
        good = doc_counters(prog[:k] + [HALT])
        # the fault costs its 2 issue cycles in place of HALT's 2, and is not retired
        # (but fetched, as HALT was)
        assert tuple(e.counters) == (good[0], good[1], good[2], good[3], good[4] - 1, good[5]), t


def test_same_word_on_different_external_sizes():
    # the Machine caches decoded words; the external range check depends on ext
    word = isa.encode(isa.raw("LD", dst=0, src=150, len=10))
    r = Machine(config.DEFAULT.replace(ext_words=4096)).run([word, HALT], [0] * 150 + list(range(10)))
    assert list(r.sp[:10]) == list(range(10))
    with pytest.raises(GA2Error) as ei:
        Machine(config.DEFAULT.replace(ext_words=100)).run([word, HALT])
    assert (ei.value.code, ei.value.pc) == (3, 0)
    r = Machine(config.DEFAULT.replace(ext_words=160)).run([word, HALT], [0] * 150 + list(range(5, 15)))
    assert list(r.sp[:10]) == list(range(5, 15))


def test_repeated_runs_give_identical_results():
    rng = random.Random(77)
    prog = random_program(rng, 40)
    img = [rng.randint(-128, 127) for _ in range(4096)]
    runs = [Machine(config.DEFAULT.replace(ext_words=EXT)).run(prog, img) for _ in range(3)]
    for r in runs[1:]:
        assert np.array_equal(r.sp, runs[0].sp) and np.array_equal(r.ext, runs[0].ext)
        assert r.counters == runs[0].counters and r.trace == runs[0].trace
