"""model/stalls.py: each wait's cause and a unit's idle cycles by cause, against schedules
worked by hand from the overlap mode's rules (docs/isa.md "Timing modes"; the cycle
numbers in the comments), not from the model."""
import pytest

from model import config, isa, stalls, timing
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
    # the DMA idles 31 - (9 + 5) = 17 cycles: 1, 2 (the first LD's FETCH and DECODE); 12 (the
    # MM's issue); 13 (the LD's FETCH), 14..24 (its own wait), 25 (its issue); 31 (HALT)
    assert stalls.idle(prog, OVL) == {"its FETCH and DECODE": 4, "in-order issue of earlier instructions": 1,
                                      "own: war on mm": 11, "after its last instruction": 1}
    # the array idles 31 - 12 = 19: 1..3 (the LD's and its FETCH), 4..11 its own raw wait,
    # 12 its issue; 25..31 after it
    assert stalls.idle(prog, OVL, "mm") == {"in-order issue of earlier instructions": 2, "its FETCH and DECODE": 2,
                                            "own: raw on dma": 8, "after its last instruction": 7}


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
