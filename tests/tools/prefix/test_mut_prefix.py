"""Testing the shared-prefix test (tools/prefix/mutants.py --fast): a missing copy-on-write
and a block key without position (both leave every answer right: only the structural
checks see them) are caught by `python -m tools.prefix.cache --check`; every anchor is one line."""
from tb import ROOT
from tb.mutation import report, tree
from tools.prefix import mutants as mut_prefix


def test_every_anchor_is_one_line():
    assert tree.catalogue_problems(ROOT, mut_prefix.mutants(), mut_prefix.FAST, 7) == []


def test_fast_subset_all_caught():
    res, _ = mut_prefix.run(fast=True, quick=True)
    assert report.uncaught(res, mut_prefix.FAST) == []
