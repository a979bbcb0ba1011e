"""The wide path's memory map (WideLayout): where SmolLM2's weights, tables, token areas and
KV cache are in external memory, and the scratchpad's buffers a step uses. The step
emitter that uses it is tools/lm/compiler/wide.py.

Every weight matrix is stored out-major (the GGUF's orientation: row o holds output channel
o's inputs), so a tile of output channels is one contiguous LD and MM reads it with tb = 1;
its column scale words follow it. A step loads every weight tile once for all its rows
(what a batch shares). A matrix streams in column chunks of CHUNK output channels (one
head: ROPE and QNT run per chunk, under the next chunk's products): each chunk's tiles go
through a ring of tile buffers (`tile_buffers` of `tile_words`; in the overlap mode the
next tiles load under this one's products), its products for every row into one of
ACC_SLOTS product slots, then RQC straight from the slot: into the q, k, v rows (per row,
a head a row of 65 words: ROPE and QNT in place), into f's columns (SWIGLU in place with
the u chunk), or into a y chunk added (ADD w) to x's columns. A matrix deeper than a tile
of 4 rows (wd's 1,536 at 4,608 words) streams in depth parts (MM acc). The rows' attention
runs one row and KV head after another through NSETS attention sets in turn (the next
one's keys load under this one's softmax), every buffer of the chain in place: scores,
probabilities, the weights w and their 16-bit QNT share one region of rows n + 1 long.
"""
from model.wide import PV_TILE_SAFE, sc_of
from tools.lm.compiler.layout import LD_MAX

HEAD_DIM = 64
HS = HEAD_DIM + 1        # a QNT head row: 64 values and its scale word
KEY_TILE = 64            # attended rows per tile of the cache (the MM's K: <= 255 + 256 khi)
VOCAB_CHUNK = 2048       # logits RQC'd and ARGMAXed at once (MM's ldc <= 4095)
CHUNK = HEAD_DIM         # output channels of a projection per product slot
MAX_BUFFERS = 8
MIN_BUFFERS = 2
MIN_TILE = 4 * 4 * HEAD_DIM   # 16 key rows, 4 weight rows of depth 256
ACC_SLOTS = 2            # product slots: one chunk's RQCs under the next chunk's products
NSETS = 2                # attention sets: one row-head's softmax under the next one's keys
PV_TILE = 512            # the weighted sum of V in tiles of at most this many keys (each its
                         # own QNT, MM, RQC; the tiles added): no int32 sum can wrap
MATS = ("wq", "wk", "wv", "wo", "wg", "wu", "wd")
ONE = sc_of(1)
# QNT's q field for every site: the input's fraction bits (Q12 words)
Q12 = 12


def _c4(n):
    return -(-n // 4) * 4


def mat_shape(desc, m):
    """(out, in) of a layer's matrix m (out-major)."""
    d, dk, f = desc.d, desc.dk, desc.mlp
    return {"wq": (d, d), "wk": (dk, d), "wv": (dk, d), "wo": (d, d), "wg": (f, d),
            "wu": (f, d), "wd": (d, f)}[m]


def tile_plan(k, words):
    """(rows, parts) of a matrix of depth k in tile buffers of `words`: its depth in
    `parts` parts of ceil(k / parts) (the fewest that let 4 rows fit), and the output
    channels a tile, a multiple of 4 (the array's N), as many as fit (one LD each when
    parts = 1, at most LD_MAX words)."""
    if 4 > words:
        raise ValueError(f"a tile of {words} words holds no 4 rows")
    parts = -(-4 * k // words)
    kk = -(-k // parts)
    while 4 * kk > words:
        parts += 1
        kk = -(-k // parts)
    rows = (min(words, LD_MAX) // kk if parts == 1 else words // kk) // 4 * 4
    return rows, parts


class WideLayout:
    """Where SmolLM2's step data is, for `batch` rows of sequences of up to ctx positions.

    External memory from 0: `embed` (vocab x d int32 Q12 words), per layer i the matrices
    h{i}.wq, .wk, .wv, .wo, .wg, .wu, .wd (out x in int8 words, out-major) each followed by
    its column scale words (h{i}.wq.cs ...), `head` (vocab x d int8) and `head.cs`, `rope`
    (ctx rows of 64 Q14 cos/sin words), `const` (the scale word 1.0, then 64 of them), the
    token area (batch x ctx ids), then the KV cache: for layer i, kind (K 0, V 1), KV head g,
    sequence b, ctx rows of 64 int8 words at kv(i, kind, g, b) and ctx scale words at
    kvs(i, kind, g, b) (position t in row t).
    vocab_chunk: the head's logits a step's rows hold at once (vchunk = vocab_chunk / rows),
    each chunk's ARGMAX carrying the running pair to the next.
    The scratchpad: the buffers of `sp` for up to `rows` rows a step (default batch; a
    prefill's rows are one sequence's positions) (docstring of _scratchpad).
    """

    def __init__(self, desc, batch, ctx, chip, rows=None, vocab_chunk=VOCAB_CHUNK, cache=True,
                 pv_tile=PV_TILE):
        if desc.numerics != "per-channel":
            raise ValueError("WideLayout lays out the per-channel numerics only")
        if desc.head_dim != HEAD_DIM:
            raise ValueError(f"head_dim {desc.head_dim}: the wide path's ROPE rows are {HEAD_DIM}")
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        if not isinstance(ctx, int) or isinstance(ctx, bool) or not 1 <= ctx <= desc.ctx:
            raise ValueError(f"ctx must be 1..{desc.ctx} (the model's context), got {ctx!r}")
        rows = batch if rows is None else rows
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 1:
            raise ValueError(f"rows must be a positive integer, got {rows!r}")
        if isinstance(vocab_chunk, bool) or not isinstance(vocab_chunk, int) or vocab_chunk < 4:
            raise ValueError(f"vocab_chunk must be an integer >= 4, got {vocab_chunk!r}")
        if isinstance(pv_tile, bool) or not isinstance(pv_tile, int) or not 1 <= pv_tile <= PV_TILE_SAFE:
            raise ValueError(f"pv_tile must be 1..{PV_TILE_SAFE} (the keys one int32 sum of w x V can "
                             f"take), got {pv_tile!r}")
        self.pv_tile = pv_tile
        if ctx + 1 > 4095:
            raise ValueError(f"ctx {ctx}: a row of scores (ctx + 1 words) is past MM's ldc (4,095)")
        self.desc, self.batch, self.ctx, self.chip, self.rows = desc, batch, ctx, chip, rows
        self._chunk, self.cache = vocab_chunk, cache
        self._external()
        self._scratchpad()

    def _external(self):
        desc, at, w = self.desc, 0, {}

        def put(name, n):
            nonlocal at
            w[name] = at
            at += n

        put("embed", desc.vocab * desc.d)
        for i in range(desc.layers):
            for m in MATS:
                o, k = mat_shape(desc, m)
                put(f"h{i}.{m}", o * k)
                put(f"h{i}.{m}.cs", o)
        put("head", desc.vocab * desc.d)
        put("head.cs", desc.vocab)
        put("rope", self.ctx * HEAD_DIM)
        put("const", 1 + HEAD_DIM)
        self.w, self.weight_words = w, at
        self.tokens = at
        self.kv0 = at
        self.kv_block = self.ctx * HEAD_DIM + self.ctx      # rows, then scales
        if self.cache:
            at += self.batch * self.ctx
            self.kv0 = at
            at += desc.layers * 2 * desc.kv_heads * self.batch * self.kv_block
        self.ext_words = at
        if at > self.chip.ext_words:
            raise ValueError(f"SmolLM2 with a batch of {self.batch} x {self.ctx} positions needs "
                             f"{at} words of external memory; the chip has {self.chip.ext_words}")

    def kv(self, layer, kind, g, b):
        """The external address of row 0 of sequence b's cache of layer, kind, KV head g."""
        self._own()
        k = ((layer * 2 + kind) * self.desc.kv_heads + g) * self.batch + b
        return self.kv0 + k * self.kv_block

    def kvs(self, layer, kind, g, b):
        """... and of its scale word 0."""
        return self.kv(layer, kind, g, b) + self.ctx * HEAD_DIM

    def token(self, b, t):
        self._own()
        return self.tokens + b * self.ctx + t

    def _own(self):
        if not self.cache:
            raise ValueError("this layout has no token area or KV cache of its own (cache=False: "
                             "a step takes them from its address protocol, mem=)")

    # -- the address protocol (step_program's mem=; a server's paged pool gives its own) --
    def kv_runs(self, layer, kind, g, b, u0, u1):
        """[(external address, rows)]: positions u0..u1-1 of the cache's K (kind 0) or V
        (kind 1) rows of KV head g as runs of adjacent rows (here one run)."""
        return [(self.kv(layer, kind, g, b) + u0 * HEAD_DIM, u1 - u0)]

    def kvs_runs(self, layer, kind, g, b, u0, u1):
        """[(external address, words)]: the same positions' scale words as runs."""
        return [(self.kvs(layer, kind, g, b) + u0, u1 - u0)]

    def check_row(self, row):
        """ValueError unless sequence row.b is one of the layout's."""
        if not 0 <= row.b < self.batch:
            raise ValueError(f"row {row}: sequence outside 0..{self.batch - 1}")

    def _scratchpad(self):
        """Per row: tok, nxt (the ARGMAX pair: 2 words), x (d, the residual, Q12), h (d + 1:
        a QNT row and its scale; the attention's output o is written there and QNT'd in
        place), rope (64: the row's cos/sin). ACC_SLOTS product slots acc0.. (rows x cw, cw
        = max(CHUNK, vchunk)) each with its column scales cs0..; two chunks ys0, ys1 (rows x
        CHUNK: u, or y before its ADD); logits (a vocabulary chunk, one row at a time).
        Then one region two phases share: attention's q65 (rows x heads x 65: ROPE and the
        16-bit QNT in place), k65, v65 (rows x kv_heads x 65, stored to the cache) and over
        them, once stored, NSETS attention sets (ks, vs: ctx scale words; sw: group rows of
        ctx + 1, the scores, probabilities, weights w and their QNT in place; o32: group x
        64 words) -- or the FFN's f (rows x (mlp + 1): SWIGLU and QNT in place). Last the
        tile buffers tb0.. (as many as fit, up to MAX_BUFFERS, each the largest tile used): the
        weights' tiles and the cache's key and value tiles, loaded in turn."""
        desc, R, n = self.desc, self.rows, self.ctx
        d, dk, f, G = desc.d, desc.dk, desc.mlp, desc.group
        if d % CHUNK or dk % CHUNK:
            raise ValueError(f"d {d} and kv_heads x 64 {dk} must be multiples of {CHUNK}")
        # a vocabulary chunk of logits: ARGMAX's len and MM's ldc bound it
        self.vchunk = min(self._chunk // R // 4 * 4 or 4, _c4(desc.vocab))
        cw = max(CHUNK, self.vchunk)
        sp, at = {}, 0

        def take(name, words):
            nonlocal at
            sp[name] = at
            at += _c4(words)

        for name, words in (("const", 1 + HEAD_DIM), ("tok", R), ("nxt", 2 * R), ("x", R * d),
                            ("h", R * (d + 1)), ("rope", R * HEAD_DIM)):
            take(name, words)
        for k in range(ACC_SLOTS):
            take(f"acc{k}", R * cw)
            take(f"cs{k}", cw)
        take("ys0", R * CHUNK)
        take("ys1", R * CHUNK)
        take("logits", self.vchunk)
        region = at
        take("q65", R * desc.heads * HS)
        kv_at = at
        take("k65", R * desc.kv_heads * HS)
        take("v65", R * desc.kv_heads * HS)
        attn_end, at = at, kv_at
        for s in range(NSETS):
            for name, words in (("ks", n), ("vs", n), ("sw", G * (n + 1)), ("o32", G * HEAD_DIM)):
                take(f"{name}{s}", words)
        at = max(at, attn_end)
        sp["f"] = region
        at = max(at, region + _c4(R * (f + 1)))
        free = self.chip.sp_words - at
        # the tile buffers: tiles as large as one LD and a third of the room allow (or a
        # half), each buffer the size of the largest tile a matrix or the cache uses
        tw = 0
        for nb in (3, MIN_BUFFERS):
            tw = min(LD_MAX, free // nb) // 4 * 4
            if tw >= MIN_TILE:
                break
        if tw < MIN_TILE:
            raise ValueError(f"SmolLM2 with {R} rows a step over {n} positions needs {at} words of "
                             f"scratchpad and {MIN_BUFFERS} tile buffers of at least {MIN_TILE}; "
                             f"the chip has {self.chip.sp_words}")
        self.key_tile = min(KEY_TILE, n, tw // HEAD_DIM)
        self.tile_words = max([rows * -(-k // parts) for k in (d, f) for rows, parts in [tile_plan(k, tw)]]
                              + [self.key_tile * HEAD_DIM])
        self.tile_buffers = min(MAX_BUFFERS, free // self.tile_words)
        if n > self.pv_tile and self.tile_words < G * (self.pv_tile + 1):
            raise ValueError(f"tiles of {self.pv_tile} keys need a tile buffer of {G * (self.pv_tile + 1)} "
                             f"words for the group's QNT'd weights; the buffers hold {self.tile_words}")
        for k in range(self.tile_buffers):
            take(f"tb{k}", self.tile_words)
        self.sp, self.sp_words = sp, at

    def image(self, W, prompts):
        """The external memory (a list of ints... a numpy int64 array) the host writes: W's
        weights (tools/smollm2/intweights.IntWeights), the rope rows, the constants and the
        prompts' ids; every other word zero."""
        import numpy as np

        from model.ops.rope import rope_table
        desc = self.desc
        ext = np.zeros(self.ext_words, dtype=np.int64)

        def put(name, arr, shape):
            a = np.asarray(arr, dtype=np.int64)
            if a.shape != shape:
                raise ValueError(f"weights {name}: shape {a.shape}, the layout needs {shape}")
            ext[self.w[name]:self.w[name] + a.size] = a.reshape(-1)

        put("embed", W.embed12, (desc.vocab, desc.d))
        for i, L in enumerate(W.layers):
            for m in MATS:
                o, k = mat_shape(desc, m)
                put(f"h{i}.{m}", getattr(L, m), (o, k))
                put(f"h{i}.{m}.cs", getattr(L, "cs" + m[1:]), (o,))
        put("head", W.head, (desc.vocab, desc.d))
        put("head.cs", W.csh, (desc.vocab,))
        put("rope", rope_table(self.ctx), (self.ctx, HEAD_DIM))
        put("const", [ONE] * (1 + HEAD_DIM), (1 + HEAD_DIM,))
        if prompts and not self.cache:
            raise ValueError("prompts go to a token area: this layout has none (cache=False)")
        for b, p in enumerate(prompts):
            if len(p) > self.ctx:
                raise ValueError(f"prompt {b}: {len(p)} tokens, beyond the layout's {self.ctx} positions")
            ext[self.token(b, 0):self.token(b, 0) + len(p)] = p
        return ext
