"""One step's program: the instructions of a decode (or prefill) step of a Layout, ending in
HALT, in chip order for the layout's timing mode.

A step feeds rows (Row: sequence b at position t; write: its ARGMAX is the next token).
Rows of several sequences make a batched decode step; several consecutive rows of ONE
sequence make a prefill chunk or a speculative verification (their attention runs in
increasing position, each after the previous row's K and V are stored). For the rows:
  - embed: LD each row's token id, LDX its embedding row (EMB), LD its position row
    (positions past the learned ones take the last one's), ADD a group of four at a time;
  - per layer: qkv -- per group NORM, the q, k, v projections (each weight matrix loaded
    once a step into the next of the weight buffers and multiplied by every row while on
    chip, so the next matrices' loads run under this one's products in the overlap mode),
    PACK4 of k and v for a 4-bit cache; attention -- per row ST its k and v, the attended
    rows into an attention set (by the address protocol's kv_attend, in tiles), per head
    the scores (MM), RQ, SM, RQ, the weighted sum (MM, accumulated over tiles), RQ;
    layer end -- per group o Wo, RQ, the residual RQ, ADD, NORM, the MLP, the residual;
  - head: for the rows that generate (first in the step: a prefill row's logits are
    never read), NORM, the logits in column tiles (int32), ARGMAX, ST of the id at t + 1.
The numerics are docs/lm.md's "One decode step"; the instructions' cycles docs/isa.md's.

The order: unpipelined (each layer's projections for every group, its attention, its end
for every group, then the head) or, with PIPE_BUFFERS weight buffers, pipelined (the next
layer's Wq, Wk, Wv -- after the last layer the head's tiles -- loaded before the layer's
end, and a group's next-layer projections -- its head -- following the NEXT group's layer
end, so the list scheduler, model/reorder.py, fills the matrix unit's waits). In the
overlap mode step_program builds both and keeps the faster by the timing model (ties: the
unpipelined one): a choice from the program alone.

The blocks (BLOCKS) are chosen by the description; the next issue's SmolLM2 adds, with the
operations it needs: a SwiGLU layer end (activation "swiglu": gate and up projections, a
SiLU and an elementwise product, the down projection), rotary positions (positions "rope":
no position table; q and k rotated by position before the scores and the cache), an int32
residual and per-channel / per-token scales (residual "int32", numerics "per-channel"),
and the tied head in vocabulary tiles with a running argmax across tiles (tied_head: the
head's tiles read from wte's rows). Every one of those is a block function of this file
picked from BLOCKS by a Desc field; the layout (layout.py) names their buffers.
"""
from collections import namedtuple

from model import isa, timing
from model.reorder import reorder
from tools.lm.compiler.layout import (
    GROUP,
    LD_MAX,
    PAGE,
    RESULT_BUFFERS,
    TILE_COLS,
    WEIGHT_BUFFERS,
    Contiguous,
    pipe_buffers,
)

Row = namedtuple("Row", "b t write")
Row.__doc__ = """One active row of a step: sequence b at position t; write: its ARGMAX is the
next token (t + 1 is past the prompt), stored to the token area at t + 1."""


def order_rows(rows, batch):
    """A step's rows checked and ordered: (rows, att). rows: the ones whose next token is
    generated first (only they need the output head, and as a prefix of the batch they
    tile it); att: the order of the rows' attention, the batch order or, when a sequence
    has several rows, by position (a row sees the K and V its sequence's earlier rows
    stored). ValueError for no rows, more than batch, or a sequence's rows not at
    distinct, consecutive positions."""
    if not rows or len(rows) > batch:
        raise ValueError(f"a step takes 1..{batch} rows, got {len(rows)}")
    seqs = {}
    for row in rows:
        seqs.setdefault(row.b, []).append(row.t)
    for b, ts in seqs.items():
        if sorted(ts) != list(range(min(ts), min(ts) + len(ts))):
            raise ValueError(f"sequence {b}: a step's rows of one sequence must be at distinct, "
                             f"consecutive positions, got {sorted(ts)}")
    rows = sorted(rows, key=lambda row: not row.write)
    att = list(range(len(rows)))
    if len(seqs) < len(rows):
        att.sort(key=lambda r: rows[r].t)
    return rows, att


def step_program(net, lay, rows, mem=None):
    """The instructions of one step of rows (a list of Row) of layout lay, ending in HALT;
    net: the int8 export (its requants, net.rq); mem: the address protocol (default
    Contiguous(lay)). In the overlap mode with the pipelined order's buffers, whichever
    order the timing model finds faster; else the unpipelined order."""
    if lay.weight_buffers < pipe_buffers(lay.desc) or lay.chip.mode != "overlap":
        return Step(net, lay, rows, mem, pipe=False).program()
    both = [Step(net, lay, rows, mem, pipe).program() for pipe in (False, True)]
    return min(both, key=lambda P: timing.schedule(P, lay.chip).cycles)   # ties: unpipelined


class Step:
    """One step's program being emitted: the instruction list and the blocks. Called as
    I(op, **fields) to append an instruction built for lay.chip."""

    def __init__(self, net, lay, rows, mem, pipe):
        assert not pipe or lay.weight_buffers >= pipe_buffers(lay.desc), "a pipelined step's buffers"
        self.rows, self.att = order_rows(rows, lay.batch)
        self.requants, self.lay, self.desc, self.sp = net.rq, lay, lay.desc, lay.sp
        self.mem = Contiguous(lay) if mem is None else mem
        self.pipe, self.nbuf = pipe, lay.weight_buffers if pipe else WEIGHT_BUFFERS
        self.P, self.wbuf, self.acc = [], 0, 0
        R = len(self.rows)
        self.groups = [(g0, min(GROUP, R - g0)) for g0 in range(0, R, GROUP)]
        self.heads = sum(row.write for row in self.rows)     # rows that generate: a prefix

    def __call__(self, op, **f):
        self.P.append(isa.build(op, cfg=self.lay.chip, **f))

    # -- the program ----------------------------------------------------------------
    def program(self):
        desc, blocks = self.desc, BLOCKS
        blocks["positions"][desc.positions](self)
        mats = self.qkv_weights(0)
        for g0, gn in self.groups:           # a group's norm and projections, then the next's
            self.qkv(0, mats, g0, gn)
        for i in range(desc.layers):
            for j, r in enumerate(self.att):
                self.attention(i, r, j % self.lay.sets)
            ends = self.end_weights(i)
            last = i + 1 == desc.layers
            if not self.pipe:
                for g0, gn in self.groups:   # the rest of the layer, a group at a time
                    self.layer_end(i, g0, gn, ends)
                if not last:
                    mats = self.qkv_weights(i + 1)
                    for g0, gn in self.groups:
                        self.qkv(i + 1, mats, g0, gn)
                continue
            # pipelined: what follows a group's layer end, one group behind
            if last:
                tiles = self.head_tiles() if self.heads else []
                follow = [(self.head, (g0, min(gn, self.heads - g0), tiles)) if g0 < self.heads
                          else None for g0, gn in self.groups]
            else:
                mats = self.qkv_weights(i + 1)
                follow = [(self.qkv, (i + 1, mats, g0, gn)) for g0, gn in self.groups]
            lag = 1                          # group k's follow-up after group k + 1's end
            for k in range(len(self.groups) + lag):
                if k < len(self.groups):
                    self.layer_end(i, *self.groups[k], ends)
                if k >= lag and follow[k - lag]:
                    fn, args = follow[k - lag]
                    fn(*args)
        if self.heads and not self.pipe:     # the output head, for the generating rows only:
            self.norm(0, self.heads, "nf")   # each tile loaded, then its products
            V, d = self.desc.vocab, self.desc.d
            for j, c0 in enumerate(range(0, V, TILE_COLS)):
                n = min(TILE_COLS, V - c0)
                w = self.load_matrix(f"wout.{j}", d, n)
                self.matmul(self.sp["logits"] + c0, self.sp["h"], d, w, n, V, self.heads)
        self.argmax()
        self("HALT")
        return reorder(self.P, self.lay.chip) if self.lay.chip.mode == "overlap" else self.P

    # -- shared pieces ----------------------------------------------------------------
    def rqv(self, dst, src, n, name, relu=0):
        """RQ of n words by the network's requant `name`."""
        m, s = self.requants[name]
        self("RQ", dst=dst, src=src, len=n, m=m, s=s, relu=relu)

    def load_matrix(self, name, r, c):
        """LD a weight matrix into the next of the weight buffers; its address."""
        buf = self.sp[f"wb{self.wbuf % self.nbuf}"]
        self.wbuf += 1
        self("LD", dst=buf, src=self.lay.w[name], len=r * c)
        return buf

    def weights(self, name, K, N):
        """A matrix on chip: (its buffer, the next int32 result buffer, K, N)."""
        w = self.load_matrix(name, K, N)
        self.acc += 1
        return w, self.sp[f"a{self.acc % RESULT_BUFFERS}"], K, N

    def project(self, g0, gn, mat, src, dst, name, relu=0):
        """dst = RQ(src x W) for the group of rows g0 .. g0+gn-1: its MMs, then its RQ."""
        w, a, K, N = mat
        for n0 in range(0, N, 4):
            self("MM", dst=a + g0 * N + n0, A=src + g0 * K, B=w + n0, M=gn, K=K, N=4,
                 tb=0, lda=K, ldb=N, ldc=N)
        self.rqv(dst + g0 * N, a + g0 * N, gn * N, name, relu)

    def residual(self, g0, gn, j, branch):
        """x = ADD(RQ(x) [res j], branch) for a group of rows (branch: already requantized)."""
        x, d = self.sp["x"], self.desc.d
        self.rqv(x + g0 * d, x + g0 * d, gn * d, f"res{j}")
        self("ADD", dst=x + g0 * d, src=x + g0 * d, len=gn * d, src2=branch + g0 * d)

    def norm(self, g0, gn, name):
        """h = NORM(x) row by row for a group, by the network's norm `name`."""
        m, s = self.requants[name]
        sp, d = self.sp, self.desc.d
        for r in range(g0, g0 + gn):
            self("NORM", dst=sp["h"] + r * d, src=sp["x"] + r * d, len=d, m=m, s=s)

    def xfer(self, op, spa, exa, n):
        """LD (op "LD") or ST of n words between the scratchpad at spa and the external
        memory at exa: split at LD_MAX words and at 64K pages (xhi: the page)."""
        while n:
            k = min(n, LD_MAX, PAGE - exa % PAGE)
            hi = {"xhi": exa // PAGE} if exa >= PAGE else {}
            if op == "LD":
                self("LD", dst=spa, src=exa % PAGE, len=k, **hi)
            else:
                self("ST", src=spa, dst=exa % PAGE, len=k, **hi)
            spa, exa, n = spa + k, exa + k, n - k

    def matmul(self, dst, a, K, w, N, ldc, rows):
        """dst (rows x N int32, rows ldc apart) = a (rows x K int8, row-major) x w (K x N),
        in 4 x 4 tiles."""
        for r0 in range(0, rows, 4):
            for n0 in range(0, N, 4):
                self("MM", dst=dst + r0 * ldc + n0, A=a + r0 * K, B=w + n0, M=min(4, rows - r0),
                     K=K, N=4, tb=0, lda=K, ldb=N, ldc=ldc)

    # -- the blocks -------------------------------------------------------------------
    def embed_learned(self):
        """x = wte[token] + wpe[min(t, ctx - 1)] for every row: the token id (from the token
        area), its wte row (LDX), the position's wpe row, summed a group at a time."""
        sp, d, w, mem = self.sp, self.desc.d, self.lay.w, self.mem
        for r, row in enumerate(self.rows):
            self("LD", dst=sp["tok"] + r, src=mem.token(row.b, row.t), len=1)
            self("LDX", dst=sp["x"] + r * d, src=w["wte"], len=d, idx=sp["tok"] + r,
                 rows=self.desc.vocab)
            self("LD", dst=sp["t0"] + r * d, src=w["wpe"] + min(row.t, self.desc.ctx - 1) * d, len=d)
        for g0, gn in self.groups:
            self("ADD", dst=sp["x"] + g0 * d, src=sp["x"] + g0 * d, len=gn * d,
                 src2=sp["t0"] + g0 * d)

    def qkv_weights(self, i):
        d, dk = self.desc.d, self.desc.dk
        return {"q": self.weights(f"h{i}.wq", d, d), "k": self.weights(f"h{i}.wk", d, dk),
                "v": self.weights(f"h{i}.wv", d, dk)}

    def qkv(self, i, mats, g0, gn):
        """Layer i's norm and projections q, k, v for a group (k and v PACK4ed for a 4-bit
        cache: two values a word, saturated to -8..7)."""
        sp = self.sp
        self.norm(g0, gn, f"h{i}.n1")
        for n in "qkv":
            self.project(g0, gn, mats[n], sp["h"], sp[n], f"h{i}.{n}")
        if self.desc.kv_bits == 4:
            rw, dk = self.lay.row_words, self.desc.dk
            for n in "kv":
                self("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=gn * rw)

    def attention(self, i, r, s):
        """Row r's attention of layer i in attention set s: ST its k and v (kv_row), then the
        attended rows (kv_attend) in tiles of lay.tile: untiled, K and V on chip then head by
        head; tiled, pass 1 the keys' tiles (every score of a head into one vector), one
        softmax per head over all of them, pass 2 the values' tiles (MM's acc adds them)."""
        lay, desc, sp, mem = self.lay, self.desc, self.sp, self.mem
        row = self.rows[r]
        d, dk, rw, hd, g = desc.d, desc.dk, lay.row_words, desc.head_dim, desc.group
        kv4 = desc.kv_bits == 4
        runs = [mem.kv_attend(i, kind, row.b, row.t) for kind in (0, 1)]
        slot, n = runs[0][1], runs[0][2]          # this row's tile index, rows attended
        cur = [(sp[f"{'kv'[kind]}p"] + r * rw) if kv4 else (sp["kv"[kind]] + r * dk)
               for kind in (0, 1)]
        for kind in (0, 1):
            self.xfer("ST", cur[kind], mem.kv_row(i, kind, row.b, row.t), rw)
        tiles = [(u0, min(n, u0 + lay.tile)) for u0 in range(0, n, lay.tile)]
        bufs = [sp[f"tile{s}.0"], sp[f"tile{s}.1"]]
        pks = [sp.get(f"pack{s}.0"), sp.get(f"pack{s}.1")]

        def vec(x, c):
            return sp[f"{x}.{s}.{c}"]

        def load(kind, k, u0, u1):
            """The cached rows u0..u1-1 of the attended ones into buffer k (packed: LD
            into its staging buffer, UNPACK4)."""
            buf, pk = bufs[k], pks[k]
            for idx, addr, m in runs[kind][0]:
                a, z = max(u0, idx), min(u1, idx + m)
                if a >= z:
                    continue
                src = addr + (a - idx) * rw
                if kv4:
                    self.xfer("LD", pk + (a - u0) * rw, src, (z - a) * rw)
                    self("UNPACK4", dst=buf + (a - u0) * dk, src=pk + (a - u0) * rw, len=(z - a) * rw)
                else:
                    self.xfer("LD", buf + (a - u0) * dk, src, (z - a) * dk)

        def own(kind, k, u0, u1):
            """This step's row into its tile index when tile u0..u1-1 holds it."""
            if u0 <= slot < u1:
                if kv4:
                    self("UNPACK4", dst=bufs[k] + (slot - u0) * dk, src=cur[kind], len=rw)
                else:
                    self("RQ", dst=bufs[k] + (slot - u0) * dk, src=cur[kind], len=dk, m=1, s=0)

        def scores(c, buf, u0, u1):
            q = sp["q"] + r * d + hd * c
            for k0 in range(u0, u1, 4):
                N = min(4, u1 - k0)
                self("MM", dst=vec("s32", c) + k0, A=q, B=buf + (k0 - u0) * dk + hd * (c // g),
                     M=1, K=hd, N=N, tb=1, lda=hd, ldb=dk, ldc=N)

        def softmax(c):
            self.rqv(vec("s8", c), vec("s32", c), n, f"h{i}.scores")
            self("SM", dst=vec("p", c), src=vec("s8", c), len=n)
            self.rqv(vec("w8", c), vec("p", c), n, "weights")

        def wsum(c, buf, u0, u1, first):
            for j0 in range(0, hd, 4):
                self("MM", dst=vec("o32", c) + j0, A=vec("w8", c) + u0, B=buf + hd * (c // g) + j0,
                     M=1, K=u1 - u0, N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)

        def out(c):
            self.rqv(sp["o"] + r * d + hd * c, vec("o32", c), hd, f"h{i}.o")

        if len(tiles) == 1:               # untiled: K and V on chip, then head by head
            if desc.attention == "whole":  # both loads, then this step's rows join them
                load(0, 0, 0, n)
                load(1, 1, 0, n)
                own(0, 0, 0, n)
                own(1, 1, 0, n)
            else:
                for kind in (0, 1):
                    load(kind, kind, 0, n)
                    own(kind, kind, 0, n)
            for c in range(desc.heads):
                scores(c, bufs[0], 0, n)
                softmax(c)
                wsum(c, bufs[1], 0, n, True)
                out(c)
            return
        k = 0                             # tiles: keys (pass 1), one softmax, values (pass 2)
        for u0, u1 in tiles:
            load(0, k % 2, u0, u1)
            own(0, k % 2, u0, u1)
            for c in range(desc.heads):
                scores(c, bufs[k % 2], u0, u1)
            k += 1
        for c in range(desc.heads):
            softmax(c)
        for j, (u0, u1) in enumerate(tiles):
            load(1, k % 2, u0, u1)
            own(1, k % 2, u0, u1)
            for c in range(desc.heads):
                wsum(c, bufs[k % 2], u0, u1, j == 0)
            k += 1
        for c in range(desc.heads):
            out(c)

    def layer_end(self, i, g0, gn, ends):
        """Layer i's end for a group: the block of the description's activation."""
        BLOCKS["activation"][self.desc.activation](self, i, g0, gn, ends)

    def end_weights(self, i):
        d, mlp = self.desc.d, self.desc.mlp
        return (self.weights(f"h{i}.wo", d, d), self.weights(f"h{i}.w1", d, mlp),
                self.weights(f"h{i}.w2", mlp, d))

    def end_relu(self, i, g0, gn, ends):
        """x += attn(o) Wo, then x += relu(NORM(x) W1) W2 for a group (each with its
        residual RQ; ReLU fused into W1's RQ)."""
        sp = self.sp
        wo, w1, w2 = ends
        self.project(g0, gn, wo, sp["o"], sp["t1"], f"h{i}.attn")
        self.residual(g0, gn, 2 * i, sp["t1"])
        self.norm(g0, gn, f"h{i}.n2")
        self.project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=1)
        self.project(g0, gn, w2, sp["u"], sp["t1"], f"h{i}.mlp")
        self.residual(g0, gn, 2 * i + 1, sp["t1"])

    def head_tiles(self):
        """The output head's column tiles on chip: [(first column, columns, buffer)]."""
        V, d = self.desc.vocab, self.desc.d
        return [(c0, min(TILE_COLS, V - c0), self.load_matrix(f"wout.{j}", d, min(TILE_COLS, V - c0)))
                for j, c0 in enumerate(range(0, V, TILE_COLS))]

    def head(self, g0, gn, tiles):
        """The logits (int32) of the generating rows g0 .. g0+gn-1: their norm, their MMs."""
        V, d, sp = self.desc.vocab, self.desc.d, self.sp
        self.norm(g0, gn, "nf")
        for c0, n, w in tiles:
            self.matmul(sp["logits"] + g0 * V + c0, sp["h"] + g0 * d, d, w, n, V, gn)

    def argmax(self):
        """Each generating row's next token: ARGMAX of its logits, ST to the token area at
        t + 1 (after every MM: the matrix unit never waits for them)."""
        sp, V = self.sp, self.desc.vocab
        for r, row in enumerate(self.rows[:self.heads]):
            self("ARGMAX", dst=sp["nxt"] + r, src=sp["logits"] + r * V, len=V)
            self("ST", src=sp["nxt"] + r, dst=self.mem.token(row.b, row.t + 1), len=1)


# The blocks a description chooses, by its fields (the extension points: the next issue
# adds "swiglu" to activation, "rope" to positions, with their block functions)
BLOCKS = {
    "positions": {"learned": Step.embed_learned},
    "activation": {"relu": Step.end_relu},
}
