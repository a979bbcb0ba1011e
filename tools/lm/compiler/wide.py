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

The memory map, its buffers and the streaming of weights: tools/lm/compiler/wide_layout.py.
"""
from collections import namedtuple

from model import isa, timing
from model.reorder import reorder
from tools.lm.compiler.wide_layout import ACC_SLOTS, CHUNK, HEAD_DIM, HS, NSETS, Q12, mat_shape, tile_plan

Q_SCORES = 8             # the scores' RQC: log2 units in Q8, SMW's input
# w = p * vs (p Q15, RQC by the values' scale words into Q12): its fraction bits 12 + 15,
# QNT's q for w's scale word (the RQC after the weighted sum multiplies it back)
Q_W = Q12 + 15

Row = namedtuple("Row", "b t write")


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
