"""SmolLM2-135M-Instruct read from its GGUF: shapes checked, tensors dequantized to float32.

read_gguf(path) opens the file with gguf.GGUFReader, checks that it is the model the
project runs (architecture `llama`; every shape of SHAPES read from the file's metadata
and held to it), dequantizes each tensor with gguf.quants.dequantize (Q4_1 and Q8_0
here; any type gguf knows) and returns a Model. Anything else is a ValueError with one
line naming the file and the problem: not a GGUF, a corrupt or truncated file, another
architecture or shape, a missing tensor, a wrong hash (when one is given).

Orientation: a matrix is (out, in) as the GGUF stores it (ne1 rows of ne0), so a layer
is y = x @ W.T and a row of W is one output channel. token_embd.weight (Q8_0) is both the
embedding (a row per token) and the output head (tied): logits = h @ token_embd.T.

load() is the fast path the tools use: the pinned GGUF (fetch.py) read once and kept as
float32 in .cache/smollm2/f32-<hash>/ (weights.f32, memory-mapped read-only, and
index.json: shapes, metadata, vocabulary): 9 s the first time (measured on a loaded
2-core machine), 0.3 s after.
"""
import json
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tools.smollm2 import fetch as fetch_mod

ARCH = "llama"


@dataclass(frozen=True)
class Config:
    """The model's shapes and constants, as read from the GGUF's metadata."""
    n_layer: int
    d: int
    n_head: int
    n_kv_head: int
    head_dim: int
    ffn: int
    vocab: int
    eps: float
    rope_base: float
    ctx: int


# what the file must say: SmolLM2-135M (the metadata key under `llama.`, the value)
SHAPES = Config(n_layer=30, d=576, n_head=9, n_kv_head=3, head_dim=64, ffn=1536, vocab=49152,
                eps=1e-5, rope_base=100000.0, ctx=8192)
KEYS = {"n_layer": "block_count", "d": "embedding_length", "n_head": "attention.head_count",
        "n_kv_head": "attention.head_count_kv", "ffn": "feed_forward_length",
        "vocab": "vocab_size", "eps": "attention.layer_norm_rms_epsilon",
        "rope_base": "rope.freq_base", "ctx": "context_length"}
LAYER_TENSORS = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
                 "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")


@dataclass(frozen=True)
class Layer:
    """One block's float32 weights; matrices (out, in)."""
    attn_norm: np.ndarray   # (d,)
    wq: np.ndarray          # (n_head * head_dim, d): rows in llama.cpp's order (RoPE on consecutive pairs)
    wk: np.ndarray          # (n_kv_head * head_dim, d): likewise
    wv: np.ndarray          # (n_kv_head * head_dim, d)
    wo: np.ndarray          # (d, n_head * head_dim)
    ffn_norm: np.ndarray    # (d,)
    w_gate: np.ndarray      # (ffn, d)
    w_up: np.ndarray        # (ffn, d)
    w_down: np.ndarray      # (d, ffn)


@dataclass(frozen=True)
class Model:
    """The model: its config, float32 weights and the vocabulary the tokenizer is built from."""
    config: Config
    embed: np.ndarray       # (vocab, d): the embedding, and the head when `head` is the same array
    head: np.ndarray        # (vocab, d): output.weight, or token_embd.weight (tied)
    out_norm: np.ndarray    # (d,)
    layers: tuple           # n_layer Layers
    tokens: tuple           # tokenizer.ggml.tokens (byte-level strings)
    merges: tuple           # tokenizer.ggml.merges ("a b")
    token_types: tuple      # tokenizer.ggml.token_type (1 normal, 3 control, ...)
    bos: int
    eos: int
    chat_template: str
    meta: dict              # every scalar metadata field (strings, numbers), for writing a GGUF


def expected_shapes(c):
    """name -> shape (numpy, (out, in)) of every tensor the model needs (output.weight is
    optional: absent when the head is tied)."""
    q, kv = c.n_head * c.head_dim, c.n_kv_head * c.head_dim
    per = {"attn_norm": (c.d,), "attn_q": (q, c.d), "attn_k": (kv, c.d), "attn_v": (kv, c.d),
           "attn_output": (c.d, q), "ffn_norm": (c.d,), "ffn_gate": (c.ffn, c.d),
           "ffn_up": (c.ffn, c.d), "ffn_down": (c.d, c.ffn)}
    out = {"token_embd.weight": (c.vocab, c.d), "output_norm.weight": (c.d,)}
    for i in range(c.n_layer):
        out.update({f"blk.{i}.{n}.weight": s for n, s in per.items()})
    return out


def _config(name, meta):
    arch = meta.get("general.architecture")
    if arch != ARCH:
        raise ValueError(f"{name}: architecture {arch!r}, expected {ARCH!r} (SmolLM2 is a llama model)")
    got = {}
    for attr, key in KEYS.items():
        full = f"{ARCH}.{key}"
        if full not in meta:
            raise ValueError(f"{name}: metadata {full} missing")
        got[attr] = meta[full]
    n_head = int(got["n_head"])
    got["head_dim"] = int(got["d"]) // n_head if n_head > 0 else 0
    c = Config(**{k: (float(v) if k in ("eps", "rope_base") else int(v)) for k, v in got.items()})
    for attr in Config.__dataclass_fields__:
        want, have = getattr(SHAPES, attr), getattr(c, attr)
        ok = math.isclose(have, want, rel_tol=1e-6) if isinstance(want, float) else have == want
        if not ok:
            raise ValueError(f"{name}: {attr} {have}, expected {want} (not SmolLM2-135M)")
    rope_dims = meta.get(f"{ARCH}.rope.dimension_count", c.head_dim)
    if rope_dims != c.head_dim:
        raise ValueError(f"{name}: RoPE over {rope_dims} dims, expected all {c.head_dim}")
    return c


def read_gguf(path, sha256=fetch_mod.GGUF_SHA256):
    """The Model in the GGUF at path (see the module doc). sha256: the file's expected hash
    (default: the pinned SmolLM2 GGUF's), None to accept any file that passes the checks."""
    import gguf
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise ValueError(f"{name}: no such file")
    if sha256 is not None:
        fetch_mod.check_file(path, None, sha256, "GGUF")
    try:
        reader = gguf.GGUFReader(path, "r")
    except Exception as e:  # noqa: BLE001 -- gguf raises ValueError, IndexError, struct and mmap errors: one line
        raise ValueError(f"{name}: not a readable GGUF file ({' '.join(str(e).split()) or type(e).__name__})") from None
    try:
        meta = {}
        for key, field in reader.fields.items():
            if key.startswith("GGUF."):
                continue
            meta[key] = field.contents()
    except Exception as e:  # noqa: BLE001 -- any failure of the metadata's parse is a corrupt file: one line
        raise ValueError(f"{name}: corrupt metadata ({' '.join(str(e).split()) or type(e).__name__})") from None
    c = _config(name, meta)
    tensors = {t.name: t for t in reader.tensors}
    want = expected_shapes(c)
    if "output.weight" in tensors:
        want["output.weight"] = (c.vocab, c.d)
    arrays = {}
    for tname, shape in want.items():
        t = tensors.get(tname)
        if t is None:
            raise ValueError(f"{name}: tensor {tname} missing")
        try:
            a = gguf.quants.dequantize(t.data, t.tensor_type)
        except Exception as e:  # noqa: BLE001 -- any failure of a tensor's dequantization: one line
            raise ValueError(f"{name}: tensor {tname} ({t.tensor_type.name}) unreadable "
                             f"({' '.join(str(e).split()) or type(e).__name__}): a corrupt or truncated file") from None
        if a.shape != shape:
            raise ValueError(f"{name}: tensor {tname} has shape {a.shape}, expected {shape}")
        a = np.ascontiguousarray(a, dtype=np.float32)
        if not np.isfinite(a).all():
            raise ValueError(f"{name}: tensor {tname} holds NaN or infinity (a corrupt file)")
        arrays[tname] = a
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type",
                "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"):
        if key not in meta:
            raise ValueError(f"{name}: metadata {key} missing")
    tokens = tuple(meta["tokenizer.ggml.tokens"])
    if len(tokens) != c.vocab or len(meta["tokenizer.ggml.token_type"]) != c.vocab:
        raise ValueError(f"{name}: {len(tokens)} tokens in the vocabulary, expected {c.vocab}")
    scalars = {k: v for k, v in meta.items() if not isinstance(v, list)}
    return _model(c, arrays, tokens, tuple(meta["tokenizer.ggml.merges"]),
                  tuple(int(x) for x in meta["tokenizer.ggml.token_type"]), scalars)


def _model(c, arrays, tokens, merges, token_types, meta):
    layers = tuple(Layer(*(arrays[f"blk.{i}.{n}.weight"] for n in LAYER_TENSORS)) for i in range(c.n_layer))
    embed = arrays["token_embd.weight"]
    return Model(config=c, embed=embed, head=arrays.get("output.weight", embed),
                 out_norm=arrays["output_norm.weight"], layers=layers, tokens=tokens, merges=merges,
                 token_types=token_types, bos=int(meta["tokenizer.ggml.bos_token_id"]),
                 eos=int(meta["tokenizer.ggml.eos_token_id"]),
                 chat_template=str(meta.get("tokenizer.chat_template", "")), meta=meta)


def _write_cache(m, dest):
    """Write m as dest/weights.f32 + dest/index.json (a temporary folder renamed into place)."""
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    arrays = {"token_embd.weight": m.embed, "output_norm.weight": m.out_norm}
    if m.head is not m.embed:
        arrays["output.weight"] = m.head
    for i, layer in enumerate(m.layers):
        arrays.update({f"blk.{i}.{n}.weight": a for n, a in zip(LAYER_TENSORS, (
            layer.attn_norm, layer.wq, layer.wk, layer.wv, layer.wo, layer.ffn_norm,
            layer.w_gate, layer.w_up, layer.w_down))})
    index, off = {}, 0
    with open(tmp / "weights.f32", "wb") as f:
        for n, a in arrays.items():
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())
            index[n] = [off, list(a.shape)]
            off += a.size
    doc = {"config": m.config.__dict__, "tensors": index, "tokens": m.tokens, "merges": m.merges,
           "token_types": m.token_types, "meta": m.meta}
    (tmp / "index.json").write_text(json.dumps(doc))
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)


def _read_cache(src):
    doc = json.loads((src / "index.json").read_text())
    flat = np.memmap(src / "weights.f32", dtype="<f4", mode="r")
    arrays = {}
    for n, (off, shape) in doc["tensors"].items():
        size = int(np.prod(shape))
        if off + size > flat.size:
            raise ValueError(f"{src}: weights.f32 is shorter than its index (delete the folder)")
        arrays[n] = flat[off:off + size].reshape(shape)
    return _model(Config(**doc["config"]), arrays, tuple(doc["tokens"]), tuple(doc["merges"]),
                  tuple(doc["token_types"]), doc["meta"])


_LOADED = {}


def load(path=None, cache=fetch_mod.CACHE):
    """The Model: of the pinned GGUF (path None: fetched, then kept as float32 in the cache
    folder), or of another GGUF of the same model at path (read each time, checked by its
    metadata and shapes, not by a hash). One Model per path in a process."""
    key = str(path)
    if key in _LOADED:
        return _LOADED[key]
    if path is not None:
        m = read_gguf(path, sha256=None)
    else:
        gguf_path = fetch_mod.fetch(cache)
        dest = Path(cache) / f"f32-{fetch_mod.GGUF_SHA256[:16]}"
        with fetch_mod.locked(Path(cache)):
            if not (dest / "index.json").is_file():
                # the fetch has just checked the file's hash
                _write_cache(read_gguf(gguf_path, sha256=None), dest)
        m = _read_cache(dest)
    _LOADED[key] = m
    return m


def is_pinned(m):
    """Whether m is the pinned GGUF's Model as load() (no path) returned it in this
    process: what a cache keyed by the GGUF's hash may hold (tools/smollm2/intweights.py)."""
    return _LOADED.get(str(None)) is m
