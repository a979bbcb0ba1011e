"""The float model: a small decoder-only transformer, forward and backward by hand in numpy.

Pre-norm GPT without biases: x = wte[token] + wpe[position]; per layer
x += attn(rmsnorm(x) * g1) @ wo and x += relu(rmsnorm(x) * g2 @ w1) @ w2; then
logits = (rmsnorm(x) * gf) @ wout. Causal multi-head attention with head size 16 (the
chapter's d). No biases: the chip's MM has none. RMSNorm and ReLU because their integer
forms are small units (docs/lm.md, "Numerics"); the gains g fold into the next matrix.

Everything is float64 and every reduction has a fixed order, so a training step is the
same bits on every run (tests/tools/lm/test_train.py holds it to the committed trace).
"""
from dataclasses import asdict, dataclass

import numpy as np

HEAD = 16           # head size: the chapter's d
EPS = 1e-5          # RMSNorm's epsilon in the float model
SCORE_UNIT = 16     # the chip's SM takes int8 scores in units of 1/16 (model/softmax_gold.py)
SCORE_LO, SCORE_HI = -128 / SCORE_UNIT, 127 / SCORE_UNIT


@dataclass(frozen=True)
class Config:
    vocab: int
    ctx: int = 64
    d: int = 32
    heads: int = 2
    layers: int = 2
    mlp: int = 32
    kv_heads: int = 0       # key-value heads (grouped-query attention); 0: one per query head

    def __post_init__(self):
        for name in ("vocab", "ctx", "d", "mlp"):
            if getattr(self, name) % 4:
                raise ValueError(f"Config: {name} = {getattr(self, name)} is not a multiple "
                                 f"of 4 (dimensions tile the 4 x 4 array)")
        if self.d != self.heads * HEAD:
            raise ValueError(f"Config: d = {self.d} must be heads * {HEAD} = {self.heads * HEAD}")
        if self.kv_heads and (self.kv_heads < 0 or self.heads % self.kv_heads):
            raise ValueError(f"Config: kv_heads = {self.kv_heads} does not divide heads = "
                             f"{self.heads}")

    @property
    def kvh(self):
        """The number of key-value heads: query head c reads KV head c // (heads // kvh)."""
        return self.kv_heads or self.heads

    @property
    def dk(self):
        """Columns of k and v (and words of a cached K or V row): kvh heads of HEAD."""
        return self.kvh * HEAD

    def as_dict(self):
        """The fields (kv_heads only when set: a multi-head model's files are unchanged)."""
        a = asdict(self)
        if not self.kv_heads:
            del a["kv_heads"]
        return a


def names(cfg):
    """Parameter names in a fixed order (the optimizer and the files use it)."""
    out = ["wte", "wpe"]
    for i in range(cfg.layers):
        out += [f"h{i}.{n}" for n in ("g1", "wq", "wk", "wv", "wo", "g2", "w1", "w2")]
    return out + ["gf", "wout"]


def init(cfg, seed):
    """GPT-2's initialisation: N(0, 0.02), residual projections N(0, 0.02 / sqrt(2 layers))."""
    rng = np.random.default_rng(seed)
    shapes = {"wte": (cfg.vocab, cfg.d), "wpe": (cfg.ctx, cfg.d), "gf": (cfg.d,),
              "wout": (cfg.d, cfg.vocab)}
    for i in range(cfg.layers):
        shapes.update({f"h{i}.g1": (cfg.d,), f"h{i}.g2": (cfg.d,),
                       f"h{i}.wq": (cfg.d, cfg.d), f"h{i}.wk": (cfg.d, cfg.dk),
                       f"h{i}.wv": (cfg.d, cfg.dk), f"h{i}.wo": (cfg.d, cfg.d),
                       f"h{i}.w1": (cfg.d, cfg.mlp), f"h{i}.w2": (cfg.mlp, cfg.d)})
    p = {}
    for n in names(cfg):
        if n.endswith(("g1", "g2", "gf")):
            p[n] = np.ones(shapes[n])
        else:
            std = 0.02 / np.sqrt(2 * cfg.layers) if n.endswith(("wo", "w2")) else 0.02
            p[n] = rng.normal(0.0, std, shapes[n])
    return p


def _rmsnorm(x, g):
    r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS)
    n = x * r
    return n * g, (n, r, g)


def _rmsnorm_back(dy, c):
    n, r, g = c
    dn = dy * g
    dg = np.sum(dy * n, axis=tuple(range(dy.ndim - 1)))
    dx = r * (dn - n * np.mean(dn * n, axis=-1, keepdims=True))
    return dx, dg


def split_heads(t, cfg):
    """(B, T, d) -> (B, heads, T, 16): each head's columns. A k or v of fewer columns
    (grouped-query attention: cfg.dk) gives each query head its KV head's columns."""
    B, T, n = t.shape
    t = t.reshape(B, T, n // HEAD, HEAD).transpose(0, 2, 1, 3)
    return np.repeat(t, cfg.heads // (n // HEAD), axis=1) if n != cfg.d else t


def group_heads(t, cfg):
    """(B, heads, T, 16) gradients of the query heads -> (B, T, dk): summed per KV head
    (the adjoint of split_heads of a k or v)."""
    B, H, T, D = t.shape
    return merge_heads(t.reshape(B, cfg.kvh, H // cfg.kvh, T, D).sum(axis=2))


def merge_heads(t):
    """(B, heads, T, 16) -> (B, T, d): the heads' columns side by side."""
    B, H, T, D = t.shape
    return t.transpose(0, 2, 1, 3).reshape(B, T, H * D)


def check_tokens(X, cfg):
    """ValueError unless X is a (batch, T) array of ids in 0..vocab-1 with T <= ctx."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"tokens: expected a (batch, length) array, got shape {X.shape}")
    if X.shape[1] > cfg.ctx:
        raise ValueError(f"tokens: length {X.shape[1]} is longer than the context {cfg.ctx}")
    if X.size and (X.min() < 0 or X.max() >= cfg.vocab):
        bad = X[(X < 0) | (X >= cfg.vocab)][0]
        raise ValueError(f"tokens: id {bad} is outside the vocabulary 0..{cfg.vocab - 1}")
    return X


def forward(p, cfg, X, keep=False):
    """Logits (B, T, vocab) of token ids X (B, T); with keep, also every activation.

    keep returns (logits, cache): what backward needs, and cache["res"], the residual
    stream after the embedding and after every add (the int8 export calibrates on them).
    """
    X = check_tokens(X, cfg)
    B, T = X.shape
    x = p["wte"][X] + p["wpe"][:T]
    cache = {"X": X, "res": [x]}
    mask = np.triu(np.ones((T, T), dtype=bool), 1)
    for i in range(cfg.layers):
        h, cache[i, "n1"] = _rmsnorm(x, p[f"h{i}.g1"])
        q, k, v = (split_heads(h @ p[f"h{i}.w{n}"], cfg) for n in "qkv")
        raw = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(HEAD)
        s = np.clip(raw, SCORE_LO, SCORE_HI)
        s[..., mask] = -np.inf
        a = np.exp(s - s.max(axis=-1, keepdims=True))
        a /= a.sum(axis=-1, keepdims=True)
        y = merge_heads(a @ v)
        x = x + y @ p[f"h{i}.wo"]
        cache["res"].append(x)
        h2, cache[i, "n2"] = _rmsnorm(x, p[f"h{i}.g2"])
        u = h2 @ p[f"h{i}.w1"]
        r = np.maximum(u, 0.0)
        x = x + r @ p[f"h{i}.w2"]
        cache["res"].append(x)
        cache[i] = (h, q, k, v, a, y, h2, u, r, (raw >= SCORE_LO) & (raw <= SCORE_HI))
    hf, cache["nf"] = _rmsnorm(x, p["gf"])
    logits = hf @ p["wout"]
    cache["hf"] = hf
    return (logits, cache) if keep else logits


def cross_entropy(logits, Y, mask):
    """Mean negative log-likelihood (nats) of targets Y over the positions mask selects."""
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(logp, Y[..., None], axis=-1)[..., 0]
    return float(nll[mask].sum() / mask.sum())


def loss_and_grad(p, cfg, X, Y, mask):
    """(loss, grads): the masked mean cross-entropy and its gradient for every parameter."""
    logits, c = forward(p, cfg, X, keep=True)
    B, T = c["X"].shape
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=-1, keepdims=True)
    nll = -np.log(np.take_along_axis(prob, Y[..., None], axis=-1)[..., 0])
    n = mask.sum()
    loss = float(nll[mask].sum() / n)
    dlog = prob
    dlog[np.arange(B)[:, None], np.arange(T)[None, :], Y] -= 1.0
    dlog *= (mask / n)[..., None]
    g = {}
    g["wout"] = c["hf"].reshape(-1, cfg.d).T @ dlog.reshape(-1, cfg.vocab)
    dx, g["gf"] = _rmsnorm_back(dlog @ p["wout"].T, c["nf"])
    for i in reversed(range(cfg.layers)):
        h, q, k, v, a, y, h2, u, r, inside = c[i]
        g[f"h{i}.w2"] = r.reshape(-1, cfg.mlp).T @ dx.reshape(-1, cfg.d)
        du = (dx @ p[f"h{i}.w2"].T) * (u > 0)
        g[f"h{i}.w1"] = h2.reshape(-1, cfg.d).T @ du.reshape(-1, cfg.mlp)
        d2, g[f"h{i}.g2"] = _rmsnorm_back(du @ p[f"h{i}.w1"].T, c[i, "n2"])
        dx = dx + d2
        g[f"h{i}.wo"] = y.reshape(-1, cfg.d).T @ dx.reshape(-1, cfg.d)
        dy = split_heads(dx @ p[f"h{i}.wo"].T, cfg)
        da = dy @ v.transpose(0, 1, 3, 2)
        dv = a.transpose(0, 1, 3, 2) @ dy
        ds = a * (da - np.sum(da * a, axis=-1, keepdims=True)) * inside / np.sqrt(HEAD)
        dq = ds @ k
        dk = ds.transpose(0, 1, 3, 2) @ q
        dh = 0.0
        for nm, dt in (("q", dq), ("k", dk), ("v", dv)):
            dt = merge_heads(dt) if nm == "q" else group_heads(dt, cfg)
            g[f"h{i}.w{nm}"] = h.reshape(-1, cfg.d).T @ dt.reshape(-1, dt.shape[-1])
            dh = dh + dt @ p[f"h{i}.w{nm}"].T
        d1, g[f"h{i}.g1"] = _rmsnorm_back(dh, c[i, "n1"])
        dx = dx + d1
    g["wpe"] = np.zeros_like(p["wpe"])
    g["wpe"][:T] = dx.sum(axis=0)
    g["wte"] = np.zeros_like(p["wte"])
    np.add.at(g["wte"], c["X"].reshape(-1), dx.reshape(-1, cfg.d))
    return loss, g


def save(path, p, cfg):
    """Write the float weights and their Config to an .npz file."""
    np.savez(path, **p, cfg=np.array(list(cfg.as_dict().values()), dtype=np.int64))


def load(path):
    """(params, Config) from an .npz file written by save."""
    with np.load(path) as f:
        return {n: f[n] for n in f.files if n != "cfg"}, Config(*(int(v) for v in f["cfg"]))
