"""SmolLM2-135M's weights as the chip holds them: per-channel int8 matrices and scale words.

prepare(model) turns a gguf_model.Model (float32, dequantized) into IntWeights, the
integer reference's (int_ref.py) and the step compiler's weights. For a float matrix W
(out x in, the GGUF's orientation: y = x @ W.T), after folding, per output row o:
    s_o   = max_i |W[o, i]| / 127                      (float64)
    v_o   = wide.sc_value(wide.sc_of(s_o))             (the word's exact value)
    W8[o] = clamp(round_half_away(W[o] / v_o), -127, 127)
    cs_o  = wide.sc_of(s_o * extra)                    (the column scale word RQC reads)
so W8 * v_o is exactly what the chip multiplies. `extra` is a constant folded into the
column scale alone (1, or the score constant C for wq). An all-zero row: word 0 and zeros.

Folds: attn_norm's gain into wq, wk, wv (W[o, i] * g_i), ffn_norm's into w_gate, w_up
(QNT's rms mode divides by the row's rms and the gain is the next matmul's); the
attention score constant C = log2(e) / sqrt(head_dim) into csq only (the scores come
out of RQC in log2 units, as SMW takes them); out_norm's gain into the head, which is
the embedding (tied): head = embed * out_norm per input column, per vocabulary row
quantized (csh). The residual stream is Q12: embed12 = round_half_away(embed * 2^12).

Deterministic: float64 elementwise arithmetic only (a float32 times a float32 is exact
in float64; one division and the exact rounding below), never BLAS, and the scale words
from exact Fractions; the same integers on any machine.

The pinned model's IntWeights are cached in .cache/smollm2/int8-<GGUF hash>-v<FORMAT>.npz
(made when absent, about 10 s; loaded in about 1 s). cut() quantizes a cut-down of the
float model (the first layers, KV heads, FFN channels and vocabulary rows) by the same
rules, for fast tests.
"""
import math
import os
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from model import wide
from tools.smollm2 import fetch as fetch_mod
from tools.smollm2 import gguf_model

FORMAT = 1                       # bump when a rule above changes: the cache file's name changes
Q_RES = 12                       # the residual stream's fraction bits
QMAX = 127
ONE = wide.sc_of(1)              # the scale word of 1
C_SCORE = math.log2(math.e) / 8  # log2(e) / sqrt(head_dim 64), float64: folded into csq
MATS = ("wq", "wk", "wv", "wo", "wg", "wu", "wd")


@dataclass(frozen=True)
class IntLayer:
    """One block: int8 matrices (out x in, row o = output channel o's inputs) and their
    int64 scale words (one per output row)."""
    wq: np.ndarray
    csq: np.ndarray
    wk: np.ndarray
    csk: np.ndarray
    wv: np.ndarray
    csv: np.ndarray
    wo: np.ndarray
    cso: np.ndarray
    wg: np.ndarray
    csg: np.ndarray
    wu: np.ndarray
    csu: np.ndarray
    wd: np.ndarray
    csd: np.ndarray


@dataclass(frozen=True)
class IntWeights:
    """The whole model in the chip's numbers. config: the gguf_model.Config (d, n_head,
    n_kv_head, head_dim, ffn, vocab, n_layer, rope_base, ctx)."""
    config: gguf_model.Config
    embed12: np.ndarray          # (vocab, d) int32: the embedding in Q12
    layers: tuple                # IntLayers
    head: np.ndarray             # (vocab, d) int8: embed * out_norm, per row quantized
    csh: np.ndarray              # (vocab,) int64
    ONE: int = ONE


def round_half_away(x):
    """Round float64 x to the nearest integer, ties away from zero, exactly (the fraction
    x - trunc(x) is exact in floating point; |x| + 0.5 is not)."""
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0.0)


def quantize_rows(w, extra=1):
    """(W8 int8 (out, in), cs int64 (out,)) of a float matrix by the module's rules;
    extra: a float64 constant multiplied into each column scale word only."""
    w = np.asarray(w, dtype=np.float64)
    amax = np.abs(w).max(axis=1)
    s = amax / QMAX
    fx = Fraction(extra)
    words = [wide.sc_of(Fraction(float(so))) if so > 0 else 0 for so in s]
    cs = words if extra == 1 else [wide.sc_of(Fraction(float(so)) * fx) if so > 0 else 0 for so in s]
    v = np.array([float(wide.sc_value(x)) if x else 1.0 for x in words])     # 16-bit mantissas: exact
    w8 = np.clip(round_half_away(w / v[:, None]), -QMAX, QMAX)
    w8[amax == 0] = 0
    return w8.astype(np.int8), np.array(cs, dtype=np.int64)


def _f64(a):
    return np.asarray(a, dtype=np.float64)


def prepare_arrays(model):
    """IntWeights of a Model-like object (config, embed, head, out_norm, layers of
    gguf_model.Layer): no cache (see prepare)."""
    c = model.config
    layers = []
    for L in model.layers:
        ga, gf = _f64(L.attn_norm)[None, :], _f64(L.ffn_norm)[None, :]
        q = {}
        q["wq"], q["csq"] = quantize_rows(_f64(L.wq) * ga, extra=C_SCORE)
        q["wk"], q["csk"] = quantize_rows(_f64(L.wk) * ga)
        q["wv"], q["csv"] = quantize_rows(_f64(L.wv) * ga)
        q["wo"], q["cso"] = quantize_rows(L.wo)
        q["wg"], q["csg"] = quantize_rows(_f64(L.w_gate) * gf)
        q["wu"], q["csu"] = quantize_rows(_f64(L.w_up) * gf)
        q["wd"], q["csd"] = quantize_rows(L.w_down)
        layers.append(IntLayer(**q))
    e12 = round_half_away(_f64(model.embed) * (1 << Q_RES))
    if np.abs(e12).max() >= 1 << 31:
        raise ValueError("the embedding overflows int32 in Q12")
    head, csh = quantize_rows(_f64(model.head) * _f64(model.out_norm)[None, :])
    return IntWeights(config=c, embed12=e12.astype(np.int32), layers=tuple(layers), head=head, csh=csh)


def cache_path(cache=fetch_mod.CACHE):
    """The pinned model's IntWeights file."""
    return Path(cache) / f"int8-{fetch_mod.GGUF_SHA256[:16]}-v{FORMAT}.npz"


def _save(w, path):
    arrays = {"embed12": w.embed12, "head": w.head, "csh": w.csh,
              "config": np.array([repr(tuple(w.config.__dict__.items()))])}
    for i, L in enumerate(w.layers):
        arrays.update({f"{i}.{n}": getattr(L, n) for n in IntLayer.__dataclass_fields__})
    tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def _load(path, config):
    with np.load(path, allow_pickle=False) as z:
        if str(z["config"][0]) != repr(tuple(config.__dict__.items())):
            raise ValueError(f"{path}: made for another configuration (delete it)")
        layers = tuple(IntLayer(**{n: z[f"{i}.{n}"] for n in IntLayer.__dataclass_fields__})
                       for i in range(config.n_layer))
        return IntWeights(config=config, embed12=z["embed12"], layers=layers, head=z["head"], csh=z["csh"])


def prepare(model, cache=fetch_mod.CACHE):
    """IntWeights of a gguf_model.Model. The pinned model's (gguf_model.load() without a
    path) are cached under cache (None: never), keyed by the GGUF's hash; any other
    model's are computed each time."""
    if cache is None or not gguf_model.is_pinned(model):
        return prepare_arrays(model)
    path = cache_path(cache)
    with fetch_mod.locked(Path(cache)):
        if not path.is_file():
            _save(prepare_arrays(model), path)
    return _load(path, model.config)


def cut_model(model, layers, kv_heads, ffn, vocab, group=None):
    """A gguf_model.Model of the first `layers` layers, KV heads 0..kv_heads-1 with the
    first `group` of their query heads each (default all n_head / n_kv_head; d = that many
    heads' channels, the first d of the residual stream), the first `ffn` FFN channels and
    the first `vocab` vocabulary rows of model (float32 slices; the float reference runs it
    too)."""
    c = model.config
    G = c.n_head // c.n_kv_head
    group = G if group is None else group
    if not (1 <= layers <= c.n_layer and 1 <= kv_heads <= c.n_kv_head and 1 <= ffn <= c.ffn
            and 1 <= vocab <= c.vocab and 1 <= group <= G):
        raise ValueError(f"cut: {layers} layers, {kv_heads} KV heads of {group} query heads, {ffn} FFN "
                         f"channels, {vocab} rows outside the model's {c.n_layer}, {c.n_kv_head} of {G}, "
                         f"{c.ffn}, {c.vocab}")
    nh, hd = group * kv_heads, c.head_dim
    d, kv = nh * hd, kv_heads * hd
    q = np.concatenate([np.arange((g * G + j) * hd, (g * G + j + 1) * hd)   # the kept query rows
                        for g in range(kv_heads) for j in range(group)])
    cc = replace(c, n_layer=layers, d=d, n_head=nh, n_kv_head=kv_heads, ffn=ffn, vocab=vocab)
    ls = tuple(gguf_model.Layer(attn_norm=L.attn_norm[:d], wq=L.wq[q, :d], wk=L.wk[:kv, :d], wv=L.wv[:kv, :d],
                                wo=L.wo[:d, q], ffn_norm=L.ffn_norm[:d], w_gate=L.w_gate[:ffn, :d],
                                w_up=L.w_up[:ffn, :d], w_down=L.w_down[:d, :ffn])
               for L in model.layers[:layers])
    embed = model.embed[:vocab, :d]
    head = embed if model.head is model.embed else model.head[:vocab, :d]
    return replace(model, config=cc, embed=embed, head=head, out_norm=model.out_norm[:d], layers=ls)


def cut(model, layers, kv_heads, ffn, vocab, group=None):
    """IntWeights of cut_model(model, ...): the float slice quantized by the same rules."""
    return prepare_arrays(cut_model(model, layers, kv_heads, ffn, vocab, group))
