"""The step compiler's wide-numerics path: SmolLM2-135M's blocks (issue 38), chosen by a
description with numerics "per-channel" (desc.WIDE: SwiGLU, RoPE, an int32 residual, the
tied head). The arithmetic is the integer reference's, operation for operation
(tools/smollm2/int_ref.py; docs/smollm2.md "The integer pipeline"):

  embed   LD the token id, LDX its Q12 row of the embedding table (int32 words)
  layer   QNT (rms, 16-bit) x -> h; q, k, v = RQC(MM(h, W8), h's scale, W's column
          scales, Q12); ROPE q and k by the position's cos/sin row; per KV head
          QNT (8-bit) of k and v -> the cache row and its scale word (ST, two runs: the
          values and the scales); per KV head, its query heads together (M = group):
          QNT (16-bit) of each q head; pass 1 the keys' tiles (MM, a16, tb) -> int32 scores;
          RQC with the q scales and the keys' scale words (Q8, log2 units: log2(e) / 8 is
          folded into wq's column scales); SMW per head; RQC of the probabilities by the
          values' scale words (Q12); QNT (16-bit) of those weights; pass 2 the values' tiles
          (MM, a16, acc) -> int32; RQC by the weights' scale words -> the heads' Q12 output;
          QNT (16-bit) o; y = RQC(MM(o, Wo)); ADD (w) x += y; QNT (rms, 16-bit) x;
          g, u = RQC(MM(h, Wg)), RQC(MM(h, Wu)); SWIGLU; QNT (16-bit); y = RQC(MM(f, Wd));
          ADD (w) x += y
  head    QNT (rms, 16-bit) x; in chunks of vocabulary: the chunk's column scales, its
          tiles of the head's rows (MM, tb), RQC -> Q12 logits, ARGMAX with the running pair
          (the first chunk pair = 1, the others acc = 1); ST the token to the token area.

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
from collections import namedtuple

from model import isa, timing
from model.reorder import reorder
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
Q_SCORES = 8             # the scores' RQC: log2 units in Q8, SMW's input
# w = p * vs (p Q15, RQC by the values' scale words into Q12): its fraction bits 12 + 15,
# QNT's q for w's scale word (the RQC after the weighted sum multiplies it back)
Q_W = Q12 + 15

Row = namedtuple("Row", "b t write")


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


def step_program(lay, rows, mem=None):
    """The instructions of one step of rows (Row: sequence b at position t; write: its
    ARGMAX is stored to t + 1) of a WideLayout, ending in HALT, in chip order for its mode.
    Several rows of one sequence (a prefill) run their attention in increasing position,
    after every row's K and V are stored. mem: the address protocol of the token areas and
    the KV cache (token, kv_runs, kvs_runs, check_row): the layout's own (default) or a
    server's paged pool (tools/serve/wide_memory.py)."""
    return WideStep(lay, rows, mem).program()


class WideStep:
    """One step being emitted; self(op, **fields) appends an instruction."""

    def __init__(self, lay, rows, mem=None):
        mem = lay if mem is None else mem
        if not rows or len(rows) > lay.rows:
            raise ValueError(f"a step takes 1..{lay.rows} rows, got {len(rows)}")
        for row in rows:
            if not 0 <= row.t < lay.ctx:
                raise ValueError(f"row {row}: position outside 0..{lay.ctx - 1}")
            mem.check_row(row)
            if row.write and row.t + 1 >= lay.ctx:
                raise ValueError(f"row {row}: its next token would be at {row.t + 1}, past the "
                                 f"layout's {lay.ctx} positions")
        seen = {(r.b, r.t) for r in rows}
        if len(seen) != len(rows):
            raise ValueError("a step's rows must be distinct")
        self.lay, self.mem, self.desc, self.sp = lay, mem, lay.desc, lay.sp
        self.rows = sorted(rows, key=lambda r: (r.b, r.t))
        self.P = []
        self.turn = {"tb": 0, "acc": 0, "ys": 0, "set": 0}
        self.held = None

    def __call__(self, op, **f):
        self.P.append(isa.build(op, cfg=self.lay.chip, **f))

    def program(self):
        sp, desc, lay = self.sp, self.desc, self.lay
        self("LD", dst=sp["const"], src=lay.w["const"], len=1 + HEAD_DIM)
        self.embed()
        for i in range(desc.layers):
            self.layer(i)
        self.head()
        self("HALT")
        return reorder(self.P, lay.chip) if lay.chip.mode == "overlap" else self.P

    # -- pieces ------------------------------------------------------------------------
    def next(self, ring, n):
        """The next of n buffers of a ring ("tb", "acc", "ys", "set"): its index."""
        k = self.turn[ring] % n
        self.turn[ring] += 1
        return k

    def mm(self, dst, A, lda, M, KE, B, ldb, N, ldc, tb, acc=0):
        """One MM with 16-bit A operands, depth KE split into K and khi."""
        self("MM", dst=dst, A=A, B=B, M=M, K=KE % 256, khi=KE // 256, N=N, tb=tb, lda=lda,
             ldb=ldb, ldc=ldc, acc=acc, a16=1)

    def qnt(self, dst, src, n, rms=0, b16=1, q=Q12):
        self("QNT", dst=dst, src=src, len=n, q=q, b16=b16, rms=rms)

    def rqc(self, dst, src, M, N, ld, rsc, rstride, csc, q=Q12):
        self("RQC", dst=dst, src=src, M=M, N=N, ld=ld, rsc=rsc, rstride=rstride, csc=csc, q=q)

    def tile_buffer(self):
        """The next tile buffer of the ring, passing over the one held (a tile of the weighted
        sum's QNT'd weights, in use while its value tiles load)."""
        while True:
            buf = self.sp[f"tb{self.next('tb', self.lay.tile_buffers)}"]
            if buf != self.held:
                return buf

    def load(self, src, n):
        """LD n words (one load) into the next tile buffer; its address."""
        buf = self.tile_buffer()
        self("LD", dst=buf, src=src, len=n)
        return buf

    def load_runs(self, runs, words):
        """The runs [(address, count)] of `words` words a count, one LD each, one after
        another into the next tile buffer; its address."""
        if len(runs) == 1:
            return self.load(runs[0][0], runs[0][1] * words)
        buf = self.tile_buffer()
        at = buf
        for a, n in runs:
            self("LD", dst=at, src=a, len=n * words)
            at += n * words
        return buf

    def load_rows(self, src, n, kn, K):
        """Rows src, src + K, .. (n of them) of a matrix of depth K, each kn words from
        its start: one LD when kn = K, else one a row, into the next tile buffer."""
        if kn == K:
            return self.load(src, n * K)
        buf = self.tile_buffer()
        for j in range(n):
            self("LD", dst=buf + j * kn, src=src + j * K, len=kn)
        return buf

    def tiles(self, base, lo, hi, K):
        """Rows lo..hi-1 of the out-major matrix at base (depth K) tile by tile through the
        ring (tile_plan): (first row, rows, depth part, its first column k0, its depth kn,
        the buffer) for each tile's part, after its load."""
        rows, parts = tile_plan(K, self.lay.tile_words)
        kk = -(-K // parts)
        for o0 in range(lo, hi, rows):
            n = min(rows, hi - o0)
            for p in range(parts):
                k0 = p * kk
                kn = min(kk, K - k0)
                yield o0, n, p, k0, kn, self.load_rows(base + o0 * K + k0, n, kn, K)

    def project(self, name, src, ld, c0, cw):
        """Output channels c0 .. c0 + cw of matrix `name` for every row (the QNT rows at
        src, row stride ld): the matrix's tiles, their products into the next slot (rows x
        cw int32, row stride cw) and the chunk's column scales; (acc, cs) of the slot."""
        desc, sp, lay, R = self.desc, self.sp, self.lay, len(self.rows)
        out, K = mat_shape(desc, name.split(".")[1])
        s = self.next("acc", ACC_SLOTS)
        acc, cs = sp[f"acc{s}"], sp[f"cs{s}"]
        for o0, n, p, k0, kn, buf in self.tiles(lay.w[name], c0, c0 + cw, K):
            for r0 in range(0, R, 4):
                for j in range(0, n, 4):
                    self.mm(acc + r0 * cw + (o0 - c0) + j, src + r0 * ld + k0, ld, min(4, R - r0),
                            kn, buf + j * kn, kn, min(4, n - j), cw, tb=1, acc=int(p > 0))
        self("LD", dst=cs, src=lay.w[name + ".cs"] + c0, len=cw)
        return acc, cs

    def chunks(self, name):
        out = mat_shape(self.desc, name.split(".")[1])[0]
        return [(c0, min(CHUNK, out - c0)) for c0 in range(0, out, CHUNK)]

    def add_y(self, name, src, ld):
        """x += RQC(MM(the QNT rows at src, W^T)) chunk by chunk: each chunk's products
        RQC'd into a y chunk, then added (ADD w) to x's columns row by row."""
        sp, d, K = self.sp, self.desc.d, mat_shape(self.desc, name.split(".")[1])[1]
        R = len(self.rows)
        for c0, cw in self.chunks(name):
            acc, cs = self.project(name, src, ld, c0, cw)
            ys = sp[f"ys{self.next('ys', 2)}"]
            self.rqc(ys, acc, R, cw, cw, src + K, ld, cs)
            for r in range(R):
                self("ADD", dst=sp["x"] + r * d + c0, src=sp["x"] + r * d + c0, src2=ys + r * cw,
                     len=cw, w=1)

    # -- blocks ------------------------------------------------------------------------
    def embed(self):
        sp, lay, d = self.sp, self.lay, self.desc.d
        for r, row in enumerate(self.rows):
            self("LD", dst=sp["tok"] + r, src=self.mem.token(row.b, row.t), len=1)
            self("LDX", dst=sp["x"] + r * d, src=lay.w["embed"], len=d, idx=sp["tok"] + r,
                 rows=self.desc.vocab)
            self("LD", dst=sp["rope"] + r * HEAD_DIM, src=lay.w["rope"] + row.t * HEAD_DIM,
                 len=HEAD_DIM)

    def layer(self, i):
        sp, desc = self.sp, self.desc
        d, f, R = desc.d, desc.mlp, len(self.rows)
        h = sp["h"]
        for r in range(R):
            self.qnt(h + r * (d + 1), sp["x"] + r * d, d, rms=1)
        for m, heads, buf in (("wq", desc.heads, "q65"), ("wk", desc.kv_heads, "k65"),
                              ("wv", desc.kv_heads, "v65")):
            for c0, cw in self.chunks(f"h{i}.{m}"):
                acc, cs = self.project(f"h{i}.{m}", h, d + 1, c0, cw)
                c = c0 // HEAD_DIM
                for r, row in enumerate(self.rows):
                    at = sp[buf] + (r * heads + c) * HS
                    self.rqc(at, acc + r * cw, 1, cw, cw, h + r * (d + 1) + d, 0, cs)
                    if m != "wv":
                        self("ROPE", dst=at, src=at, pairs=HEAD_DIM // 2,
                             cs=sp["rope"] + r * HEAD_DIM, heads=1)
                    self.qnt(at, at, HEAD_DIM, b16=int(m == "wq"))
                    if m != "wq":
                        self.store(i, int(m == "wv"), c, row, at)
        self.attention(i)
        for r in range(R):
            self.qnt(h + r * (d + 1), h + r * (d + 1), d)
        self.add_y(f"h{i}.wo", h, d + 1)
        for r in range(R):
            self.qnt(h + r * (d + 1), sp["x"] + r * d, d, rms=1)
        fr = sp["f"]
        for c0, cw in self.chunks(f"h{i}.wg"):
            acc, cs = self.project(f"h{i}.wg", h, d + 1, c0, cw)
            for r in range(R):
                self.rqc(fr + r * (f + 1) + c0, acc + r * cw, 1, cw, cw, h + r * (d + 1) + d, 0, cs)
            acc, cs = self.project(f"h{i}.wu", h, d + 1, c0, cw)
            ys = sp[f"ys{self.next('ys', 2)}"]
            self.rqc(ys, acc, R, cw, cw, h + d, d + 1, cs)
            for r in range(R):
                at = fr + r * (f + 1) + c0
                self("SWIGLU", dst=at, src=at, src2=ys + r * cw, len=cw)
        for r in range(R):
            self.qnt(fr + r * (f + 1), fr + r * (f + 1), f)
        self.add_y(f"h{i}.wd", fr, f + 1)

    def store(self, i, kind, g, row, at):
        """A row's quantized K or V head (64 int8 values, then its scale word) to the cache."""
        (a, _), = self.mem.kv_runs(i, kind, g, row.b, row.t, row.t + 1)
        (s, _), = self.mem.kvs_runs(i, kind, g, row.b, row.t, row.t + 1)
        self("ST", src=at, dst=a, len=HEAD_DIM)
        self("ST", src=at + HEAD_DIM, dst=s, len=1)

    def attention(self, i):
        """Layer i's attention: per row (in increasing position) and KV head (a job), the
        group's query heads together over keys 0..t (all stored), each job in the next
        attention set, its output into h's row. Software-pipelined: job k + 1's keys are
        loaded and scored before job k's values, so they load under job k's softmax."""
        jobs = [(r, g) for r in sorted(range(len(self.rows)), key=lambda r: self.rows[r].t)
                for g in range(self.desc.kv_heads)]
        ctx = [self.scores(i, r, g) for r, g in jobs[:1]]
        for k in range(len(jobs)):
            self.softmax(ctx[k])
            if k + 1 < len(jobs):
                ctx.append(self.scores(i, *jobs[k + 1]))
            self.weighted(ctx[k])

    def scores(self, i, r, g):
        """Pass 1 of a job: the keys' tiles and the group's int32 scores (rows n + 1 apart
        in the set's sw), the keys' and values' scale words; the job's context."""
        sp, desc, lay = self.sp, self.desc, self.lay
        row = self.rows[r]
        G, n = desc.group, row.t + 1
        s = self.next("set", NSETS)
        job = dict(i=i, r=r, g=g, row=row, n=n, w1=n + 1,
                   qh=sp["q65"] + (r * desc.heads + g * G) * HS,     # the group's q rows, 65 apart
                   **{name: sp[f"{name}{s}"] for name in ("ks", "vs", "sw", "o32")})
        kt = lay.key_tile
        job["tiles"] = [(u0, min(n, u0 + kt)) for u0 in range(0, n, kt)]
        for u0, u1 in job["tiles"]:
            buf = self.load_runs(self.mem.kv_runs(i, 0, g, row.b, u0, u1), HEAD_DIM)
            for k0 in range(u0, u1, 4):
                self.mm(job["sw"] + k0, job["qh"], HS, G, HEAD_DIM, buf + (k0 - u0) * HEAD_DIM,
                        HEAD_DIM, min(4, u1 - k0), n + 1, tb=1)
        for name, kind in (("ks", 0), ("vs", 1)):
            at = job[name]
            for a, k in self.mem.kvs_runs(i, kind, g, row.b, 0, n):
                self("LD", dst=at, src=a, len=k)
                at += k
        return job

    def softmax(self, job):
        """The scores RQC'd (log2 Q8), SMW, the probabilities RQC'd by the values' scale
        words and QNT'd (16-bit): every step in place in sw, a head's row n + 1 words."""
        G, n, w1, sw, qh = self.desc.group, job["n"], job["w1"], job["sw"], job["qh"]
        for j in range(G):
            self.rqc(sw + j * w1, sw + j * w1, 1, n, n, qh + j * HS + HEAD_DIM, 0, job["ks"],
                     q=Q_SCORES)
        for j in range(G):
            self("SMW", dst=sw + j * w1, src=sw + j * w1, len=n)
        for j in range(G):
            self.rqc(sw + j * w1, sw + j * w1, 1, n, n, self.sp["const"], 0, job["vs"])
        if n <= self.lay.pv_tile:                  # one tile: QNT in place (else per tile)
            for j in range(G):
                self.qnt(sw + j * w1, sw + j * w1, n, q=Q_W)

    def weighted(self, job):
        """Pass 2 of a job: the values' tiles, the weighted sums (MM acc) and their RQC by
        the weights' scale words into the row's heads of h (Q12). Past pv_tile keys, in
        tiles of pv_tile keys: each tile's weights QNT'd into a held tile buffer, its
        values' tiles multiplied (MM acc within the tile), RQC'd by its scale words (the
        first tile into h, the others in place, then ADD w into h)."""
        sp, desc, lay = self.sp, self.desc, self.lay
        G, n, w1, sw, o32, row = desc.group, job["n"], job["w1"], job["sw"], job["o32"], job["row"]
        out = sp["h"] + job["r"] * (desc.d + 1) + job["g"] * G * HEAD_DIM
        if n > lay.pv_tile:
            for k, a in enumerate(range(0, n, lay.pv_tile)):
                b = min(n, a + lay.pv_tile)
                wt, ld = self.tile_buffer(), b - a + 1
                self.held = wt
                for j in range(G):
                    self.qnt(wt + j * ld, sw + j * w1 + a, b - a, q=Q_W)
                for t, u0 in enumerate(range(a, b, lay.key_tile)):
                    u1 = min(b, u0 + lay.key_tile)
                    buf = self.load_runs(self.mem.kv_runs(job["i"], 1, job["g"], row.b, u0, u1), HEAD_DIM)
                    for j0 in range(0, HEAD_DIM, 4):
                        self.mm(o32 + j0, wt + u0 - a, ld, G, u1 - u0, buf + j0, HEAD_DIM, 4, HEAD_DIM,
                                tb=0, acc=int(t > 0))
                self.rqc(out if k == 0 else o32, o32, G, HEAD_DIM, HEAD_DIM, wt + b - a, ld,
                         sp["const"] + 1)
                if k:
                    self("ADD", dst=out, src=out, src2=o32, len=G * HEAD_DIM, w=1)
                self.held = None
            return
        for k, (u0, u1) in enumerate(job["tiles"]):
            buf = self.load_runs(self.mem.kv_runs(job["i"], 1, job["g"], row.b, u0, u1), HEAD_DIM)
            for j0 in range(0, HEAD_DIM, 4):
                self.mm(o32 + j0, sw + u0, w1, G, u1 - u0, buf + j0, HEAD_DIM, 4, HEAD_DIM, tb=0,
                        acc=int(k > 0))
        self.rqc(out, o32, G, HEAD_DIM, HEAD_DIM, sw + n, w1, sp["const"] + 1)

    def head(self):
        """The generating rows' logits in vocabulary chunks, the running ARGMAX pair, and
        the token stored at t + 1."""
        sp, desc, lay = self.sp, self.desc, self.lay
        d, V, VC = desc.d, desc.vocab, lay.vchunk
        gen = [r for r, row in enumerate(self.rows) if row.write]
        if not gen:
            return
        h = sp["h"]
        for r in gen:
            self.qnt(h + r * (d + 1), sp["x"] + r * d, d, rms=1)
        runs = []                                       # (first index in gen, rows): adjacent rows
        for k, r in enumerate(gen):
            if runs and gen[k - 1] == r - 1 and runs[-1][1] < 4:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1)
            else:
                runs.append((k, 1))
        for v0 in range(0, V, VC):
            vn = min(VC, V - v0)
            s = self.next("acc", ACC_SLOTS)
            acc, cs = sp[f"acc{s}"], sp[f"cs{s}"]
            for t0, n, p, k0, kn, buf in self.tiles(lay.w["head"], v0, v0 + vn, d):
                for g0, m in runs:                      # the generating rows, 4 at a time
                    r = gen[g0]
                    for c0 in range(0, n, 4):
                        self.mm(acc + g0 * VC + (t0 - v0) + c0, h + r * (d + 1) + k0, d + 1, m,
                                kn, buf + c0 * kn, kn, min(4, n - c0), VC, tb=1, acc=int(p > 0))
            self("LD", dst=cs, src=lay.w["head.cs"] + v0, len=vn)
            for k, r in enumerate(gen):
                self.rqc(sp["logits"], acc + k * VC, 1, vn, VC, h + r * (d + 1) + d, 0, cs)
                first = v0 == 0                 # pair = 1 starts the running pair, acc = 1 extends it
                self("ARGMAX", dst=sp["nxt"] + 2 * r, src=sp["logits"], len=vn, base=v0,
                     pair=int(first), acc=int(not first))
        for r in gen:
            row = self.rows[r]
            self("ST", src=sp["nxt"] + 2 * r, dst=self.mem.token(row.b, row.t + 1), len=1)


def cycles(prog, chip):
    """The step's cycles by the timing model (derived)."""
    return timing.schedule(prog, chip).cycles
