"""The chapter's remedies in the language-model server (lm_engine.Server(remedies=),
lm_memory with remedied rows and windowed tables; docs/serving_lm.md "Remedies in the
server") on the reference chip: per remedy (the multi-query model, the 4-bit cache, a
window with sinks, all three) a workload of long prompts whose tokens equal each request
decoded alone by tools/lm/remedies_ref.py (greedy, written from docs/lm.md's numerics:
no instructions, no addresses), the pool's invariant clean before every step, the pool's
row the remedy's width; with the window, blocks returned to the pool while requests run
and no request holding more than its window's blocks, the reservation bounded by the
window, preemption by recompute still exact; a block returned one step early and blocks
never returned both caught. Speculative decoding with every remedy (tiles, the 4-bit
cache, the window, one KV head, all four) and a tiled server: every request's tokens
those of it decoded alone."""
import pytest

from tools.lm import compiler as C
from tools.lm import data, generate
from tools.lm import remedies_ref as REF
from tools.serve import lm_engine as E
from tools.serve import lm_memory as lmm
from tools.serve import requests as rq

STOP = tuple(int(t) for t in data.encode(" .\n"))       # docs/serving_lm.md: space, ".", newline
W, S = 8, 2
# name: (kv_heads, kv_bits, remedies, the pool's row in words)
CASES = {"kv_heads 1": (1, 8, None, 16), "kv_bits 4": (0, 4, C.Remedies(kv_bits=4), 16),
         "window": (0, 8, C.Remedies(window=W, sinks=S), 32),
         "all three": (1, 4, C.Remedies(kv_bits=4, window=W, sinks=S), 8)}
_models = {}


def _model(kvh, bits):
    if (kvh, bits) not in _models:
        _models[kvh, bits] = generate.load_model("text", kv_heads=kvh, kv_bits=bits)
    return _models[kvh, bits]


def _reqs(n=3):
    return rq.poisson(n, 60, seed=1, prompt_len=(16, 22), max_new=(6, 10))


def _alone(model, reqs, rem):
    """Each request decoded alone by remedies_ref.greedy, cut after its first stop token."""
    w, s = (rem.window, rem.sinks) if rem is not None else (0, 0)
    out = []
    for q in reqs:
        p = [int(t) for t in data.encode(q.prompt)]
        ids = REF.greedy(model, p, q.max_new, w, s)[len(p):]
        out.append(ids[:next((i + 1 for i, t in enumerate(ids) if t in STOP), len(ids))])
    return out


def _held(run):
    """Per request the most blocks its table held at a step."""
    peak = {}
    for st in run.steps:
        for b, t in st.tables.items():
            peak[b] = max(peak.get(b, 0), sum(x is not None for x in t))
    return peak


@pytest.mark.parametrize("name", CASES)
def test_each_remedy_serves_every_request_as_alone(name):
    kvh, bits, rem, row = CASES[name]
    model, reqs = _model(kvh, bits), _reqs()
    alone = _alone(model, reqs, rem)
    run = E.serve(model, reqs, "text", "preempt", "chunked", 8, remedies=rem)
    assert run.problems == []                   # the pool's invariant, isolation, timing
    assert run.tokens == alone
    assert E.check_run(run, model, "text", alone) == []
    assert run.mm.pool.row_words == row
    if rem is not None and rem.window:
        bt = run.mm.pool.bt
        returned = sum(x is None for st in run.steps for t in st.tables.values() for x in t)
        assert returned > 0                     # blocks left the window while requests ran
        longest = max(range(len(reqs)), key=lambda b: len(rq.ids("text", reqs[b])) + len(alone[b]))
        full = -(-(len(rq.ids("text", reqs[longest])) + len(alone[longest]) - 1) // bt)
        bound = -(-S // bt) + -(-(W - S + lmm.ROWS - 2) // bt) + 1
        assert max(_held(run).values()) <= bound < full


def test_the_window_changes_what_is_generated():
    """The windowed reference is not the unwindowed one on these prompts (so the served
    tokens above are the window's, not an accident)."""
    model, reqs = _model(0, 8), _reqs()
    assert _alone(model, reqs, C.Remedies(window=W, sinks=S)) != _alone(model, reqs, None)


def test_reservation_is_bounded_by_the_window_and_preemption_recomputes():
    """A 6-block pool: the unmodified model refuses a request needing 8 blocks; with the
    window it is served (reserve: at most the window's blocks reserved), and under preempt
    the pool runs out and preempted requests are recomputed to the same tokens."""
    model = _model(0, 8)
    reqs = rq.poisson(3, 200, seed=5, prompt_len=(20, 22), max_new=(9, 10))
    rem = C.Remedies(window=W, sinks=S)
    with pytest.raises(ValueError, match="blocks"):
        E.serve(model, reqs, "text", "reserve", "whole", 6)
    alone = _alone(model, reqs, rem)
    for pol in ("reserve", "preempt"):
        run = E.serve(model, reqs, "text", pol, "chunked", 6, remedies=rem)
        assert run.problems == [] and run.tokens == alone, pol
        assert (sum(run.preemptions) > 0) == (pol == "preempt")


class _Early(E.Server):
    """A planted bug: each window block returned one position (so, at a block's end, one
    step) early."""

    def retire_window(self, b):
        self.fed[b] += 1
        super().retire_window(b)
        self.fed[b] -= 1


class _Never(E.Server):
    """A planted bug: window blocks never returned."""

    def retire_window(self, b):
        pass


@pytest.mark.parametrize("server,found", [(_Early, "does not hold"), (_Never, "more than a window")])
def test_planted_release_bugs_are_caught(server, found):
    model, reqs = _model(0, 8), _reqs()
    run = server(model, reqs, "text", "preempt", "chunked", 12,
                 remedies=C.Remedies(window=W, sinks=S)).run()
    assert any(found in p for p in run.problems), run.problems[:3]
    assert E.check_run(run, model, "text", _alone(model, reqs, C.Remedies(window=W, sinks=S)))


def test_the_same_pool_words_hold_more_blocks():
    """A row of row_words words: the multi-query 4-bit model's pool of 4x the blocks takes
    the unmodified one's words."""
    base = lmm.MemoryMap(_model(0, 8), 4, 12)
    small = lmm.MemoryMap(_model(1, 4), 4, 48, remedies=C.Remedies(kv_bits=4))
    assert small.pool.words == base.pool.words and small.pool.row_words * 4 == base.pool.row_words
    with pytest.raises(ValueError, match="4-bit"):
        lmm.MemoryMap(_model(0, 8), 4, 12, remedies=C.Remedies(kv_bits=4))


# Speculative decoding and tiles take every remedy (the step compiler's tiled plan): the
# main model remedied, the draft the unmodified draft model; every request's tokens those
# of remedies_ref's greedy decoding of it alone, whatever the draft proposed.
SPEC_CASES = {"tiles of 4": (0, 8, dict(tile=4)), "kv_bits 4": (0, 4, dict(kv_bits=4)),
              "window 8, 2 sinks": (0, 8, dict(window=8, sinks=2)), "kv_heads 1": (1, 8, {}),
              "all four": (1, 4, dict(kv_bits=4, window=6, sinks=1, tile=4))}


@pytest.mark.parametrize("name", SPEC_CASES)
def test_speculative_decoding_takes_every_remedy(name):
    from tools.serve import spec as SP
    kvh, bits, kw = SPEC_CASES[name]
    net, rem = _model(kvh, bits), C.Remedies(**kw)
    reqs = rq.poisson(2, 10, seed=3, prompt_len=(4, 8), max_new=(8, 8), ctx=SP.SPEC_CTX)
    alone = [REF.greedy(net, rq.ids("text", q), q.max_new, rem.window, rem.sinks)[-q.max_new:]
             for q in reqs]
    if rem.window:                       # the window decides these tokens (not an accident)
        assert alone != [REF.greedy(net, rq.ids("text", q), q.max_new)[-q.max_new:] for q in reqs]
    returned = 0
    for k in (0, 2, 4):
        run, proposed, accepted = SP.spec_serve(net, SP.load_draft(), reqs, k, remedies=rem)
        assert run.problems == []        # the pool's invariant, isolation, timing
        assert run.tokens == alone, k
        assert E.check_run(run, net, "text", alone) == []
        assert (proposed > 0) == (k > 0) and 0 <= accepted <= proposed
        verify = [st for st in run.steps if st.kind == "verify"]
        if k:                            # several rows of one sequence in a verify step
            assert max(len(st.rows) for st in verify) > len(reqs)
        assert run.mm.lay.desc.attention == "tiled" and run.mm.dlay.desc.attention == "whole"
        if rem.tile:                     # the main model's attention in tiles
            assert run.mm.lay.tile == rem.tile and any(
                i.op == "MM" and i.acc for st in run.steps if not st.kind.startswith("draft")
                for i in st.program)
        returned += sum(x is None for st in run.steps for t in st.tables.values() for x in t)
    assert (returned > 0) == bool(rem.window)   # blocks left the window while requests ran


@pytest.mark.parametrize("kvh, bits, kw", [(0, 8, dict(tile=4)), (1, 4, dict(kv_bits=4, window=W,
                                                                              sinks=S, tile=4))],
                         ids=["tiles", "all four"])
def test_a_tiled_server_serves_every_request_as_alone(kvh, bits, kw):
    net, rem = _model(kvh, bits), C.Remedies(**kw)
    reqs = _reqs()
    alone = _alone(net, reqs, rem)
    run = E.serve(net, reqs, "text", "preempt", "chunked", 8, remedies=rem)
    assert run.problems == [] and run.tokens == alone
    assert E.check_run(run, net, "text", alone) == []
    assert run.mm.lay.tile == 4
    assert any(i.op == "MM" and i.acc for st in run.steps for i in st.program)   # tiles summed
