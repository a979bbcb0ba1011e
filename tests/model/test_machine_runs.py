"""Independent checks of the reference Machine (model/machine.py) across programs: faults
and their priority, what persists between runs, the trace, and random programs against the
list-based interpreter and the docs/isa.md timing table (tests/model/machine_ref.py)."""
import random

import numpy as np
import pytest
from machine_ref import EXT, HALT, B, doc_busy, doc_counters, ref_run

from model import config, isa, timing
from model.machine import GA2Error, Machine


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
