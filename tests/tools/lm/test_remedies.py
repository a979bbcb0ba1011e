"""The chapter's remedies on the reference chip (model.machine), against their integer
reference written from docs/lm.md's numerics (tools/lm/remedies_ref.py), never against the
builder's arithmetic: every generated id and every row the cache holds at the end (its
values, and a 4-bit cache's packed words), the scratchpad garbage before every step;
batch invariance; bad options refused."""
from functools import cache

import numpy as np
import pytest

from model import timing
from model.machine import Machine
from tools.lm import compiler as C
from tools.lm import data
from tools.lm import generation as G
from tools.lm import remedies_ref as REF
from tools.lm.check import run_on_machine as check_run
from tools.lm.generate import load_model

TEXT = load_model("text")
TEXT4 = load_model("text", kv_bits=4)


@cache
def model(task, kv_heads=0, kv_bits=8):
    return load_model(task, kv_heads=kv_heads, kv_bits=kv_bits)


def text(s):
    return [int(t) for t in data.encode(s)]


def run_on_machine(g, seed=0):
    """Every step of g on the reference chip of its layout (tools/lm/check.py)."""
    return check_run(g, g.layout.chip, seed)


def check(m, g, ext):
    """Tokens and cache rows equal to the reference's; the generated ids."""
    rem = g.remedies
    toks = g.tokens(ext)
    for b, p in enumerate(g.prompts):
        want, kv = REF.decode(m, p, g.new[b], rem.window, rem.sinks)
        assert toks[b] == want, (b, toks[b], want)
        T = len(p) + g.new[b] - 1
        held = list(np.nonzero(REF.attended(T, rem.window, rem.sinks)[T - 1])[0])
        for i in range(m.cfg.layers):
            for kind in (0, 1):
                pos, words, vals = G.cache_rows(g, ext, i, kind, b)
                assert pos == held, (b, pos, held)
                assert np.array_equal(vals, kv[i][kind][pos]), (b, i, kind)
                if rem.kv_bits == 4:
                    assert np.array_equal(words, REF.pack4(kv[i][kind][pos]))
                    assert words.shape[1] == m.cfg.dk // 2        # half the words
    return toks


CASES = {
    "gqa-add": (("add", 1), C.Remedies(), [data.add_problem(a, b)[:4] for a, b in
                                        ((12, 34), (99, 99), (7, 80))], 3),
    "gqa-text": (("text", 1), C.Remedies(), [text("The "), text("def ")], 6),
    "kv4": (("text", 0, 4), C.Remedies(kv_bits=4), [text("The "), text("A list is ")], 6),
    "window": (("text",), C.Remedies(window=8, sinks=2), [text("The "), text("x")], 12),
    "window-no-sinks": (("text",), C.Remedies(window=6), [text("def ")], 9),
    "tiles": (("text",), C.Remedies(tile=4), [text("The "), text("class ")], 7),
    "all": (("text", 1, 4),
            C.Remedies(kv_bits=4, window=8, sinks=2, tile=4), [text("The "), text("x")], 10),
}


@pytest.mark.parametrize("mode", [pytest.param("inorder", marks=pytest.mark.long), "overlap"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_remedy_equals_the_reference(case, mode):
    name, rem, prompts, n = CASES[case]
    m = model(*name)
    g = G.generation(m, prompts, n, rem, mode, start=[k % 2 for k in range(len(prompts))])
    check(m, g, run_on_machine(g, seed=len(prompts)))


def test_addition_with_one_kv_head_adds():
    probs = [(47, 85), (3, 4), (50, 50), (99, 1)]
    m = model("add", 1)
    g = G.generation(m, [data.add_problem(a, b)[:4] for a, b in probs], 3, C.Remedies())
    toks = check(m, g, run_on_machine(g))
    assert toks == [[int(c) for c in f"{a + b:03d}"[::-1]] for a, b in probs]


@pytest.mark.long
def test_long_context_past_the_learned_positions():
    # a context of 70 > 64 positions (69 fed): tiles of 64 (auto), position 64 on takes row 63
    g = G.generation(TEXT, [text("ab" * 33)], 4, C.Remedies())
    assert g.layout.tile == 64 and g.layout.n_max == 69          # 69 positions fed
    check(TEXT, g, run_on_machine(g))


@pytest.mark.long
def test_batch_invariance():
    # a sequence's tokens are the same alone and in a ragged batch, with every remedy on
    m, rem = model("text", 1, 4), C.Remedies(kv_bits=4, window=6, sinks=1, tile=4)
    prompts = [text(w) for w in ("The ", "def ", "x", "A list is ", "for ")]
    alone = []
    for p in prompts[:2]:
        g = G.generation(m, [p], 8, rem)
        alone.append(g.tokens(run_on_machine(g))[0])
    g = G.generation(m, prompts, [8, 8, 3, 5, 2], rem, start=[0, 3, 1, 0, 2])
    toks = check(m, g, run_on_machine(g, seed=5))
    assert toks[:2] == alone


def test_default_remedies_time_as_the_unmodified_step():
    # Remedies() is the unmodified model in the tiled plan: the same cycles as the whole
    # plan's step where both fit (its programs are pinned: test_program_digests.py)
    for B, T in ((1, 8), (4, 16), (8, 12)):
        g = G.Generation(TEXT, [[1] * (T - 1)] * B, 1, chip=C.LM_CHIP_OVERLAP)
        base = timing.schedule(C.step_program(TEXT, g.layout, g.steps[-1]), g.layout.chip)
        r = G.generation(TEXT, [[1] * (T - 1)] * B, 1, C.Remedies())
        rem = timing.schedule(C.step_program(TEXT, r.layout, r.steps[-1]), r.layout.chip)
        assert rem.counters.cycles == base.counters.cycles, (B, T)


def test_live_positions_are_what_the_next_step_attends():
    for W, S in ((8, 2), (6, 0), (5, 4)):
        g = G.generation(TEXT, [text("The ")], 20, C.Remedies(window=W, sinks=S))
        ok = REF.attended(30, W, S)
        for t in range(25):
            assert g.layout.live(t) == [u for u in range(t + 1) if ok[t + 1, u]], (W, S, t)
            assert len(g.layout.live(t)) <= W
        # the ring: the slots of the positions live together are distinct, and < W
        for t in range(25):
            slots = [g.remedies.slot(u) for u in g.layout.attended(t)]
            assert len(set(slots)) == len(slots) and max(slots) < W


def test_a_4bit_step_moves_half_the_cache_words():
    words = {}
    for name, m, rem in (("8", TEXT, C.Remedies()), ("4", TEXT4, C.Remedies(kv_bits=4))):
        g = G.generation(m, [[1] * 31] * 2, 1, rem)
        prog = C.step_program(m, g.layout, g.steps[-1])
        words[name] = sum(i.len for i in prog if i.op in ("LD", "ST") and
                          (i.src if i.op == "LD" else i.dst) >= g.layout.kv0)
    assert 2 * words["4"] == words["8"]


@pytest.mark.parametrize("kw, msg", [
    (dict(kv_bits=3), "kv_bits must be 4 or 8"),
    (dict(window=1), "window must be"),
    (dict(window=-4), "window must be"),
    (dict(window=8, sinks=8), "sinks must be"),
    (dict(sinks=2), "sinks must be"),
    (dict(tile=256), "tile must be"),
    (dict(tile=True), "must be an integer"),
])
def test_bad_remedies(kw, msg):
    with pytest.raises(ValueError, match=msg):
        C.Remedies(**kw)


@pytest.mark.parametrize("m, rem, prompts, new, msg", [
    (TEXT, C.Remedies(kv_bits=4), [[1]], 2, "needs a model exported for it"),
    (TEXT4, C.Remedies(), [[1]], 2, "needs a model exported for it"),
    (TEXT, C.Remedies(), [[1] * 1100], 2, "softmax takes at most"),
    (TEXT, C.Remedies(), [[1] * 1000] * 17, 2, "scratchpad"),
    (TEXT, C.Remedies(), [[1]], 0, ">= 1"),
])
def test_bad_generations(m, rem, prompts, new, msg):
    with pytest.raises(ValueError, match=msg):
        G.generation(m, prompts, new, rem)


def test_the_integer_reference_without_remedies_is_int8_model():
    X = np.array([text("The quick brown fox jumps over ")] * 2)
    assert np.array_equal(REF.forward(TEXT, X)[0], TEXT.logits(X))


@pytest.mark.parametrize("T, B, kw", [(65, 2, {}), (130, 2, dict(tile=16)), (256, 2, {}),
                                      (256, 1, dict(kv_bits=4))],
                         ids=["T65", "T130-tile16", "T256", "T256-kv4"])
def test_tiled_long_contexts_equal_the_reference(T, B, kw):
    # one step at position T - 1 after a cache the host prefills from the reference
    # (tools/lm/long.py): the next tokens and the rows written against the reference
    from tools.lm import long
    rem = C.Remedies(**kw)
    m = model("text", 0, rem.kv_bits) if T <= 64 else load_model("text", kv_bits=rem.kv_bits, ctx=T)
    gen, ext, prog, want = long.case(m, rem, B, T)
    assert gen.layout.tile < T
    assert long.judge(gen, Machine(gen.layout.chip).run(prog, ext).ext, want) == []


@pytest.mark.long
def test_a_context_of_1024_equals_the_reference():
    from tools.lm import long
    assert long.main(["--ctx", "1024", "--batch", "1"]) == 0


def test_sweep_packs_steps_into_simulator_jobs():
    """remedies_sweep.jobs: consecutive steps of one chip up to job_cycles predicted cycles a
    job; a step above the limit alone; a new chip configuration starts a new job."""
    from tools.lm.remedies_sweep import jobs
    a, b = C.chip_config("overlap"), C.chip_config("inorder")
    items = [(None, None, cfg, c, k) for k, (cfg, c) in
             enumerate([(a, 300), (a, 600), (a, 500), (a, 1500), (b, 100), (b, 100), (a, 10)])]
    got = [[it[4] for it in job] for job in jobs(items, 1000)]
    assert got == [[0, 1], [2], [3], [4, 5], [6]]


def test_the_pipelined_order_takes_the_remedies():
    # the tiled plan with the description's pipeline on: twelve rows get the pipelined
    # order's six weight buffers, the overlap steps whichever order the timing model finds
    # faster (the pipelined one where all twelve rows step), every token and cached row
    # still the reference's
    from tools.lm.compiler.emit import Step
    m, rem = model("text", 1, 4), C.Remedies(kv_bits=4, window=8, sinks=2)
    prompts = [text(("The quick brown fox jumps " * 2)[k:k + 7]) for k in range(12)]
    g = G.generation(m, prompts, 2, rem, pipeline=True)
    assert g.layout.weight_buffers == C.PIPE_BUFFERS and g.desc.attention == "tiled"
    check(m, g, run_on_machine(g, seed=12))
    rows = g.steps[-2]                   # twelve rows at position 6, every one generating
    assert len(rows) == 12 and all(r.write for r in rows)
    plain, piped = (Step(m, g.layout, rows, None, pipe).program() for pipe in (False, True))
    assert C.step_program(m, g.layout, rows) == piped != plain
    assert timing.schedule(piped, g.layout.chip).cycles < timing.schedule(plain, g.layout.chip).cycles
    # without it (the default: today's programs) the same rows keep four buffers
    assert G.generation(m, prompts, 2, rem).layout.weight_buffers == C.WEIGHT_BUFFERS
