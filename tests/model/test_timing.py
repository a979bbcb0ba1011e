"""Checks of model/timing.py: the schedule of events, the counters, the trace and faults.

Expected numbers are typed from docs/isa.md's timing contract (FETCH 1 + DECODE 1 + the
unit's busy cycles; HALT retires in DECODE; a fault costs 2 cycles and is not retired;
ERR_PC costs 1) and worked by hand in the comments, not computed by the code under test.
The chapter-9 cycle counts are the chapter's published results, typed in.
"""
import random

import numpy as np
import pytest

from model import batch, config, isa, timing
from model.machine import GA2Error, Machine
from model.timing import Event
from tb.stimulus import badprog, randprog

CFG = config.DEFAULT
HALT = isa.build("HALT")


def mm(**f):
    base = dict(dst=0, A=0, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)
    base.update(f)
    return base


# ---------------------------------------------------------------- busy cycles per op
def test_busy_cycles_per_op():
    # docs/isa.md timing table: LD/ST/RQ len+1; MM K+7+M*N; SM 2(len+1)+34 len; HALT 0
    cases = [
        (isa.build("LD", dst=0, src=0, len=10), 11),
        (isa.build("ST", src=0, dst=0, len=1), 2),
        (isa.build("RQ", dst=0, src=0, len=64, m=1, s=0), 65),
        (isa.build("MM", **mm(M=4, K=16, N=4)), 39),
        (isa.build("MM", **mm(M=1, K=1, N=1)), 9),
        (isa.build("MM", **mm(M=3, K=255, N=2)), 268),
        (isa.build("SM", dst=0, src=0, len=1), 38),
        (isa.build("SM", dst=0, src=0, len=64), 130 + 2176),
        (HALT, 0),
        # the language model's ops: RQ relu len+1; LDX len+3; ADD 2 len+1; ARGMAX len+1;
        # NORM 2(len+1) + 48
        (isa.build("RQ", dst=0, src=0, len=7, m=1, s=0, relu=1), 8),
        (isa.build("LDX", dst=0, src=0, len=32, idx=100, rows=96), 35),
        (isa.build("ADD", dst=0, src=0, len=32, src2=64), 65),
        (isa.build("ARGMAX", dst=0, src=0, len=96), 97),
        (isa.build("NORM", dst=0, src=0, len=32, m=1, s=0), 114),
        (isa.build("NORM", dst=0, src=0, len=1, m=1, s=0), 52),
        # the 4-bit KV cache's ops: PACK4 and UNPACK4 2 len + 1; xhi changes nothing
        (isa.build("PACK4", dst=0, src=0, len=32), 65),
        (isa.build("UNPACK4", dst=0, src=0, len=1), 3),
        (isa.raw("LD", dst=0, src=0, len=10, xhi=1), 11),
    ]
    for ins, busy in cases:
        assert timing.busy_cycles(ins) == busy, ins
        assert timing.busy_cycles(ins, CFG) == busy, ins
    first = {"LD": "dma", "ST": "dma", "MM": "mm", "RQ": "vec", "SM": "vec", "HALT": None,
             "LDX": "dma", "ADD": "vec", "ARGMAX": "vec", "NORM": "vec", "PACK4": "vec", "UNPACK4": "vec"}
    assert {op: timing.UNIT[op] for op in first} == first


def test_sm_busy_overlap_mode():
    # docs/isa.md: in the overlap mode SM is the fast softmax (rtl/ga2_softmax.v FAST = 1):
    # 2(len+1) + 34 + len = 3 len + 36, within the 3 len + 40 budget; in-order unchanged
    ov = config.DEFAULT.replace(mode="overlap")
    for n in range(1, 65):
        assert timing.busy_cycles(isa.raw("SM", dst=0, src=0, len=n), ov) == 3 * n + 36 <= 3 * n + 40
        assert timing.busy_cycles(isa.raw("SM", dst=0, src=0, len=n), config.DEFAULT) == 2 * (n + 1) + 34 * n
    assert timing.busy_cycles(isa.build("SM", dst=0, src=0, len=64), ov) == 228
    assert timing.busy_cycles(isa.build("SM", dst=0, src=0, len=1), ov) == 39


# ---------------------------------------------------------------- events of a valid program
HAND = [isa.build("LD", dst=0, src=0, len=32),                          # busy 33
        isa.build("MM", **mm(M=4, K=16, N=4, lda=16, ldb=4, ldc=4)),    # busy 16 + 7 + 16 = 39
        isa.build("RQ", dst=0, src=0, len=16, m=3, s=2),                # busy 17
        isa.build("SM", dst=0, src=0, len=4),                           # busy 10 + 136 = 146
        isa.build("ST", src=0, dst=0, len=16),                          # busy 17
        HALT,
        isa.build("LD", dst=0, src=0, len=99)]                          # after HALT: never runs

# FETCH is issue - 1; the next FETCH is the cycle after the previous retire.
HAND_EVENTS = [
    Event(0, "LD", "dma", 2, 3, 35, 35),        # cycles 1 FETCH, 2 DECODE, 3..35 busy (33)
    Event(1, "MM", "mm", 37, 38, 76, 76),       # 36 FETCH, 37 DECODE, 38..76 (39)
    Event(2, "RQ", "vec", 78, 79, 95, 95),      # 77, 78, 79..95 (17)
    Event(3, "SM", "vec", 97, 98, 243, 243),    # 96, 97, 98..243 (146)
    Event(4, "ST", "dma", 245, 246, 262, 262),  # 244, 245, 246..262 (17)
    Event(5, "HALT", None, 264, 265, 264, 264),  # 263 FETCH, 264 DECODE: retires; no busy
]


def test_events_of_a_hand_program():
    s = timing.schedule(HAND)
    assert list(s.events) == HAND_EVENTS
    assert s.cycles == 264 and s.fault is None and s.reason == ""
    # cycles 35 + 41 + 19 + 148 + 19 + 2; mm 39; dma 33 + 17; vec 17 + 146; 6 retired,
    # 6 instruction words fetched (one FETCH each, HALT's included)
    assert s.counters == isa.Counters(264, 39, 50, 163, 6, 6)
    assert timing.counters(s) == s.counters
    assert timing.trace(s) == [(0, 35), (1, 76), (2, 95), (3, 243), (4, 262), (5, 264)]


def test_words_and_instrs_give_the_same_schedule():
    assert timing.schedule(isa.as_words(HAND)) == timing.schedule(HAND)
    mixed = [HAND[0], isa.encode(HAND[1])] + HAND[2:]
    assert timing.schedule(mixed, CFG) == timing.schedule(HAND, CFG)


def test_halt_alone():
    s = timing.schedule([HALT])
    assert list(s.events) == [Event(0, "HALT", None, 2, 3, 2, 2)]
    assert (s.cycles, s.fault, tuple(s.counters)) == (2, None, (2, 0, 0, 0, 1, 1))


def test_trace_is_a_fresh_list():
    s = timing.schedule(HAND)
    t = timing.trace(s)
    t.append("x")
    assert timing.trace(timing.schedule(HAND)) == [(0, 35), (1, 76), (2, 95), (3, 243), (4, 262), (5, 264)]


def test_every_mode_of_config_has_a_schedule():
    assert set(timing._MODES) == set(config.MODES)


# ---------------------------------------------------------------- faults
LD8 = isa.build("LD", dst=0, src=0, len=8)          # busy 9: 11 cycles


@pytest.mark.parametrize("word", [0, 13, 14, 0xFF, (1 << 120) | 13])   # 0xFF: extended code 31
def test_fault_1_illegal_opcode(word):
    s = timing.schedule([LD8, word, HALT])
    assert s.fault == (isa.ERR_OPCODE, 1) and s.fault.code == 1 and s.fault.pc == 1
    assert list(s.events) == [Event(0, "LD", "dma", 2, 3, 11, 11)]
    # 11 + FETCH and DECODE of the bad word; it is not retired
    assert (s.cycles, tuple(s.counters)) == (13, (13, 0, 9, 0, 1, 2))   # 2 words fetched
    assert "illegal opcode" in s.reason


def test_fault_1_running_off_a_short_program():
    s = timing.schedule([LD8])                      # the cleared memory holds word 0 at pc 1
    assert s.fault == (1, 1) and tuple(s.counters) == (13, 0, 9, 0, 1, 2)


def test_too_wide_or_negative_word_is_refused_not_run():
    """A word that does not fit the 128-bit instruction memory is the host's error:
    ValueError naming it, before any cycle (not a fault 1 the chip could never see)."""
    for w in (1 << 128, -1):
        with pytest.raises(ValueError, match="instruction 0: word .* outside 0..2\\^128-1"):
            timing.schedule([w])


@pytest.mark.parametrize("bad, code", [
    (isa.raw("LD", dst=4090, src=0, len=7), 2),
    (isa.raw("MM", **mm(dst=4095, M=2, ldc=1)), 2),
    (isa.raw("ST", src=0, dst=4090, len=7), 3),
    (isa.raw("LD", dst=0, src=4090, len=7), 3),
    (isa.raw("SM", dst=0, src=0, len=65), 4),
    (isa.raw("RQ", dst=0, src=0, len=0, m=1, s=0), 4),
    (isa.raw("MM", **mm(K=0)), 4),
])
def test_faults_2_3_4(bad, code):
    ok = isa.build("ST", src=0, dst=3000, len=4)     # busy 5: 7 cycles
    s = timing.schedule([ok, bad, HALT])
    assert s.fault == (code, 1)
    assert list(s.events) == [Event(0, "ST", "dma", 2, 3, 7, 7)]
    assert tuple(s.counters) == (9, 0, 5, 0, 1, 2)    # 7 + the fault's 2; it was fetched
    assert s.reason.startswith(bad.op)


def test_fault_depends_on_the_config():
    st = isa.raw("ST", src=0, dst=5000, len=10)       # past 4096 words, inside 8192
    assert timing.schedule([st, HALT], config.DEFAULT).fault == (3, 0)
    s = timing.schedule([st, HALT], config.CH09)
    assert s.fault is None and tuple(s.counters) == (2 + 11 + 2, 0, 11, 0, 2, 2)


def test_fault_5_costs_one_fetch():
    prog = [isa.build("LD", dst=x, src=x, len=1) for x in range(1024)]   # 2 + 2 cycles each
    s = timing.schedule(prog)
    assert s.fault == (isa.ERR_PC, 1024)
    assert tuple(s.counters) == (4097, 0, 2048, 0, 1024, 1024)          # 1024 * 4 + 1; pc 1024 reads nothing
    assert s.events[-1] == Event(1023, "LD", "dma", 4094, 4095, 4096, 4096)


def test_fault_5_on_a_small_instruction_memory():
    cfg = config.DEFAULT.replace(imem_depth=3)
    prog = [isa.build("LD", dst=0, src=0, len=1)] * 3
    s = timing.schedule(prog, cfg)
    assert s.fault == (5, 3) and tuple(s.counters) == (13, 0, 6, 0, 3, 3)
    with pytest.raises(ValueError, match="exceeds instruction memory"):
        timing.schedule(prog + [HALT], cfg)


def test_program_longer_than_the_instruction_memory_is_refused():
    with pytest.raises(ValueError, match="exceeds instruction memory"):
        timing.schedule([HALT] * 1025)


# ---------------------------------------------------------------- structure on random programs
def test_event_structure_on_random_programs():
    for seed in range(60):
        prog, _ = randprog.random_program(seed, CFG)
        s = timing.schedule(prog, CFG)
        assert s.fault is None and s.events[-1].op == "HALT"
        prev = 0
        for pc, (e, ins) in enumerate(zip(s.events, prog)):
            assert (e.pc, e.op, e.unit) == (pc, ins.op, timing.UNIT[ins.op])
            assert e.issue == prev + 2 and e.start == e.issue + 1
            assert e.end - e.start + 1 == timing.busy_cycles(ins, CFG)
            assert e.retire == (e.issue if ins.op == "HALT" else e.end)
            prev = e.retire
        assert s.cycles == prev
        for unit in ("mm", "dma", "vec"):
            assert getattr(s.counters, unit) == sum(e.end - e.start + 1 for e in s.events if e.unit == unit)


def test_machine_counters_and_trace_are_the_schedules():
    m = Machine(CFG)
    for seed in range(40):
        prog, img = randprog.random_program(seed, CFG)
        r = m.run(prog, img)
        s = timing.schedule(prog, CFG)
        assert r.counters == s.counters and r.trace == timing.trace(s), seed
    for code in (1, 2, 3, 4, 5):
        for seed in range(3):
            bad = badprog.bad_program(seed * 10 + code, code, CFG)
            with pytest.raises(GA2Error) as ei:
                Machine(CFG).run(bad.prog, bad.image)
            s = timing.schedule(bad.prog, CFG)
            e = ei.value
            assert s.fault == (e.code, e.pc) == (code, bad.pc)
            assert e.counters == s.counters and e.trace == timing.trace(s)


def test_machine_with_a_cold_and_a_warm_schedule_cache():
    # the same program through a cold and a warm schedule cache gives the same result
    rng = random.Random(5)
    prog, img = randprog.random_program(rng.randint(0, 10 ** 6), CFG)
    timing._SCHED.clear()
    a = Machine(CFG).run(prog, img)
    b = Machine(CFG).run(prog, img)
    assert a.counters == b.counters and a.trace == b.trace
    assert np.array_equal(a.ext, b.ext) and np.array_equal(a.sp, b.sp)


# ---------------------------------------------------------------- chapter 9, pinned
# The chapter's published cycle counts: B = 1, 2, 3, 4 at L = 16 and the ragged 3, 9, 1, 14.
CH09_CYCLES = (2609, 4142, 5675, 7208, 4252)


def test_chapter_9_cycles_are_pinned():
    from tools.ch09 import run as ch09_run
    steps = ch09_run.steps()
    assert [st[0] for st in steps] == ["B=1", "B=2", "B=3", "B=4", "ragged 3,9,1,14"]
    assert tuple(batch.RAGGED) == (3, 9, 1, 14)
    got = tuple(timing.schedule(st[3], batch.CFG).cycles for st in steps)
    assert got == CH09_CYCLES
    for st in steps:
        s = timing.schedule(st[3], batch.CFG)
        assert s.fault is None and s.counters.cycles == s.cycles
    # and the reference Machine reports the same counters (B = 1 and the ragged step)
    for st in (steps[0], steps[4]):
        r = Machine(batch.CFG).run(st[3], st[4])
        assert r.counters == timing.schedule(st[3], batch.CFG).counters
