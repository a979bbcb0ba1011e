"""Shared-prefix attention (tools/prefix/attention.py, tools/prefix/run.py; docs/prefix.md).

On the reference: random decode runs with shared prefixes (random prefix lengths, some
ending inside a block, a prompt of whole blocks, random arrival orders, blocks of 4, 5
and 16 tokens) give every token equal to the request decoded alone (chapter 9's
plain-Python integer reference, no sharing) with shared-prefix attention, and the same
memory as the unshared builder; the shared step moves fewer words; each deliberately
broken builder is caught. On both simulators: a short sweep and one random run.
"""
import numpy as np
import pytest

from model import batch, isa
from model.machine import Machine
from tools.prefix import attention as prefix
from tools.prefix import cache as prefix_cache
from tools.prefix import mutants as mut_prefix
from tools.prefix import run as tprefix
from tools.serve import paged

# Icarus runs this one in make test-long (Verilator in make test; Icarus's X check is held
# by the other co-simulation tests of make test)
ICARUS_LONG = pytest.mark.parametrize("sim", [pytest.param("icarus", marks=pytest.mark.long), "verilator"],
                                      indirect=True)


def _ref(run, progs):
    m, ext, after = Machine(run.cfg), run.image.copy(), []
    for i, p in enumerate(progs):
        m.sp[:] = batch.garbage_sp(batch.garbage_seed(f"test prefix {i}"), run.cfg)
        ext = m.run(p, ext).ext
        after.append(ext)
    return after


@pytest.mark.parametrize("seed", range(4))
def test_random_runs_equal_alone_and_unshared(seed):
    groups = 0
    for BT in (4, 5, 16):
        run = prefix.decode_run(prefix.random_requests(seed, BT), BT)
        assert any(q.plen and q.plen % BT for q in run.requests) or BT == 1
        assert any(q.group and q.plen % BT == 0 for q in run.requests)     # a prompt of whole blocks
        shared = _ref(run, prefix.run_programs(run, True))
        plain = _ref(run, prefix.run_programs(run, False))
        assert prefix.run_issues(shared, run, "shared") == []
        assert np.array_equal(shared[-1], plain[-1])
        groups += sum(1 for e in run.steps for ks, S in prefix.share_groups(e, BT) if S and len(ks) > 1)
    assert groups > 0


@pytest.mark.parametrize("label", ["the prefix part of the weighted sum written with acc = 0",
                                   "the prefix scores one 4-key tile short"])
def test_broken_builders_are_caught(label, mutated_module):
    """Each broken shared-prefix builder (its mutant of tools/prefix/mutants.py, applied to
    a copy of attention.py) gives wrong tokens on a random run."""
    broken = mutated_module(mut_prefix.mutant(label))
    run = prefix.decode_run(prefix.random_requests(0, 4), 4)
    assert prefix.run_issues(_ref(run, broken.run_programs(run, True)), run, label) != []


def test_share_groups():
    # tables share blocks 0, 1; the third shares only block 0 with them; one alone
    e = [(0, 12, (0, 1, 5)), (1, 10, (0, 1, 6)), (2, 9, (0, 7, 8)), (3, 3, (9,))]
    assert prefix.share_groups(e, 4) == [([0, 1, 2], 4), ([3], 0)]
    e = [(0, 9, (0, 1, 5)), (1, 10, (0, 1, 6))]
    assert prefix.share_groups(e, 4) == [([0, 1], 8)]
    # the new row's block is never shared: t - 1 = 8 is row 0 of block 2, so 2 blocks
    e = [(0, 8, (0, 1)), (1, 10, (0, 1, 6))]
    assert prefix.share_groups(e, 4) == [([0, 1], 4)]


def test_shared_step_reads_the_prefix_once_and_accumulates():
    s = prefix.shared_step(4, 32)
    P = s["model"]["P"]
    sh = prefix.step_program(s["entries"], s["layout"], P, s["cfg"])
    un = paged.step_program(s["entries"], s["layout"], P, s["cfg"])
    assert isa.program_words(un) - isa.program_words(sh) == 3 * 2 * 32 * 16
    assert isa.program_macs(un) == isa.program_macs(sh)
    mms = [i for i in sh if i.op == "MM"]
    assert any(i.acc for i in mms) and max(i.M for i in mms if i.tb == 1) == 4


@pytest.mark.parametrize("plen, first, bt", [(48, 0, 16), (47, 8, 4), (1, 0, 16), (64, 5, 5), (30, 29, 16)])
def test_prefill_exact_on_the_reference(plen, first, bt):
    row, probs = tprefix.prefill(None, tprefix.prefill_item(plen, first, bt))
    assert probs == [] and row["macs"] == (plen - first) * 2 * 16 * 16


def test_prefill_mm_tiles_have_four_rows():
    s, prog, _ = tprefix.prefill_item(48)
    mms = [i for i in prog if i.op == "MM"]
    assert len(mms) == 2 * 12 * 4 and all(i.M == 4 for i in mms)


@ICARUS_LONG
def test_on_chip(sim):
    """On the chip: a short sweep (B = 4 at P = 16, both builders) and a random
    prefix-cache run (on-chip prefills, a copy, evictions, shared-prefix steps), each in
    one simulator process."""
    rows, probs = tprefix.sweep(sim, tprefix.sweep_items((4,), (16,)))
    assert probs == []
    sh = {r["kind"]: r for r in rows}
    assert sh["shared"]["words"] < sh["unshared"]["words"]
    assert sh["shared"]["mac_per_word"] > tprefix.LIMIT > sh["unshared"]["mac_per_word"]
    runs = [(n, r) for n, r in tprefix.cache_runs(quick=True) if n.startswith("random")]
    figs, probs = tprefix.cache_chip(sim, runs)
    assert probs == [] and figs[0]["copies"] > 0 and figs[0]["evictions"] > 0
    run = runs[0][1]
    assert figs[0]["prefill_cycles"] > 0 and any(
        S and len(ks) > 1 for p in run.programs if p.kind == "step"
        for ks, S in prefix.share_groups(p.entries, run.layout.block_tokens))


# ---------------------------------------------------------------- the prefix cache
@pytest.mark.parametrize("seed, bt, pool", [(0, 4, 12), (1, 5, 12), (2, 16, 5), (3, 4, 40), (4, 5, 40)])
def test_cache_runs_equal_alone(seed, bt, pool):
    reqs, per = prefix_cache.cache_requests(seed, bt)
    run = prefix_cache.cache_run(reqs, bt, pool, periods=per)
    after, bus, _ = prefix_cache.cache_reference(run)
    assert prefix_cache.cache_issues(run, after, bus, "cache") == []
    off = prefix_cache.cache_run(reqs, bt, pool + 40, cache=False, periods=per)
    assert run.stats["prefill_rows"] < off.stats["prefill_rows"] and off.stats["cached_rows"] == 0


def test_cache_workloads_cover_the_cases():
    """Over the shipped seeds: a prompt ending inside a block, a whole prompt cached
    (a copy before the write), freed blocks revived, evictions."""
    st = {"copies": 0, "revived": 0, "evictions": 0}
    inside = False
    for seed, bt, pool in [(0, 4, 12), (1, 5, 12), (2, 16, 5), (3, 4, 40)]:
        reqs, per = prefix_cache.cache_requests(seed, bt)
        inside |= any(prefix_cache.plen_of(q) % bt for q in reqs)
        s = prefix_cache.cache_run(reqs, bt, pool, periods=per).stats
        for k in st:
            st[k] += s[k]
    assert inside and all(v > 0 for v in st.values()), st


@pytest.mark.parametrize("label", ["copy-on-write dropped: a fully cached prompt writes its last row into the "
                                   "shared block",
                                   "a block's key without position or parent"])
def test_broken_cache_is_caught(label, mutated_module):
    """Each broken prefix cache (its mutant of tools/prefix/mutants.py, applied to a copy
    of cache.py: its cache_run) is caught by cache_issues."""
    broken = mutated_module(mut_prefix.mutant(label))
    caught = 0
    for seed, bt in [(0, 4), (1, 5)]:
        reqs, per = prefix_cache.cache_requests(seed, bt)
        run = broken.cache_run(reqs, bt, 40, periods=per)
        after, bus, _ = prefix_cache.cache_reference(run)
        caught += len(prefix_cache.cache_issues(run, after, bus, label))
    assert caught > 0


def test_the_product_has_no_bug_switch():
    import inspect
    for f in (prefix.step_program, prefix.run_programs, prefix_cache.cache_run, prefix_cache.block_hash):
        assert "bug" not in inspect.signature(f).parameters, f.__name__
    assert not hasattr(prefix, "BUGS") and not hasattr(prefix_cache, "CBUGS")


def test_lru_eviction_and_reuse_before_eviction():
    """Pool of 6 blocks of 4: x (2 prompt blocks) and y (2) finish, x first; z (no
    group, 4 blocks) needs fresh blocks: the free never-cached ones go first, then the
    least recently freed cached blocks (x's); then y's prompt is still cached, x's not."""
    R = prefix.PReq
    reqs = [R("x", "gx", 8, 9, 0), R("y", "gy", 8, 9, 1), R("z", None, 0, 16, 5),
            R("y2", "gy", 8, 9, 8), R("x2", "gx", 8, 9, 9)]
    run = prefix_cache.cache_run(reqs, 4, 6, capacity=1)
    after, bus, _ = prefix_cache.cache_reference(run)
    assert prefix_cache.cache_issues(run, after, bus, "lru") == []
    assert run.stats["evictions"] == 2 and run.stats["revived"] == 2
    pf = {p.r: p for p in run.programs if p.kind in ("prefill", "copy")}
    assert pf[3].kind == "copy" and pf[4].kind == "prefill"      # y2 all cached; x2 evicted
