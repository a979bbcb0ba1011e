"""Testing the test (tools/mut_ch09.py --fast): a length-confusing mutant of the batched
builder is caught by check_batching with the ragged batch and missed without it, while an
ordinary mutant is caught by both; every mutant's anchor line exists exactly once."""
import pytest

from tb import ROOT
from tb.mutation import tree
from tools.ch09 import mutants as mut_ch09


@pytest.fixture(scope="module")
def fast_run():
    return mut_ch09.run(fast=True, quick=True)


def test_every_mutant_anchor_is_one_line_of_batch_py():
    assert tree.catalogue_problems(ROOT, mut_ch09.mutants(), mut_ch09.FAST, 16) == []
    assert sum("length" in m.tags for m in mut_ch09.mutants()) >= 3


@pytest.mark.long   # 8 s; make test runs the chapter's harness on docs' extra mutant (test_ch09_exercises)
def test_fast_subset_ragged_batch_is_what_catches_length_confusion(fast_run):
    rows, full, nor, ovl, _ = fast_run
    by = {r["label"]: r for r in rows}
    assert set(by) == set(mut_ch09.FAST)
    length = [r for r in rows if "length" in r["tags"]]
    other = [r for r in rows if "length" not in r["tags"]]
    assert length and other
    for r in length:
        assert r["full"] and not r["no_ragged"] and r["overlap"], r
    for r in other:
        assert r["full"] and r["no_ragged"] and r["overlap"], r
    assert mut_ch09.verdict(rows) == []


@pytest.mark.long
def test_the_sample_through_a_local_two_worker_dask_cluster_equals_the_local_run(fast_run):
    """Past one machine: the same mutants judged by Dask workers get the same outcomes."""
    rows, _, _, _, _ = fast_run
    drows, _, _, _, _ = mut_ch09.run(fast=True, quick=True, scheduler="local:2")
    key = ("label", "full", "no_ragged", "overlap", "status_full", "status_no_ragged", "status_overlap")
    assert [{k: r[k] for k in key} for r in drows] == [{k: r[k] for k in key} for r in rows]
