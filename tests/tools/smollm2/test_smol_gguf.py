"""The reader: the pinned model's shapes and constants as its metadata states them, every
tensor's orientation; and a clear ValueError for every bad file -- another architecture,
other shapes, a missing or misshapen tensor, truncated bytes, garbage, a wrong hash."""
import numpy as np
import pytest
from conftest import small_gguf

from tools.smollm2 import fetch, gguf_model


def test_the_model_as_its_metadata_states_it(model):
    c = model.config
    assert (c.n_layer, c.d, c.n_head, c.n_kv_head, c.head_dim, c.ffn, c.vocab, c.ctx) == \
        (30, 576, 9, 3, 64, 1536, 49152, 8192)
    assert c.rope_base == 100000.0 and abs(c.eps - 1e-5) < 1e-11
    assert model.meta["general.architecture"] == "llama" and model.meta["tokenizer.ggml.pre"] == "smollm"
    assert (model.bos, model.eos) == (1, 2)
    assert len(model.tokens) == 49152 and len(model.merges) == 48900
    assert model.head is model.embed                     # tied: no output.weight in the file


def test_every_tensor_in_the_forward_pass_orientation(model):
    L = model.layers[7]
    assert model.embed.shape == (49152, 576) and model.out_norm.shape == (576,)
    assert (L.wq.shape, L.wk.shape, L.wv.shape, L.wo.shape) == ((576, 576), (192, 576), (192, 576), (576, 576))
    assert (L.w_gate.shape, L.w_up.shape, L.w_down.shape) == ((1536, 576), (1536, 576), (576, 1536))
    assert all(a.dtype == np.float32 for a in (L.wq, L.w_down, L.attn_norm, model.embed))
    n = model.embed.size + model.out_norm.size + sum(
        sum(getattr(x, f).size for f in ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"))
        for x in model.layers)
    assert n == 134_515_008


def test_q4_1_rows_are_blocks_of_32_with_16_levels(model):
    """Q4_1 keeps, per block of 32 inputs of a row, 16 evenly spaced levels (scale d, minimum m):
    every dequantized value is m + q d with q in 0..15 -- true only if the rows (out) and
    blocks (in) are the file's: a transposed matrix would mix blocks."""
    w = model.layers[0].w_gate[:64].reshape(64, -1, 32).astype(np.float64)
    lo, hi = w.min(axis=-1, keepdims=True), w.max(axis=-1, keepdims=True)
    step = (hi - lo) / 15
    q = (w - lo) / np.where(step > 0, step, 1)
    # a level's index is an integer up to the f16 scale's rounding (a few parts in 10^3)
    assert np.abs(q - np.round(q)).max() < 0.02
    wt = model.layers[0].w_gate.T[:64].reshape(64, -1, 32).astype(np.float64)   # the wrong orientation
    lo, hi = wt.min(axis=-1, keepdims=True), wt.max(axis=-1, keepdims=True)
    qt = (wt - lo) / np.where(hi > lo, (hi - lo) / 15, 1)
    assert np.abs(qt - np.round(qt)).max() > 0.2


def test_another_architecture_is_refused(tmp_path):
    p = small_gguf(tmp_path / "gpt2.gguf", arch="gpt2")
    with pytest.raises(ValueError, match=r"architecture 'gpt2', expected 'llama'"):
        gguf_model.read_gguf(p, sha256=None)


@pytest.mark.parametrize("key, value, says", [
    ("block_count", 24, "n_layer 24, expected 30"),
    ("attention.head_count_kv", 9, "n_kv_head 9, expected 3"),
    ("rope.freq_base", 10000.0, "rope_base 10000.0, expected 100000.0"),
    ("rope.dimension_count", 32, "RoPE over 32 dims"),
])
def test_another_shape_is_refused(tmp_path, key, value, says):
    p = small_gguf(tmp_path / "m.gguf", meta={key: value})
    with pytest.raises(ValueError, match=says):
        gguf_model.read_gguf(p, sha256=None)


def test_a_missing_and_a_misshapen_tensor_are_refused(tmp_path):
    p = small_gguf(tmp_path / "none.gguf")
    with pytest.raises(ValueError, match="tensor token_embd.weight missing"):
        gguf_model.read_gguf(p, sha256=None)
    p = small_gguf(tmp_path / "small.gguf", tensors={"token_embd.weight": np.zeros((10, 576))})
    with pytest.raises(ValueError, match=r"token_embd.weight has shape \(10, 576\), expected \(49152, 576\)"):
        gguf_model.read_gguf(p, sha256=None)


def test_truncated_garbage_and_empty_files_are_refused(tmp_path):
    p = small_gguf(tmp_path / "t.gguf", tensors={"token_embd.weight": np.ones((100, 576))})
    blob = p.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(blob[:len(blob) - 1000])             # the tensor's bytes cut short
    with pytest.raises(ValueError, match="cut.gguf: not a readable GGUF"):
        gguf_model.read_gguf(cut, sha256=None)
    head = tmp_path / "head.gguf"
    head.write_bytes(blob[:40])                          # inside the metadata
    with pytest.raises(ValueError, match="head.gguf: not a readable GGUF"):
        gguf_model.read_gguf(head, sha256=None)
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(ValueError, match="junk.gguf: not a readable GGUF"):
        gguf_model.read_gguf(junk, sha256=None)
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.gguf: not a readable GGUF"):
        gguf_model.read_gguf(empty, sha256=None)
    with pytest.raises(ValueError, match="no such file"):
        gguf_model.read_gguf(tmp_path / "none.gguf", sha256=None)
    with pytest.raises(ValueError, match="no such file"):
        gguf_model.read_gguf(tmp_path, sha256=None)


def test_a_wrong_hash_is_refused_before_reading(tmp_path):
    p = small_gguf(tmp_path / "m.gguf", arch="gpt2")
    with pytest.raises(ValueError, match=f"sha256 .* expected {fetch.GGUF_SHA256}"):
        gguf_model.read_gguf(p)                          # the pinned hash by default


@pytest.mark.long
def test_the_gguf_read_directly_equals_the_cache(model):
    """read_gguf of the pinned file (dequantized again, about 10 s) gives the very arrays
    the cache holds; the file truncated in its tensors' bytes is refused."""
    m = gguf_model.read_gguf(fetch.fetch())
    assert m.config == model.config and m.tokens == model.tokens and m.merges == model.merges
    for a, b in zip(m.layers, model.layers):
        for f in ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"):
            assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert np.array_equal(m.embed, model.embed) and np.array_equal(m.out_norm, model.out_norm)


@pytest.mark.long
def test_the_real_file_truncated_is_refused(tmp_path):
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(fetch.fetch().read_bytes()[:50_000_000])
    with pytest.raises(ValueError, match="cut.gguf: .*sha256"):
        gguf_model.read_gguf(cut)
    with pytest.raises(ValueError, match="cut.gguf: not a readable GGUF"):
        gguf_model.read_gguf(cut, sha256=None)
