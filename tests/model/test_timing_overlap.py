"""Checks of the overlap timing mode (model/timing.py _overlap, docs/isa.md "Timing modes").

Two oracles that do not share code with the model: hand-worked schedules typed from the
rules (cycle numbers worked in the comments), and a cycle-stepped simulation of the
sequencer written here (one loop iteration per clock cycle, conflicts found by
intersecting sets of word addresses, busy counters counted cycle by cycle), compared with
the event-based model on random programs built to collide.
"""
import random

import pytest

from model import config, func, isa, timing
from model.timing import Event

OVL = config.DEFAULT.replace(mode="overlap")
HALT = isa.build("HALT")


def mm(**f):
    base = dict(dst=0, A=0, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)   # M, N 1..4, K >= 1
    base.update(f)
    return base


def test_modes_listed():
    assert config.MODES == ("inorder", "overlap")
    assert config.CH09_OVERLAP == config.CH09.replace(mode="overlap")


def test_hand_schedule_overlap_and_raw_stall():
    prog = [isa.build("LD", dst=0, src=0, len=32),                             # busy 33
            isa.build("MM", **mm(dst=200, A=100, B=120, M=4, K=16, N=4, lda=16, ldb=4, ldc=4)),  # 39
            isa.build("RQ", dst=300, src=10, len=16, m=3, s=2),                # reads LD's words: 17
            HALT]
    s = timing.schedule(prog, OVL)
    # LD: FETCH 1, DECODE 2 issues, busy 3..35. MM (no conflict): FETCH 3, DECODE 4
    # issues, busy 5..43. RQ: FETCH 5, DECODE 6..35 stalls on the LD (read after write),
    # issues 36, busy 37..53. HALT: FETCH 37, DECODE 38..53 waits for the units, retires 54.
    assert list(s.events) == [Event(0, "LD", "dma", 2, 3, 35, 35), Event(1, "MM", "mm", 4, 5, 43, 43),
                              Event(2, "RQ", "vec", 36, 37, 53, 53), Event(3, "HALT", None, 54, 55, 54, 54)]
    assert s.cycles == 54 and s.fault is None
    assert tuple(s.counters) == (54, 39, 33, 17, 4, 4)
    # the in-order mode of the same program: 2 + 33 + 2 + 39 + 2 + 17 + 2 = 97
    assert timing.schedule(prog, config.DEFAULT).cycles == 97


def test_hand_schedule_war_waw_and_unit_busy():
    prog = [isa.build("MM", **mm(dst=500, A=0, B=64, M=4, K=16, N=4, lda=16, ldb=4, ldc=4)),  # busy 39
            isa.build("LD", dst=70, src=0, len=4),     # writes 70..73, inside MM's B hull 64..127: WAR
            isa.build("MM", **mm(dst=600, A=0, B=0, M=1, K=1, N=1)),              # busy 9, mm unit busy
            isa.build("SM", dst=510, src=900, len=4),  # writes inside MM#2's? no: MM#1 dst 500..563: WAW
            HALT]
    s = timing.schedule(prog, OVL)
    # MM#1: DECODE 2, busy 3..41. LD: FETCH 3, DECODE 4..41 (WAR on MM#1's B), issue 42,
    # busy 43..47. MM#2: FETCH 43, DECODE 44 (mm idle since 42), busy 45..53.
    # SM (busy 2*5 + 36 + 4 = 50 in overlap mode): FETCH 45, DECODE 46, MM#1 done at 41, so
    # no wait: issue 46, busy 47..96. HALT: FETCH 47, DECODE 48..96, retires 97.
    sm = timing.busy_cycles(isa.raw("SM", dst=0, src=0, len=4), OVL)
    assert [(e.op, e.issue, e.end) for e in s.events] == [
        ("MM", 2, 41), ("LD", 42, 47), ("MM", 44, 53), ("SM", 46, 46 + sm), ("HALT", 47 + sm, 47 + sm)]
    assert s.cycles == 47 + sm


def test_same_cycle_retires_in_slot_order():
    # LD busy 3..13 (len 10); MM: DECODE 4, busy K + 7 + 1 = 9 cycles 5..13: both retire in 13
    prog = [isa.build("LD", dst=0, src=0, len=10), isa.build("MM", **mm(dst=100, A=50, B=60, K=1)), HALT]
    s = timing.schedule(prog, OVL)
    assert [(e.pc, e.retire) for e in s.events] == [(0, 13), (1, 13), (2, 14)]
    prog = [isa.build("MM", **mm(dst=100, A=50, B=60, K=3)), isa.build("LD", dst=0, src=0, len=8), HALT]
    # MM DECODE 2 busy 3..13 (11); LD DECODE 4 busy 5..13 (9): the dma slot (0) before mm (1)
    assert [(e.pc, e.retire) for e in timing.schedule(prog, OVL).events] == [(1, 13), (0, 13), (2, 14)]


def test_fault_waits_for_issued_work():
    prog = [isa.build("LD", dst=0, src=0, len=100),          # busy 3..103
            isa.raw("LD", dst=0, src=OVL.ext_words, len=1),   # ext past the end: ERR_EXT
            HALT]
    s = timing.schedule(prog, OVL)
    # the fault's FETCH 3, DECODE 4..103 waiting for the DMA, halts at 104
    assert s.fault == timing.Fault(isa.ERR_EXT_RANGE, 1) and s.cycles == 104
    assert [(e.pc, e.retire) for e in s.events] == [(0, 103)]
    small = OVL.replace(imem_depth=2)
    s = timing.schedule([isa.build("LD", dst=0, src=0, len=10), isa.build("MM", **mm(dst=50, A=20, B=30, K=5))], small)
    # LD busy 3..13, MM DECODE 4 busy 5..17 (5 + 7 + 1 = 13); FETCH at pc 2 = imem_depth in
    # cycle 5 waits until 18, the first idle cycle
    assert s.fault == timing.Fault(isa.ERR_PC, 2) and s.cycles == 18


# ---------------------------------------------------------------- the cycle-stepped oracle
def stepped(words, cfg):
    """The sequencer clock by clock: (trace [(pc, cycle)], cycles, fault (code, pc) or None,
    busy counts per unit, instret, fetch: the FETCH cycles that read a word)."""
    unit_of = {"LD": "dma", "ST": "dma", "MM": "mm", "RQ": "vec", "SM": "vec"}
    running = {}                   # unit -> dict(start, end, rd, wr, pc)
    busy = {"dma": 0, "mm": 0, "vec": 0}
    trace, state, pc, c = [], "FETCH", 0, 0
    fetch = 0

    def words_of(ranges):
        return {(r.space, a) for r in ranges for a in range(r.first, r.last + 1) if r.space == func.SP}

    while True:
        c += 1
        assert c < 10 ** 6
        now = {u: r for u, r in running.items() if r["start"] <= c <= r["end"]}
        for u in now:
            busy[u] += 1
        for u in ("dma", "mm", "vec"):             # slot order
            if u in now and now[u]["end"] == c:
                trace.append((now[u]["pc"], c))
        if state == "FETCH":
            if pc >= cfg.imem_depth:
                if now:
                    continue
                return trace, c, (isa.ERR_PC, pc), busy, len(trace), fetch
            fetch += 1
            state = "DECODE"
            continue
        word = words[pc] if pc < len(words) else 0
        ins, _ = isa.decoded(word)
        bad = isa.ERR_OPCODE if ins is None else (isa.check(ins, cfg) or (0,))[0]
        if bad:
            if now:
                continue
            return trace, c, (bad, pc), busy, len(trace), fetch
        if ins.op == "HALT":
            if now:
                continue
            trace.append((pc, c))
            return trace, c, None, busy, len(trace), fetch
        u = unit_of[ins.op]
        rd, wr = words_of(func.reads(ins)), words_of(func.writes(ins))
        if u in now or any(wr & r["rd"] or wr & r["wr"] or rd & r["wr"] for r in now.values()):
            continue
        running[u] = dict(start=c + 1, end=c + timing.busy_cycles(ins, cfg), rd=rd, wr=wr, pc=pc)
        state, pc = "FETCH", pc + 1


def colliding_program(rng, cfg, n):
    """n random instructions over a small scratchpad window so that ranges meet across
    units in every hazard kind; long and short ones mixed; sometimes a bad field."""
    span = 96
    out = []
    for _ in range(n):
        op = rng.choice(["LD", "LD", "ST", "MM", "MM", "RQ", "RQ", "SM"])
        def a():
            return rng.randrange(span)
        ln = rng.choice([1, 2, 3, 8, 16, 40])
        if op == "LD":
            f = dict(dst=a(), src=rng.randrange(64), len=ln)
        elif op == "ST":
            f = dict(src=a(), dst=rng.randrange(64), len=ln)
        elif op == "MM":
            f = dict(dst=a(), A=a(), B=a(), M=rng.randint(1, 4), K=rng.choice([1, 4, 16, 60]),
                     N=rng.randint(1, 4), tb=rng.randint(0, 1), lda=rng.randint(0, 8),
                     ldb=rng.randint(0, 8), ldc=rng.randint(0, 8))
        elif op == "RQ":
            f = dict(dst=a(), src=a(), len=ln, m=rng.randint(1, 1000), s=rng.randint(0, 20))
        else:
            f = dict(dst=a(), src=a(), len=rng.randint(1, min(ln, cfg.sm_max_len)))
        if rng.random() < 0.03:                 # a bad field: past the scratchpad (ERR_SP_RANGE)
            f["dst" if "dst" in f else "src"] = cfg.sp_words
            out.append(isa.raw(op, **f))
        else:
            out.append(isa.build(op, cfg=cfg, **f))
    if rng.random() < 0.85:
        out.append(HALT)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_model_equals_cycle_stepped_oracle(seed):
    rng = random.Random(f"overlap timing {seed}")
    cfg = OVL.replace(imem_depth=40)
    for _ in range(60):
        prog = colliding_program(rng, cfg, rng.randint(1, 30))
        words = isa.as_words(prog)
        s = timing.schedule(words, cfg)
        trace, cycles, fault, busy, instret, fetch = stepped(words, cfg)
        assert timing.trace(s) == trace
        assert s.cycles == cycles
        assert (tuple(s.fault) if s.fault else None) == fault
        assert tuple(s.counters) == (cycles, busy["mm"], busy["dma"], busy["vec"], instret, fetch)


def test_overlap_never_slower_than_in_order_and_same_busy():
    rng = random.Random("overlap vs inorder")
    cfg = OVL.replace(imem_depth=40)
    for _ in range(200):
        words = isa.as_words(colliding_program(rng, cfg, rng.randint(1, 30)))
        a, b = timing.schedule(words, cfg.replace(mode="inorder")), timing.schedule(words, cfg)
        if not any(e.op == "SM" for e in a.events):    # SM is faster in overlap mode
            assert b.cycles <= a.cycles
        assert (a.fault is None) == (b.fault is None)
        assert a.counters.mm == b.counters.mm and a.counters.dma == b.counters.dma
        assert a.counters.instret == b.counters.instret
