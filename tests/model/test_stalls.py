"""model/stalls.py: each wait's cause and a unit's idle cycles by cause, against schedules
worked by hand from the overlap mode's rules (docs/isa.md "Timing modes"; the cycle
numbers in the comments), not from the model."""
import random
from collections import Counter

import pytest
from test_timing_overlap import colliding_program

from model import config, func, isa, stalls, timing
from model.stalls import Wait

OVL = config.DEFAULT.replace(mode="overlap")
HALT = isa.build("HALT")


def mm(**f):
    base = dict(dst=100, A=0, B=8, M=1, K=4, N=1, tb=0, lda=4, ldb=1, ldc=1)     # busy 4 + 7 + 1 = 12
    base.update(f)
    return isa.build("MM", **base)


def test_raw_then_war():
    prog = [isa.build("LD", dst=0, src=0, len=8),      # FETCH 1, DECODE 2 issues, busy 3..11
            mm(),                                      # reads 0..3: FETCH 3, DECODE 4..11 (raw), issues 12, busy 13..24
            isa.build("LD", dst=0, src=100, len=4),    # writes 0..3: FETCH 13, DECODE 14..24 (war), issues 25, 26..30
            HALT]                                      # FETCH 26, DECODE 27..30, retires 31
    assert stalls.waits(prog, OVL) == [Wait(0, "LD", "dma", 2, 2, None, None),
                                       Wait(1, "MM", "mm", 4, 12, "raw", "dma"),
                                       Wait(2, "LD", "dma", 14, 25, "war", "mm")]
    # the DMA idles 31 - (9 + 5) = 17 cycles: 1, 2 (the first LD's FETCH and DECODE); 12..24
    # (the second LD conflicts with the MM, which has not ended: the MM's issue, the LD's
    # FETCH and its DECODE's wait), 25 (its issue); 31 (HALT)
    assert stalls.idle(prog, OVL) == {"its FETCH and DECODE": 3, "own: war on mm": 13, "after its last instruction": 1}
    # the array idles 31 - 12 = 19: 1..11 (the LD it reads has not ended: its FETCH, its
    # DECODE's wait), 12 its issue; 25..31 after it
    assert stalls.idle(prog, OVL, "mm") == {"own: raw on dma": 11, "its FETCH and DECODE": 1,
                                            "after its last instruction": 7}


def test_a_transfer_behind_a_waiting_mm():
    prog = [mm(),                                      # FETCH 1, DECODE 2 issues, busy 3..14
            mm(dst=101),                               # FETCH 3, DECODE 4..14 (its unit busy), issues 15, busy 16..27
            isa.build("LD", dst=200, src=0, len=4),    # no conflict: FETCH 16, DECODE 17 issues, busy 18..22
            HALT]                                      # FETCH 18, DECODE 19..27, retires 28
    assert stalls.waits(prog, OVL)[1:] == [Wait(1, "MM", "mm", 4, 15, "busy", "mm"),
                                           Wait(2, "LD", "dma", 17, 17, None, None)]
    # the DMA idles 28 - 5 = 23 cycles: 1, 2 (the first MM's FETCH and DECODE), 3 and 15
    # (the second's), 4..14 (its wait for the array), 16, 17 (the LD's own); 23..28
    assert stalls.idle(prog, OVL) == {"in-order issue of earlier instructions": 4, "behind MM: busy on mm": 11,
                                      "its FETCH and DECODE": 2, "after its last instruction": 6}


def test_a_replay_that_drifts_from_the_schedule_is_refused(monkeypatch):
    prog = [isa.build("LD", dst=0, src=0, len=8), mm(), HALT]
    real = timing.schedule

    def late(p, cfg=None):
        s = real(p, cfg)
        return s._replace(events=tuple(e._replace(issue=e.issue + 1) if e.pc == 1 else e for e in s.events))
    monkeypatch.setattr(timing, "schedule", late)
    with pytest.raises(ValueError, match="pc 1 .MM. issues at 13 in the schedule, 12 in the replay"):
        stalls.waits(prog, OVL)


def test_bad_arguments():
    prog = [isa.build("LD", dst=0, src=0, len=8), HALT]
    with pytest.raises(ValueError, match="overlap mode"):
        stalls.waits(prog, config.DEFAULT)
    with pytest.raises(ValueError, match="unit 'alu'"):
        stalls.idle(prog, OVL, "alu")


def test_describe_puts_the_largest_first_and_sums_the_small():
    assert stalls.describe({"own: war on mm": 9, "behind MM: busy on mm": 90, "its FETCH and DECODE": 1},
                           share=0.05) == "100 cycles: 90 behind MM: busy on mm; 9 own: war on mm; 1 in 1 other causes"
    assert stalls.describe({"a": 2, "b": 2}) == "4 cycles: 2 a; 2 b"


# ---------------------------------------------------------------- a cycle-stepped oracle
def stepped_idle(words, cfg, unit):
    """The sequencer clock by clock (docs/isa.md "Timing modes": FETCH, then DECODE until its
    unit is idle and no running instruction of another unit conflicts, on sets of word
    addresses), each cycle `unit` is not busy given a cause by what the sequencer does in it:
    an instruction's FETCH or issuing DECODE (its own if it is `unit`'s), or a waiting DECODE
    (the constraint that lifts last, ties: its unit busy, then dma, mm, vec, then war, waw,
    raw); but a cycle before the unit's next instruction's DECODE in which that instruction
    conflicts with an earlier one of another unit that has not ended (queued or running) is
    its own wait (the conflict that ends last, the same ties); cycles past the unit's last
    busy one are after it. Ends at HALT's retire."""
    def sp_words(ranges):
        return {a for r in ranges if r.space == func.SP for a in range(r.first, r.last + 1)}

    running, log, ends = {}, [], []           # log: (cycle, kind, instruction or None, cause)
    issued, decode_of = [], {}                # every issued instruction; each one's first DECODE cycle
    state, pc, c = "FETCH", 0, 0
    while True:
        c += 1
        now = {u: r for u, r in running.items() if r["start"] <= c <= r["end"]}
        busy_here = unit in now
        if state == "FETCH":
            log.append((c, busy_here, "edge", pc, None))
            decode_of[pc] = c + 1
            state = "DECODE"
            continue
        ins = isa.decoded(words[pc])[0]
        if ins.op == "HALT":
            if now:
                log.append((c, busy_here, "halt", pc, None))
                continue
            log.append((c, busy_here, "halt", pc, None))
            break
        u = timing.UNIT[ins.op]
        rd, wr = sp_words(func.reads(ins)), sp_words(func.writes(ins))
        blocks = []
        if u in now:
            blocks.append((now[u]["end"], 0, "busy", u))
        for k, v in enumerate(("dma", "mm", "vec")):
            if v != u and v in now:
                for j, (kind, hit) in enumerate((("war", wr & now[v]["rd"]), ("waw", wr & now[v]["wr"]),
                                                 ("raw", rd & now[v]["wr"]))):
                    if hit:
                        blocks.append((now[v]["end"], 1 + 3 * k + j, kind, v))
        if blocks:
            log.append((c, busy_here, "wait", pc, blocks))
            continue
        log.append((c, busy_here, "edge", pc, None))
        running[u] = dict(start=c + 1, end=c + timing.busy_cycles(ins, cfg), rd=rd, wr=wr)
        issued.append(dict(running[u], pc=pc, unit=u, issue=c))
        if u == unit:
            ends.append(c + timing.busy_cycles(ins, cfg))
        state, pc = "FETCH", pc + 1
    # the binding constraint of each waiting instruction: the one that lifts last (its
    # last waiting cycle's, by the priority above)
    binding = {}
    for _c, _, kind, p, blocks in log:
        if kind == "wait":
            binding[p] = min(blocks, key=lambda b: (-b[0], b[1]))
    last_end = max(ends, default=0)
    units = ("dma", "mm", "vec")

    def held_by(c):
        """The cause when the unit's next instruction, not yet in DECODE at c, conflicts with
        an earlier instruction of another unit not ended at c; else None."""
        k = next((x for x in issued if x["unit"] == unit and x["issue"] >= c), None)
        if k is None or c >= decode_of[k["pc"]]:
            return None
        hits = []
        for j in issued:
            if j["unit"] != unit and j["pc"] < k["pc"] and c <= j["end"]:
                for n, (kind, hit) in enumerate((("war", k["wr"] & j["rd"]), ("waw", k["wr"] & j["wr"]),
                                                 ("raw", k["rd"] & j["wr"]))):
                    if hit:
                        hits.append((-j["end"], units.index(j["unit"]), n, f"own: {kind} on {j['unit']}"))
        return min(hits)[3] if hits else None

    out = Counter()
    for c, busy_here, kind, p, _ in log:
        if busy_here:
            continue
        if not ends:
            out["no instruction of its own"] += 1
        elif c > last_end:
            out["after its last instruction"] += 1
        elif held_by(c):
            out[held_by(c)] += 1
        else:
            ins = isa.decoded(words[p])[0]
            own = timing.UNIT.get(ins.op) == unit
            if kind == "edge":
                out["its FETCH and DECODE" if own else "in-order issue of earlier instructions"] += 1
            else:
                _, _, k, v = binding[p]
                out[f"own: {k} on {v}" if own else f"behind {ins.op}: {k} on {v}"] += 1
    return dict(out)


@pytest.mark.parametrize("seed", range(4))
def test_idle_equals_the_cycle_stepped_oracle(seed):
    rng = random.Random(f"stalls {seed}")
    cfg = OVL.replace(imem_depth=64)
    seen, n = set(), 0
    for _ in range(50):
        prog = [i for i in colliding_program(rng, cfg, rng.randint(1, 30)) if isa.check(i, cfg) is None]
        prog = [i for i in prog if i.op != "HALT"] + [HALT]
        n += len(prog)
        for unit in ("dma", "mm", "vec"):
            got = stalls.idle(prog, cfg, unit)
            assert got == stepped_idle(isa.as_words(prog), cfg, unit), (unit, prog)
            seen |= {k.rsplit(" on ", 1)[0] for k in got}
    # not vacuous: programs of some length, and every kind of cause met
    assert n > 500 and {"own: raw", "own: war", "own: waw", "behind MM: busy", "its FETCH and DECODE",
                        "in-order issue of earlier instructions", "after its last instruction"} <= seen, seen
    assert any(k.startswith("behind") and k.endswith(": raw") for k in seen), seen


def test_by_unit_groups_every_cycle_once():
    causes = {"its FETCH and DECODE": 4, "in-order issue of earlier instructions": 1, "own: war on mm": 11,
              "behind MM: busy on mm": 3, "behind RQC: busy on vec": 7, "own: raw on dma": 2,
              "after its last instruction": 1}
    assert stalls.by_unit(causes) == {"issue": 5, "dma": 2, "mm": 14, "vec": 7, "end": 1}
    with pytest.raises(ValueError, match="not a cause"):
        stalls.by_unit({"lunch": 3})
