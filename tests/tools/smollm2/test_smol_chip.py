"""SmolLM2 on the chip: cut-downs of the real weights compiled by the step compiler's wide
path (tools/lm/compiler/wide.py) and run on the cycle-exact Machine and on both simulated
RTLs, every generated token and every cached K and V row (values and scale words) held to
the integer reference (tools/smollm2/int_ref.py, written from the pipeline's statement),
and the memory image held word for word to the weights at the addresses the layout's
documentation states (computed here, not by the layout)."""
import numpy as np
import pytest

from model.wide import sc_of
from tools.lm.compiler import LM_CHIP, LM_CHIP_OVERLAP
from tools.smollm2 import chip, int_ref, intweights

PROMPT = [17, 300, 45, 2, 99, 511]          # ids of the 512-row cut (six: two prefill steps)


@pytest.fixture(scope="module")
def gqa(model):
    """Two layers, one KV head with its three query heads (GQA 3 : 1), 256 FFN channels,
    512 vocabulary rows: d = 192."""
    return intweights.cut(model, layers=2, kv_heads=1, ffn=256, vocab=512)


@pytest.fixture(scope="module")
def tiny(model):
    """Small enough for the LM chips' 65,536-word external memory: two layers of one head,
    32 FFN channels, 64 vocabulary rows (d = 64)."""
    return intweights.cut(model, layers=2, kv_heads=1, ffn=32, vocab=64, group=1)


@pytest.fixture(scope="module")
def tiny1(model):
    """tiny's first layer alone: Icarus's cut (about 8 s of Icarus's CPU with two layers; the
    layer-to-layer hand-off runs on Verilator and on the Machine)."""
    return intweights.cut(model, layers=1, kv_heads=1, ffn=32, vocab=64, group=1)


def _held_to_reference(W, gen, out, prompt, new):
    """The chip's tokens and its cache (every layer, KV head, kind, position) equal a fresh
    integer reference's (its weighted sum of V in the layout's tiles of keys)."""
    ref = int_ref.IntRef(W, pv_tile=gen.layout.pv_tile)
    assert out.error == "" and out.steps_ok
    assert out.tokens == ref.generate(prompt, new)
    n = len(prompt) + new - 1                      # the positions fed
    c = W.config
    for layer in range(c.n_layer):
        for g in range(c.n_kv_head):
            for kind, rows, scales in ((0, ref.cache.k8, ref.cache.ks), (1, ref.cache.v8, ref.cache.vs)):
                got_rows, got_scales = gen.cache(out.ext, layer, kind, g, n)
                assert np.array_equal(got_rows, rows[layer, g, :n]), (layer, g, kind)
                assert np.array_equal(got_scales, scales[layer, g, :n]), (layer, g, kind)


@pytest.mark.parametrize("mode,chunk", [("inorder", 2048), ("overlap", 2048), ("overlap", 192)])
def test_gqa_cut_on_the_machine_equals_the_integer_reference(gqa, mode, chunk):
    """chunk 192: the head's 512 logits in chunks of 48 (4 rows) or 192 (1 row), the
    running ARGMAX pair carried across them."""
    gen = chip.SmolGeneration(gqa, PROMPT, 4, chip=chip.CUT_CHIP.replace(mode=mode), vocab_chunk=chunk)
    assert [len(rows) for rows in gen.steps] == [4, 2, 1, 1, 1]       # prefill 4 + 2, decode
    out = chip.run(gen, "model")
    _held_to_reference(gqa, gen, out, PROMPT, 4)
    assert len(set(out.tokens)) > 1                 # not a constant: the test can tell tokens apart


@pytest.mark.parametrize("mode", ["inorder", "overlap"])
def test_weighted_sum_of_v_in_tiles_of_keys(gqa, mode):
    """pv_tile 3: past 3 keys each tile of the weighted sum of V is QNT'd, multiplied and
    requantized alone and the tiles added (what tiles of 512 do past 512 keys, so that no
    int32 sum wraps): tokens and cache equal to IntRef(pv_tile=3), which the test tells
    apart from the one-tile reference (their caches differ)."""
    gen = chip.SmolGeneration(gqa, PROMPT, 4, chip=chip.CUT_CHIP.replace(mode=mode), pv_tile=3)
    adds = [sum(i.op == "ADD" for i in p) for p in gen.programs()]
    plain = [sum(i.op == "ADD" for i in p)
             for p in chip.SmolGeneration(gqa, PROMPT, 4, chip=chip.CUT_CHIP.replace(mode=mode)).programs()]
    assert all(a > b for a, b in zip(adds, plain))          # the tiles' ADDs, every step
    out = chip.run(gen, "model")
    _held_to_reference(gqa, gen, out, PROMPT, 4)
    one, tiled = int_ref.IntRef(gqa), int_ref.IntRef(gqa, pv_tile=3)
    one.generate(PROMPT, 4)
    tiled.generate(PROMPT, 4)
    assert not np.array_equal(one.cache.k8[1, 0, :9], tiled.cache.k8[1, 0, :9])


def test_overlap_decode_step_is_memory_bound(gqa):
    """A B = 1 decode step in the overlap mode: the DMA busy in at least 98% of its cycles
    (the chip's counters)."""
    out = chip.run(chip.SmolGeneration(gqa, PROMPT, 3, chip=chip.CUT_CHIP), "model")
    c = out.counters[-1]
    assert int(c.dma) >= 0.98 * int(c.cycles)


@pytest.mark.parametrize("sim,cfg,new,window", [("verilator", LM_CHIP, 2, True),
                                                ("icarus", LM_CHIP_OVERLAP, 1, False)],
                         ids=["verilator-inorder-window", "icarus-overlap"])
def test_tiny_cut_on_the_circuit(tiny, tiny1, sim, cfg, new, window):
    """Every step equal to the reference Machine (memory and counters; with the read-back
    window the whole model uses, its words and every write in it), the tokens and the
    cache equal to the integer reference."""
    from tb import hw
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")
    # Icarus (the 4-state run): two prefill rows through one layer
    W, prompt = (tiny, [17, 30, 45]) if sim == "verilator" else (tiny1, [17, 30])
    gen = chip.SmolGeneration(W, prompt, new, chip=cfg)
    out = chip.run(gen, sim, window=window)
    assert isinstance(out.ext, chip.Window) == window
    _held_to_reference(W, gen, out, prompt, new)


def test_memory_image_word_for_word(gqa):
    """The image against the weights at the addresses docs/smollm2.md states: embed, then
    per layer wq, wk, wv, wo, wg, wu, wd (out x in) each followed by its out scale words,
    head, its scale words, the rope rows, 65 words of the scale 1.0, the token area; every
    row of every matrix (the first and last rows of the embedding and head included),
    every other word zero."""
    from model.ops.rope import rope_table
    W, ctx = gqa, 16
    gen = chip.SmolGeneration(W, PROMPT, 4, chip=chip.CUT_CHIP, ctx=ctx)
    ext = gen.image()
    c = W.config
    d, dk, f, V = c.d, c.n_kv_head * c.head_dim, c.ffn, c.vocab
    at = 0
    seen = np.zeros(len(ext), bool)

    def expect(arr):
        nonlocal at
        a = np.asarray(arr, dtype=np.int64).reshape(-1)
        assert np.array_equal(ext[at:at + a.size], a), f"words {at}..{at + a.size - 1}"
        seen[at:at + a.size] = True
        at += a.size

    expect(W.embed12)
    for L in W.layers:
        for w, cs, shape in ((L.wq, L.csq, (d, d)), (L.wk, L.csk, (dk, d)), (L.wv, L.csv, (dk, d)),
                             (L.wo, L.cso, (d, d)), (L.wg, L.csg, (f, d)), (L.wu, L.csu, (f, d)),
                             (L.wd, L.csd, (d, f))):
            assert w.shape == shape
            expect(w)
            expect(cs)
    head_at = at
    expect(W.head)
    expect(W.csh)
    expect(rope_table(ctx))
    expect([sc_of(1)] * 65)
    expect(PROMPT)
    assert not ext[~seen].any()
    # the rows the prompts never touch, named: the embedding's and the head's first and last
    assert np.array_equal(ext[(V - 1) * d:V * d], W.embed12[V - 1])
    assert np.array_equal(ext[head_at:head_at + d], W.head[0])
    assert np.array_equal(ext[head_at + (V - 1) * d:head_at + V * d], W.head[V - 1])


def test_bad_generations_are_refused(gqa):
    with pytest.raises(ValueError, match="empty prompt"):
        chip.SmolGeneration(gqa, [], 2)
    with pytest.raises(ValueError, match="outside 0..511"):
        chip.SmolGeneration(gqa, [512], 2)
    with pytest.raises(ValueError, match=">= 1"):
        chip.SmolGeneration(gqa, [1], 0)
    with pytest.raises(ValueError, match="beyond"):
        chip.SmolGeneration(gqa, [1, 2, 3], 4, ctx=6)


@pytest.mark.parametrize("mode", ["inorder", "overlap"])
def test_batched_decode_on_the_machine_equals_each_integer_reference(gqa, mode):
    """Five sequences (two row groups of the array: 4 + 1) prefilled alone, then decode
    steps of all five rows at ragged positions (prompts of 6, 1, 3, 2 and 5 tokens): each
    sequence's tokens and its whole cache equal its own integer reference's, as decoded
    alone."""
    prompts = [PROMPT, [7], [400, 3, 250], [33, 34], [5, 6, 7, 8, 9]]
    new = 3
    gen = chip.SmolBatch(gqa, prompts, new, chip=chip.CUT_CHIP.replace(mode=mode))
    assert [len(rows) for rows in gen.steps[-2:]] == [5, 5]
    assert sorted({r.t for r in gen.steps[-1]}) == [2, 3, 4, 6, 7]       # ragged positions
    out = chip.run(gen, "model")
    assert out.error == "" and out.steps_ok
    c = gqa.config
    for b, p in enumerate(prompts):
        ref = int_ref.IntRef(gqa)
        assert out.tokens[b] == ref.generate(p, new), b
        n = len(p) + new - 1
        for layer in range(c.n_layer):
            for g in range(c.n_kv_head):
                for kind, rows, scales in ((0, ref.cache.k8, ref.cache.ks), (1, ref.cache.v8, ref.cache.vs)):
                    got_rows, got_scales = gen.cache(out.ext, layer, kind, g, n, b)
                    assert np.array_equal(got_rows, rows[layer, g, :n]), (b, layer, g, kind)
                    assert np.array_equal(got_scales, scales[layer, g, :n]), (b, layer, g, kind)
    assert len({tuple(t) for t in out.tokens}) > 1        # the sequences tell apart
