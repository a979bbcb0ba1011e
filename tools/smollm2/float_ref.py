"""The float reference: SmolLM2-135M's forward pass in plain numpy, float32, with a KV cache.

Per layer (llama, as llama.cpp runs it):
    h = RMSNorm(x) * attn_norm                       (eps from the GGUF, 1e-5)
    q, k, v = h @ wq.T, h @ wk.T, h @ wv.T          (9 query heads, 3 KV heads, of 64)
    q, k = RoPE(q), RoPE(k)                          base 1e5 over all 64 dims, CONSECUTIVE
                                                     pairs (x[2i], x[2i+1]): llama.cpp's
                                                     converter permuted the q/k rows so this
                                                     pairing is right for the GGUF's weights
    query head j reads KV head j // 3 (GQA), scores q.k / 8, causal softmax, sum of V
    x = x + o @ wo.T
    h = RMSNorm(x) * ffn_norm
    x = x + (SiLU(h @ w_gate.T) * (h @ w_up.T)) @ w_down.T
then RMSNorm(x) * out_norm and the tied head: logits = x @ token_embd.T.

Every arithmetic choice the numerics study (numerics_study.py) varies goes through a
Numerics object: the float one here is the reference; a subclass fake-quantizes a
matmul's input, the KV cache, the softmax, the attention probabilities, SiLU or the
residual stream, on the same forward pass.

Positions are batched: a prompt (or a teacher-forced sequence) runs through in chunks of
positions at once, each chunk's keys and values appended to the cache first, so the
result is the same as one position at a time up to float rounding. Nothing here pins a
float's last bit: BLAS may sum in any order; tests compare tokens and use tolerances.
"""
from collections import namedtuple

import numpy as np


class Numerics:
    """Float32 arithmetic: every hook the identity or the plain float operation."""

    def act(self, x, site, layer):
        """A matmul's input (site: "qkv", "o", "gate_up", "down", "head")."""
        return x

    def kv(self, k, v, layer):
        """What the cache keeps of new keys and values ((kv heads, T, head_dim) each)."""
        return k, v

    def softmax(self, s):
        """Softmax over the last axis; masked scores are -inf."""
        m = s.max(axis=-1, keepdims=True)
        e = np.exp(s - m)
        return e / e.sum(axis=-1, keepdims=True)

    def probs(self, p, layer):
        """The attention probabilities as the V sum weighs them."""
        return p

    def silu(self, x):
        return x / (1.0 + np.exp(-x))

    def residual(self, x, layer):
        """The residual stream: the embeddings (layer None), then after each add."""
        return x


FLOAT = Numerics()


def rmsnorm(x, gain, eps):
    """x / sqrt(mean(x^2) + eps) * gain, per row, float32."""
    ms = np.mean(np.square(x, dtype=np.float32), axis=-1, keepdims=True, dtype=np.float32)
    return (x / np.sqrt(ms + np.float32(eps))) * gain


def rope_tables(positions, head_dim, base):
    """(cos, sin) of shape (T, head_dim/2): angle p * base^(-2i/head_dim) for pair i."""
    inv = base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    ang = np.asarray(positions, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def rope(x, cos, sin):
    """Rotate consecutive pairs (x[2i], x[2i+1]) of x (T, heads, head_dim) by the tables."""
    a, b = x[..., 0::2], x[..., 1::2]
    c, s = cos[:, None, :], sin[:, None, :]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


class KVCache:
    """Keys and values of every layer, (n_layer, n_kv_head, capacity, head_dim) float32."""

    def __init__(self, config, capacity):
        if not 1 <= capacity <= config.ctx:
            raise ValueError(f"a KV cache of {capacity} positions: outside 1..{config.ctx} (the context)")
        shape = (config.n_layer, config.n_kv_head, capacity, config.head_dim)
        self.k = np.zeros(shape, np.float32)
        self.v = np.zeros(shape, np.float32)
        self.capacity = capacity
        self.length = 0


def check_ids(ids, start, capacity, what, vocab):
    """(ids as int64, their count T, start) of tokens to run at positions start..; a
    ValueError for none, past capacity positions (`what` names the limit) or an id outside
    the vocabulary."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    T = len(ids)
    if T == 0:
        raise ValueError("no tokens to run")
    if start + T > capacity:
        raise ValueError(f"{start + T} positions: beyond {what} {capacity}")
    if ids.min() < 0 or ids.max() >= vocab:
        raise ValueError(f"token id outside 0..{vocab - 1}")
    return ids, T, start


def check_scored(ids, ctx):
    """(ids as int64, their count n) of a sequence to score; ValueError for fewer than 2 or
    more than ctx."""
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids)
    if n < 2:
        raise ValueError(f"{n} tokens: a sequence to score needs at least 2")
    if n > ctx:
        raise ValueError(f"{n} tokens: beyond the context of {ctx}")
    return ids, n


class FloatModel:
    """The forward pass of a gguf_model.Model under a Numerics (default: float32)."""

    def __init__(self, model, numerics=FLOAT):
        self.m = model
        self.c = model.config
        self.num = numerics

    def new_cache(self, capacity):
        return KVCache(self.c, capacity)

    def forward(self, ids, cache):
        """The final hidden states (T, d), after out_norm, of ids appended at cache.length;
        the cache grows by len(ids)."""
        c, num = self.c, self.num
        ids, T, start = check_ids(ids, cache.length, cache.capacity, "the cache's", c.vocab)
        S = start + T
        cos, sin = rope_tables(np.arange(start, S), c.head_dim, c.rope_base)
        group = c.n_head // c.n_kv_head
        # causal mask of the new queries over all keys so far
        mask = np.arange(S)[None, :] > (start + np.arange(T))[:, None]
        scale = np.float32(1.0 / np.sqrt(c.head_dim))
        x = num.residual(np.array(self.m.embed[ids], dtype=np.float32), None)
        for li, L in enumerate(self.m.layers):
            h = num.act(rmsnorm(x, L.attn_norm, c.eps), "qkv", li)
            q = (h @ L.wq.T).reshape(T, c.n_head, c.head_dim)
            k = (h @ L.wk.T).reshape(T, c.n_kv_head, c.head_dim)
            v = (h @ L.wv.T).reshape(T, c.n_kv_head, c.head_dim)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            k, v = num.kv(k.transpose(1, 0, 2), v.transpose(1, 0, 2), li)
            cache.k[li, :, start:S] = k
            cache.v[li, :, start:S] = v
            K, V = cache.k[li, :, :S], cache.v[li, :, :S]              # (kv, S, hd)
            qg = q.reshape(T, c.n_kv_head, group, c.head_dim).transpose(1, 2, 0, 3)  # (kv, g, T, hd)
            s = np.matmul(qg, K[:, None].transpose(0, 1, 3, 2)) * scale            # (kv, g, T, S)
            s[..., mask] = -np.inf
            p = num.probs(num.softmax(s), li)
            o = np.matmul(p, V[:, None])                                # (kv, g, T, hd)
            o = o.transpose(2, 0, 1, 3).reshape(T, c.n_head * c.head_dim)
            x = num.residual(x + num.act(o, "o", li) @ L.wo.T, li)
            h = num.act(rmsnorm(x, L.ffn_norm, c.eps), "gate_up", li)
            f = num.silu(h @ L.w_gate.T) * (h @ L.w_up.T)
            x = num.residual(x + num.act(f, "down", li) @ L.w_down.T, li)
        cache.length = S
        return rmsnorm(x, self.m.out_norm, c.eps)

    def logits(self, hidden):
        """The head: (T, vocab) float32 logits of final hidden states."""
        return self.num.act(hidden, "head", None) @ self.m.head.T

    def generate(self, prompt_ids, n_new, eos=None, on_token=None):
        """Greedy decoding: the prompt prefilled at once, then n_new tokens one at a time
        (stopping after eos when given). on_token(id) is called as each is chosen.
        Returns the new ids."""
        prompt_ids = list(prompt_ids)
        if not prompt_ids:
            raise ValueError("an empty prompt")
        total = len(prompt_ids) + n_new
        if total > self.c.ctx:
            raise ValueError(f"{len(prompt_ids)} prompt tokens + {n_new} new: {total} positions, "
                             f"beyond the context of {self.c.ctx}")
        cache = self.new_cache(max(total - 1, len(prompt_ids)))
        out = []
        last = self.logits(self.forward(prompt_ids, cache)[-1:])[0]
        for i in range(n_new):
            t = int(np.argmax(last))
            out.append(t)
            if on_token:
                on_token(t)
            if t == eos or i == n_new - 1:
                break
            last = self.logits(self.forward([t], cache))[0]
        return out

    def teacher_forced(self, ids, chunk=256, keep_logits=False):
        """Score a sequence: ids run as one sequence (no BOS unless ids start with it), in
        chunks of positions. Returns Scored (see below); position t predicts ids[t + 1]."""
        ids, n = check_scored(ids, self.c.ctx)
        cache = self.new_cache(n)
        top1 = np.empty(n, np.int64)
        margin = np.empty(n, np.float32)
        nll = np.empty(n - 1, np.float64)
        kept = np.empty((n, self.c.vocab), np.float32) if keep_logits else None
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            lg = self.logits(self.forward(ids[a:b], cache))
            if keep_logits:
                kept[a:b] = lg
            top2 = np.argpartition(-lg, 1, axis=-1)[:, :2]
            v2 = np.take_along_axis(lg, top2, axis=-1)
            order = np.argsort(-v2, axis=-1, kind="stable")
            top1[a:b] = np.take_along_axis(top2, order[:, :1], axis=-1)[:, 0]
            margin[a:b] = np.abs(v2[:, 0] - v2[:, 1])
            tgt = ids[a + 1:b + 1]
            m = len(tgt)
            if m:
                nll[a:a + m] = log_softmax_nll(lg[:m], tgt)
        return Scored(top1, margin, nll, kept)


Scored = namedtuple("Scored", "top1 margin nll logits")
Scored.__doc__ = """top1: the argmax at each position (n,); margin: its logit minus the runner-up's (n,);
nll: -log p(ids[t+1]) at each position t < n - 1, float64; logits: (n, vocab) or None."""


def log_softmax_nll(logits, targets):
    """-log softmax(logits)[target] per row, in float64."""
    lg = logits.astype(np.float64)
    m = lg.max(axis=-1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(lg - m).sum(axis=-1))
    return lse - lg[np.arange(len(targets)), targets]


def perplexity(nll):
    """exp of the mean negative log-likelihood."""
    return float(np.exp(np.mean(nll)))
