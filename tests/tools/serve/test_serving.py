"""Serving on the reference (tools/serve/paged.py, tools/serve/engine.py): the schedulers against
chapter 9's example B, every token of every request against it decoded alone, contexts
to 64 and 8 sequences per step, the block pool, bad input, and the isolation check."""

import pytest

from model import config, timing
from tb import ROOT
from tools.ch09 import example_b as exb
from tools.serve import engine as serving
from tools.serve import mutants as mut_serve
from tools.serve import oracle, paged, workload

MODEL = oracle.model_data(1)


def _plan(reqs, pol, cap=4, bt=4, nb=12, **kw):
    return serving.plan(reqs, pol, cap, bt, nb, **kw)


def _useful(steps):
    return [sorted((s, r, t) for s, r, t, u in st if u) for st in steps]


def test_schedules_equal_chapter_9_example_b():
    """Continuous: the same slot, request and token in every step as ch09_example_b;
    static: the same useful (slot, request, token) per step (finished requests' slots are
    empty here instead of riding along)."""
    for pol, ch in (("continuous", exb.schedule_continuous()), ("static", exb.schedule_static())):
        p = _plan(workload.EXAMPLE_B, pol, nb=32)
        mine = [sorted((s, r, t) for s, (r, t, _) in zip(st.slots, st.entries)) for st in p.steps]
        assert mine == _useful(ch), pol


def test_ride_along_lists_finished_slots_and_serves_the_same_steps():
    """Static with ride_along (chapter 9's example B prices these steps): a finished
    request's slot is listed in Step.riding at the tokens past its last until its group
    ends; the served entries are those of plain static batching."""
    plain = _plan(workload.EXAMPLE_B, "static", nb=32)
    ride = _plan(workload.EXAMPLE_B, "static", nb=32, ride_along=True)
    assert [st.entries for st in ride.steps] == [st.entries for st in plain.steps]
    assert all(st.riding == () for st in plain.steps)
    # group 1 is A, B, C, D (14, 3, 9, 5 tokens): B rides in slot 1 at tokens 4..14
    assert [t for st in ride.steps[:14] for j, r, t in st.riding if r == 1] == list(range(4, 15))
    assert all(j == 1 for st in ride.steps for j, r, t in st.riding if r == 1)
    assert sum(len(st.riding) for st in ride.steps) == 42
    assert ride.steps[14].riding == ()                    # group 2 starts with nobody riding
    with pytest.raises(ValueError, match="ride_along is static batching's"):
        serving.Scheduler("continuous", 4, 4, 12, ride_along=True)


def test_example_b_is_stated_once_in_its_file():
    """engine.EXAMPLE_B, the chapter's example (tools/ch09/example_b.py) and make serve's
    example_b run all read tools/serve/workloads/example_b.json."""
    from tools.serve import run as srv
    assert [(q.id, q.tokens, q.arrival) for q in workload.EXAMPLE_B] == \
        [(n, w, 0) for n, w in zip("ABCDEFGH", (14, 3, 9, 5, 12, 2, 7, 10))]
    assert tuple(exb.REQUESTS) == tuple(workload.EXAMPLE_B) and exb.WORKLOAD_FILE == workload.EXAMPLE_B_FILE
    assert srv.RUNS["example_b"][:2] == (workload.EXAMPLE_B_FILE.name, exb.SLOTS) == ("example_b.json", 4)


@pytest.mark.parametrize("pol", serving.POLICIES)
def test_example_b_every_token_equals_alone(pol):
    p = _plan(workload.EXAMPLE_B, pol)
    ref = oracle.reference_run(p, MODEL, tag=pol)
    assert ref["problems"] == []
    assert ref["step_cycles"] == ref["predicted"]
    m = oracle.metrics(p, ref["step_cycles"])
    assert m["tokens"] == 62 and m["steps"] == (19 if pol == "continuous" else 26)
    assert m["total_cycles"] == sum(timing.schedule(q, oracle.CFG).cycles for q in ref["programs"])


def test_staggered_workload_contexts_to_64_and_8_per_step():
    name, reqs = workload.load_workload(ROOT / "tools" / "serve" / "workloads" / "staggered.json")
    p = _plan(reqs, "continuous", cap=8, bt=4, nb=40)
    assert max(len(st.entries) for st in p.steps) == 8
    assert max(t for st in p.steps for _, t, _ in st.entries) == 64
    assert p.block_waits > 0                           # the pool makes some requests wait
    cfg = serving.config_for(p.layout)
    ref = oracle.reference_run(p, MODEL, cfg, tag="staggered")
    assert ref["problems"] == []
    assert max(len(q) for q in ref["programs"]) <= cfg.imem_depth


def test_overlap_mode_builds_and_checks():
    """The engine takes a cfg: in the overlap timing mode the same steps give the same tokens."""
    p = _plan(workload.EXAMPLE_B[:3], "continuous", cap=3)
    ref = oracle.reference_run(p, MODEL, config.CH09_OVERLAP, tag="overlap")
    assert ref["problems"] == [] and ref["step_cycles"] == ref["predicted"]


def test_pool_allocates_as_requests_grow_and_returns_blocks():
    p = _plan(workload.EXAMPLE_B, "continuous", bt=2, nb=30)
    for st in p.steps:
        for _, t, table in st.entries:
            assert len(table) == -(-t // 2)
    assert oracle.pool_issues(p, "x") == []
    # blocks come back: the peak is far below the sum of every request's blocks
    assert max(st.blocks_in_use for st in p.steps) < sum(-(-q.tokens // 2) for q in workload.EXAMPLE_B)
    # a freed block is reused by a later request
    first_owner = {}
    reused = False
    for st in p.steps:
        for r, _, table in st.entries:
            for b in table:
                if first_owner.setdefault(b, r) != r:
                    reused = True
    assert reused


def test_a_request_waits_for_blocks_and_nothing_admitted_is_hurt():
    reqs = [workload.Request("a", 12, 0), workload.Request("b", 10, 0), workload.Request("c", 3, 1)]
    for pol in serving.POLICIES:
        p = _plan(reqs, pol, cap=2, bt=4, nb=4)
        assert max(st.blocks_in_use for st in p.steps) <= 4
        assert [q.id for q in p.requests] == ["a", "b", "c"]
        assert oracle.reference_run(p, MODEL, tag=pol)["problems"] == []
    p = _plan(reqs, "continuous", cap=2, bt=4, nb=4)
    assert p.block_waits > 0 and [r for r, _, _ in p.steps[0].entries] == [0]


def test_runs_merge_adjacent_blocks_only():
    assert paged.runs([3, 4, 5, 9], 14, 4) == [(0, 3, 12), (12, 9, 2)]
    assert paged.runs([7, 2], 5, 4) == [(0, 7, 4), (4, 2, 1)]
    assert paged.runs([1], 0, 4) == []


def test_model_bus_record_inside_the_allowed_set_and_tight():
    p = _plan(workload.EXAMPLE_B, "continuous")
    ref = oracle.reference_run(p, MODEL, tag="bus")
    for st, acc in zip(p.steps, ref["bus"]):
        assert paged.isolation_issues(acc, st.entries, p.layout) == []
        assert sum(b - a + 1 for k, a, b in acc if k == "w") == 48 * len(st.entries)


READ_PAST = "each gather reads one block past its last one (a freed or another request's block)"
BROKEN_BUILDERS = (READ_PAST,
                   "a slot's first block read from the next slot's table",
                   "the last, partly filled block not gathered",
                   "the new K/V rows stored into the first block of the table")


@pytest.mark.parametrize("label", BROKEN_BUILDERS)
def test_broken_builders_are_caught(label, mutated_module, monkeypatch):
    """Each broken step builder (its mutant of tools/serve/mutants.py, applied to a copy of
    paged.py; the engine uses the copy's step_program for this test only) is caught by the
    serving check."""
    broken = mutated_module(mut_serve.mutant(label))
    monkeypatch.setattr(paged, "step_program", broken.step_program)
    probs = serving.check_serving(quick=True)
    assert probs, label
    if label == READ_PAST:              # answers right: only the bus monitor sees it
        assert all("outside the step's allowed set" in q for q in probs)
        assert any("block" in q for q in probs)


def test_the_product_builder_has_no_bug_switch():
    import inspect
    assert "bug" not in inspect.signature(paged.step_program).parameters
    assert "bug" not in inspect.signature(serving.check_serving).parameters
    assert not hasattr(paged, "BUGS")


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("text,fmt,match", [
    ('{"requests": [{"id": "a", "tokens": 65}]}', "json", r"request 'a': 65 tokens, outside 1\.\.64"),
    ('{"requests": [{"id": "z", "tokens": 0}]}', "json", r"request 'z': zero tokens"),
    ('{"requests": [{"id": "a", "tokens": 2}, {"id": "a", "tokens": 3}]}', "json", r"request 'a': duplicate id"),
    ('{"requests": [{"id": "a", "tokens": 2, "arrival": -1}]}', "json", r"request 'a': arrival step -1"),
    ('{"requests": [{"id": "a", "tokens": "x"}]}', "json", r"request 'a': tokens 'x' is not an integer"),
    ('{"requests": [{"tokens": 3}]}', "json", r"request #1: id must be"),
    ('{"requests": [', "json", r"malformed JSON"),
    ('{"reqs": []}', "json", r"without a 'requests' list"),
    ("id,tokens,arrival\nq1,3,0\nq2,4\n", "csv", r"CSV line 3 has 2 fields.*'q2'"),
    ("name,len\n", "csv", r"CSV header"),
    ("id,tokens\nq1,3\nq2,0\n", "csv", r"request 'q2': zero tokens"),
])
def test_bad_workloads_raise_naming_the_request(text, fmt, match):
    with pytest.raises(ValueError, match=match):
        workload.parse_workload(text, fmt)


def test_load_workload_files(tmp_path):
    assert workload.load_workload(ROOT / "tools" / "serve" / "workloads" / "example_b.json")[1] == workload.EXAMPLE_B
    name, reqs = workload.load_workload(ROOT / "tools" / "serve" / "workloads" / "short.csv")
    assert name == "short" and [q.tokens for q in reqs] == [6, 3, 9, 2, 5]
    bad = tmp_path / "w.txt"
    bad.write_text("x")
    with pytest.raises(ValueError, match=r"\.json or \.csv"):
        workload.load_workload(bad)
    with pytest.raises(ValueError, match="none.json: No such file"):
        workload.load_workload(tmp_path / "none.json")


def test_bad_request_rejected_and_nothing_lost_for_the_others():
    sch = serving.Scheduler("continuous", 2, 4, 3)
    sch.submit(workload.Request("ok1", 5, 0))
    for bad, match in ((workload.Request("long", 65, 0), "request 'long': 65 tokens"),
                       (workload.Request("zero", 0, 0), "request 'zero': zero tokens"),
                       (workload.Request("ok1", 3, 0), "request 'ok1': duplicate id"),
                       (workload.Request("big", 13, 0),
                        "request 'big': needs 4 blocks of 4 tokens, the pool has only 3")):
        with pytest.raises(ValueError, match=match):
            sch.submit(bad)
    assert [q.id for q in sch.requests] == ["ok1"]
    # a workload with bad requests, served leniently: the others run and check out
    reqs = [workload.Request("a", 5, 0), workload.Request("long", 70, 0), workload.Request("b", 4, 1),
            workload.Request("a", 2, 0), workload.Request("c", 3, 0)]
    p = serving.plan(reqs, "continuous", 2, 4, 3, strict=False)
    assert [q.id for q in p.requests] == ["a", "b", "c"]
    assert [q.id for q, _ in p.rejected] == ["long", "a"]
    assert oracle.reference_run(p, MODEL, tag="lenient")["problems"] == []
    with pytest.raises(ValueError, match="request 'long'"):
        serving.plan(reqs, "continuous", 2, 4, 3)


def test_pool_too_small_for_any_request():
    with pytest.raises(ValueError, match="request 'A': needs 4 blocks of 4 tokens, the pool has only 2"):
        serving.plan(workload.EXAMPLE_B, "static", 4, 4, 2)
    with pytest.raises(ValueError, match="at least one block"):
        serving.plan(workload.EXAMPLE_B, "static", 4, 4, 0)
    with pytest.raises(ValueError, match="capacity 9"):
        serving.plan(workload.EXAMPLE_B, "static", 9, 4, 20)


def test_config_for_grows_the_external_memory():
    lay = paged.make_layout(4, 200, [64] * 10)
    cfg = serving.config_for(lay)
    assert cfg.ext_words >= lay.ext_words and cfg.sp_words == config.CH09.sp_words
    with pytest.raises(ValueError, match="65536"):
        serving.config_for(paged.make_layout(64, 200, [64] * 40))
