"""The overlap mode's named hazard mutants (tb/mutation/rtl/hazard.py): every one is
a single change of the current RTL text, and the full list is what issue 10 names (each
hazard kind dropped for each ordered unit pair; each scratchpad hull one word short,
PACK4 / UNPACK4's included).
One of them is judged here through the bench; `python -m tb.mutation.rtl.hazard`
judges all."""
import os

from tb.mutation import outcomes
from tb.mutation.rtl import hazard, runner, suite
from tb.mutation.rtl.sites import RTL_DIR
from tb.stimulus import suitecfg


def test_every_named_mutant_is_one_change_of_the_rtl():
    sites = hazard.hazard_sites()
    drops = [s for s in sites if s.desc.startswith("drop")]
    hulls = [s for s in sites if "hull" in s.desc]
    # one per hazard range of every op: LD 1, ST 1, MM 3 (A, B, dst), RQ 2, SM 2, LDX 2
    # (index word, dst), ADD 3, ARGMAX 2, NORM 2, PACK4 2, UNPACK4 2
    assert len(drops) == 18 and len(hulls) >= 22          # and one per range of an op added later
    assert {"PACK4 src read hull one word short", "UNPACK4 dst write hull one word short",
            "MM B read hull one word short", "LDX idx read hull one word short"} <= {s.desc for s in hulls}
    assert {s.desc.split()[1] for s in drops} == {"RAW", "WAR", "WAW"}
    for s in sites:
        text = open(os.path.join(RTL_DIR, s.file)).read()
        assert text[s.start:s.end] == s.orig and s.repl != s.orig, s.desc


def test_a_hull_one_word_short_is_caught_by_the_overlap_suite(tmp_path):
    site = next(s for s in hazard.hazard_sites() if s.desc == "LD dst write hull one word short")
    man = suite.build_suite(str(tmp_path / "suite"), programs=[("edges LD", *_edges("edges LD"))],
                            cfg=suitecfg.CFG_OVERLAP)
    # without the units' restart check (+restart=0): the program alone catches it
    r = runner.judge(site, str(tmp_path / "w"), [man], 120, restart=False)
    assert r.status == outcomes.CAUGHT, (r.status, r.detail)


def _edges(label):
    from tb.stimulus import collide
    return next((p, img) for lab, p, img in collide.edge_programs(suitecfg.CFG_OVERLAP) if lab == label)
