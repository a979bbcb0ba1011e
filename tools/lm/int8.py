"""The integer reference of the whole model: what the chip computes, bit for bit.

int8 weights and activations, int32 accumulation (MM), the chip's requantization
(model.quant.requant, RQ) and softmax (model.softmax_gold, SM), and the numerics of the
operations the chip does not have yet (docs/lm.md, "Numerics", is their specification):
EMB (a table row by token id), ADD (int8 saturating add), RELU, NORM (integer RMSNorm:
sum of squares, integer square root, one reciprocal, a requant) and ARGMAX (lowest index
wins ties). The functions below are those ops on numpy int64 arrays (exact: no value
leaves int32 except inside a requant's 48-bit product); Int8Model strings them together.

export() turns a float model (tools/lm/model.py) into an Int8Model: the RMSNorm gains are
folded into the next matrix, every matrix gets one scale (model.quant.scale_for) and
every activation one scale calibrated on training data (max |value| / 127), and each
requantization its (m, s) by model.quant.mantissa_shift of the ratio of scales. The
calibration runs the float model in a fixed order without BLAS (peaks), so an export is
the same bits on every machine: its int8 values and (m, s) pairs (the chip's contract)
and its logit_scale too.
"""
import math

import numpy as np

from model.quant import mantissa_shift, quantize, scale_for
from model.softmax_gold import LUT, Q16
from tools.lm import model as M

LUT_NP = np.array(LUT, dtype=np.int64)
NORM_PRE = 10          # NORM: q = isqrt(ss << NORM_PRE), i.e. 32 * sqrt(ss) for NORM_PRE 10
NORM_NUM = 29          # NORM: r = 2^NORM_NUM // q, so x * r fits int32 (|x| <= 128, q >= 32)
NORM_GAIN = 1 << (NORM_NUM - NORM_PRE // 2)   # r is about NORM_GAIN / sqrt(ss): 2^24
INT32 = (-(1 << 31), (1 << 31) - 1)


# -- the ops ----------------------------------------------------------------------------

def _int32(a, what):
    a = np.asarray(a, dtype=np.int64)
    if a.size and (a.min() < INT32[0] or a.max() > INT32[1]):
        raise ValueError(f"{what}: value outside int32")
    return a


def requant(a, m, s):
    """RQ: clamp((a*m + 2^(s-1)) >> s, -128, 127) elementwise (model.quant.requant)."""
    a = _int32(a, "requant")
    p = a * int(m) + ((1 << (s - 1)) if s > 0 else 0)
    return np.clip(p >> int(s), -128, 127)


def add8(x, y):
    """ADD: int8 + int8, saturated to [-128, 127]."""
    return np.clip(np.asarray(x, np.int64) + np.asarray(y, np.int64), -128, 127)


def relu8(x):
    """RELU: max(x, 0) of int8."""
    return np.maximum(np.asarray(x, np.int64), 0)


def isqrt(n):
    """floor(sqrt(n)) of non-negative int64 values below 2^52, exactly (as math.isqrt)."""
    n = np.asarray(n, dtype=np.int64)
    r = np.floor(np.sqrt(n.astype(np.float64))).astype(np.int64)
    r = np.where(r * r > n, r - 1, r)           # float sqrt is within one of the answer
    return np.where((r + 1) * (r + 1) <= n, r + 1, r)


def norm_recip(ss):
    """NORM's reciprocal of an int sum of squares ss >= 1: 2^29 // isqrt(ss << 10)."""
    return (1 << NORM_NUM) // isqrt(np.asarray(ss, np.int64) << NORM_PRE)


def rmsnorm(x, m, s):
    """NORM over the last axis of int8 x: ss = sum x^2; y = requant(x * r(ss), m, s).

    r = norm_recip(ss), about 2^24 / sqrt(ss); a vector of zeros gives zeros.
    y is x * sqrt(len) / rms(x) / scale when (m, s) = mantissa_shift(sqrt(len) / (2^24 scale)).
    """
    x = np.asarray(x, np.int64)
    ss = np.sum(x * x, axis=-1, keepdims=True)
    r = norm_recip(np.maximum(ss, 1))
    return np.where(ss > 0, requant(x * r, m, s), 0)


def softmax_causal(sc):
    """SM over each row t's first t + 1 int8 scores (the causal rows), Q16; zeros after.

    Row t is model.softmax_gold.softmax_fixed(sc[..., t, :t + 1]): the chip's softmax of
    the scores of the tokens so far, a decode step at token t.
    """
    sc = np.asarray(sc, np.int64)
    T = sc.shape[-1]
    valid = np.tril(np.ones((T, T), dtype=bool))
    mx = np.where(valid, sc, -129).max(axis=-1, keepdims=True)
    e = np.where(valid, LUT_NP[np.where(valid, mx - sc, 0)], 0)
    return e * Q16 // e.sum(axis=-1, keepdims=True)


def argmax(v):
    """ARGMAX over the last axis: the index of the largest value, the lowest on ties."""
    return np.argmax(np.asarray(v), axis=-1)


def greedy(logits, prompt, n, ctx):
    """prompt (B, T0) ids extended by n tokens, each the ARGMAX of logits(ids)[:, -1].

    logits is any forward pass (Int8Model.logits, or the float model's). A decode on the
    chip holds at most ctx tokens (its KV cache; SM takes at most 64 scores), so a prompt
    longer than ctx, or one that n tokens would take past ctx, is a ValueError.
    """
    ids = np.asarray(prompt, dtype=np.int64)
    if ids.ndim != 2:
        raise ValueError(f"greedy: expected a (batch, length) prompt, got shape {ids.shape}")
    if ids.shape[1] > ctx:
        raise ValueError(f"greedy: prompt of {ids.shape[1]} tokens is longer than the "
                         f"context {ctx}")
    if ids.shape[1] + n > ctx:
        raise ValueError(f"greedy: {ids.shape[1]} prompt tokens + {n} new ones exceed the "
                         f"context {ctx}")
    for _ in range(n):
        ids = np.concatenate([ids, argmax(logits(ids)[:, -1])[:, None]], axis=1)
    return ids


# -- the model --------------------------------------------------------------------------

class Int8Model:
    """An exported model: int8 tables and matrices, (m, s) of every requant, the logit scale.

    w: name -> int8 values (as int64), the float model's names (gains folded in);
    rq: name -> (m, s); logit_scale: the float value of one unit of the int32 logits (for
    measuring the loss only; decoding takes ARGMAX of the integers).
    """

    def __init__(self, cfg, w, rq, logit_scale, kv_bits=8):
        self.cfg, self.w, self.rq, self.logit_scale = cfg, w, rq, float(logit_scale)
        self.kv_bits = kv_bits      # 4: a 4-bit KV cache (tools/lm/remedies_ref.py)

    def logits(self, X):
        """int32 logits (B, T, vocab) of token ids X (B, T): the integer forward pass."""
        return self._forward(X, None)

    def cache(self, X):
        """The KV cache a decode of token ids X (B, T) writes: per layer (k, v), each
        (B, T, d) int8 (the heads side by side, as the rows the chip stores)."""
        kv = []
        self._forward(X, kv)
        return kv

    def _forward(self, X, kv):
        cfg, w, rq = self.cfg, self.w, self.rq
        X = M.check_tokens(X, cfg)
        B, T = X.shape
        x = add8(w["wte"][X], w["wpe"][:T])                       # EMB, ADD
        for i in range(cfg.layers):
            h = rmsnorm(x, *rq[f"h{i}.n1"])
            qkv = [requant(h @ w[f"h{i}.w{n}"], *rq[f"h{i}.{n}"]) for n in "qkv"]
            if kv is not None:
                kv.append((qkv[1], qkv[2]))
            q, k, v = (M.split_heads(t, cfg) for t in qkv)
            sc = requant(q @ k.transpose(0, 1, 3, 2), *rq[f"h{i}.scores"])
            a = requant(softmax_causal(sc), *rq["weights"])
            o = M.merge_heads(requant(a @ v, *rq[f"h{i}.o"]))
            x = add8(requant(x, *rq[f"res{2 * i}"]), requant(o @ w[f"h{i}.wo"], *rq[f"h{i}.attn"]))
            h2 = rmsnorm(x, *rq[f"h{i}.n2"])
            u = relu8(requant(h2 @ w[f"h{i}.w1"], *rq[f"h{i}.u"]))
            x = add8(requant(x, *rq[f"res{2 * i + 1}"]),
                     requant(u @ w[f"h{i}.w2"], *rq[f"h{i}.mlp"]))
        return _int32(rmsnorm(x, *rq["nf"]) @ w["wout"], "logits")

    def save(self, path):
        arrays = {f"w.{n}": v.astype(np.int8) for n, v in self.w.items()}
        arrays.update({f"rq.{n}": np.array(ms, dtype=np.int64) for n, ms in self.rq.items()})
        if self.kv_bits != 8:
            arrays["kv_bits"] = np.array(self.kv_bits, dtype=np.int64)
        np.savez(path, **arrays, logit_scale=self.logit_scale,
                 cfg=np.array(list(self.cfg.as_dict().values()), dtype=np.int64))

    @classmethod
    def load(cls, path):
        with np.load(path) as f:
            cfg = M.Config(*(int(v) for v in f["cfg"]))
            w = {k[2:]: f[k].astype(np.int64) for k in f.files if k.startswith("w.")}
            rq = {k[3:]: tuple(int(v) for v in f[k]) for k in f.files if k.startswith("rq.")}
            kv_bits = int(f["kv_bits"]) if "kv_bits" in f.files else 8
            return cls(cfg, w, rq, float(f["logit_scale"]), kv_bits)


def fold(p, cfg):
    """The float weights with every RMSNorm gain folded into the matrix after it."""
    f = {"wte": p["wte"], "wpe": p["wpe"], "wout": p["gf"][:, None] * p["wout"]}
    for i in range(cfg.layers):
        for n in "qkv":
            f[f"h{i}.w{n}"] = p[f"h{i}.g1"][:, None] * p[f"h{i}.w{n}"]
        f[f"h{i}.wo"] = p[f"h{i}.wo"]
        f[f"h{i}.w1"] = p[f"h{i}.g2"][:, None] * p[f"h{i}.w1"]
        f[f"h{i}.w2"] = p[f"h{i}.w2"]
    return f


def _scale(v):
    """model.quant.scale_for of the values v (of their peak, which is all it looks at)."""
    return scale_for([float(np.max(np.abs(v)))])


def _q(v, s):
    """quantize (model.quant) of every element: round half away, saturate at +-127."""
    return np.vectorize(lambda t: quantize(float(t), s), otypes=[np.int64])(v)


# -- the calibration run: the float model in a fixed order -----------------------------
# The export's scales are maxima of the float model's activations, so they are the same
# bits on every machine only if the activations are. tools/lm/model.py's forward is not:
# its @ calls BLAS, whose kernel (and so its order of summation) OpenBLAS picks by CPU, and
# numpy's float64 exp is its own AVX-512 code where the CPU has AVX-512 and libm's
# elsewhere (they differ in the last bit on about 5% of arguments). The run below is the
# same model from IEEE-754 basic operations only (+ - * / sqrt, max, compare: correctly
# rounded, one element at a time, whatever the SIMD width), each sum in a fixed order:
# the same bits on any IEEE-754 machine, any BLAS, any numpy dispatch.

CHUNK = 8192            # positions (windows x length) a calibration chunk runs at once
_LN2_HI = 6.93147180369123816490e-01   # ln 2's top 32 bits: k * _LN2_HI is exact here
_LN2_LO = 1.90821492927058770002e-10   # ln 2 - _LN2_HI
_INV_FACT = [1.0 / math.factorial(j) for j in range(14)]


def sum_last(v):
    """The sum over v's last axis, left to right: ((v0 + v1) + v2) + ..."""
    v = np.moveaxis(v, -1, 0).copy()
    acc = v[0]
    for j in range(1, len(v)):
        acc += v[j]
    return acc


def dot(a, b):
    """a @ b of float64 (..., M, K) and (..., K, N) without BLAS: each output the sum of
    its K products left to right (k = 0, 1, ...), every product and sum rounded once."""
    at = np.ascontiguousarray(np.swapaxes(a, -1, -2))[..., None]     # (..., K, M, 1)
    b = np.ascontiguousarray(b)[..., None, :]                        # (..., K, 1, N)
    acc = at[..., 0, :, :] * b[..., 0, :, :]
    tmp = np.empty_like(acc)
    for j in range(1, at.shape[-3]):
        acc += np.multiply(at[..., j, :, :], b[..., j, :, :], out=tmp)
    return acc


def exp(x):
    """e^x of float64 x <= 0 (e^-inf = 0), from basic operations: x = k ln 2 + r with
    |r| <= ln 2 / 2 (Cody and Waite's two-part ln 2), e^r by its Taylor series to r^13
    (the rest under 1e-17 relative) in Horner's order, times 2^k (exact). Within a few
    units of the last place of e^x (measured: within one of libm's on a million arguments
    in -16..0)."""
    finite = np.isfinite(x)
    x = np.where(finite, x, 0.0)
    k = np.rint(x / (_LN2_HI + _LN2_LO))
    r = (x - k * _LN2_HI) - k * _LN2_LO
    e = np.full_like(r, _INV_FACT[-1])
    for c in reversed(_INV_FACT[:-1]):
        e *= r
        e += c
    return np.where(finite, np.ldexp(e, k.astype(np.int64)), 0.0)


def _norm(x):
    """tools/lm/model.py's RMSNorm before its gain: x / sqrt(mean(x^2) + EPS)."""
    return x * (1.0 / np.sqrt(sum_last(x * x)[..., None] / x.shape[-1] + M.EPS))


def _peaks(p, cfg, X):
    """site -> per-channel max |value| of the float model's activations on ids X (one chunk)."""
    T = X.shape[1]
    x = p["wte"][X] + p["wpe"][:T]
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    out = {"res0": x}
    for i in range(cfg.layers):
        n1 = _norm(x)
        h = n1 * p[f"h{i}.g1"]
        qkv = {n: dot(h, p[f"h{i}.w{n}"]) for n in "qkv"}
        q, k, v = (M.split_heads(qkv[n], cfg) for n in "qkv")
        s = np.clip(dot(q, k.transpose(0, 1, 3, 2)) / np.sqrt(M.HEAD), M.SCORE_LO, M.SCORE_HI)
        s[..., future] = -np.inf
        e = exp(s - s.max(axis=-1, keepdims=True))
        y = M.merge_heads(dot(e / sum_last(e)[..., None], v))
        x = x + dot(y, p[f"h{i}.wo"])
        out[f"res{2 * i + 1}"] = x
        n2 = _norm(x)
        u = np.maximum(dot(n2 * p[f"h{i}.g2"], p[f"h{i}.w1"]), 0.0)
        x = x + dot(u, p[f"h{i}.w2"])
        out[f"res{2 * i + 2}"] = x
        out.update({f"h{i}.n1": n1, f"h{i}.o": y, f"h{i}.n2": n2, f"h{i}.u": u},
                   **{f"h{i}.{n}": t for n, t in qkv.items()})
    out["nf"] = _norm(x)
    return {site: np.abs(t).max(axis=(0, 1)) for site, t in out.items()}


def peaks(p, cfg, X, chunk=CHUNK):
    """site -> (channels,) max |value| over token ids X (B, T) of each channel of the float
    model's activations (the fixed-order run above, chunk positions at a time: the windows
    are independent, so the chunking changes no bit). Sites: res0..res{2 layers} (the
    residual after the embedding and every add), and per layer i h{i}.n1, h{i}.n2 (a norm's
    output before its gain), h{i}.q, .k, .v (the projections), h{i}.o (the attention
    output), h{i}.u (the MLP's hidden layer after its ReLU); nf (the final norm's)."""
    X = M.check_tokens(X, cfg)
    rows = max(1, chunk // X.shape[1])
    out = {}
    for b in range(0, len(X), rows):
        for site, pk in _peaks(p, cfg, X[b:b + rows]).items():
            out[site] = np.maximum(out[site], pk) if site in out else pk
    return out


def calibrate(p, cfg, X):
    """The activation scales: max |value| / 127 of each site (peaks) over the float run on X."""
    return {site: scale_for([float(pk.max())]) for site, pk in peaks(p, cfg, X).items()}


def export(p, cfg, X, fixed=None):
    """The Int8Model of float weights p, activation scales calibrated on token ids X;
    fixed: site -> scale, sites whose scale is set rather than calibrated (the 4-bit KV
    cache's k and v, tools/lm/remedies_ref.py)."""
    a = calibrate(p, cfg, X)
    a.update(fixed or {})
    f = fold(p, cfg)
    ws = {n: _scale(v) for n, v in f.items()}
    ws["wte"] = ws["wpe"] = a["res0"]             # the tables are the residual's int8
    w = {n: _q(v, ws[n]) for n, v in f.items()}
    def norm(site):
        return mantissa_shift(math.sqrt(cfg.d) / (NORM_GAIN * a[site]))
    rq = {"weights": mantissa_shift(127 / Q16), "nf": norm("nf")}
    for i in range(cfg.layers):
        j = 2 * i                                 # the residual site before layer i
        n1, n2 = f"h{i}.n1", f"h{i}.n2"
        rq[n1], rq[n2] = norm(n1), norm(n2)
        for n in "qkv":
            rq[f"h{i}.{n}"] = mantissa_shift(a[n1] * ws[f"h{i}.w{n}"] / a[f"h{i}.{n}"])
        rq[f"h{i}.scores"] = mantissa_shift(a[f"h{i}.q"] * a[f"h{i}.k"] / math.sqrt(M.HEAD)
                                            * M.SCORE_UNIT)
        rq[f"h{i}.o"] = mantissa_shift(a[f"h{i}.v"] / (127 * a[f"h{i}.o"]))
        rq[f"res{j}"] = mantissa_shift(a[f"res{j}"] / a[f"res{j + 1}"])
        rq[f"h{i}.attn"] = mantissa_shift(a[f"h{i}.o"] * ws[f"h{i}.wo"] / a[f"res{j + 1}"])
        rq[f"h{i}.u"] = mantissa_shift(a[n2] * ws[f"h{i}.w1"] / a[f"h{i}.u"])
        rq[f"res{j + 1}"] = mantissa_shift(a[f"res{j + 1}"] / a[f"res{j + 2}"])
        rq[f"h{i}.mlp"] = mantissa_shift(a[f"h{i}.u"] * ws[f"h{i}.w2"] / a[f"res{j + 2}"])
    return Int8Model(cfg, w, rq, a["nf"] * ws["wout"])
