"""The formal flow's fast subset (make test): a proof closes, and a planted bug fails it.

The sequencer's issue rule (tb/formal/ga2_seq_f.v): an issue only with ga2_hazard's flag
low and the unit idle, proven; with the flag left out of the stall, a counterexample.

The full set is `make formal` (tools/flow/formal.py; docs/formal.md). Here: ga2_hazard's
local invariant by k-induction on 4-bit addresses (a few seconds), once on the RTL
(proven) and once on a copy with one hazard kind removed (every unit's WAW check):
the same check must find a counterexample, so the proof is not vacuous. The fast
softmax's busy check: its phase model adds up to the timing formula, and with a tail one
cycle too long it fails on the RTL (abc bmc3, about 1 s). The link: one unit's range
proof (softmax) and one planted write past the range (vec_rq), which must fail.
"""
import shutil

import pytest

from tb.formal import engine, props

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("yosys", "yosys-smtbmc", "z3", "cvc4")),
                                reason="yosys, yosys-smtbmc, z3 and cvc4 (make setup)")


def test_hazard_invariant_is_proven_by_induction():
    v = engine.run(props.hazard(4))
    assert v.result == "proven", v
    assert v.depth.startswith("induction")


def test_a_missing_waw_check_is_a_counterexample():
    bad = props.planted_copy("src_aw4_nowaw", props.narrow_header(4), "ga2_hazard.v",
                             "((|raw) || (|war) || meet(new_wr, wr_q))", "((|raw) || (|war))")
    v = engine.run(props.hazard(4, name="overlap/hazard-invariant planted-bug", src=bad))
    assert v.result == "FAILED", v


def test_an_unchecked_last_read_slot_is_a_counterexample():
    """The read slots come from the records (GA2_NUM_RD: RQC's three): with the RAW check of
    the last slot (RQC's column scales) left out, the invariant fails."""
    bad = props.planted_copy("src_aw4_noraw_last", props.narrow_header(4), "ga2_hazard.v",
                             "assign raw[k] = meet(new_rd[k*RW +: RW], wr_q);",
                             "assign raw[k] = (k < NR - 1) && meet(new_rd[k*RW +: RW], wr_q);")
    v = engine.run(props.hazard(4, name="overlap/hazard-invariant planted last slot", src=bad))
    assert v.result == "FAILED", v


def test_a_planted_change_that_no_longer_applies_is_refused(tmp_path):
    """planted_copy refuses text that is not in the file once: a planted check whose
    change stopped applying would otherwise check the unchanged RTL."""
    (tmp_path / "a.v").write_text("x || y\nx || y\n")
    with pytest.raises(ValueError, match="2 times"):
        props.planted_copy("t_twice", tmp_path, "a.v", "x || y", "x")
    with pytest.raises(ValueError, match="0 times"):
        props.planted_copy("t_absent", tmp_path, "a.v", "z", "x")
    d = props.planted_copy("t_once", tmp_path, "a.v", "x || y\nx", "q")
    assert (d / "a.v").read_text() == "q || y\n"


def test_the_sequencer_issues_only_without_hazard_to_an_idle_unit():
    """overlap/seq-issue: ga2_seq (OVERLAP = 1) with every input free starts a unit only
    when ga2_hazard's flag is low and that unit is idle (cvc4 2-induction, under a second)."""
    v = engine.run(props.seq_issue())
    assert v.result == "proven", v
    assert v.depth.startswith("induction")


def test_a_stall_without_the_hazard_flag_is_a_counterexample():
    """The same check on a copy of ga2_seq.v whose stall ignores the flag fails: the
    issue rule is not vacuous."""
    c = props.seq_planted()
    assert c.expect_fail
    assert "|| hazard" not in (engine.BUILD / "src_seq_nohazard" / "ga2_seq.v").read_text()
    v = engine.run(c)
    assert v.result == "FAILED", v


def test_the_fast_softmax_phase_model_is_the_timing_formula():
    """The phases of tb/formal/ga2_softmax_fast_busy_f.v (len + 1, len + 1, 1,
    SM_FAST_TAIL - 2, 1, len) add up to model/timing.py's busy length for len 1..16."""
    from model import config, isa, timing
    from model.ops import sm
    cfg = config.DEFAULT.replace(mode="overlap")
    for n in range(1, 17):
        busy = timing.busy_cycles(isa.raw("SM", dst=0, src=0, len=n), cfg)
        assert (n + 1) + (n + 1) + 1 + (sm.FAST_TAIL - 2) + 1 + n == busy, n


def test_the_rqc_busy_wrapper_states_the_record_formula():
    """tb/formal/ga2_rqc_busy_f.v's busy length, M * (3N + 1) + 1 (busy/rqc proves the unit
    busy exactly that long), is RQC's record's in both timing modes for M, N 1..16."""
    import re

    from model import config, isa, timing
    text = (engine.WRAPPERS / "ga2_rqc_busy_f.v").read_text()
    assert re.search(r"busy_new = M \* \(3 \* N \+ 1\) \+ 1 \+ PLUS;", text)
    for mode in config.MODES:
        cfg = config.DEFAULT.replace(mode=mode)
        for m in range(1, 17):
            for n in range(1, 17):
                ins = isa.build("RQC", dst=0, src=0, M=m, N=n, ld=0, rsc=0, rstride=0, csc=0)
                assert timing.busy_cycles(ins, cfg) == m * (3 * n + 1) + 1, (mode, m, n)


def test_the_smw_busy_wrapper_states_the_record_formula():
    """tb/formal/ga2_smw_busy_f.v's L = 2 (len + 1) + PER len + 1 with props.smw_busy's PER
    (the record's DIV_CYCLES) is model/timing.py's busy length of SMW for len 1..16, and
    the planted check's PER is one more."""
    import re

    from model import config, isa, timing
    from model.ops import smw
    text = (engine.WRAPPERS / "ga2_smw_busy_f.v").read_text()
    assert re.search(r"L_new = 2 \* \(\{19'd0, len\} \+ 1\) \+ PER \* \{19'd0, len\} \+ 1;", text)
    per = props.smw_busy().params["PER"]
    for n in range(1, 17):
        ins = isa.build("SMW", dst=0, src=0, len=n)
        assert 2 * (n + 1) + per * n + 1 == timing.busy_cycles(ins, config.DEFAULT), n
    planted = next(c for c in props.busy_planted() if c.name == "busy/ga2_smw planted PER+1")
    assert planted.expect_fail and planted.params["PER"] == smw.DIV_CYCLES + 1


def test_a_fast_softmax_tail_one_too_long_is_a_counterexample():
    """busy/ga2_softmax/fast's phase model with SM_FAST_TAIL + 1 fails on the RTL (bmc3):
    the busy check is not vacuous."""
    c = props.busy_planted()[0]
    assert c.expect_fail and "tail+1" in c.name
    v = engine.run(c)
    assert v.result == "FAILED", v


def test_the_softmax_unit_touches_only_its_reserved_ranges():
    """link/softmax: behind the chip's decoder on a free instruction word, every read and
    write of ga2_softmax (FAST = 1) lies in the ranges ga2_decode reports for its
    instruction, only while busy (z3 2-induction with asserted lemmas, about 1 s)."""
    v = engine.run(props.link("softmax"))
    assert v.result == "proven", v
    assert v.depth.startswith("induction")


@pytest.mark.long   # 20 s of pdr; make test keeps the busy and hazard counterexamples
def test_a_write_past_the_reserved_range_is_a_counterexample():
    """link/vec_rq with its write address seen one word too high (BUG = 1) fails (pdr):
    the link checks are not vacuous."""
    c = props.link("vec_rq", 1, mode="pdr")
    assert c.expect_fail
    v = engine.run(c)
    assert v.result == "FAILED", v


def test_a_busy_proof_generated_from_the_records_closes():
    """busy/pack4: the wrapper generated from PACK4's and UNPACK4's records (tb/formal/gen.py:
    the unit behind the decoder's accept condition, the records' busy formula by opcode)
    proves the unit busy for exactly that many cycles (abc pdr, about a second)."""
    c = next(c for c in props.busy_checks() if c.name == "busy/pack4")
    v = engine.run(c)
    assert v.result == "proven", v


def test_a_generated_busy_formula_one_too_long_is_a_counterexample():
    """The same generated wrapper with the formula one cycle too long fails: the
    generated wrapper's starts are reachable, the proof is not vacuous."""
    c = props.generated_busy_planted()
    assert c.expect_fail
    v = engine.run(c)
    assert v.result == "FAILED", v


@pytest.mark.long
def test_qnt_busy_and_ranges_are_proven_by_induction():
    """QNT's unit by k-induction (tb/formal/ga2_qnt_busy_f.v; its link wrapper with tb/formal/link/qnt.vh):
    busy for exactly its record's 2 len + 62 / 2 len + 176 cycles and every access inside the
    decoder's ranges, each about 7 s; the plain tail one cycle too long fails (abc bmc3)."""
    for c in (next(c for c in props.busy_checks() if c.name == "busy/qnt"), props.link("qnt")):
        v = engine.run(c)
        assert v.result == "proven", v
    c = next(c for c in props.busy_planted() if c.name == "busy/qnt planted plain tail+1")
    v = engine.run(c)
    assert c.expect_fail and v.result == "FAILED", v
