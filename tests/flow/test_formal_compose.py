"""The compositional proofs' fast part (tb/formal/compose.py; docs/formal_compose.md "The
reciprocal constants, proven by composition"): the arithmetic lemmas proven by z3, a
planted dividend that some reachable divisor tells apart refuted (its model checked here
against the isqrt's specification), and ga2_divu's contract proven at a small width (the
make formal run proves it at the units' widths, 30 and 32); the late write address's steps
(a write address that holds over the cycle before each write, and the late register's cone)."""
import shutil

import pytest

from tb import ROOT
from tb.formal import compose, engine
from tb.sim.files import copy_rtl

pytestmark = pytest.mark.skipif(not (shutil.which("yosys") and shutil.which("yosys-smtbmc") and shutil.which("z3")),
                                reason="yosys, yosys-smtbmc and z3 (make setup)")


def test_horner_and_euclid_are_proven():
    assert compose.smt_check("equiv/compose/test-horner", compose.HORNER).result == "proven"
    assert compose.smt_check("equiv/compose/test-euclid", compose.EUCLID).result == "proven"


def test_norm_lemma_is_proven():
    v = compose.smt_check("equiv/compose/test-norm-lemma", compose.norm_lemma(compose.NORM_N, compose.NORM_N_GATE))
    assert v.result == "proven", v


def test_a_dividend_a_reachable_root_divides_is_refuted():
    """2^29 + 32 = 32 * (2^24 + 1): some root = isqrt(ss * 2^10) gives another quotient."""
    bad = compose.NORM_N + 32
    v = compose.smt_check("equiv/compose/test-norm-planted", compose.norm_lemma(compose.NORM_N, bad))
    assert v.result == "FAILED", v
    vals = {}
    for name, bits in __import__("re").findall(r"\((\w+) #([bx][0-9a-f]+)\)", v.detail):
        vals[name] = int(bits[1:], 2 if bits[0] == "b" else 16)
    ss, root = vals["ss"], vals["root"]
    assert 1 <= ss <= 1 << 20
    assert root * root <= ss * 1024 < (root + 1) ** 2          # root = isqrt(ss * 2^10)
    assert compose.NORM_N // root != bad // root


def test_divider_contract_small_width():
    v = engine.run(compose.divu(8, timeout=120))
    assert v.result == "proven", v


def test_softmax_quotients_differ_only_on_the_listed_sums():
    """A sum left out of the table of divisors of 2^32 - 1 is found (the full table's
    proof, 14 s, is make formal's)."""
    table = compose.sm_table()
    assert 3342387 in table and 65535 in table
    v = compose.smt_check("equiv/compose/test-softmax-div-planted",
                          compose.sm_div_lemma(compose.SM_N, compose.SM_N_GATE, compose.SM_MAX, table[:-1]))
    assert v.result == "FAILED" and "#x00330033" in v.detail, v      # 3342387


def test_softmax_pass3_lines_small_sums():
    """The RTL's pass 3 lines give the same output for both reciprocals on the sums 255
    and 257 (e <= S); with e not bounded by S they do not (e = 258 > 257: a planted
    failure, so the check is not vacuous)."""
    for s in (255, 257):
        v = compose._combinational(engine.run(compose.softmax_lemma_check(
            compose.SM_N, compose.SM_N_GATE, [s], name=f"equiv/compose/test-softmax-table/{s}", timeout=120)))
        assert v.result == "proven", v
    v = engine.run(compose.softmax_lemma_check(compose.SM_N, compose.SM_N_GATE, [257], e_le_s=False, timeout=120,
                                               name="equiv/compose/test-softmax-table-planted"))
    assert v.result == "FAILED", v


def test_the_dividend_reaches_only_the_quotient_and_wr_data():
    """The composition's structural step: proven on ga2_norm; the cone of a control
    register (the divider's step counter reaches its busy flags) is refused."""
    rtl = [ROOT / "rtl" / f for f in ("ga2_divu.v", "ga2_requant.v", "ga2_norm.v")]
    assert compose.cone_check("equiv/compose/test-cone", "ga2_norm", rtl).result == "proven"
    v = compose.cone_check("equiv/compose/test-cone-planted", "ga2_norm", rtl, regs=("u_div.cnt_q",), extra=())
    assert v.result == "FAILED", v


@pytest.mark.parametrize("module", ["ga2_rope", "ga2_swiglu", "ga2_rqc", "ga2_smw", "ga2_vec_add"])
def test_the_write_address_holds_over_the_cycle_before_each_write(module):
    """The late write address's step (compose.wr_hold, ABC pdr): proven on the units whose
    delay mutant is listed (and on ga2_vec_add, whose twin its masked miter proved)."""
    v = engine.run(compose.wr_hold(module, timeout=120))
    assert v.result == "proven", v


def test_a_unit_whose_address_moves_before_a_write_is_refuted(tmp_path):
    """Not vacuous: ga2_vec_rq (a write in consecutive cycles) and a copy of ga2_rope whose
    write pointer steps in P_X1, the cycle before its P_Y0 write, each give a counterexample."""
    v = engine.run(compose.wr_hold("ga2_vec_rq", timeout=120, expect_fail=True))
    assert v.result == "FAILED", v
    planted = copy_rtl(tmp_path, ("ga2_rope.v", r"if \(writing\) wp_q <= wp_q \+ 1'b1;",
                                  "if (ph_q[P_X1]) wp_q <= wp_q + 1'b1;"))
    v = engine.run(compose.wr_hold("ga2_rope", timeout=120, expect_fail=True, rtl_dir=planted))
    assert v.result == "FAILED", v


def test_the_late_register_reaches_only_wr_addr():
    """The cone step on the listed ROPE mutant: proven with wr_addr allowed; refused when
    only wr_data is (so the select sees the register reach wr_addr)."""
    from tb.formal import miter
    (site,) = [site for key, _, site in miter.listed_sites() if key[0] == "ga2_rope.v" and key[1] == "delay"]
    steps = dict(compose.wr_hold_steps(site))
    assert steps["composition (the late register's cone)"]().result == "proven"
    v = compose.late_cone(site, outputs=("wr_data",), tag="-planted")
    assert v.result == "FAILED", v


def test_make_formal_runs_the_steps_for_the_listed_entries():
    """make formal ONLY=equiv sends these seven entries to their steps (tools/flow/formal.py),
    and their WHY is a proof in the mutation score (equivalents.proven)."""
    from tb.formal import miter
    from tb.mutation.rtl import equivalents
    got = {}
    for key, why, site in miter.listed_sites():
        steps = compose.steps_for(key, site) if site is not None else None
        if steps:
            got[key[0]] = ([label for label, _ in steps], equivalents.proven(why))
    late = ("ga2_rope.v", "ga2_swiglu.v", "ga2_rqc.v", "ga2_smw.v")
    assert set(got) == {"ga2_norm.v", "ga2_softmax.v", "ga2_mm_ctrl.v", *late}
    for f in late:
        labels, proven = got.pop(f)
        assert proven and labels == ["composition (the late register's cone)",
                                     "wr_addr holds over the cycle before each write"], (f, labels)
    mm = got.pop("ga2_mm_ctrl.v")
    for labels, proven in got.values():
        assert proven and "divider" in labels and "Euclid" in labels and any("lemma" in x for x in labels)
    assert "FAST = 0 miter" in got["ga2_softmax.v"][0]
    # the early read: the miter, then the chip's proofs behind its environment (the hazard
    # invariant, the sequencer's issue rule, every other writer's link)
    assert mm[0] and "scratchpad miter" in mm[0][0] and any("hazard" in x for x in mm[0])
    assert any("ga2_seq" in x for x in mm[0]) and sum("writes only inside" in x for x in mm[0]) >= 7
