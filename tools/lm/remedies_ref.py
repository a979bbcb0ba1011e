"""The integer reference of the chapter's remedies: what the chip computes with them, bit for bit.

Written from docs/lm.md "Remedies: numerics", not from the step compiler
(tools/lm/compiler), so tests can hold the chip's tokens and cached rows to it:

- grouped-query attention: a model whose k and v have kvh < heads heads (Config.kv_heads);
  query head c reads KV head c // (heads / kvh) (tools.lm.model.split_heads);
- a 4-bit KV cache: a model exported by export_kv4 (kv_bits = 4): k and v clamped to
  -8..7 after their requant (the cache holds them two to a word, pack4);
- a sliding window of W tokens with S attention sinks: the token at position t attends
  position u <= t only if u < S or u > t - (W - S);
- contexts longer than the model's P learned positions: position t takes the embedding
  of min(t, P - 1);
- tiled attention has no numerics of its own: it is exact, the same as untiled.

forward() runs the whole sequence at once, as Int8Model does (teacher forcing: a query
sees the keys its mask allows), greedy() decodes from it one token at a time, and cache()
gives the rows a decode stores. All of it in int64 numpy with the ops of tools/lm/int8.py.
"""
import numpy as np

from model.softmax_gold import Q16
from tools.lm import int8
from tools.lm import model as M

KV4 = (-8, 7)       # a 4-bit value's range


def attended(T, window=0, sinks=0):
    """(T, T) booleans: query t attends key u (causal; with a window W: u < S or u > t - (W - S))."""
    t, u = np.arange(T)[:, None], np.arange(T)[None, :]
    ok = u <= t
    if window:
        ok &= (u < sinks) | (u > t - (window - sinks))
    return ok


def positions(T, cfg):
    """The position embedding row of each position 0..T-1: min(t, P - 1), P = cfg.ctx."""
    return np.minimum(np.arange(T), cfg.ctx - 1)


def softmax_masked(sc, ok):
    """SM over each row's attended scores (Q16), zeros elsewhere: model.softmax_gold's
    softmax_fixed of the scores the mask keeps, in any order (it is order-free)."""
    mx = np.where(ok, sc, -129).max(axis=-1, keepdims=True)
    e = np.where(ok, int8.LUT_NP[np.where(ok, mx - sc, 0)], 0)
    return e * Q16 // e.sum(axis=-1, keepdims=True)


def forward(model, X, window=0, sinks=0):
    """(int32 logits (B, T, vocab), cache: per layer (k, v) of (B, T, dk)) of ids X (B, T)."""
    cfg, w, rq = model.cfg, model.w, model.rq
    X = np.asarray(X, dtype=np.int64)
    if X.ndim != 2 or X.size == 0 or X.min() < 0 or X.max() >= cfg.vocab:
        raise ValueError("forward: expected a (batch, length) array of ids in the vocabulary")
    B, T = X.shape
    ok = attended(T, window, sinks)
    x = int8.add8(w["wte"][X], w["wpe"][positions(T, cfg)])
    kv = []
    for i in range(cfg.layers):
        h = int8.rmsnorm(x, *rq[f"h{i}.n1"])
        q, k, v = (int8.requant(h @ w[f"h{i}.w{n}"], *rq[f"h{i}.{n}"]) for n in "qkv")
        if model.kv_bits == 4:
            k, v = np.clip(k, *KV4), np.clip(v, *KV4)
        kv.append((k, v))
        qh, kh, vh = (M.split_heads(t, cfg) for t in (q, k, v))
        sc = int8.requant(qh @ kh.transpose(0, 1, 3, 2), *rq[f"h{i}.scores"])
        a = int8.requant(softmax_masked(sc, ok), *rq["weights"])
        o = M.merge_heads(int8.requant(a @ vh, *rq[f"h{i}.o"]))
        x = int8.add8(int8.requant(x, *rq[f"res{2 * i}"]),
                      int8.requant(o @ w[f"h{i}.wo"], *rq[f"h{i}.attn"]))
        h2 = int8.rmsnorm(x, *rq[f"h{i}.n2"])
        u = int8.relu8(int8.requant(h2 @ w[f"h{i}.w1"], *rq[f"h{i}.u"]))
        x = int8.add8(int8.requant(x, *rq[f"res{2 * i + 1}"]),
                      int8.requant(u @ w[f"h{i}.w2"], *rq[f"h{i}.mlp"]))
    return int8.rmsnorm(x, *rq["nf"]) @ w["wout"], kv


def greedy(model, prompt, n, window=0, sinks=0):
    """The ids of prompt (a list) followed by n tokens, each ARGMAX of the last logits."""
    ids = list(map(int, prompt))
    for _ in range(n):
        lg, _ = forward(model, np.array([ids]), window, sinks)
        ids.append(int(int8.argmax(lg[0, -1])))
    return ids


def decode(model, prompt, n, window=0, sinks=0):
    """(the n generated ids, the cache the decode writes: per layer (k, v), (T, dk) of the
    T = len(prompt) + n - 1 positions it fed)."""
    ids = greedy(model, prompt, n, window, sinks)
    _, kv = forward(model, np.array([ids[:-1]]), window, sinks)
    return ids[len(prompt):], [(k[0], v[0]) for k, v in kv]


def live(t, window=0, sinks=0):
    """The positions whose K and V a step at position t still needs after it (the next
    query, at t + 1, attends them): all of 0..t without a window."""
    if not window:
        return list(range(t + 1))
    return [u for u in range(t + 1) if u < sinks or u > t + 1 - (window - sinks)]


def pack4(v):
    """4-bit values (..., 2n) -> (..., n) words: element 2j in bits 0-3, 2j + 1 in bits 4-7
    (two's complement nibbles), as PACK4 writes them (docs/isa.md)."""
    v = np.asarray(v, dtype=np.int64)
    return (v[..., 0::2] & 15) | ((v[..., 1::2] & 15) << 4)


def kv4_scales(p, cfg, X):
    """Per layer the static per-channel scales (c_k, c_v), each (dk,): max |value| / 7 of
    the float model's k and v channels on token ids X (calibration data), from the export's
    fixed-order run (int8.peaks: the same bits on every machine)."""
    pk = int8.peaks(p, cfg, X)
    return [tuple(np.maximum(pk[f"h{i}.{n}"] / KV4[1], 1e-12) for n in "kv")
            for i in range(cfg.layers)]


def export_kv4(p, cfg, X):
    """The Int8Model with a 4-bit KV cache of float weights p (calibrated on X).

    Static per-channel scales (kv4_scales) folded into the weights, so the float model is
    unchanged and no scale is applied on chip: K's column j of wk divided by c_k[j] and the
    query columns that read it multiplied by it (q.k is the same sum); V's column j of wv
    divided by c_v[j] and the rows of wo that its output channel meets multiplied by it.
    Then the int8 export with k and v at scale 1 (one unit a 4-bit step): their requant
    gives the 4-bit value, which the cache holds clamped to -8..7."""
    g = cfg.heads // cfg.kvh
    q = dict(p)
    for i, (ck, cv) in enumerate(kv4_scales(p, cfg, X)):
        # query channel 16c + j reads KV channel 16 (c // g) + j
        per_q = np.concatenate([ck[16 * (c // g):16 * (c // g) + 16] for c in range(cfg.heads)])
        per_o = np.concatenate([cv[16 * (c // g):16 * (c // g) + 16] for c in range(cfg.heads)])
        q[f"h{i}.wq"] = p[f"h{i}.wq"] * per_q[None, :]
        q[f"h{i}.wk"] = p[f"h{i}.wk"] / ck[None, :]
        q[f"h{i}.wv"] = p[f"h{i}.wv"] / cv[None, :]
        q[f"h{i}.wo"] = p[f"h{i}.wo"] * per_o[:, None]
    fixed = {f"h{i}.{n}": 1.0 for i in range(cfg.layers) for n in "kv"}
    m = int8.export(q, cfg, X, fixed=fixed)
    m.kv_bits = 4
    return m
