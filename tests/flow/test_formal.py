"""The formal flow's fast subset (make test): a proof closes, and a planted bug fails it.

The full set is `make formal` (tools/flow/formal.py; docs/formal.md). Here: ga2_hazard's
local invariant by k-induction on 4-bit addresses (a few seconds), once on the RTL
(proven) and once on a copy with one hazard kind removed (the mm unit's WAW check):
the same check must find a counterexample, so the proof is not vacuous.
"""
import shutil

import pytest

from tb.formal import engine, props

pytestmark = pytest.mark.skipif(not (shutil.which("yosys") and shutil.which("yosys-smtbmc") and shutil.which("z3")),
                                reason="yosys, yosys-smtbmc and z3 (make setup)")


def test_hazard_invariant_is_proven_by_induction():
    v = engine.run(props.hazard(4))
    assert v.result == "proven", v
    assert v.depth.startswith("induction")


def test_a_missing_waw_check_is_a_counterexample():
    d = props.narrow_header(4)
    bad = engine.BUILD / "src_aw4_nowaw"
    bad.mkdir(parents=True, exist_ok=True)
    for f in d.iterdir():
        (bad / f.name).write_text(f.read_text())
    src = (bad / "ga2_hazard.v").read_text()
    cut = src.replace("|| meet(new_wr, mm_rd0_q) || meet(new_wr, mm_rd1_q)\n                         || meet(new_wr, mm_wr_q));",
                      "|| meet(new_wr, mm_rd0_q) || meet(new_wr, mm_rd1_q));")
    assert cut != src, "the planted change no longer applies to rtl/ga2_hazard.v"
    (bad / "ga2_hazard.v").write_text(cut)
    v = engine.run(props.hazard(4, name="overlap/hazard-invariant planted-bug", src=bad))
    assert v.result == "FAILED", v
