"""SmolLM2-135M's integer reference: the forward pass in GA-2's numerics, bit for bit.

The chip's results (the step compiler's programs, tools/lm/compiler) must equal this
module's words exactly, so every step is one chip operation with that operation's own
integer semantics, computed by the operation's numpy reference function in model/ops
(qnt.row_params + quantize_vec, rqc.rqc_rows, swiglu.swiglu_vec, rope.rope_pairs with
rope.rope_table's Q14 rows, smw.exps + smw.probs as smw_vec composes them); only MM
and the wide ADD are written out here (MM: sum of products wrapped to int32; ADD w=1:
int32 saturating add, model/ops/add.py).

Words: the residual stream and every projection are int32 Q12 words (value = word / 2^12).
QNT runs with b16 = 1 everywhere but the KV cache (16-bit activations: the array
multiplies 16 x 8 bits in the same cycles as 8 x 8, so the extra bits cost nothing). For
a token row x at position t:
 1. x = embed12[token]
 2. per layer (weights from intweights.py, RMSNorm gains folded into them):
    a. (h16, sh) = QNT(x, rms=1, b16=1)
    b. q, k, v = RQC(MM(h16, W8^T), rs=sh, cs=the matrix's column words, q=12)
       (csq carries C = log2(e) / 8: q comes out in log2 units)
    c. RoPE at t on q's heads and k's heads (consecutive pairs; rope_table(t), Q14)
    d. per KV head g: (k8, ks) = QNT(k_g, rms=0, b16=0, q=12), (v8, vs) likewise: the KV
       cache's row (layer, g, t), int8 values and one scale word each
    e. per query head c (KV head c // group), keys j = 0..t:
       (q16, qs) = QNT(q_c, b16=1, q=12); s32_j = MM(q16, k8_j)
       s = RQC(s32, rs=qs, cs=ks_j, q=Q_SCORE)      scores in log2 units, Q8
       p = SMW(s)                                    Q15 probabilities
       w = RQC(p, rs=ONE, cs=vs_j, q=Q_W)            w_j = p_j vs_j 2^Q_W: Q27 of the real p_j vs_j
       (w16, ws) = QNT(w, b16=1, q=Q_WQNT)           Q_WQNT = Q_W + 15 (p's Q15): w16 ws = p_real vs
       o_c = RQC(MM(w16, v8), rs=ws, cs=ONE x 64, q=12)
       (IntRef(pv_tile=n): the keys in tiles of n, each tile's w QNT'd, multiplied and
       requantized alone, the tiles' o_c added by ADD w=1 -- see PV_TILE_SAFE)
    f. (o16, os) = QNT(o, b16=1, q=12); x = ADD_w(x, RQC(MM(o16, wo8^T), os, cso, 12))
    g. (h16, sh2) = QNT(x, rms=1, b16=1); g, u = RQC(MM(h16, wg8^T / wu8^T), sh2, csg / csu, 12)
       f = SWIGLU(g, u)
    h. (f16, fs) = QNT(f, b16=1, q=12); x = ADD_w(x, RQC(MM(f16, wd8^T), fs, csd, 12))
 3. (h16, shf) = QNT(x, rms=1, b16=1); logits = RQC(MM(h16, head8^T), shf, csh, 12) (int32
    Q12); the next token is their ARGMAX (the lowest index of equal maxima).

The q fields are named constants below (Q_*): the lead checks them against the chip.

Speed without inexactness: an MM is computed as a float64 BLAS product of the integer
operands. Every product is below 2^15 * 2^7 and at most 8,192 are summed, so every partial
sum, in whatever order BLAS adds them, is an integer below 2^35 < 2^53: the float64 result
is the exact integer sum, then wrapped to int32 as the chip's MM does
(((v + 2^31) mod 2^32) - 2^31). No result hangs on a float's last bit.

Batched: all positions of a chunk at once (QNT's row_params per row, the rest numpy over
rows; masked keys of the causal rows carry probability 0, so the rows equal the chip's
rows of length t + 1); identical to one position at a time (tests/tools/smollm2 test it).
"""
from collections import namedtuple

import numpy as np

from model.ops import qnt, rope, rqc, smw, swiglu
from model.wide import PV_TILE_SAFE
from tools.smollm2 import float_ref
from tools.smollm2.intweights import ONE, Q_RES

Q_X = Q_RES                  # the residual stream, projections, o, FFN words: Q12
Q_KV = 12                    # QNT's q of the KV cache rows (k, v in Q12)
Q_SCORE = 8                  # RQC's q of the scores: log2 units in Q8 (SMW's input)
Q_W = 12                     # RQC's q of w = p * vs
Q_WQNT = Q_W + smw.Q_BITS    # QNT's q of w: its fraction bits, Q_W + p's 15
Q_O = 12                     # RQC's q of the attention output o
Q_HEAD = 12                  # RQC's q of the logits
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN = np.iinfo(np.int64).min
# the weighted sum of V past PV_TILE_SAFE keys can wrap int32 (model/wide.py; measured:
# 2.55e9 at 4,096 tokens): pv_tile = n <= PV_TILE_SAFE splits the keys into tiles of n, each
# QNT'd, multiplied and requantized to Q12 on its own and the tiles' o added (ADD w=1).


def wrap32(v):
    """int32 wraparound of int64 values: ((v + 2^31) mod 2^32) - 2^31 (MM's accumulator)."""
    return ((np.asarray(v, dtype=np.int64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def mm_exact(a, w8):
    """The exact sums of products of int rows a (T x K, |a| <= 2^15) and int8 W (N x K):
    T x N int64 (the module docstring: float64 sums of integers below 2^53 are exact)."""
    return np.rint(np.asarray(a, dtype=np.float64) @ np.asarray(w8, dtype=np.float64).T).astype(np.int64)


def mm(a, w8):
    """MM: mm_exact wrapped to int32 words as the chip's accumulator wraps."""
    return wrap32(mm_exact(a, w8))


def add_w(x, y):
    """ADD w=1: int32 saturating add (model/ops/add.py)."""
    return np.clip(x + y, I32_MIN, I32_MAX)


def qnt_rows(x, q, b16, rms):
    """QNT of every row of x (int64, T x n): (values T x n int64, scale words T int64).
    qnt.row_params per row (plain mode reads the row's max |x| alone, so it is handed a
    one-element row of it), quantize_vec on all rows at once."""
    x = np.asarray(x, dtype=np.int64)
    T = x.shape[0]
    R, sh, word = np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64)
    amax = np.abs(x).max(axis=1)
    for t in range(T):
        row = x[t] if rms else amax[t:t + 1]
        R[t], sh[t], word[t] = qnt.row_params(row, q, b16, rms)
    return qnt.quantize_vec(x, R[:, None], sh[:, None]), word


def smw_rows(s, length):
    """SMW of each row of scores s (T x S int64) over its first length[t] entries (the
    causal row the chip passes), zeros beyond: smw_vec's exps and probs, row-wise."""
    valid = np.arange(s.shape[1])[None, :] < np.asarray(length)[:, None]
    mx = np.where(valid, s, I64_MIN).max(axis=1, keepdims=True)
    e = np.where(valid, smw.exps(np.where(valid, s, mx), mx), 0)
    return np.where(valid, smw.probs(e, e.sum(axis=1, keepdims=True)), 0)


class KVCache:
    """The KV cache as the chip keeps it: per layer and KV head, each position's int8 key
    and value rows and their scale words. k8, v8: (n_layer, n_kv_head, capacity, head_dim)
    int8; ks, vs: (n_layer, n_kv_head, capacity) int64 words; `length` positions filled."""

    def __init__(self, config, capacity=64):
        self.c, self.length = config, 0
        self._alloc(capacity)

    def _alloc(self, cap):
        c = self.c
        old = getattr(self, "k8", None)
        shape = (c.n_layer, c.n_kv_head, cap)
        k8, v8 = np.zeros(shape + (c.head_dim,), np.int8), np.zeros(shape + (c.head_dim,), np.int8)
        ks, vs = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
        if old is not None:
            n = self.length
            k8[:, :, :n], v8[:, :, :n] = self.k8[:, :, :n], self.v8[:, :, :n]
            ks[:, :, :n], vs[:, :, :n] = self.ks[:, :, :n], self.vs[:, :, :n]
        self.k8, self.v8, self.ks, self.vs = k8, v8, ks, vs

    def reserve(self, n):
        """Room for n positions in all."""
        if n > self.k8.shape[2]:
            self._alloc(max(n, 2 * self.k8.shape[2]))

    def row(self, layer, g, t):
        """(k8, ks, v8, vs) of (layer, KV head g, position t)."""
        if not 0 <= t < self.length:
            raise ValueError(f"position {t}: the cache holds 0..{self.length - 1}")
        return self.k8[layer, g, t], int(self.ks[layer, g, t]), self.v8[layer, g, t], int(self.vs[layer, g, t])


class IntRef:
    """The integer forward pass of IntWeights (intweights.prepare or cut) with a KV cache.
    prefill(ids) / step(token) run positions on from cache.length and return the last
    position's int32 Q12 logits; generate() decodes greedily; teacher_forced() scores a
    sequence. After a call, `hidden` holds the last position's residual words before the
    head's QNT; `peaks` the largest magnitude of each kind of word so far (the int32
    headroom: "mm SITE" the exact sums before MM's wrap, "x" the residual, "w" p * vs,
    "score", "q", "k", "v", "gate", "up", "swiglu", "logits"); `wraps` how many MM sums of
    each site passed int32 and wrapped (site -> count, sites that never wrapped absent)."""

    def __init__(self, weights, pv_tile=None):
        if pv_tile is not None and not 1 <= pv_tile <= PV_TILE_SAFE:
            raise ValueError(f"pv_tile {pv_tile}: outside 1..{PV_TILE_SAFE} (the tiles whose sum fits int32)")
        self.w = weights
        self.c = weights.config
        self.pv_tile = pv_tile
        self.cache = KVCache(self.c)
        self.hidden = None
        self._cos = None
        self.peaks = {}          # site -> the largest |word| seen (the int32 headroom; see _mm)
        self.wraps = {}          # MM site -> how many of its sums wrapped

    def reset(self):
        self.cache = KVCache(self.c)
        self.hidden = None

    def _peak(self, site, a):
        m = int(np.abs(a).max())
        if m > self.peaks.get(site, -1):
            self.peaks[site] = m
        return a

    def _mm(self, site, a, w8):
        """mm(a, w8), its exact sum's largest magnitude kept in peaks["mm " + site] (past
        2^31 - 1 the chip's accumulator wraps; nothing here assumes it does not)."""
        exact = self._peak("mm " + site, mm_exact(a, w8))
        n = int(np.count_nonzero((exact > I32_MAX) | (exact < I32_MIN)))
        if n:
            self.wraps["mm " + site] = self.wraps.get("mm " + site, 0) + n
        return wrap32(exact)

    def _rope_rows(self, positions):
        need = int(positions.max()) + 1
        if self._cos is None or need > len(self._cos):
            n = max(need, min(self.c.ctx, rope.POSITIONS))
            self._cos = rope.rope_table(n, self.c.head_dim, int(self.c.rope_base))
        return self._cos[positions]

    def _rope(self, x, heads, cs):
        """ROPE of x (T x heads*head_dim words), each row by its position's row cs (T x head_dim)."""
        T, hd = x.shape[0], self.c.head_dim
        v = x.reshape(T, heads, hd // 2, 2)
        c, s = rope.s16(cs[:, None, 0::2]), rope.s16(cs[:, None, 1::2])
        y0, y1 = rope.rope_pairs(v[..., 0], v[..., 1], c, s)
        return np.stack([y0, y1], axis=-1).reshape(T, heads * hd)

    def forward(self, ids, logits=True):
        """Run ids at positions cache.length ..: (T x vocab) int32 Q12 logits (int64), or
        the final residual words (T x d) with logits=False; the cache grows by len(ids)."""
        c, W = self.c, self.w
        ids, T, start = float_ref.check_ids(ids, self.cache.length, c.ctx, "the context of", c.vocab)
        S, hd, group = start + T, c.head_dim, c.n_head // c.n_kv_head
        self.cache.reserve(S)
        cs = self._rope_rows(np.arange(start, S))
        length = np.arange(start, S) + 1                 # each query's causal row length
        ones_t = np.full(T, ONE, np.int64)
        ones_hd = np.full(hd, ONE, np.int64)
        x = W.embed12[ids].astype(np.int64)
        for li, L in enumerate(W.layers):
            h16, sh = qnt_rows(x, Q_X, 1, 1)
            q = self._peak("q", rqc.rqc_rows(self._mm("qkv", h16, L.wq), sh, L.csq, Q_X))
            k = self._peak("k", rqc.rqc_rows(self._mm("qkv", h16, L.wk), sh, L.csk, Q_X))
            v = self._peak("v", rqc.rqc_rows(self._mm("qkv", h16, L.wv), sh, L.csv, Q_X))
            q, k = self._rope(q, c.n_head, cs), self._rope(k, c.n_kv_head, cs)
            kc = self.cache
            for g in range(c.n_kv_head):
                k8, ks = qnt_rows(k[:, g * hd:(g + 1) * hd], Q_KV, 0, 0)
                v8, vs = qnt_rows(v[:, g * hd:(g + 1) * hd], Q_KV, 0, 0)
                kc.k8[li, g, start:S], kc.ks[li, g, start:S] = k8, ks
                kc.v8[li, g, start:S], kc.vs[li, g, start:S] = v8, vs
            o = np.empty((T, c.n_head * hd), np.int64)
            for h in range(c.n_head):
                g = h // group
                q16, qs = qnt_rows(q[:, h * hd:(h + 1) * hd], Q_X, 1, 0)
                s32 = self._mm("score", q16, kc.k8[li, g, :S])            # T x S
                s = self._peak("score", rqc.rqc_rows(s32, qs, kc.ks[li, g, :S], Q_SCORE))
                p = smw_rows(s, length)
                wj = self._peak("w", rqc.rqc_rows(p, ones_t, kc.vs[li, g, :S], Q_W))
                tile = self.pv_tile or S
                oh = None
                for a in range(0, S, tile):                                # one tile unless pv_tile
                    w16, ws = qnt_rows(wj[:, a:a + tile], Q_WQNT, 1, 0)
                    o32 = self._mm("pv", w16, kc.v8[li, g, a:min(S, a + tile)].T)    # T x hd
                    ot = rqc.rqc_rows(o32, ws, ones_hd, Q_O)
                    oh = ot if oh is None else add_w(oh, ot)
                o[:, h * hd:(h + 1) * hd] = oh
            o16, os_ = qnt_rows(o, Q_X, 1, 0)
            x = self._peak("x", add_w(x, rqc.rqc_rows(self._mm("o", o16, L.wo), os_, L.cso, Q_X)))
            h16, sh2 = qnt_rows(x, Q_X, 1, 1)
            gt = self._peak("gate", rqc.rqc_rows(self._mm("gate_up", h16, L.wg), sh2, L.csg, Q_X))
            up = self._peak("up", rqc.rqc_rows(self._mm("gate_up", h16, L.wu), sh2, L.csu, Q_X))
            f = self._peak("swiglu", swiglu.swiglu_vec(gt, up))
            f16, fs = qnt_rows(f, Q_X, 1, 0)
            x = self._peak("x", add_w(x, rqc.rqc_rows(self._mm("down", f16, L.wd), fs, L.csd, Q_X)))
        self.cache.length = S
        self.hidden = x[-1].copy()
        if not logits:
            return x
        return self.head(x)

    def head(self, x):
        """The int32 Q12 logits (T x vocab, int64) of final residual rows x."""
        h16, shf = qnt_rows(x, Q_X, 1, 1)
        return self._peak("logits", rqc.rqc_rows(self._mm("head", h16, self.w.head), shf, self.w.csh, Q_HEAD))

    def prefill(self, ids):
        """Run a prompt (all positions at once): the last position's logits (vocab,)."""
        return self.head(self.forward(ids, logits=False)[-1:])[0]

    def step(self, token):
        """Run one token at the next position: its logits (vocab,)."""
        return self.forward([token])[0]

    def generate(self, prompt_ids, n, eos=None):
        """Greedy decoding after the prompt (from an empty cache): the new ids (ARGMAX:
        the first of equal maxima; stops after eos when given)."""
        prompt_ids = list(prompt_ids)
        if not prompt_ids:
            raise ValueError("an empty prompt")
        if len(prompt_ids) + n - 1 > self.c.ctx:
            raise ValueError(f"{len(prompt_ids)} prompt tokens + {n} new: beyond the context of {self.c.ctx}")
        self.reset()
        out, last = [], self.prefill(prompt_ids)
        for i in range(n):
            t = int(np.argmax(last))
            out.append(t)
            if t == eos or i == n - 1:
                break
            last = self.step(t)
        return out

    def teacher_forced(self, ids, chunk=256, keep_logits=False):
        """Score ids as one sequence from an empty cache (no BOS unless ids start with it),
        in chunks of positions: Scored (top1 (n,), nll (n - 1,) float64 from the logits
        read as word / 2^12 -- the one float step, for measuring -- and logits (n, vocab)
        int64 when kept)."""
        ids, n = float_ref.check_scored(ids, self.c.ctx)
        self.reset()
        self.cache.reserve(n)
        top1 = np.empty(n, np.int64)
        nll = np.empty(n - 1, np.float64)
        kept = np.empty((n, self.c.vocab), np.int64) if keep_logits else None
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            lg = self.forward(ids[a:b])
            if keep_logits:
                kept[a:b] = lg
            top1[a:b] = np.argmax(lg, axis=1)
            tgt = ids[a + 1:b + 1]
            if len(tgt):
                nll[a:a + len(tgt)] = float_ref.log_softmax_nll(lg[:len(tgt)] / float(1 << Q_HEAD), tgt)
        return Scored(top1, nll, kept)


Scored = namedtuple("Scored", "top1 nll logits")
