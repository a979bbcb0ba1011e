"""Testing the model's check (tools/lm/mutants.py --fast): a weighted sum one value short
(wrong tokens and caches), one weight buffer for every tile (every value right: only the
overlap timing check sees it) and, in the tiled plan (the remedies), a weighted sum that
overwrites instead of accumulating are caught by `python -m tools.lm.check`; every anchor
is one line of the step compiler (tools/lm/compiler) or tools/lm/generation.py.
make test judges one of the three (the one only the overlap timing check sees, after the
baseline); -m long all three."""
import pytest

from tb import ROOT
from tb.mutation import text, tree
from tools.lm import mutants as mut_lm


def test_every_anchor_is_one_line():
    assert tree.catalogue_problems(ROOT, mut_lm.mutants(), mut_lm.FAST, 10) == []


SAMPLE = "one weight buffer for every tile (right values, no streaming under the products)"


def test_the_timing_only_mutant_is_caught():
    assert SAMPLE in mut_lm.FAST
    res = text.run_mutants([m for m in mut_lm.mutants(fast=True) if m.label == SAMPLE],
                           mut_lm.CHECK + ["--quick"], ROOT, 120, 2)
    assert len(res) == 1 and res[0].caught, [(r.label, r.status) for r in res]


@pytest.mark.long
def test_fast_subset_all_caught():
    res = text.run_mutants(mut_lm.mutants(fast=True), mut_lm.CHECK + ["--quick"], ROOT, 120, 2)
    assert len(res) == len(mut_lm.FAST)
    assert all(r.caught for r in res), [(r.label, r.status) for r in res]
