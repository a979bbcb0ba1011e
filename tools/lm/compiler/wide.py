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
its column scale words follow it. The step streams every matrix through `weight_buffers`
tile buffers in turn (in the overlap mode the next tiles load under this one's products).
"""
from collections import namedtuple

from model import isa, timing
from model.reorder import reorder
from model.wide import sc_of
from tools.lm.compiler.layout import LD_MAX

HEAD_DIM = 64
KEY_TILE = 64            # attended rows per tile of the cache (the MM's K: <= 255 + 256 khi)
VOCAB_CHUNK = 2048       # logits RQC'd and ARGMAXed at once (MM's ldc <= 4095)
MAX_BUFFERS = 4
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


def tile_rows(k, words=LD_MAX):
    """Output channels per weight tile of a matrix of depth k: the most, a multiple of 4,
    whose k words a row fit a tile buffer of `words` (at most one LD)."""
    n = (min(words, LD_MAX) // k) // 4 * 4
    if n < 4:
        raise ValueError(f"a matrix of depth {k}: 4 rows exceed a weight tile of {words} words")
    return n


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

    def __init__(self, desc, batch, ctx, chip, rows=None, vocab_chunk=VOCAB_CHUNK):
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
        self.desc, self.batch, self.ctx, self.chip, self.rows = desc, batch, ctx, chip, rows
        self._chunk = vocab_chunk
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
        at += self.batch * self.ctx
        self.kv0 = at
        self.kv_block = self.ctx * HEAD_DIM + self.ctx      # rows, then scales
        at += desc.layers * 2 * desc.kv_heads * self.batch * self.kv_block
        self.ext_words = at
        if at > self.chip.ext_words:
            raise ValueError(f"SmolLM2 with a batch of {self.batch} x {self.ctx} positions needs "
                             f"{at} words of external memory; the chip has {self.chip.ext_words}")

    def kv(self, layer, kind, g, b):
        """The external address of row 0 of sequence b's cache of layer, kind, KV head g."""
        k = ((layer * 2 + kind) * self.desc.kv_heads + g) * self.batch + b
        return self.kv0 + k * self.kv_block

    def kvs(self, layer, kind, g, b):
        """... and of its scale word 0."""
        return self.kv(layer, kind, g, b) + self.ctx * HEAD_DIM

    def token(self, b, t):
        return self.tokens + b * self.ctx + t

    def _scratchpad(self):
        """Per row: tok, nxt (the ARGMAX pair: 2 words), x (d, Q12), h (d + 1: a QNT row and
        its scale), q (d; ROPE rotates it in place; y, a projection's output, reuses it), k
        (ROPE in place), v (dk), rope (64), qh (heads x 65), kq, vq (kv_heads x 65), o (d), g,
        u (mlp; SWIGLU writes over g), f16 (mlp + 1), the products acc, logits (a vocabulary
        chunk of VOCAB_CHUNK / rows words); the column scales cs; one attention set: ktile,
        vtile (key_tile = min(KEY_TILE, ctx) rows of 64), ks, vs (ctx), s32 (w reuses it),
        s, p (group x ctx), w16 (group x (ctx + 1)), o32 (group x 64); then MAX_BUFFERS weight
        tile buffers wb0.., each as large as the rest allows up to one LD."""
        desc, R, n = self.desc, self.rows, self.ctx
        d, dk, f, G = desc.d, desc.dk, desc.mlp, desc.group
        # a vocabulary chunk of logits: ARGMAX's len and MM's ldc bound it
        self.vchunk = min(self._chunk // R // 4 * 4 or 4, _c4(desc.vocab))
        self.key_tile = min(KEY_TILE, n)
        widest = max(d, f, self.vchunk)
        sp, at = {}, 0

        def take(name, words):
            nonlocal at
            sp[name] = at
            at += _c4(words)

        for name, words in (("const", 1 + HEAD_DIM), ("tok", R), ("nxt", 2 * R), ("x", R * d),
                            ("h", R * (d + 1)), ("q", R * d), ("k", R * dk), ("v", R * dk),
                            ("rope", R * HEAD_DIM), ("qh", R * desc.heads * (HEAD_DIM + 1)),
                            ("kq", R * desc.kv_heads * (HEAD_DIM + 1)),
                            ("vq", R * desc.kv_heads * (HEAD_DIM + 1)), ("o", R * d),
                            ("g", R * f), ("u", R * f), ("f16", R * (f + 1)),
                            ("acc", R * widest), ("cs", widest), ("logits", R * self.vchunk),
                            ("ktile", self.key_tile * HEAD_DIM), ("vtile", self.key_tile * HEAD_DIM),
                            ("ks", n), ("vs", n), ("s32", G * n), ("s", G * n), ("p", G * n),
                            ("w16", G * (n + 1)), ("o32", G * HEAD_DIM)):
            take(name, words)
        sp["y"] = sp["q"]          # a projection's output once q's heads are quantized (qh)
        sp["w"] = sp["s32"]        # the weights RQC'd from p once the scores are RQC'd
        # the weight tiles: MAX_BUFFERS of them as large as the rest of the scratchpad allows
        # (at most one LD each), each holding at least 4 rows of the deepest matrix
        free = (self.chip.sp_words - at) // MAX_BUFFERS // 4 * 4
        if free < 4 * max(d, f):
            raise ValueError(f"SmolLM2 with {R} rows a step over {n} positions needs {at} words of "
                             f"scratchpad and {MAX_BUFFERS} weight tiles of at least {4 * max(d, f)}; "
                             f"the chip has {self.chip.sp_words}")
        self.tile_words = max(tile_rows(k, free) * k for k in (d, f))
        self.weight_buffers = MAX_BUFFERS
        for k in range(self.weight_buffers):
            take(f"wb{k}", self.tile_words)
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
        for b, p in enumerate(prompts):
            if len(p) > self.ctx:
                raise ValueError(f"prompt {b}: {len(p)} tokens, beyond the layout's {self.ctx} positions")
            ext[self.token(b, 0):self.token(b, 0) + len(p)] = p
        return ext


def step_program(lay, rows):
    """The instructions of one step of rows (Row: sequence b at position t; write: its
    ARGMAX is stored to t + 1) of a WideLayout, ending in HALT, in chip order for its mode.
    Several rows of one sequence (a prefill) run their attention in increasing position,
    each after the previous one's K and V are stored."""
    return WideStep(lay, rows).program()


class WideStep:
    """One step being emitted; self(op, **fields) appends an instruction."""

    def __init__(self, lay, rows):
        if not rows or len(rows) > lay.rows:
            raise ValueError(f"a step takes 1..{lay.rows} rows, got {len(rows)}")
        for row in rows:
            if not 0 <= row.t < lay.ctx or not 0 <= row.b < lay.batch:
                raise ValueError(f"row {row}: position outside 0..{lay.ctx - 1} or sequence "
                                 f"outside 0..{lay.batch - 1}")
            if row.write and row.t + 1 >= lay.ctx:
                raise ValueError(f"row {row}: its next token would be at {row.t + 1}, past the "
                                 f"layout's {lay.ctx} positions")
        seen = {(r.b, r.t) for r in rows}
        if len(seen) != len(rows):
            raise ValueError("a step's rows must be distinct")
        self.lay, self.desc, self.sp = lay, lay.desc, lay.sp
        self.rows = sorted(rows, key=lambda r: (r.b, r.t))
        self.P, self.nbuf = [], 0

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
    def mm(self, dst, A, lda, M, KE, B, ldb, N, ldc, tb, acc=0):
        """One MM with 16-bit A operands, depth KE split into K and khi."""
        self("MM", dst=dst, A=A, B=B, M=M, K=KE % 256, khi=KE // 256, N=N, tb=tb, lda=lda,
             ldb=ldb, ldc=ldc, acc=acc, a16=1)

    def qnt(self, dst, src, n, rms=0, b16=1):
        self("QNT", dst=dst, src=src, len=n, q=Q12, b16=b16, rms=rms)

    def linear(self, name, src, ld, dst):
        """dst (rows x out, Q12) = RQC(MM(the QNT rows at src (row stride ld = in + 1, the
        scale word at + in), W8^T), their scales, W's column scales) for every row."""
        desc, sp, lay, R = self.desc, self.sp, self.lay, len(self.rows)
        m = name.split(".")[1]
        out, K = mat_shape(desc, m)
        acc, cs = sp["acc"], sp["cs"]
        rows = tile_rows(K, lay.tile_words)
        for o0 in range(0, out, rows):
            n = min(rows, out - o0)
            buf = self.load(lay.w[name] + o0 * K, n * K)
            for r0 in range(0, R, 4):
                for c0 in range(0, n, 4):
                    self.mm(acc + r0 * out + o0 + c0, src + r0 * ld, ld, min(4, R - r0), K,
                            buf + c0 * K, K, min(4, n - c0), out, tb=1)
        self("LD", dst=cs, src=lay.w[name + ".cs"], len=out)
        self("RQC", dst=dst, src=acc, M=R, N=out, ld=out, rsc=src + K, rstride=ld, csc=cs, q=Q12)

    def load(self, src, n):
        """LD n words (one load) into the next weight buffer; its address."""
        buf = self.sp[f"wb{self.nbuf % self.lay.weight_buffers}"]
        self.nbuf += 1
        self("LD", dst=buf, src=src, len=n)
        return buf

    # -- blocks ------------------------------------------------------------------------
    def embed(self):
        sp, lay, d = self.sp, self.lay, self.desc.d
        for r, row in enumerate(self.rows):
            self("LD", dst=sp["tok"] + r, src=lay.token(row.b, row.t), len=1)
            self("LDX", dst=sp["x"] + r * d, src=lay.w["embed"], len=d, idx=sp["tok"] + r,
                 rows=self.desc.vocab)

    def layer(self, i):
        sp, desc, lay = self.sp, self.desc, self.lay
        d, dk, f, R = desc.d, desc.dk, desc.mlp, len(self.rows)
        hs = HEAD_DIM + 1
        for r in range(R):
            self.qnt(sp["h"] + r * (d + 1), sp["x"] + r * d, d, rms=1)
        self.linear(f"h{i}.wq", sp["h"], d + 1, sp["q"])
        self.linear(f"h{i}.wk", sp["h"], d + 1, sp["k"])
        self.linear(f"h{i}.wv", sp["h"], d + 1, sp["v"])
        for r, row in enumerate(self.rows):
            rope = sp["rope"] + r * HEAD_DIM
            self("LD", dst=rope, src=lay.w["rope"] + row.t * HEAD_DIM, len=HEAD_DIM)
            self("ROPE", dst=sp["q"] + r * d, src=sp["q"] + r * d, pairs=HEAD_DIM // 2, cs=rope,
                 heads=desc.heads)
            self("ROPE", dst=sp["k"] + r * dk, src=sp["k"] + r * dk, pairs=HEAD_DIM // 2, cs=rope,
                 heads=desc.kv_heads)
            for g in range(desc.kv_heads):
                kq = sp["kq"] + (r * desc.kv_heads + g) * hs
                vq = sp["vq"] + (r * desc.kv_heads + g) * hs
                self("QNT", dst=kq, src=sp["k"] + r * dk + g * HEAD_DIM, len=HEAD_DIM, q=Q12,
                     b16=0, rms=0)
                self("QNT", dst=vq, src=sp["v"] + r * dk + g * HEAD_DIM, len=HEAD_DIM, q=Q12,
                     b16=0, rms=0)
            for c in range(desc.heads):
                self.qnt(sp["qh"] + (r * desc.heads + c) * hs, sp["q"] + r * d + c * HEAD_DIM,
                         HEAD_DIM)
        for r in sorted(range(R), key=lambda r: self.rows[r].t):
            self.attention(i, r)
        for r in range(R):
            self.qnt(sp["h"] + r * (d + 1), sp["o"] + r * d, d)
        self.linear(f"h{i}.wo", sp["h"], d + 1, sp["y"])
        self("ADD", dst=sp["x"], src=sp["x"], src2=sp["y"], len=R * d, w=1)
        for r in range(R):
            self.qnt(sp["h"] + r * (d + 1), sp["x"] + r * d, d, rms=1)
        self.linear(f"h{i}.wg", sp["h"], d + 1, sp["g"])
        self.linear(f"h{i}.wu", sp["h"], d + 1, sp["u"])
        self("SWIGLU", dst=sp["g"], src=sp["g"], src2=sp["u"], len=R * f)
        for r in range(R):
            self.qnt(sp["f16"] + r * (f + 1), sp["g"] + r * f, f)
        self.linear(f"h{i}.wd", sp["f16"], f + 1, sp["y"])
        self("ADD", dst=sp["x"], src=sp["x"], src2=sp["y"], len=R * d, w=1)

    def attention(self, i, r):
        """Row r's attention in layer i: store its K and V rows and scales, then per KV head
        its query heads together over keys 0..t."""
        sp, desc, lay = self.sp, self.desc, self.lay
        row = self.rows[r]
        G, hs, n, d = desc.group, HEAD_DIM + 1, row.t + 1, desc.d
        for g in range(desc.kv_heads):
            for kind, buf in ((0, "kq"), (1, "vq")):
                src = sp[buf] + (r * desc.kv_heads + g) * hs
                self("ST", src=src, dst=lay.kv(i, kind, g, row.b) + row.t * HEAD_DIM, len=HEAD_DIM)
                self("ST", src=src + HEAD_DIM, dst=lay.kvs(i, kind, g, row.b) + row.t, len=1)
        kt = lay.key_tile
        tiles = [(u0, min(n, u0 + kt)) for u0 in range(0, n, kt)]
        for g in range(desc.kv_heads):
            qh = sp["qh"] + (r * desc.heads + g * G) * hs        # the group's q rows, 65 apart
            for u0, u1 in tiles:                                  # pass 1: the scores
                self("LD", dst=sp["ktile"], src=lay.kv(i, 0, g, row.b) + u0 * HEAD_DIM,
                     len=(u1 - u0) * HEAD_DIM)
                for k0 in range(u0, u1, 4):
                    self.mm(sp["s32"] + k0, qh, hs, G, HEAD_DIM, sp["ktile"] + (k0 - u0) * HEAD_DIM,
                            HEAD_DIM, min(4, u1 - k0), n, tb=1)
            self("LD", dst=sp["ks"], src=lay.kvs(i, 0, g, row.b), len=n)
            self("RQC", dst=sp["s"], src=sp["s32"], M=G, N=n, ld=n, rsc=qh + HEAD_DIM, rstride=hs,
                 csc=sp["ks"], q=Q_SCORES)
            for j in range(G):
                self("SMW", dst=sp["p"] + j * n, src=sp["s"] + j * n, len=n)
            self("LD", dst=sp["vs"], src=lay.kvs(i, 1, g, row.b), len=n)
            self("RQC", dst=sp["w"], src=sp["p"], M=G, N=n, ld=n, rsc=sp["const"], rstride=0,
                 csc=sp["vs"], q=Q12)
            for j in range(G):
                self("QNT", dst=sp["w16"] + j * (n + 1), src=sp["w"] + j * n, len=n, q=Q_W, b16=1,
                     rms=0)
            for k, (u0, u1) in enumerate(tiles):                  # pass 2: the weighted sum
                self("LD", dst=sp["vtile"], src=lay.kv(i, 1, g, row.b) + u0 * HEAD_DIM,
                     len=(u1 - u0) * HEAD_DIM)
                for j0 in range(0, HEAD_DIM, 4):
                    self.mm(sp["o32"] + j0, sp["w16"] + u0, n + 1, G, u1 - u0, sp["vtile"] + j0,
                            HEAD_DIM, 4, HEAD_DIM, tb=0, acc=int(k > 0))
            self("RQC", dst=sp["o"] + r * d + g * G * HEAD_DIM, src=sp["o32"], M=G, N=HEAD_DIM,
                 ld=HEAD_DIM, rsc=sp["w16"] + n, rstride=n + 1, csc=sp["const"] + 1, q=Q12)

    def head(self):
        """The generating rows' logits in vocabulary chunks, the running ARGMAX pair, and
        the token stored at t + 1."""
        sp, desc, lay = self.sp, self.desc, self.lay
        d, V, VC = desc.d, desc.vocab, lay.vchunk
        gen = [r for r, row in enumerate(self.rows) if row.write]
        if not gen:
            return
        for r in gen:
            self.qnt(sp["h"] + r * (d + 1), sp["x"] + r * d, d, rms=1)
        rows = tile_rows(d, lay.tile_words)
        runs = []                                       # (first index in gen, rows): adjacent rows
        for k, r in enumerate(gen):
            if runs and gen[k - 1] == r - 1 and runs[-1][1] < 4:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1)
            else:
                runs.append((k, 1))
        for v0 in range(0, V, VC):
            vn = min(VC, V - v0)
            acc, cs = sp["acc"], sp["cs"]
            for t0 in range(v0, v0 + vn, rows):
                n = min(rows, v0 + vn - t0)
                buf = self.load(lay.w["head"] + t0 * d, n * d)
                for k0, m in runs:                      # the generating rows, 4 at a time
                    r = gen[k0]
                    for c0 in range(0, n, 4):
                        self.mm(acc + k0 * VC + (t0 - v0) + c0, sp["h"] + r * (d + 1), d + 1, m, d,
                                buf + c0 * d, d, min(4, n - c0), VC, tb=1)
            self("LD", dst=cs, src=lay.w["head.cs"] + v0, len=vn)
            for k, r in enumerate(gen):
                self("RQC", dst=sp["logits"] + k * VC, src=acc + k * VC, M=1, N=vn, ld=VC,
                     rsc=sp["h"] + r * (d + 1) + d, rstride=0, csc=cs, q=Q12)
                first = v0 == 0                 # pair = 1 starts the running pair, acc = 1 extends it
                self("ARGMAX", dst=sp["nxt"] + 2 * r, src=sp["logits"] + k * VC, len=vn, base=v0,
                     pair=int(first), acc=int(not first))
        for r in gen:
            row = self.rows[r]
            self("ST", src=sp["nxt"] + 2 * r, dst=lay.token(row.b, row.t + 1), len=1)


def cycles(prog, chip):
    """The step's cycles by the timing model (derived)."""
    return timing.schedule(prog, chip).cycles
