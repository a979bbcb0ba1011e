"""Serving the language model (tools/serve/lm_engine.py, spec.py, lm_memory.py,
requests.py, report.py) on the reference chip: every request's tokens equal to the
request served alone by the integer reference (tools/lm/int8.py's greedy decoding,
written from the spec: no instructions, no addresses), under every policy, with
preemption, chunked prefill and speculative decoding; the step compiler's same-sequence
rows held to the integer reference's tokens and KV rows; the isolation sets; bad input.
"""

import numpy as np
import pytest

from model.machine import Machine
from tools.lm import compiler as C
from tools.lm import data, generate
from tools.lm.int8 import greedy
from tools.serve import lm_engine as E
from tools.serve import lm_memory as lmm
from tools.serve import paged
from tools.serve import report as R
from tools.serve import requests as rq
from tools.serve import spec as S

STOP = tuple(int(t) for t in data.encode(" .\n"))       # docs/serving_lm.md: space, ".", newline


@pytest.fixture(scope="module")
def model():
    return generate.load_model("text")


@pytest.fixture(scope="module")
def work(model):
    """A dense workload of 6 requests and each one served alone (greedy, from the spec)."""
    reqs = rq.poisson(6, 60, seed=4, max_new=(8, 16))
    alone = []
    for q in reqs:
        p = [int(t) for t in data.encode(q.prompt)]
        ids = greedy(model.logits, np.array([p]), q.max_new, 64)[0, len(p):].tolist()
        cut = next((i + 1 for i, t in enumerate(ids) if t in STOP), len(ids))
        alone.append(ids[:cut])
    return reqs, alone


def test_stop_tokens_are_the_documented_ones():
    assert rq.stop_token("text") == STOP
    assert rq.stop_token("add") == ()


def test_same_sequence_rows_in_one_step_are_causal(model):
    """A whole prompt prefilled in ONE step (rows 0..5 of one sequence, the last writes),
    then two decode steps: the tokens and every cached K and V row equal the integer
    reference's (the cache is Int8Model.cache of the ids fed)."""
    p = [int(t) for t in data.encode("class ")]
    for cfg in (C.LM_CHIP, C.LM_CHIP_OVERLAP):
        lay = C.Layout(C.describe(model), 8, 12, cfg)
        ext = lay.image(model, [p])
        m = Machine(cfg)
        steps = [[C.Row(0, t, t == len(p) - 1) for t in range(len(p))],
                 [C.Row(0, len(p), True)], [C.Row(0, len(p) + 1, True)]]
        for k, rows in enumerate(steps):
            m.sp[:] = generate.garbage_sp(7, k, cfg)
            ext = m.run(C.step_program(model, lay, rows), ext).ext
        got = [int(v) for v in ext[lay.tokens:lay.tokens + len(p) + 3]]
        want = greedy(model.logits, np.array([p]), 3, 64)[0].tolist()
        assert got == want
        kv = model.cache(np.array([want[:-1]]))
        for i in range(model.cfg.layers):
            for kind in (0, 1):
                a = lay.kv(i, kind, 0)
                rows = np.asarray(ext[a:a + (len(want) - 1) * model.cfg.d]).reshape(-1, model.cfg.d)
                assert np.array_equal(rows, kv[i][kind][0])


def test_same_sequence_rows_must_be_consecutive(model):
    lay = C.Layout(C.describe(model), 8, 12)
    with pytest.raises(ValueError, match="consecutive"):
        C.step_program(model, lay, [C.Row(0, 0, False), C.Row(0, 2, True)])


@pytest.mark.parametrize("policy,prefill", [(p, f) for p in E.POLICIES for f in E.PREFILLS])
def test_every_policy_serves_every_request_as_alone(model, work, policy, prefill):
    reqs, alone = work
    run = E.serve(model, reqs, "text", policy, prefill, 24)
    assert E.check_run(run, model, "text", alone) == []
    assert run.tokens == alone
    assert sorted(run.admitted) == list(range(len(reqs)))
    assert all(st.cycles == st.predicted for st in run.steps)
    kinds = {st.kind for st in run.steps}
    if prefill == "whole":                 # prefill steps hold prompt rows only
        assert "mixed" not in kinds and "prefill" in kinds
    elif policy != "static":               # a dense workload: prompts join decode steps
        assert "mixed" in kinds
    assert max(len(st.rows) for st in run.steps) <= lmm.ROWS


def test_a_pool_too_small_preempts_and_reservation_waits(model, work):
    """8 blocks for 4 slots of this workload: preemption keeps every token right and
    recomputes; reservation never preempts, it waits (a later first token for someone)."""
    reqs, alone = work
    pre = E.serve(model, reqs, "text", "preempt", "chunked", 8)
    res = E.serve(model, reqs, "text", "reserve", "chunked", 8)
    for run in (pre, res):
        assert E.check_run(run, model, "text", alone) == []
    assert sum(pre.preemptions) > 0 and sum(pre.recomputed) > 0
    assert sum(res.preemptions) == 0 and sum(res.recomputed) == 0
    assert max(st.blocks for st in pre.steps) <= 8 and max(st.blocks for st in res.steps) <= 8
    # the preempted requests come back: admitted once each, in arrival order
    assert pre.admitted == sorted(range(len(reqs)), key=lambda b: (reqs[b].arrival, b))


def test_paged_addresses_and_isolation(model, work):
    """Every step's program touches only its allowed set; a table that names another
    block moves the step's stores outside it."""
    reqs, _ = work
    run = E.serve(model, reqs[:3], "text", "reserve", "chunked", 24)
    st = run.steps[-1]
    assert lmm.isolation_issues(paged.accesses(st.program), st.allowed, "x") == []
    b = st.rows[0].b
    wrong = {k: list(v) for k, v in st.tables.items()}
    wrong[b] = [(blk + 1) % 24 for blk in wrong[b]]
    prog = C.step_program(model, run.mm.lay, st.rows, mem=lmm.Paged(run.mm, wrong))
    assert lmm.isolation_issues(paged.accesses(prog), st.allowed, "x")


def test_runs_merge_adjacent_blocks_only(model):
    # position 10 attends rows 0..9 (blocks 2 and 3 adjacent, then 5) and itself, last
    mm = lmm.MemoryMap(model, 1, 8)
    pg = lmm.Paged(mm, {0: [2, 3, 5]})
    d, bt = model.cfg.d, lmm.BLOCK_TOKENS
    plane = mm.pool.plane(0, 0)
    assert pg.kv_attend(0, 0, 0, 10) == ([(0, plane + 2 * bt * d, 8), (8, plane + 5 * bt * d, 2)], 10, 11)
    assert pg.kv_row(1, 1, 0, 9) == mm.pool.plane(1, 1) + (5 * bt + 1) * d


def test_speculative_decoding_equals_plain_greedy(model):
    draft = S.load_draft()
    reqs = rq.poisson(2, 10, seed=3, prompt_len=(4, 8), max_new=(8, 8), ctx=S.SPEC_CTX)
    alone = [greedy(model.logits, np.array([rq.ids("text", q)]), 8, 64)[0, -8:].tolist()
             for q in reqs]
    for k in (0, 1, 3):
        run, proposed, accepted = S.spec_serve(model, draft, reqs, k)
        assert run.tokens == alone
        assert E.check_run(run, model, "text", alone) == []
        assert 0 <= accepted <= proposed and (proposed > 0) == (k > 0)
        verify = [st for st in run.steps if st.kind == "verify"]
        assert all(sum(r.write for r in st.rows) == len(st.rows) for st in verify)
        if k:
            assert max(len(st.rows) for st in verify) == len(reqs) * (k + 1)
    with pytest.raises(ValueError, match="rows of a step"):
        S.SpecServer(model, draft, rq.poisson(5, 10, 1, prompt_len=(4, 8), max_new=(8, 8), ctx=16), 4)


def test_report_figures_from_the_steps(model, work):
    reqs, alone = work
    run = E.serve(model, reqs, "text", "reserve", "chunked", 24)
    m = R.metrics(run)
    assert m["tokens"] == sum(map(len, alone))
    ends = np.cumsum([0] + [st.cycles for st in run.steps])
    # no idle gap inside this dense workload after the first arrival: re-timed = the run's clock
    assert [run.steps[k].start + run.steps[k].cycles for k in run.first_step] == run.first
    ttft = sorted(f - a for f, a in zip(run.first, run.arrival))
    assert m["ttft"][50] == pytest.approx(float(np.percentile(ttft, 50)))
    assert m["busy_cycles"] == ends[-1]
    doubled = R.metrics(run, [2 * st.cycles for st in run.steps])
    assert doubled["busy_cycles"] == 2 * m["busy_cycles"]


def test_workload_files_and_bad_requests(tmp_path):
    reqs = rq.poisson(3, 5, seed=1)
    p = tmp_path / "w.json"
    rq.dump(reqs, p)
    assert rq.load(p, "text", 32) == reqs
    c = tmp_path / "w.csv"
    c.write_text("id,prompt,max_new,arrival\na,the ,4,0\nb,def ,3,100\n")
    assert [q.id for q in rq.load(c, "text", 32)] == ["a", "b"]
    bad = [([{"id": "a", "prompt": "x", "max_new": 0}], "max_new"),
           ([{"id": "a", "prompt": "", "max_new": 2}], "prompt"),
           ([{"id": "a", "prompt": "x", "max_new": 40}], "exceed"),
           ([{"id": "a", "prompt": "x", "max_new": 2, "arrival": -1}], "arrival"),
           ([{"id": "a", "prompt": "x", "max_new": 2}] * 2, "duplicate"),
           ([{"id": "a", "prompt": "x", "max_new": 2, "colour": 1}], "unknown"),
           ([], "non-empty")]
    for reqs_, msg in bad:
        with pytest.raises(ValueError, match=msg):
            rq.check(reqs_, "text", 32)
    with pytest.raises(ValueError, match="rate"):
        rq.poisson(3, 0)
    (tmp_path / "g.json").write_text("{not json")
    with pytest.raises(ValueError, match="g.json"):
        rq.load(tmp_path / "g.json", "text", 32)


def test_poisson_arrivals_are_seeded_and_at_the_rate():
    a, b = rq.poisson(400, 10, seed=4), rq.poisson(400, 10, seed=4)
    assert a == b
    gaps = np.diff([0] + [q.arrival for q in a])
    assert 0.9e5 < gaps.mean() < 1.1e5          # 10 per million cycles: 100,000 apart on average
    assert rq.poisson(400, 10, seed=5) != a


def test_bad_scheduler_arguments(model, work):
    reqs, _ = work
    with pytest.raises(ValueError, match="policy"):
        E.serve(model, reqs, "text", "lifo", "whole", 24)
    with pytest.raises(ValueError, match="prefill"):
        E.serve(model, reqs, "text", "reserve", "eager", 24)
    with pytest.raises(ValueError, match="blocks"):
        E.serve(model, reqs, "text", "reserve", "whole", 2)
    with pytest.raises(ValueError, match="external memory"):
        lmm.MemoryMap(model, 64, 400)


def test_the_paged_serving_engine_in_the_overlap_mode():
    """tools/serve's chapter-9 engine in the overlap mode (programs reordered): every
    check of the reference run passes, the cycles equal the timing model and are fewer
    than in-order's."""
    from tb import ROOT
    from tools.serve import engine as serving
    from tools.serve import run as srv
    from tools.serve import workload
    short = workload.load_workload(ROOT / "tools" / "serve" / "workloads" / "short.csv")[1]
    ov = srv.serve(short, 3, 4, 6, model_only=True, mode="overlap")
    io = srv.serve(short, 3, 4, 6, model_only=True)
    assert ov["ok"] and io["ok"] and ov["mode"] == "overlap" and io["mode"] == "inorder"
    for pol in serving.POLICIES:
        assert ov["schedulers"][pol]["predicted"]["total_cycles"] < \
            io["schedulers"][pol]["predicted"]["total_cycles"]


def test_the_prefix_cache_in_the_overlap_mode():
    """tools/prefix's cache runs (prefill on chip, copies, shared-prefix steps) built for
    the overlap mode: every check of tools/prefix/cache.cache_issues on the reference,
    every program's cycles equal to the timing model, fewer cycles than in-order."""
    from model import timing
    from tools.prefix import cache as pc
    reqs = pc.system_prompt_requests(4)
    total = {}
    for mode in ("inorder", "overlap"):
        run = pc.cache_run(reqs, 16, 30, cache=True, mode=mode)
        assert run.cfg.mode == mode
        after, bus, cyc = pc.cache_reference(run, f"overlap test {mode}")
        assert pc.cache_issues(run, after, bus, mode) == []
        assert cyc == [timing.schedule(p.prog, run.cfg).cycles for p in run.programs]
        assert {p.kind for p in run.programs} >= {"prefill", "step"}
        total[mode] = sum(cyc)
    assert total["overlap"] < total["inorder"]
