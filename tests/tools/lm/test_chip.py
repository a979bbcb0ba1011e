"""The model's step programs on the reference chip (model.machine), against the integer
reference written from the spec (tools/lm/int8.py: greedy decoding of the whole sequence,
and the KV cache it implies), never against the builder's own arithmetic.

Each generation runs on a fresh Machine; before every step the scratchpad is filled with
garbage (the chip's state between steps is its external memory only).
"""
import numpy as np
import pytest

from model import isa, timing
from model.machine import GA2Error, Machine
from tools.lm import compiler as C
from tools.lm import data
from tools.lm.check import run_on_machine
from tools.lm.generation import Generation
from tools.lm.int8 import Int8Model, greedy

W = data.__file__.rsplit("/", 1)[0] + "/weights"
TEXT = Int8Model.load(f"{W}/text_int8.npz")
ADD = Int8Model.load(f"{W}/add_int8.npz")


def reference(model, prompt, n):
    ids = greedy(model.logits, np.array([prompt]), n, model.cfg.ctx)[0]
    return ids[len(prompt):].tolist(), model.cache(ids[None, :-1])


def check(model, g, ext):
    toks = g.tokens(ext)
    for b, p in enumerate(g.prompts):
        want, kv = reference(model, p, g.new[b])
        assert toks[b] == want, (b, toks[b], want)
        for i in range(model.cfg.layers):
            for kind in (0, 1):
                assert np.array_equal(g.cache(ext, i, kind, b), kv[i][kind][0]), (b, i, kind)
    return toks


def text(s):
    return [int(t) for t in data.encode(s)]


@pytest.mark.parametrize("cfg", [C.LM_CHIP, C.LM_CHIP_OVERLAP], ids=["inorder", "overlap"])
def test_text_generation_equals_the_reference(cfg):
    prompts = [text("The "), text("def "), text("A list is ")]
    g = Generation(TEXT, prompts, 8, chip=cfg)
    check(TEXT, g, run_on_machine(g, cfg))


@pytest.mark.parametrize("cfg", [C.LM_CHIP, C.LM_CHIP_OVERLAP], ids=["inorder", "overlap"])
def test_addition_on_the_chip(cfg):
    rng = np.random.default_rng(7)
    probs = [(int(a), int(b)) for a, b in rng.integers(0, 100, size=(16, 2))]
    prompts = [[int(t) for t in data.add_problem(a, b)[:4]] for a, b in probs]
    g = Generation(ADD, prompts, 3, chip=cfg)
    toks = check(ADD, g, run_on_machine(g, cfg))
    for (a, b), t in zip(probs, toks):           # the digits of a + b, reversed
        assert t == [int(c) for c in f"{a + b:03d}"[::-1]], (a, b, t)


# every B of 1..16 in make test-long; make test takes the ends and two between
INVARIANCE_BATCHES = [b if b in (1, 2, 5, 16) else pytest.param(b, marks=pytest.mark.long) for b in range(1, 17)]
INVARIANCE_WORDS = ["The ", "def ", "class ", "A list is ", "x", "Exceptions ", "for ", "import "]


@pytest.fixture(scope="module")
def invariance_prompts():
    return [text(INVARIANCE_WORDS[k % len(INVARIANCE_WORDS)]) for k in range(16)]


@pytest.fixture(scope="module")
def alone_tokens(invariance_prompts):
    """The first four prompts' tokens, each generated alone (4 tokens, in-order chip)."""
    out = []
    for p in invariance_prompts[:4]:
        g = Generation(TEXT, [p], 4)
        out.append(g.tokens(run_on_machine(g, C.LM_CHIP))[0])
    return out


@pytest.mark.parametrize("B", INVARIANCE_BATCHES)
def test_batch_invariance_ragged(B, invariance_prompts, alone_tokens):
    # a sequence's tokens are the same alone and in a batch of B (each of 1..16), with
    # different prompt lengths and start steps (rows of one step at different positions)
    rng = np.random.default_rng([3, B])
    start = [int(s) for s in rng.integers(0, 4, size=B)]
    new = [int(n) for n in rng.integers(1, 5, size=B)]
    new[:min(B, 4)] = [4] * min(B, 4)
    for cfg in (C.LM_CHIP, C.LM_CHIP_OVERLAP):
        g = Generation(TEXT, invariance_prompts[:B], new, start=start, chip=cfg)
        if B > 1:
            assert len({t for rows in g.steps for t in {r.t for r in rows}}) > 1
        toks = check(TEXT, g, run_on_machine(g, cfg, seed=B))
        assert toks[:min(B, 4)] == alone_tokens[:min(B, 4)]


def test_the_host_writes_nothing_between_steps():
    # each step program's reads of the external memory are the weights, the token area
    # and the KV cache: the generation's whole input is the first image
    g = Generation(TEXT, [text("ab"), text("c")], 3)
    m = Machine(C.LM_CHIP)
    ext = g.image()
    for prog in g.programs():
        ext = m.run(prog, ext).ext            # the previous step's memory, untouched
    assert g.tokens(ext) == [reference(TEXT, p, 3)[0] for p in g.prompts]


def test_weights_are_streamed_once_per_step():
    # every weight matrix but the tables is loaded exactly once per step, whatever the batch
    lay_words = {B: None for B in (1, 4, 8)}
    for B in lay_words:
        g = Generation(TEXT, [text("ab")] * B, 2)
        prog = C.step_program(TEXT, g.layout, g.steps[-1])
        lds = [i for i in prog if i.op == "LD" and i.len >= 32 * 32]
        assert sorted(i.src for i in lds) == sorted(
            g.layout.w[n] for n, _, _ in C.matrices(g.desc) if n not in ("wte", "wpe"))


def test_a_bad_token_id_on_chip_is_error_6():
    g = Generation(TEXT, [text("ab")], 2)
    ext = g.image()
    ext[g.layout.tokens] = TEXT.cfg.vocab            # an id past the table
    with pytest.raises(GA2Error) as ei:
        Machine(C.LM_CHIP).run(g.programs()[0], ext)
    assert ei.value.code == isa.ERR_INDEX


@pytest.mark.parametrize("kw, msg", [
    (dict(prompts=[[]], new=2), "empty prompt"),
    (dict(prompts=[[96]], new=2), "outside 0..95"),
    (dict(prompts=[[1] * 60], new=5), "exceed the context 64"),
    (dict(prompts=[[1]], new=0), ">= 1"),
    (dict(prompts=[[1]] * 17, new=40), "external memory"),
    (dict(prompts=[[1], [2]], new=[1]), "2 prompts but 1"),
])
def test_bad_generations(kw, msg):
    with pytest.raises(ValueError, match=msg):
        Generation(TEXT, kw["prompts"], kw["new"])


def test_overlap_steps_at_b4_reach_90_percent_of_their_ceiling():
    # B = 4 in the overlap mode: every step within 90% of the cycles its busiest unit
    # needs (the DMA here: the memory ceiling)
    g = Generation(TEXT, [text("The ")] * 4, 4, chip=C.LM_CHIP_OVERLAP)
    for prog in g.programs():
        c = timing.schedule(prog, C.LM_CHIP_OVERLAP).counters
        assert max(c.dma, c.mm, c.vec) >= 0.9 * c.cycles, c


# docs/lm.md's sweep table: the overlap step of B = 16 rows at position 7 (T = 8), the
# one step bound by the matrix unit; pinned at the published figure
B16_T8_OVERLAP_CYCLES = 37983


def test_overlap_step_b16_t8_reaches_90_percent_of_its_ceiling():
    g = Generation(TEXT, [[0] * 7] * 16, 1, chip=C.LM_CHIP_OVERLAP)
    assert g.layout.weight_buffers == C.PIPE_BUFFERS      # the pipelined step
    c = timing.schedule(C.step_program(TEXT, g.layout, g.steps[-1]), C.LM_CHIP_OVERLAP).counters
    assert c.mm == max(c.dma, c.mm, c.vec) == 34400, c         # the matrix unit binds
    assert c.cycles <= B16_T8_OVERLAP_CYCLES, c
    assert c.mm >= 0.9 * c.cycles, c



def test_in_order_step_b16_t8_takes_the_documented_113083_cycles():
    # the in-order chip's cycles are the sum of its instructions' (docs/lm.md's table):
    # the pipelined order of the same instructions costs what the unpipelined one did
    g = Generation(TEXT, [[0] * 7] * 16, 1)
    assert timing.schedule(C.step_program(TEXT, g.layout, g.steps[-1]), C.LM_CHIP).cycles == 113083


def test_sweep_says_where_the_binding_unit_idles():
    """tools/lm/sweep.py's overlap rows: the binding unit's idle cycles by cause
    (model/stalls.py), every one of the step's cycles it is not busy; none in-order."""
    from tools.lm import sweep
    row = sweep.measure(TEXT, 16, 8, C.LM_CHIP_OVERLAP, [])
    assert row["bound"] == row["idle_unit"] == "mm" and row["counters"]["mm"] == 34400
    assert sum(row["idle"].values()) == row["cycles"] - 34400 == 3583
    # docs/lm.md's figures
    assert [row["idle"][k] for k in ("own: raw on dma", "its FETCH and DECODE", "after its last instruction",
                                     "own: raw on vec")] == [1836, 926, 402, 377]
    assert "idle" not in sweep.measure(TEXT, 16, 8, C.LM_CHIP, [])
