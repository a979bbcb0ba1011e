"""The language model on the chip: the memory layout, one decode step's program, a generation.

A generation of B sequences is a list of step programs, one per decode step, run one
after another on one chip: the host writes the external memory once (the int8 weights,
the prompts' token ids), loads and starts each step's program, and reads the token ids
at the end. Nothing else crosses: between steps the chip's only state is its external
memory -- the weights, the token ids (prompts, then the generated ones) and the KV cache
-- so every step starts from whatever its scratchpad holds (tests fill it with garbage).

One step, for the active rows (sequence b at position t; prompts are prefilled token
by token, so a row is a prompt token or the previous step's output):
  - LD its token id, LDX its embedding row (the id picks the row: EMB), LD the position
    row, ADD;
  - per layer: NORM each row; the projections q, k, v for the whole batch (each weight
    matrix is loaded once per step, into the next of WEIGHT_BUFFERS tile buffers, and
    multiplied by every row while it is on chip: weights streamed, the next tiles' LDs
    free to run under this one's MMs in the overlap mode); ST each row's k and v to its KV cache; per row and head the
    scores (MM of q with the cached keys), RQ, SM, RQ, the weighted sum of the cached
    values (MM), RQ; o Wo, RQ, the residual RQ, ADD; NORM, W1, RQ with ReLU, W2, RQ,
    the residual, ADD;
  - for the rows whose next token is generated (a prefill row's logits are never read,
    so they are not computed): NORM, the logits (x Wout, int32), ARGMAX, ST of the id to
    the token area, where the next step's LD finds it.
The numerics are docs/lm.md's "One decode step"; the program's instructions and their
cycles are docs/isa.md's. In the overlap mode the program is reordered
(model/reorder.py) for the overlapping units.

The reference for what comes out is tools/lm/int8.py's Int8Model (written from the spec,
not from this builder): tests/tools/lm/test_chip.py holds every token and every cached
K and V row to it.
"""
from collections import namedtuple

import numpy as np

from model import config, isa, timing
from model.reorder import reorder

# The chip the model runs on: the weights (20,480 int8 words for the text model: more
# than the 16,384-word scratchpad holds) and a batch's KV cache live in the external
# memory (16-bit addresses, no xhi here: 65,536 words at most); the scratchpad holds one
# step's activations, WEIGHT_BUFFERS weight tiles and two rows' attention buffers.
LM_CHIP = config.Config(sp_words=16384, ext_words=65536, imem_depth=4096)
LM_CHIP_OVERLAP = LM_CHIP.replace(mode="overlap")

Row = namedtuple("Row", "b t write")
Row.__doc__ = """One active row of a step: sequence b at position t; write: its ARGMAX is the
next token (t + 1 is past the prompt), stored to the token area at t + 1."""


WEIGHT_BUFFERS = 4      # weight tiles on chip at once: one in use, three loading ahead
PIPE_BUFFERS = 6        # ... when the scratchpad has room: the pipelined step (step_program)
RESULT_BUFFERS = 3      # int32 product buffers (a matrix's products, then its RQ, rotate)
KV_BUFFERS = 4          # sequences whose cached rows are on chip at once (at most)
GROUP = 4               # rows per group: the array's M; RQ and ADD go a group at a time
TILE_COLS = 32          # the output head streams in tiles of 32 columns (d x 32 words)


def _matrices(cfg):
    """The weight matrices in external-memory order: name, rows, columns. The output head
    is stored as its column tiles (wout.0, wout.1, ...: TILE_COLS columns each, the last
    narrower), each row-major, so each tile is one contiguous load."""
    out = [("wte", cfg.vocab, cfg.d), ("wpe", cfg.ctx, cfg.d)]
    for i in range(cfg.layers):
        out += [(f"h{i}.w{n}", cfg.d, cfg.d) for n in "qkvo"]
        out += [(f"h{i}.w1", cfg.d, cfg.mlp), (f"h{i}.w2", cfg.mlp, cfg.d)]
    return out + [(f"wout.{j}", cfg.d, min(TILE_COLS, cfg.vocab - c0))
                  for j, c0 in enumerate(range(0, cfg.vocab, TILE_COLS))]


def _weights(model, name):
    """The int8 values of a matrix of _matrices (a column tile of the output head)."""
    if name.startswith("wout."):
        c0 = int(name[5:]) * TILE_COLS
        return np.asarray(model.w["wout"], dtype=np.int64)[:, c0:c0 + TILE_COLS]
    return np.asarray(model.w[name], dtype=np.int64)


class Layout:
    """Where everything of a generation of `batch` sequences of up to `ctx` tokens is.

    ext: the weights (each matrix row-major, its int8 values one per word), the token
    area (batch x ctx words: sequence b's ids at b*ctx + t) and the KV cache
    (kv(layer, 0 for K / 1 for V, b): ctx rows of d words). sp: the step's buffers.
    ValueError when the batch does not fit the chip.

    Options for a host with its own memory map (tools/serve/lm_engine.py: a paged KV
    pool, a token area per request, a second model's weights): cache=False reserves no
    token area and no KV cache (ext_words ends at the weights; step_program then needs
    its mem= address functions); base: the first word of the weights (default 0).
    """

    def __init__(self, mcfg, batch, ctx, chip=LM_CHIP, cache=True, base=0):
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        if not isinstance(ctx, int) or isinstance(ctx, bool) or not 1 <= ctx <= mcfg.ctx:
            raise ValueError(f"ctx must be 1..{mcfg.ctx} (the model's context), got {ctx!r}")
        self.m, self.batch, self.ctx, self.chip = mcfg, batch, ctx, chip
        d = mcfg.d
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
            at += mcfg.layers * 2 * batch * ctx * d
        self.ext_words = at
        if at > chip.ext_words:
            raise ValueError(f"a batch of {batch} sequences of {ctx} tokens needs {at} words "
                             f"of external memory (weights {self.weight_words}, KV cache "
                             f"{at - self.kv0}); the chip has {chip.ext_words}")
        # scratchpad: every buffer a multiple of 4 words
        sp = {}
        at = 0

        def take(name, n):
            nonlocal at
            sp[name] = at
            at += -(-n // 4) * 4

        R, wide = batch, max(d, mcfg.mlp)
        for name, n in (("tok", R), ("nxt", R), ("x", R * d), ("t0", R * d), ("t1", R * d),
                        ("h", R * d), ("q", R * d), ("k", R * d), ("v", R * d), ("o", R * d),
                        ("u", R * mcfg.mlp), ("logits", R * mcfg.vocab)):
            take(name, n)
        for k in range(RESULT_BUFFERS):
            take(f"a{k}", R * wide)
        biggest = max(r * c for name, r, c in _matrices(mcfg) if name not in ("wte", "wpe"))
        per_set = 2 * -(-(ctx * d) // 4) * 4 + mcfg.heads * (4 * -(-ctx // 4) * 4 + 16)
        # PIPE_BUFFERS weight buffers (step_program may then pipeline the step) for a batch
        # of three groups or more, when they cost no attention buffer set; else
        # WEIGHT_BUFFERS. With one or two groups the pipelined order buys nothing: no third
        # group's work to fill the matrix unit's waits (docs/lm.md, the sweep)
        def sets(nb):
            return min(KV_BUFFERS, max(0, (chip.sp_words - at - nb * -(-biggest // 4) * 4) // per_set))
        wide = batch > 2 * GROUP and sets(PIPE_BUFFERS) >= max(2, sets(WEIGHT_BUFFERS))
        self.weight_buffers = PIPE_BUFFERS if wide else WEIGHT_BUFFERS
        for k in range(self.weight_buffers):
            take(f"wb{k}", biggest)
        # the attention buffers: the cached rows of one sequence (K and V), its scores,
        # probabilities, weights and weighted sums per head; as many sets as fit, up to
        # KV_BUFFERS (at least 2), so the next rows' cache loads run ahead
        self.kv_sets = min(KV_BUFFERS, max(0, (chip.sp_words - at) // per_set))
        for s in range(max(2, self.kv_sets)):
            take(f"kb{s}", ctx * d)
            take(f"vb{s}", ctx * d)
            for c in range(mcfg.heads):
                for name in ("s32", "s8", "p", "w8"):
                    take(f"{name}{s}{c}", ctx)
                take(f"o32{s}{c}", 16)
        self.sp = sp
        self.sp_words = at
        if at > chip.sp_words:
            raise ValueError(f"a batch of {batch} sequences of {ctx} tokens needs {at} words "
                             f"of scratchpad; the chip has {chip.sp_words}")

    def kv(self, layer, kind, b):
        """The external address of sequence b's cached K (kind 0) or V (kind 1) rows."""
        m = self.m
        return self.kv0 + ((layer * 2 + kind) * self.batch + b) * self.ctx * m.d

    def image(self, model, prompts):
        """The external memory the host writes before the generation: the weights and the
        prompts' token ids (everything else zero)."""
        ext = np.zeros(self.ext_words, dtype=np.int64)
        for name, r, c in _matrices(self.m):
            w = _weights(model, name)
            if w.shape != (r, c):
                raise ValueError(f"weights {name}: shape {w.shape}, the model needs {(r, c)}")
            ext[self.w[name]:self.w[name] + r * c] = w.reshape(-1)
        for b, p in enumerate(prompts):
            ext[self.tokens + b * self.ctx:self.tokens + b * self.ctx + len(p)] = p
        return ext


class Contiguous:
    """The address functions of a Layout's own memory map (the default of step_program):
    sequence b's token ids at lay.tokens + b*ctx + t, its cached rows of a layer and kind
    one contiguous run at lay.kv(...). A host with another map (a paged KV pool:
    tools/serve/lm_engine.py) passes an object with the same three methods."""

    def __init__(self, lay):
        self.lay = lay

    def token(self, b, t):
        """The external address of sequence b's token id at position t."""
        return self.lay.tokens + b * self.lay.ctx + t

    def kv_row(self, layer, kind, b, t):
        """The external address of sequence b's cached K (kind 0) or V (kind 1) row t."""
        return self.lay.kv(layer, kind, b) + t * self.lay.m.d

    def kv_runs(self, layer, kind, b, n):
        """Rows 0..n-1 of that cache as [(external address, rows)], in row order: one LD each."""
        return [(self.lay.kv(layer, kind, b), n)]


def step_program(model, lay, rows, mem=None):
    """The instructions of one decode step for rows (a list of Row), ending in HALT; in
    chip order for lay.chip's timing mode. mem: the address functions (token, kv_row,
    kv_runs; default Contiguous(lay)).

    Several rows of ONE sequence may share a step (a chunk of a prompt; a speculative
    verification): their positions must be distinct and consecutive from the sequence's
    first, and each row's attention sees the cache 0..t-1, in which this step's rows of
    the sequence at positions < t are: their attention runs in increasing t, each after
    the previous row's K and V are stored (the overlap reorder keeps that order: a
    store before a load of the same words). A step with one row per sequence (every
    Generation's) is built exactly as without this.

    A layout with PIPE_BUFFERS weight buffers gets, in the overlap mode, whichever of the
    pipelined and the unpipelined order the timing model finds faster (a choice made from
    the program alone: the same rows and layout always give the same program); the
    in-order mode's cycles are the same for both, and it gets the unpipelined one.

    A remedies.Layout (a Generation with remedies, a remedied server) gets
    tools/lm/remedies.py's step (mem: its address functions, remedies.Slots by default)."""
    if getattr(lay, "remedies", None) is not None:
        from tools.lm import remedies
        return remedies.step_program(model, lay, rows, mem)
    if lay.weight_buffers < _pipe_buffers(lay.m) or lay.chip.mode != "overlap":
        return _step(model, lay, rows, mem, pipe=False)
    both = [_step(model, lay, rows, mem, pipe) for pipe in (False, True)]
    return min(both, key=lambda P: timing.schedule(P, lay.chip).cycles)   # ties: unpipelined


def _pipe_buffers(mcfg):
    """The weight buffers a pipelined step needs: a layer end's three matrices beside the
    next layer's three or beside every tile of the output head."""
    return 3 + max(3, -(-mcfg.vocab // TILE_COLS))


def order_rows(rows, batch):
    """A step's rows checked and put in the order both step builders use:
    (rows, att). rows: the ones whose next token is generated first (only they need the
    output head -- a prefill row's logits are never read -- and as a prefix of the batch
    they tile it); att: the order of the rows' attention, the batch order or, when a
    sequence has several rows, by position (a row sees the K and V its sequence's
    earlier rows stored). ValueError for no rows, more than batch, or a sequence's rows
    not at distinct, consecutive positions."""
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


class Emitter:
    """A step's instruction list, and what both step builders (this file's and
    tools/lm/remedies.py's) emit alike: requants by the model's names, weight matrices
    loaded into nbuf rotating buffers with an int32 result buffer each, a group's
    projections, residual adds and norms, and the embedding. Called as I(op, **fields)."""

    def __init__(self, lay, rq, nbuf):
        self.P, self.lay, self.rq, self.nbuf = [], lay, rq, nbuf
        self.sp, self.d = lay.sp, lay.m.d
        self.wbuf = self.acc = 0

    def __call__(self, op, **f):
        self.P.append(isa.build(op, cfg=self.lay.chip, **f))

    def rqv(self, dst, src, n, name, relu=0):
        """RQ of n words by the model's requant `name`."""
        mm_, s_ = self.rq[name]
        self("RQ", dst=dst, src=src, len=n, m=mm_, s=s_, relu=relu)

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

    def project(self, g0, gn, mat, src, dst, rqname, relu=0):
        """dst = RQ(src x W) for the group of rows g0 .. g0+gn-1: its MMs, then its RQ."""
        w, a, K, N = mat
        for n0 in range(0, N, 4):
            self("MM", dst=a + g0 * N + n0, A=src + g0 * K, B=w + n0, M=gn, K=K, N=4,
                 tb=0, lda=K, ldb=N, ldc=N)
        self.rqv(dst + g0 * N, a + g0 * N, gn * N, rqname, relu)

    def residual(self, g0, gn, j, branch):
        """x = ADD(RQ(x) [res j], branch) for a group of rows (branch: already requantized)."""
        x, d = self.sp["x"], self.d
        self.rqv(x + g0 * d, x + g0 * d, gn * d, f"res{j}")
        self("ADD", dst=x + g0 * d, src=x + g0 * d, len=gn * d, src2=branch + g0 * d)

    def norm(self, g0, gn, name):
        """h = NORM(x) row by row for a group, by the model's norm `name`."""
        nm, ns = self.rq[name]
        sp, d = self.sp, self.d
        for r in range(g0, g0 + gn):
            self("NORM", dst=sp["h"] + r * d, src=sp["x"] + r * d, len=d, m=nm, s=ns)

    def embed(self, rows, mem, groups, pos):
        """x = wte[token] + wpe[pos(row)] for every row: the token id (from the external
        token area), its wte row (LDX), the position's wpe row, summed a group at a time."""
        sp, d, w = self.sp, self.d, self.lay.w
        for r, row in enumerate(rows):
            self("LD", dst=sp["tok"] + r, src=mem.token(row.b, row.t), len=1)
            self("LDX", dst=sp["x"] + r * d, src=w["wte"], len=d, idx=sp["tok"] + r,
                 rows=self.lay.m.vocab)
            self("LD", dst=sp["t0"] + r * d, src=w["wpe"] + pos(row) * d, len=d)
        for g0, gn in groups:
            self("ADD", dst=sp["x"] + g0 * d, src=sp["x"] + g0 * d, len=gn * d,
                 src2=sp["t0"] + g0 * d)


def _step(model, lay, rows, mem, pipe):
    """step_program's program, pipelined or not (pipe needs PIPE_BUFFERS weight buffers)."""
    rows, att = order_rows(rows, lay.batch)
    m, sp = lay.m, lay.sp
    mem = Contiguous(lay) if mem is None else mem
    d, V, R = m.d, m.vocab, len(rows)
    heads = sum(row.write for row in rows)
    assert not pipe or lay.weight_buffers >= _pipe_buffers(m), "a pipelined step's buffers"
    E = Emitter(lay, model.rq, lay.weight_buffers if pipe else WEIGHT_BUFFERS)
    I, P, rqv, load_matrix, weights = E, E.P, E.rqv, E.load_matrix, E.weights  # noqa: E741 -- I emits an instruction (the mutants name it)
    project, residual, norm = E.project, E.residual, E.norm

    def matmul(dst, a, K, w, N, ldc, rows):
        """dst (rows x N int32, rows ldc apart) = a (rows x K int8, row-major) x w (K x N),
        in 4 x 4 tiles."""
        for r0 in range(0, rows, 4):
            M = min(4, rows - r0)
            for n0 in range(0, N, 4):
                I("MM", dst=dst + r0 * ldc + n0, A=a + r0 * K, B=w + n0, M=M, K=K, N=4,
                  tb=0, lda=K, ldb=N, ldc=ldc)

    groups = [(g0, min(GROUP, R - g0)) for g0 in range(0, R, GROUP)]
    E.embed(rows, mem, groups, lambda row: row.t)
    sets = max(2, lay.kv_sets)
    lg = sp["logits"]
    # Pipelined (with _pipe_buffers weight buffers): the next layer's q, k, v (the last
    # layer's: the head's tiles) are loaded before the layer's end, and each group's
    # next-layer norm and projections (the last layer's: its head) follow the NEXT
    # group's layer end. The list scheduler
    # (model/reorder.py) breaks ties between compute instructions by this order, so the
    # matrix unit takes a group's layer end first and fills the vector unit's norms and
    # requants with the previous group's projections (docs/lm.md "Where the curve bends").
    # Unpipelined: a layer's projections for every group, its attention, its end for
    # every group, then the head tile by tile.
    def qkv(i, mats, g0, gn):
        """Layer i's norm and projections q, k, v for a group."""
        norm(g0, gn, f"h{i}.n1")
        for n in "qkv":
            project(g0, gn, mats[n], sp["h"], sp[n], f"h{i}.{n}")

    def qkv_weights(i):
        return {n: weights(f"h{i}.w{n}", d, d) for n in "qkv"}

    def head_tiles():
        """The output head's column tiles on chip: [(first column, columns, buffer)]."""
        return [(c0, min(TILE_COLS, V - c0), load_matrix(f"wout.{j}", d, min(TILE_COLS, V - c0)))
                for j, c0 in enumerate(range(0, V, TILE_COLS))]

    def head(g0, gn, tiles):
        """The logits (int32) of the generating rows g0 .. g0+gn-1: their norm, their MMs."""
        norm(g0, gn, "nf")
        for c0, n, w in tiles:
            matmul(lg + g0 * V + c0, sp["h"] + g0 * d, d, w, n, V, gn)

    def layer_end(i, g0, gn, wo, w1, w2):
        """x += attn(o) Wo, then x += MLP(x) for a group (each with its residual RQ)."""
        project(g0, gn, wo, sp["o"], sp["t1"], f"h{i}.attn")
        residual(g0, gn, 2 * i, sp["t1"])
        norm(g0, gn, f"h{i}.n2")
        project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=1)
        project(g0, gn, w2, sp["u"], sp["t1"], f"h{i}.mlp")
        residual(g0, gn, 2 * i + 1, sp["t1"])

    mats = qkv_weights(0)
    for g0, gn in groups:                  # a group's norm and projections, then the next's
        qkv(0, mats, g0, gn)
    for i in range(m.layers):
        for j, r in enumerate(att):
            row = rows[r]
            s, t = j % sets, row.t
            kb, vb = sp[f"kb{s}"], sp[f"vb{s}"]
            kr, vr = sp["k"] + r * d, sp["v"] + r * d
            I("ST", src=kr, dst=mem.kv_row(i, 0, row.b, t), len=d)
            I("ST", src=vr, dst=mem.kv_row(i, 1, row.b, t), len=d)
            if t:       # the cached rows 0 .. t-1 (row t is this step's, on chip)
                for kind, buf in ((0, kb), (1, vb)):
                    at = buf
                    for src, n in mem.kv_runs(i, kind, row.b, t):
                        I("LD", dst=at, src=src, len=n * d)
                        at += n * d
            I("RQ", dst=kb + t * d, src=kr, len=d, m=1, s=0)      # this step's rows join
            I("RQ", dst=vb + t * d, src=vr, len=d, m=1, s=0)      # the cached ones (a copy)
            n = t + 1
            for c in range(m.heads):
                s32, s8, p, w8, o32 = (sp[f"{x}{s}{c}"] for x in ("s32", "s8", "p", "w8", "o32"))
                q = sp["q"] + r * d + 16 * c
                for u0 in range(0, n, 4):
                    N = min(4, n - u0)
                    I("MM", dst=s32 + u0, A=q, B=kb + u0 * d + 16 * c, M=1, K=16, N=N,
                      tb=1, lda=16, ldb=d, ldc=N)
                rqv(s8, s32, n, f"h{i}.scores")
                I("SM", dst=p, src=s8, len=n)
                rqv(w8, p, n, "weights")
                for j0 in range(0, 16, 4):
                    I("MM", dst=o32 + j0, A=w8, B=vb + 16 * c + j0, M=1, K=n, N=4,
                      tb=0, lda=n, ldb=d, ldc=4)
                rqv(sp["o"] + r * d + 16 * c, o32, 16, f"h{i}.o")
        ends = (weights(f"h{i}.wo", d, d), weights(f"h{i}.w1", d, m.mlp),
                weights(f"h{i}.w2", m.mlp, d))
        last = i + 1 == m.layers
        if not pipe:
            for g0, gn in groups:          # the rest of the layer, a group at a time
                layer_end(i, g0, gn, *ends)
            if not last:
                mats = qkv_weights(i + 1)
                for g0, gn in groups:
                    qkv(i + 1, mats, g0, gn)
            continue
        # pipelined: what follows a group's layer end, one group behind
        if last:
            tiles = head_tiles() if heads else []
            follow = [(lambda g0, gn, tiles=tiles: head(g0, min(gn, heads - g0), tiles)) if g0 < heads
                      else None for g0, gn in groups]
        else:
            mats = qkv_weights(i + 1)
            follow = [lambda g0, gn, i=i, mats=mats: qkv(i + 1, mats, g0, gn)] * len(groups)
        lag = 1                            # group k's follow-up after group k + 1's end
        for k in range(len(groups) + lag):
            if k < len(groups):
                layer_end(i, *groups[k], *ends)
            if k >= lag and follow[k - lag]:
                follow[k - lag](*groups[k - lag])
    if heads and not pipe:                 # the output head, for the generating rows only
        norm(0, heads, "nf")
        for j, c0 in enumerate(range(0, V, TILE_COLS)):
            n = min(TILE_COLS, V - c0)
            w = load_matrix(f"wout.{j}", d, n)
            matmul(lg + c0, sp["h"], d, w, n, V, heads)
    for r, row in enumerate(rows[:heads]):  # after every MM: the MM unit never waits for them
        I("ARGMAX", dst=sp["nxt"] + r, src=lg + r * V, len=V)
        I("ST", src=sp["nxt"] + r, dst=mem.token(row.b, row.t + 1), len=1)
    I("HALT")
    if lay.chip.mode == "overlap":
        return reorder(P, lay.chip)
    return P


class Generation:
    """B sequences: prompts (token id lists), new[b] tokens to generate for each, start[b]
    the step at which sequence b begins (0 for all by default; later starts make ragged
    positions: rows of one step at different positions).

    steps: per step its Row list (sequence b at step k is at position k - start[b], from
    0 through len(prompt) + new - 2: the last generated token is not fed back).

    remedies: a remedies.Remedies (tools/lm/remedies.py: a 4-bit cache, a sliding window,
    tiles; contexts past the model's positions), with a chip of remedies.chip_config.
    """

    def __init__(self, model, prompts, new, start=None, chip=LM_CHIP, remedies=None):
        m = model.cfg
        B = len(prompts)
        if B < 1:
            raise ValueError("a generation needs at least one prompt")
        new = [new] * B if isinstance(new, int) and not isinstance(new, bool) else list(new)
        start = [0] * B if start is None else list(start)
        if len(new) != B or len(start) != B:
            raise ValueError(f"{B} prompts but {len(new)} token counts and {len(start)} starts")
        for b, (p, n, s0) in enumerate(zip(prompts, new, start)):
            if len(p) < 1:
                raise ValueError(f"sequence {b}: an empty prompt")
            if any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < m.vocab
                   for t in p):
                raise ValueError(f"sequence {b}: a token id outside 0..{m.vocab - 1}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"sequence {b}: tokens to generate must be >= 1, got {n!r}")
            if len(p) + n > m.ctx and remedies is None:
                raise ValueError(f"sequence {b}: {len(p)} prompt tokens + {n} new ones exceed "
                                 f"the context {m.ctx}")
            if isinstance(s0, bool) or not isinstance(s0, int) or s0 < 0:
                raise ValueError(f"sequence {b}: start must be >= 0, got {s0!r}")
        self.model, self.prompts = model, [list(map(int, p)) for p in prompts]
        self.new, self.start = new, start
        ctx = max(len(p) + n for p, n in zip(prompts, new))
        kv_bits = getattr(model, "kv_bits", 8)
        if remedies is None and (m.kv_heads or kv_bits != 8):   # only the remedied step reads them
            from tools.lm import remedies as rm
            remedies = rm.Remedies(kv_bits=kv_bits)
        self.remedies = remedies
        if remedies is None:
            self.layout = Layout(m, B, ctx, chip)
        else:
            from tools.lm import remedies as rm
            self.layout = rm.Layout(m, B, ctx, chip, remedies, kv_bits)
        self.steps = []
        for k in range(max(s0 + len(p) + n - 1 for p, n, s0 in zip(prompts, new, start))):
            rows = []
            for b, (p, n, s0) in enumerate(zip(prompts, new, start)):
                t = k - s0
                if 0 <= t < len(p) + n - 1:
                    rows.append(Row(b, t, t + 1 >= len(p)))
            if rows:
                self.steps.append(rows)

    def programs(self):
        """The step programs, in order."""
        return [step_program(self.model, self.layout, rows) for rows in self.steps]

    def image(self):
        return self.layout.image(self.model, self.prompts)

    def tokens(self, ext):
        """The generated ids of each sequence, read from a final external memory."""
        lay = self.layout
        return [[int(v) for v in ext[lay.tokens + b * lay.ctx + len(p):
                                     lay.tokens + b * lay.ctx + len(p) + n]]
                for b, (p, n) in enumerate(zip(self.prompts, self.new))]

    def cache(self, ext, layer, kind, b):
        """Sequence b's cached K (kind 0) or V (kind 1) rows of layer, from a final external
        memory: (positions it fed, d)."""
        lay, n = self.layout, len(self.prompts[b]) + self.new[b] - 1
        a = lay.kv(layer, kind, b)
        if self.remedies is not None:
            raise ValueError("a remedied generation's cache is slots: read it with "
                             "remedies.cache_rows")
        return np.asarray(ext[a:a + n * lay.m.d]).reshape(n, lay.m.d)
