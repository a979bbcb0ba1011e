"""Checks of model/func.py: the address ranges each instruction reads and writes, and its
execution on the memories.

Ranges are typed from docs/isa.md's "last word touched" formulas and worked by hand in
the comments; the hulls are also checked against the exact addresses enumerated here
with plain loops, and execute() against the rule that an instruction changes nothing
outside writes() and depends on nothing outside reads().
"""
import random

import numpy as np
import pytest

from model import config, func, isa, quant
from model.func import Range
from tb.stimulus import randops, randprog

CFG = config.DEFAULT


def mm(**f):
    base = dict(dst=1000, A=0, B=500, M=3, K=5, N=2, tb=0, lda=8, ldb=4, ldc=6)
    base.update(f)
    return isa.build("MM", **base)


# ---------------------------------------------------------------- ranges, by hand
@pytest.mark.parametrize("ins, reads, writes", [
    (isa.build("LD", dst=10, src=20, len=5), [("ext", 20, 24)], [("sp", 10, 14)]),
    (isa.build("ST", src=10, dst=20, len=5), [("sp", 10, 14)], [("ext", 20, 24)]),
    (isa.build("LD", dst=4095, src=4095, len=1), [("ext", 4095, 4095)], [("sp", 4095, 4095)]),
    (isa.build("RQ", dst=100, src=50, len=8, m=1, s=0), [("sp", 50, 57)], [("sp", 100, 107)]),
    (isa.build("RQ", dst=51, src=50, len=8, m=1, s=0), [("sp", 50, 57)], [("sp", 51, 58)]),
    (isa.build("SM", dst=7, src=7, len=64), [("sp", 7, 70)], [("sp", 7, 70)]),
    (isa.build("HALT"), [], []),
    # tb=0: A rows 0, 8, 16, K=5 words each: 0..20; B is K x N, rows 500 + 4k: 500..517;
    # dst rows 1000, 1006, 1012, N=2 words: 1000..1013
    (mm(), [("sp", 0, 20), ("sp", 500, 517)], [("sp", 1000, 1013)]),
    # tb=1: B is N x K, rows 500, 504, K=5 words each: 500..508
    (mm(tb=1), [("sp", 0, 20), ("sp", 500, 508)], [("sp", 1000, 1013)]),
    # strides 0: every row of A, B and dst is the same words
    (mm(M=4, K=3, N=2, lda=0, ldb=0, ldc=0), [("sp", 0, 2), ("sp", 500, 501)], [("sp", 1000, 1001)]),
    (mm(M=4, K=3, N=2, tb=1, lda=0, ldb=0, ldc=0), [("sp", 0, 2), ("sp", 500, 502)], [("sp", 1000, 1001)]),
    # overlapping output rows (ldc < N): rows 1000, 1002, 1004 of 4 words: 1000..1007
    (mm(M=3, N=4, ldc=2), [("sp", 0, 20), ("sp", 500, 519)], [("sp", 1000, 1007)]),
    # one element: 1 x 1 x 1
    (mm(M=1, K=1, N=1), [("sp", 0, 0), ("sp", 500, 500)], [("sp", 1000, 1000)]),
])
def test_ranges_by_hand(ins, reads, writes):
    assert [tuple(r) for r in func.reads(ins)] == reads
    assert [tuple(r) for r in func.writes(ins)] == writes
    assert all(isinstance(r, Range) for r in func.reads(ins) + func.writes(ins))


@pytest.mark.parametrize("ins", [
    isa.raw("LD", dst=0, src=0, len=0), isa.raw("RQ", dst=0, src=0, len=0, m=1, s=0),
    isa.raw("MM", dst=0, A=0, B=0, M=0, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0),
    isa.raw("MM", dst=0, A=0, B=0, M=1, K=0, N=1, tb=0, lda=0, ldb=0, ldc=0)])
def test_empty_instructions_touch_nothing(ins):
    assert func.reads(ins) == () and func.writes(ins) == ()


# ---------------------------------------------------------------- hulls against exact addresses
def exact_mm(ins):
    """The exact scratchpad words an MM reads (A, B) and writes, with plain loops (the
    depth is K + 256 khi, docs/isa.md)."""
    f = ins.fields()
    M, K, N = f["M"], f["K"] + 256 * f["khi"], f["N"]
    a = {f["A"] + i * f["lda"] + k for i in range(M) for k in range(K)}
    if f["tb"]:
        b = {f["B"] + j * f["ldb"] + k for j in range(N) for k in range(K)}
    else:
        b = {f["B"] + k * f["ldb"] + j for k in range(K) for j in range(N)}
    c = {f["dst"] + i * f["ldc"] + j for i in range(M) for j in range(N)}
    return a, b, c


def test_mm_hulls_are_tight_and_sound():
    rng = np.random.default_rng(4)
    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    for _ in range(400):
        ins = randops.rand_mm(rng, CFG, b)
        a, bb, c = exact_mm(ins)
        (ra, rb), (rc,) = func.reads(ins), func.writes(ins)
        for r, words in ((ra, a), (rb, bb), (rc, c)):
            assert r.space == "sp" and (r.first, r.last) == (min(words), max(words)), ins


def test_ranges_of_valid_programs_lie_in_the_memories():
    size = {"sp": CFG.sp_words, "ext": CFG.ext_words}
    for seed in range(60):
        prog, _ = randprog.random_program(seed, CFG)
        for ins in prog:
            for r in func.reads(ins) + func.writes(ins):
                assert 0 <= r.first <= r.last < size[r.space], (ins, r)


# ---------------------------------------------------------------- execution
def mems(rng, cfg=CFG):
    ext = rng.integers(-(1 << 31), 1 << 31, size=cfg.ext_words).astype(np.int64)
    sp = rng.integers(-300, 300, size=cfg.sp_words).astype(np.int64)
    return ext, sp


def changed(before, after):
    return set(np.flatnonzero(before != after).tolist())


def inside(addrs, ranges, space):
    return all(any(r.space == space and r.first <= x <= r.last for r in ranges) for x in addrs)


def random_instr(rng):
    """A random valid instruction of any op (every record's, through its stimulus ranges)."""
    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    names = [op for op in isa.OPCODES if op != "HALT"]
    return randops.rand_op(rng, CFG, b, names[int(rng.integers(0, len(names)))])


def test_execute_writes_only_inside_writes_and_reads_only_inside_reads():
    rng = np.random.default_rng(11)
    for t in range(300):
        ins = random_instr(rng)
        ext, sp = mems(rng)
        e1, s1 = ext.copy(), sp.copy()
        faulted = func.execute(ins, e1, s1)
        w = func.writes(ins)
        assert inside(changed(ext, e1), w, "ext") and inside(changed(sp, s1), w, "sp"), (t, ins)
        if faulted:                          # an LDX index not below rows: it writes nothing
            assert not changed(ext, e1) and not changed(sp, s1), (t, ins)
            continue
        # scramble every word outside the reads: the written words come out the same
        rd = func.reads(ins)
        ext2, sp2 = mems(rng)
        for r in rd:
            (ext2 if r.space == "ext" else sp2)[r.first:r.last + 1] = \
                (ext if r.space == "ext" else sp)[r.first:r.last + 1]
        e2, s2 = ext2.copy(), sp2.copy()
        func.execute(ins, e2, s2)
        # (an MM's write hull may hold words between its rows it does not write: compare
        # the words it writes)
        for r in w:
            got, want = (e2, e1) if r.space == "ext" else (s2, s1)
            words = sorted(exact_mm(ins)[2]) if ins.op == "MM" else range(r.first, r.last + 1)
            assert [got[x] for x in words] == [want[x] for x in words], (t, ins)


def test_execute_takes_an_instr_or_its_word():
    rng = np.random.default_rng(2)
    for _ in range(50):
        ins = random_instr(rng)
        ext, sp = mems(rng)
        e1, s1, e2, s2 = ext.copy(), sp.copy(), ext.copy(), sp.copy()
        func.execute(ins, e1, s1)
        func.execute(isa.encode(ins), e2, s2)
        assert np.array_equal(e1, e2) and np.array_equal(s1, s2)


def test_execute_halt_does_nothing():
    ext, sp = mems(np.random.default_rng(0))
    e, s = ext.copy(), sp.copy()
    func.execute(isa.build("HALT"), e, s)
    assert np.array_equal(e, ext) and np.array_equal(s, sp)


def test_execute_refuses_an_illegal_word():
    ext, sp = mems(np.random.default_rng(0))
    with pytest.raises(ValueError, match="illegal opcode"):
        func.execute(13, ext, sp)


def test_mm_overlapping_outputs_later_row_wins():
    # ldc = 0: all three rows of C land on the same 2 words; the last row (i = 2) wins
    sp = np.zeros(CFG.sp_words, dtype=np.int64)
    ext = np.zeros(CFG.ext_words, dtype=np.int64)
    sp[0:6] = [1, 2, 3, 4, 5, 6]          # A: 3 x 2, lda = 2
    sp[100:104] = [1, 0, 0, 1]            # B: 2 x 2 identity, ldb = 2
    func.execute(isa.build("MM", dst=200, A=0, B=100, M=3, K=2, N=2, tb=0, lda=2, ldb=2, ldc=0), ext, sp)
    assert list(sp[200:203]) == [5, 6, 0]
    # ldc = 1 < N = 2: row i writes 200+i, 201+i; later rows overwrite the earlier's second word
    sp[200:204] = 0
    func.execute(isa.build("MM", dst=200, A=0, B=100, M=3, K=2, N=2, tb=0, lda=2, ldb=2, ldc=1), ext, sp)
    assert list(sp[200:204]) == [1, 3, 5, 6]


def test_rq_streaming_overlap():
    # dst = src + 1, m = 2, s = 0: each element doubles the result written just before it
    sp = np.zeros(CFG.sp_words, dtype=np.int64)
    ext = np.zeros(CFG.ext_words, dtype=np.int64)
    sp[0:5] = [3, 100, 100, 100, 100]
    func.execute(isa.build("RQ", dst=1, src=0, len=4, m=2, s=0), ext, sp)
    assert list(sp[0:5]) == [3, 6, 12, 24, 48]
    # dst behind src reads the old values: a plain vector requant
    sp[0:5] = [3, 5, 7, 9, 11]
    func.execute(isa.build("RQ", dst=0, src=1, len=4, m=2, s=0), ext, sp)
    assert list(sp[0:5]) == [10, 14, 18, 22, 11]


def test_sm_hand_case():
    sp = np.zeros(CFG.sp_words, dtype=np.int64)
    ext = np.zeros(CFG.ext_words, dtype=np.int64)
    sp[0:3] = [16, 0, 0]
    func.execute(isa.build("SM", dst=0, src=0, len=3), ext, sp)
    assert list(sp[:3]) == [37756, 13889, 13889]       # as tests/model/test_machine.py


def test_ld_st_copy_words():
    rng = random.Random(3)
    ext = np.array([rng.randint(-(1 << 31), (1 << 31) - 1) for _ in range(CFG.ext_words)], dtype=np.int64)
    sp = np.zeros(CFG.sp_words, dtype=np.int64)
    func.execute(isa.build("LD", dst=4000, src=10, len=96), ext, sp)
    assert list(sp[4000:4096]) == list(ext[10:106])
    func.execute(isa.build("ST", src=4000, dst=4000, len=96), ext, sp)
    assert list(ext[4000:4096]) == list(ext[10:106])


# ---------------------------------------------------------------- MM acc (dst += A x B)
def test_mm_acc_adds_with_wraparound_and_reads_dst():
    import numpy as np

    from model import func, isa
    ins = isa.build("MM", dst=100, A=0, B=10, M=2, K=3, N=2, tb=0, lda=3, ldb=2, ldc=2, acc=1)
    sp = np.zeros(4096, dtype=np.int64)
    sp[:16] = np.arange(16) - 5
    old = [2 ** 31 - 1, -7, 6, -(2 ** 31)]
    sp[100:104] = old
    a = (np.arange(6) - 5).reshape(2, 3)
    b = (np.arange(10, 16) - 5).reshape(3, 2)
    c = (a @ b).ravel()
    func.execute(ins, np.zeros(8, dtype=np.int64), sp)
    assert sp[100:104].tolist() == [quant.w32(o + int(x)) for o, x in zip(old, c)]
    assert func.reads(ins)[2] == func.writes(ins)[0] == func.Range("sp", 100, 103)
    plain = isa.build("MM", dst=100, A=0, B=10, M=2, K=3, N=2, tb=0, lda=3, ldb=2, ldc=2)
    assert len(func.reads(plain)) == 2 and plain.acc == 0


def test_mm_acc_overlapping_rows_accumulate_in_order():
    """ldc = 0: both rows add into the same N words, the second onto the first's result."""
    import numpy as np

    from model import func, isa
    ins = isa.build("MM", dst=50, A=0, B=8, M=2, K=2, N=2, tb=1, lda=2, ldb=2, ldc=0, acc=1)
    sp = np.zeros(4096, dtype=np.int64)
    sp[:12] = [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8]
    sp[50:52] = [100, 200]
    func.execute(ins, np.zeros(8, dtype=np.int64), sp)
    c = np.array([[1, 2], [3, 4]]) @ np.array([[5, 6], [7, 8]]).T
    assert sp[50:52].tolist() == [100 + c[0, 0] + c[1, 0], 200 + c[0, 1] + c[1, 1]]


def test_mm_acc_text_round_trip_and_default():
    from model import asm, isa
    i1 = isa.build("MM", dst=0, A=8, B=16, M=1, K=4, N=4, tb=1, lda=0, ldb=4, ldc=0, acc=1)
    i0 = isa.build("MM", dst=0, A=8, B=16, M=1, K=4, N=4, tb=1, lda=0, ldb=4, ldc=0)
    text = isa.disasm([i1, i0, isa.build("HALT")])
    assert "acc=1" in text.splitlines()[0] and "acc" not in text.splitlines()[1]
    assert asm.assemble(text) == [i1, i0, isa.build("HALT")]
    assert isa.encode(i1) == isa.encode(i0) | (1 << isa.LAYOUT["MM"]["acc"][0]) and isa.LAYOUT["MM"]["acc"] == (103, 1)


# ---------------------------------------------------------------- words read
@pytest.mark.parametrize("ins, n", [
    (isa.build("LD", dst=10, src=20, len=5), 0),               # reads only the external memory
    (isa.build("ST", src=10, dst=20, len=5), 5),
    (isa.build("RQ", dst=51, src=50, len=8, m=1, s=0), 8),
    (isa.build("SM", dst=7, src=7, len=64), 128),              # two passes over the vector
    (isa.build("HALT"), 0),
    (mm(), 3 * 5 + 2 * 5),                                     # M*K + N*K
    (mm(tb=1), 3 * 5 + 2 * 5),
    (mm(acc=1), 3 * 5 + 2 * 5 + 3 * 2),                        # + the M*N old C words
    (mm(M=4, K=255, N=4, lda=255, ldb=4, acc=1), 8 * 255 + 16),
])
def test_sp_reads_by_hand(ins, n):
    assert func.sp_reads(ins) == n
    assert func.sp_reads(isa.encode(ins)) == n                 # the word gives the same count


def test_sp_reads_refuses_an_illegal_word():
    with pytest.raises(ValueError, match="illegal opcode"):
        func.sp_reads(0)


def test_machine_sums_sp_reads_over_the_executed_instructions():
    """Result.sp_reads sums the retired instructions; a fault's instruction and those
    after it read nothing (GA2Error.sp_reads)."""
    from model.machine import GA2Error, Machine
    m = Machine(CFG)
    prog = [isa.build("LD", dst=0, src=0, len=32), mm(A=0, B=16, dst=100, acc=1),
            isa.build("SM", dst=200, src=0, len=10), isa.build("ST", src=100, dst=0, len=20),
            isa.build("HALT")]
    assert m.run(prog, [1] * 32).sp_reads == 0 + (25 + 6) + 20 + 20
    bad = prog[:2] + [isa.raw("SM", dst=200, src=0, len=65)] + prog[3:]
    with pytest.raises(GA2Error) as e:
        m.run(bad, [1] * 32)
    assert e.value.code == isa.ERR_SHAPE and e.value.sp_reads == 25 + 6
