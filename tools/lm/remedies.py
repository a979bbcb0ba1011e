"""The chapter's remedies on the chip: the step builder of a decode step that shrinks its cache.

Chapter 9's lesson: at large batch and long context the KV cache, not the weights, bounds
decode throughput. This builder is tools/lm/chip.py's step with the remedies as options
(docs/lm.md "Remedies"); chip.Generation(..., remedies=Remedies(...)) and
chip.step_program dispatch to it, and without remedies nothing of chip.py's programs
changes. The remedies:

- grouped-query attention (a model with Config.kv_heads < heads, trained so): a cached
  K or V row is kvh * 16 words, loaded once per sequence and read by every query head
  of its group;
- a 4-bit KV cache (kv_bits=4, a model of remedies_ref.export_kv4): each row's k and v
  PACK4ed (two values a word) before their ST, the cached rows LDed packed and UNPACK4ed
  on chip: a step moves half the cache words;
- a sliding window of W tokens with S attention sinks (window=W, sinks=S): the cache of a
  sequence is a ring of W slots (positions 0..S-1 in slots 0..S-1, position t >= S in
  slot S + (t - S) % (W - S)), a step attends its live slots in slot order (softmax and
  the weighted sum do not depend on the order), and the slot of the oldest recent token
  is reused; Layout.live names the positions a paged engine must keep;
- long contexts by tiles (tile=TR, or automatic beyond 64 rows: 64, or 32 or 16 when the
  scratchpad holds no two sets of 64-row tiles beside a batch's buffers): the cached rows stream in
  tiles of TR rows, multi-pass and exact: pass 1 the keys' tiles, every score into one
  score vector per head; ONE softmax over the whole context (SM up to sm_max_len); pass 2
  the values' tiles, the weighted sum accumulated over the tiles by MM's acc flag. The
  same words move as untiled (each K and V row once), the scores stay on chip;
- beyond 64K words of external memory (contexts of 256 at B = 16) every LD and ST
  addresses the external memory by xhi * 65536 + src (dst), split at 64K boundaries.

The reference for what comes out is tools/lm/remedies_ref.py (written from docs/lm.md's
numerics, not from this builder).
"""
from dataclasses import dataclass

import numpy as np

from model import config
from model.reorder import reorder
from tools.lm import chip as C

AUTO_TILE = 64          # untiled up to 64 attended rows (the unmodified model's limit); beyond, tiles
MAX_TILE = 255          # MM's K field is 8 bits: the weighted sum of a tile takes at most 255 rows
LD_MAX = 8188           # LD/ST len is 13 bits: longer transfers are split (a multiple of 4)
PAGE = 1 << 16          # an LD/ST's src/dst reach 64K words; xhi picks the 64K page
SM_MAX = 1024           # the softmax unit's longest vector on the remedies' chip


def chip_config(mode="inorder", ext_words=1 << 20, imem_depth=16384):
    """The remedies' chip: LM_CHIP's scratchpad, external memory past 64K words (xhi),
    SM over up to SM_MAX scores, a deeper instruction memory (a step of 16 rows at
    context 256 is up to 17,500 instructions)."""
    return config.Config(sp_words=C.LM_CHIP.sp_words, ext_words=ext_words,
                         imem_depth=imem_depth, sm_max_len=SM_MAX, mode=mode)


CHIPS = ((1 << 20, 32768), (1 << 24, 65535))   # (ext_words, imem_depth): the smallest that fits


def generation(model, prompts, new, remedies, mode="overlap", start=None):
    """chip.Generation of prompts with remedies on the smallest chip_config of CHIPS whose
    external memory holds its layout (ValueError from the last when none does)."""
    for k, (ext, imem) in enumerate(CHIPS):
        try:
            return C.Generation(model, prompts, new, start=start, remedies=remedies,
                                chip=chip_config(mode, ext, imem))
        except ValueError as e:
            if k == len(CHIPS) - 1 or "external memory" not in str(e):
                raise


@dataclass(frozen=True)
class Remedies:
    """The options of a remedied step. kv_bits: 8, or 4 (the model must be exported for it);
    window: 0 (attend everything) or W, the tokens attended; sinks: S < W of them the first
    tokens; tile: rows per tile of the cached K and V (0: untiled up to AUTO_TILE rows,
    tiles of AUTO_TILE beyond)."""
    kv_bits: int = 8
    window: int = 0
    sinks: int = 0
    tile: int = 0

    def __post_init__(self):
        for f in ("kv_bits", "window", "sinks", "tile"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"remedies: {f} must be an integer, got {v!r}")
        if self.kv_bits not in (4, 8):
            raise ValueError(f"remedies: kv_bits must be 4 or 8, got {self.kv_bits}")
        if self.window < 0 or self.window == 1:
            raise ValueError(f"remedies: window must be 0 (none) or >= 2, got {self.window}")
        if self.sinks < 0 or (self.sinks and not self.window) or \
                (self.window and self.sinks >= self.window):
            raise ValueError(f"remedies: sinks must be 0..window-1 with a window, got "
                             f"{self.sinks} (window {self.window})")
        if not 0 <= self.tile <= MAX_TILE:
            raise ValueError(f"remedies: tile must be 0 (auto) or 1..{MAX_TILE} rows, got {self.tile}")

    def slot(self, t):
        """The cache slot of position t: t, or with a window S + (t - S) % (W - S) past S."""
        W, S = self.window, self.sinks
        return t if not W or t < S else S + (t - S) % (W - S)


def _matrices(cfg):
    """chip._matrices with wk, wv of d x dk columns (grouped-query attention)."""
    return [(n, r, cfg.dk if n.endswith((".wk", ".wv")) else c) for n, r, c in C._matrices(cfg)]


def _ceil4(n):
    return -(-n // 4) * 4


class Layout:
    """Where everything of a remedied generation of `batch` sequences of up to `ctx` tokens is.

    ext: the weights (chip.py's order), the token area (batch x ctx words), the KV cache:
    kv(layer, kind, b) is sequence b's `slots` rows of `row_words` words (dk int8 values,
    or dk / 2 words of two 4-bit values). sp: the step's buffers, and `sets` attention
    buffer sets of two tile buffers (and a packed staging buffer for 4-bit rows) and the
    score and weight vectors of each head. ValueError when it does not fit the chip.

    For a host with its own memory map (tools/serve/lm_memory.py: a paged KV pool), as
    chip.Layout: cache=False reserves no token area and no KV cache (step_program then
    needs its mem= address functions), base is the first word of the weights.
    """

    def __init__(self, mcfg, batch, ctx, chip, remedies, kv_bits=8, cache=True, base=0):
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        if not isinstance(ctx, int) or isinstance(ctx, bool) or ctx < 1:
            raise ValueError(f"ctx must be a positive integer, got {ctx!r}")
        if remedies.kv_bits != kv_bits:
            raise ValueError(f"a {remedies.kv_bits}-bit KV cache needs a model exported for it; "
                             f"this one's cache is {kv_bits}-bit "
                             "(remedies_ref.export_kv4 exports the 4-bit one)")
        self.m, self.batch, self.ctx, self.chip, self.remedies = mcfg, batch, ctx, chip, remedies
        R, d, dk = batch, mcfg.d, mcfg.dk
        self.dk = dk
        self.row_words = dk // 2 if remedies.kv_bits == 4 else dk
        fed = max(1, ctx - 1)                        # positions fed: the last token never is
        self.slots = min(fed, remedies.window) if remedies.window else fed
        self.n_max = self.slots                      # attended rows at most
        if self.n_max > chip.sm_max_len:
            raise ValueError(f"a step would attend {self.n_max} rows; the chip's softmax takes "
                             f"at most {chip.sm_max_len}")
        at = base
        self.w = {}
        for name, r, c in _matrices(mcfg):
            self.w[name] = at
            at += r * c
        self.weight_words = at
        self.tokens = at
        if cache:
            at += batch * ctx
        self.kv0 = at
        if cache:
            at += mcfg.layers * 2 * batch * self.slots * self.row_words
        self.ext_words = at
        if at > chip.ext_words:
            raise ValueError(f"a batch of {batch} sequences of {ctx} tokens needs {at} words "
                             f"of external memory (weights {self.weight_words}, KV cache "
                             f"{at - self.kv0}); the chip has {chip.ext_words}")
        if self.tokens + (batch * ctx if cache else 0) > PAGE:
            raise ValueError("the weights and token area must sit in the first 64K words")
        sp = {}
        at = 0

        def take(name, n):
            nonlocal at
            sp[name] = at
            at += _ceil4(n)

        wide = max(d, mcfg.mlp)
        for name, n in (("tok", R), ("nxt", R), ("x", R * d), ("t0", R * d), ("t1", R * d),
                        ("h", R * d), ("q", R * d), ("k", R * dk), ("v", R * dk),
                        ("o", R * d), ("u", R * mcfg.mlp), ("logits", R * mcfg.vocab)):
            take(name, n)
        if remedies.kv_bits == 4:
            take("kp", R * self.row_words)
            take("vp", R * self.row_words)
        for k in range(C.RESULT_BUFFERS):
            take(f"a{k}", R * wide)
        biggest = max(r * c for name, r, c in _matrices(mcfg) if name not in ("wte", "wpe"))
        for k in range(C.WEIGHT_BUFFERS):
            take(f"wb{k}", biggest)
        # tile: the option, or untiled up to AUTO_TILE rows, else the largest of AUTO_TILE,
        # 32, 16 rows with which two attention sets fit (8 if none does); the same when an
        # untiled step's two sets do not fit
        def per_set(TR):
            return (2 * _ceil4(TR * dk) + (2 * _ceil4(TR * self.row_words) if remedies.kv_bits == 4 else 0) +
                    mcfg.heads * (2 * _ceil4(self.n_max) + 16))
        if remedies.tile:
            TR = min(remedies.tile, self.n_max)
        else:
            tries = [T for T in (self.n_max, AUTO_TILE, 32, 16) if T <= min(self.n_max, AUTO_TILE)]
            TR = next((T for T in tries if 2 * per_set(T) <= chip.sp_words - at), 8)
        self.tile = TR
        self.sets = min(C.KV_BUFFERS, max(0, (chip.sp_words - at) // per_set(TR)))
        for s in range(max(1, self.sets)):
            take(f"tb{s}0", TR * dk)
            take(f"tb{s}1", TR * dk)
            if remedies.kv_bits == 4:       # packed staging, one per tile buffer
                take(f"pk{s}0", TR * self.row_words)
                take(f"pk{s}1", TR * self.row_words)
            for c in range(mcfg.heads):
                take(f"s{s}{c}", self.n_max)        # int32 scores, then (RQ in place) int8
                take(f"p{s}{c}", self.n_max)        # Q16 probabilities, then int8 weights
                take(f"o32{s}{c}", 16)
        self.sp = sp
        self.sp_words = at
        if at > chip.sp_words:
            raise ValueError(f"a batch of {batch} sequences of {ctx} tokens needs {at} words "
                             f"of scratchpad; the chip has {chip.sp_words}")

    def kv(self, layer, kind, b):
        """The external address of sequence b's cache slots of K (kind 0) or V (kind 1)."""
        return self.kv0 + ((layer * 2 + kind) * self.batch + b) * self.slots * self.row_words

    def attended(self, t):
        """The positions a step at position t attends (their rows are in the cache)."""
        W, S = self.remedies.window, self.remedies.sinks
        return list(range(t + 1)) if not W or t < W else \
            list(range(S)) + list(range(t + 1 - (W - S), t + 1))

    def live(self, t):
        """The positions whose K and V rows the step after one at position t attends (a
        paged engine keeps their blocks; every other position's may return to the pool)."""
        return [u for u in self.attended(t + 1) if u <= t]

    def image(self, model, prompts):
        """The external memory the host writes: the weights, the prompts' ids."""
        ext = np.zeros(self.ext_words, dtype=np.int64)
        for name, r, c in _matrices(self.m):
            w = C._weights(model, name)
            if w.shape != (r, c):
                raise ValueError(f"weights {name}: shape {w.shape}, the model needs {(r, c)}")
            ext[self.w[name]:self.w[name] + r * c] = w.reshape(-1)
        for b, p in enumerate(prompts):
            ext[self.tokens + b * self.ctx:self.tokens + b * self.ctx + len(p)] = p
        return ext


class Slots:
    """The address functions of a remedied Layout's own memory map (step_program's default
    mem): sequence b's token ids at lay.tokens + b*ctx + t; its cache of a layer and kind
    `slots` rows at lay.kv(...), position t in slot remedies.slot(t), a step attending its
    live slots in slot order. A host with another map (a paged pool:
    tools/serve/lm_memory.Paged) passes an object with the same three methods."""

    def __init__(self, lay):
        self.lay = lay

    def token(self, b, t):
        """The external address of sequence b's token id at position t."""
        return self.lay.tokens + b * self.lay.ctx + t

    def kv_row(self, layer, kind, b, t):
        """The external address where position t's K (kind 0) or V (kind 1) row is stored."""
        return self.lay.kv(layer, kind, b) + self.lay.remedies.slot(t) * self.lay.row_words

    def kv_attend(self, layer, kind, b, t):
        """What the row at position t attends: (runs, index, n). n rows on chip (tile index
        0..n-1, in any order: softmax and the weighted sum do not depend on it), this
        step's own row at tile index `index`, the cached ones LDed as runs [(first tile
        index, external address, rows)] (rows of row_words words, in tile order). Here:
        the live slots 0..n-1; a full ring loads all of them, this step's slot then
        overwritten by its own row."""
        lay = self.lay
        n = min(t + 1, lay.slots)
        hi = n if t >= lay.slots else t
        return ([(0, lay.kv(layer, kind, b), hi)] if hi else []), lay.remedies.slot(t), n


def step_program(model, lay, rows, mem=None):
    """The instructions of one remedied decode step for rows (chip.Row), ending in HALT.
    mem: the address functions (token, kv_row, kv_attend; default Slots(lay)).

    Several rows of ONE sequence may share a step (a chunk of a prompt), as in
    chip.step_program: at distinct, consecutive positions; their attention runs in
    increasing position, each after the previous row's K and V are stored (mem must
    then place the rows by position: a ring's slots would collide). A step with one row
    per sequence (every Generation's) is built exactly as without this."""
    rows, att = C.order_rows(rows, lay.batch)
    m, sp, rem = lay.m, lay.sp, lay.remedies
    mem = Slots(lay) if mem is None else mem
    d, dk, V, R = m.d, lay.dk, m.vocab, len(rows)
    rw, TR, g = lay.row_words, lay.tile, m.heads // m.kvh
    kv4 = rem.kv_bits == 4
    heads = sum(row.write for row in rows)
    E = C.Emitter(lay, model.rq, C.WEIGHT_BUFFERS)
    I, P, rqv, load_matrix, weights = E, E.P, E.rqv, E.load_matrix, E.weights  # noqa: E741 -- I emits an instruction (the mutants name it)
    project, residual, norm = E.project, E.residual, E.norm

    def xfer(op, spa, exa, n):
        """LD (op "LD") or ST of n words between the scratchpad at spa and the external
        memory at exa: split at LD_MAX words and at 64K pages (xhi: the page)."""
        while n:
            k = min(n, LD_MAX, PAGE - exa % PAGE)
            hi = {"xhi": exa // PAGE} if exa >= PAGE else {}
            if op == "LD":
                I("LD", dst=spa, src=exa % PAGE, len=k, **hi)
            else:
                I("ST", src=spa, dst=exa % PAGE, len=k, **hi)
            spa, exa, n = spa + k, exa + k, n - k

    groups = [(g0, min(C.GROUP, R - g0)) for g0 in range(0, R, C.GROUP)]
    E.embed(rows, mem, groups, lambda row: min(row.t, m.ctx - 1))
    sets = max(1, lay.sets)

    def fill(buf, pk, u0, u1, runs, slot, cur):
        """Tile rows u0..u1-1 of a sequence's attended K or V rows into buf: the cached
        ones of runs [(tile index, external address, rows)] (packed: LD into pk, UNPACK4),
        then this step's row (cur) into its tile index slot when the tile holds it."""
        for idx, addr, k in runs:
            a, z = max(u0, idx), min(u1, idx + k)
            if a >= z:
                continue
            src = addr + (a - idx) * rw
            if kv4:
                xfer("LD", pk + (a - u0) * rw, src, (z - a) * rw)
                I("UNPACK4", dst=buf + (a - u0) * dk, src=pk + (a - u0) * rw, len=(z - a) * rw)
            else:
                xfer("LD", buf + (a - u0) * dk, src, (z - a) * dk)
        if u0 <= slot < u1:
            if kv4:
                I("UNPACK4", dst=buf + (slot - u0) * dk, src=cur, len=rw)
            else:
                I("RQ", dst=buf + (slot - u0) * dk, src=cur, len=dk, m=1, s=0)

    for i in range(m.layers):
        mats = {"q": weights(f"h{i}.wq", d, d), "k": weights(f"h{i}.wk", d, dk),
                "v": weights(f"h{i}.wv", d, dk)}
        for g0, gn in groups:
            norm(g0, gn, f"h{i}.n1")
            for n in "qkv":
                project(g0, gn, mats[n], sp["h"], sp[n], f"h{i}.{n}")
            if kv4:                        # two 4-bit values a word (PACK4 saturates to -8..7)
                for n in "kv":
                    I("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=gn * rw)
        for j, r in enumerate(att):
            row = rows[r]
            s, t = j % sets, row.t
            runs = [mem.kv_attend(i, kind, row.b, t) for kind in (0, 1)]
            slot, n = runs[0][1], runs[0][2]           # this row's tile index, rows attended
            cur = {kind: (sp[f"{'kv'[kind]}p"] + r * rw) if kv4 else (sp["kv"[kind]] + r * dk)
                   for kind in (0, 1)}
            for kind in (0, 1):
                xfer("ST", cur[kind], mem.kv_row(i, kind, row.b, t), rw)
            tiles = [(u0, min(n, u0 + TR)) for u0 in range(0, n, TR)]
            bufs = [sp[f"tb{s}0"], sp[f"tb{s}1"]]
            pks = [sp.get(f"pk{s}0"), sp.get(f"pk{s}1")]
            sc = [(sp[f"s{s}{c}"], sp[f"p{s}{c}"], sp[f"o32{s}{c}"]) for c in range(m.heads)]

            def scores(c, buf, u0, u1, r=r, sc=sc):    # this row's values, bound now
                q = sp["q"] + r * d + 16 * c
                for k0 in range(u0, u1, 4):
                    N = min(4, u1 - k0)
                    I("MM", dst=sc[c][0] + k0, A=q, B=buf + (k0 - u0) * dk + 16 * (c // g),
                      M=1, K=16, N=N, tb=1, lda=16, ldb=dk, ldc=N)

            def softmax(c, sc=sc, n=n, i=i):
                s32, p, _ = sc[c]
                rqv(s32, s32, n, f"h{i}.scores")
                I("SM", dst=p, src=s32, len=n)
                rqv(p, p, n, "weights")

            def wsum(c, buf, u0, u1, first, sc=sc):
                _, p, o32 = sc[c]
                for j0 in range(0, 16, 4):
                    I("MM", dst=o32 + j0, A=p + u0, B=buf + 16 * (c // g) + j0, M=1, K=u1 - u0,
                      N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)

            if len(tiles) == 1:            # untiled: K and V on chip, then head by head
                fill(bufs[0], pks[0], 0, n, runs[0][0], slot, cur[0])
                fill(bufs[1], pks[1], 0, n, runs[1][0], slot, cur[1])
                for c in range(m.heads):
                    scores(c, bufs[0], 0, n)
                    softmax(c)
                    wsum(c, bufs[1], 0, n, True)
                    rqv(sp["o"] + r * d + 16 * c, sc[c][2], 16, f"h{i}.o")
            else:                          # tiles: keys (pass 1), one softmax, values (pass 2)
                k = 0
                for u0, u1 in tiles:
                    buf, pk = bufs[k % 2], pks[k % 2]
                    k += 1
                    fill(buf, pk, u0, u1, runs[0][0], slot, cur[0])
                    for c in range(m.heads):
                        scores(c, buf, u0, u1)
                for c in range(m.heads):
                    softmax(c)
                for j, (u0, u1) in enumerate(tiles):
                    buf, pk = bufs[k % 2], pks[k % 2]
                    k += 1
                    fill(buf, pk, u0, u1, runs[1][0], slot, cur[1])
                    for c in range(m.heads):
                        wsum(c, buf, u0, u1, j == 0)
                for c in range(m.heads):
                    rqv(sp["o"] + r * d + 16 * c, sc[c][2], 16, f"h{i}.o")
        wo, w1, w2 = (weights(f"h{i}.wo", d, d), weights(f"h{i}.w1", d, m.mlp),
                      weights(f"h{i}.w2", m.mlp, d))
        for g0, gn in groups:
            project(g0, gn, wo, sp["o"], sp["t1"], f"h{i}.attn")
            residual(g0, gn, 2 * i, sp["t1"])
            norm(g0, gn, f"h{i}.n2")
            project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=1)
            project(g0, gn, w2, sp["u"], sp["t1"], f"h{i}.mlp")
            residual(g0, gn, 2 * i + 1, sp["t1"])
    lg = sp["logits"]
    if heads:
        norm(0, heads, "nf")
        for j, c0 in enumerate(range(0, V, C.TILE_COLS)):
            nc = min(C.TILE_COLS, V - c0)
            w = load_matrix(f"wout.{j}", d, nc)
            for r0 in range(0, heads, 4):
                for n0 in range(0, nc, 4):
                    I("MM", dst=lg + r0 * V + c0 + n0, A=sp["h"] + r0 * d, B=w + n0,
                      M=min(4, heads - r0), K=d, N=4, tb=0, lda=d, ldb=nc, ldc=V)
    for r, row in enumerate(rows[:heads]):
        I("ARGMAX", dst=sp["nxt"] + r, src=lg + r * V, len=V)
        I("ST", src=sp["nxt"] + r, dst=mem.token(row.b, row.t + 1), len=1)
    I("HALT")
    if lay.chip.mode == "overlap":
        return reorder(P, lay.chip)
    return P


def unpack4(words):
    """Packed words (..., n) -> 4-bit values (..., 2n): bits 0-3 then 4-7, sign-extended."""
    w = np.asarray(words, dtype=np.int64)
    lo, hi = w & 15, (w >> 4) & 15
    out = np.empty(w.shape[:-1] + (2 * w.shape[-1],), dtype=np.int64)
    out[..., 0::2], out[..., 1::2] = lo - 16 * (lo > 7), hi - 16 * (hi > 7)
    return out


def cache_rows(gen, ext, layer, kind, b):
    """(positions, words, values) of sequence b's K (kind 0) or V (kind 1) rows of layer in
    a final external memory: the positions the cache holds after the last step (those the
    last step attended), each row's words as stored (dk / 2 packed words for a 4-bit cache)
    and its values (unpacked)."""
    lay = gen.layout
    t = len(gen.prompts[b]) + gen.new[b] - 2            # the last position fed
    pos = lay.attended(t)
    a = lay.kv(layer, kind, b)
    words = np.array([ext[a + lay.remedies.slot(u) * lay.row_words:][:lay.row_words]
                      for u in pos], dtype=np.int64).reshape(len(pos), lay.row_words)
    return pos, words, unpack4(words) if lay.remedies.kv_bits == 4 else words


def write_cache(gen, ext, layer, kind, b, positions, rows):
    """The host prefilling sequence b's K (kind 0) or V (kind 1) rows of layer: rows (one
    of dk values per position, 4-bit values packed) into their slots of ext, in place."""
    lay = gen.layout
    a = lay.kv(layer, kind, b)
    rows = np.asarray(rows, dtype=np.int64)
    if lay.remedies.kv_bits == 4:
        rows = (rows[:, 0::2] & 15) | ((rows[:, 1::2] & 15) << 4)
    for u, r in zip(positions, rows):
        s = a + lay.remedies.slot(u) * lay.row_words
        ext[s:s + lay.row_words] = r
