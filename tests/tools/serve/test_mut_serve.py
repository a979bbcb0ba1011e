"""Testing the serving test (tools/serve/mutants.py --fast): a gather that reads one block
past its table (answers unchanged: only the isolation check sees it), a read of another
request's block and a block handed to two requests are all caught by
`python -m tools.serve.engine --check`; every mutant's anchor is one line of its file."""
import pytest

from tb import ROOT
from tb.mutation import report, tree
from tools.serve import mutants as mut_serve


def test_every_anchor_is_one_line():
    assert tree.catalogue_problems(ROOT, mut_serve.mutants(), mut_serve.FAST, 10) == []


def test_fast_subset_all_caught():
    res, _ = mut_serve.run(fast=True, quick=True)
    assert report.uncaught(res, mut_serve.FAST) == [] and report.exit_code(res) == 0


def test_every_lm_anchor_is_one_line():
    assert tree.catalogue_problems(ROOT, mut_serve.lm_mutants(), mut_serve.LM_FAST, 9) == []


@pytest.mark.long
def test_lm_fast_subset_all_caught():
    res, _ = mut_serve.run_lm(fast=True, quick=True)
    assert report.uncaught(res, mut_serve.LM_FAST) == []


@pytest.mark.long
def test_lm_remedies_mutants_all_caught():
    """The remedies in the server: a window's block returned a step early, never returned,
    a sink's block returned, the pool's rows of the wrong width, a remedied chunk's rows
    in batch order: each caught by the check's quick subset (its windowed multi-query
    4-bit scenario)."""
    res, _ = mut_serve.run_lm(quick=True, labels=mut_serve.LM_REMEDIES)
    assert len(res) == len(mut_serve.LM_REMEDIES) == 5
    assert all(r.caught for r in res), [(r.label, r.status) for r in res]
