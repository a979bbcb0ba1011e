"""The memory map of a served wide-numerics model (SmolLM2-135M: the step compiler's wide
path, tools/lm/compiler/wide_layout.py): weights, token areas, a paged KV pool, and the address
protocol a step takes (wide.step_program's mem=). The toy's is tools/serve/lm_memory.py;
this one follows it: the same server (tools/serve/lm_engine.Server), tables and blocks.

External memory, a WideMap:
    0          the weights, rope rows and constants (the WideLayout's, cache=False)
    tokens     one token area of ctx words per request, in workload order: its prompt ids
               (written by the host before the run), then what the chip generates
    pool       n_blocks blocks of block_tokens positions, one plane per (layer, kind K 0 /
               V 1, KV head g): the plane's rows (every block's block_tokens rows of 64 int8
               words, block i at +i * block_tokens * 64), then its scale words (block i at
               +i * block_tokens): adjacent blocks of a table are one load
A request's block table lists its blocks in position order: its position t is row
t % block_tokens of block table[t // block_tokens]. WidePaged turns a step's tables into
the compiler's protocol; allowed() is the isolation monitor's set of words a step may
touch, from the rows and tables alone (not from the program).
"""
from tools.lm.compiler.wide_layout import HEAD_DIM, VOCAB_CHUNK, WideLayout
from tools.serve.lm_memory import TokenAreas, check_sizes


class WidePool:
    """The planes of n_blocks KV blocks of block_tokens positions, every layer, kind and
    KV head: rows then scale words per plane."""

    def __init__(self, desc, n_blocks, block_tokens, base):
        self.layers, self.heads = desc.layers, desc.kv_heads
        self.n_blocks, self.bt, self.base = n_blocks, block_tokens, base
        self.rows_words = n_blocks * block_tokens * HEAD_DIM
        self.plane_words = self.rows_words + n_blocks * block_tokens
        self.words = self.layers * 2 * self.heads * self.plane_words

    def plane(self, layer, kind, g):
        return self.base + ((layer * 2 + kind) * self.heads + g) * self.plane_words

    def row(self, layer, kind, g, blk, r):
        """The external address of row r of block blk (64 int8 words)."""
        return self.plane(layer, kind, g) + (blk * self.bt + r) * HEAD_DIM

    def scale(self, layer, kind, g, blk, r):
        """... and of its scale word."""
        return self.plane(layer, kind, g) + self.rows_words + blk * self.bt + r

    def block_ranges(self, blk):
        """Every (first, last) word block blk holds: its rows and scale words in each plane."""
        out = []
        for layer in range(self.layers):
            for kind in (0, 1):
                for g in range(self.heads):
                    a, s = self.row(layer, kind, g, blk, 0), self.scale(layer, kind, g, blk, 0)
                    out += [(a, a + self.bt * HEAD_DIM - 1), (s, s + self.bt - 1)]
        return out


class WideMap(TokenAreas):
    """Where everything of a serving run is (ValueError when it does not fit the chip).
    lay: the WideLayout (weights at 0, rows a step at most, no cache of its own); tokens:
    the first token area; pool: the WidePool; ctx: words per token area."""

    def __init__(self, desc, n_requests, n_blocks, block_tokens, ctx, rows, chip_cfg,
                 vocab_chunk=VOCAB_CHUNK):
        check_sizes(n_blocks, block_tokens, rows, n_requests)
        self.ctx, self.bt, self.rows, self.remedies = ctx, block_tokens, rows, None
        self.lay = WideLayout(desc, rows, ctx, chip_cfg, rows=rows, vocab_chunk=vocab_chunk,
                              cache=False)
        self.tokens = self.lay.weight_words
        self.pool = WidePool(desc, n_blocks, block_tokens, self.tokens + n_requests * ctx)
        self.ext_words = self.pool.base + self.pool.words
        self.check_fits(n_requests, chip_cfg)

    def layout(self, draft=False):
        return self.lay


class WidePaged:
    """The address protocol (wide.step_program's mem=) of one step: request b's token ids
    in its token area, its KV rows in its block table's blocks."""

    def __init__(self, mm, tables):
        self.mm, self.tables, self.pool = mm, tables, mm.pool

    def token(self, b, t):
        return self.mm.token(b, t)

    def check_row(self, row):
        """ValueError unless the row's request has a table holding every block of
        positions 0..t (what the row stores and attends)."""
        tab = self.tables.get(row.b)
        if tab is None:
            raise ValueError(f"row {row}: request {row.b} has no block table")
        gone = [k for k in range(row.t // self.pool.bt + 1) if k >= len(tab) or tab[k] is None]
        if gone:
            raise ValueError(f"row {row}: request {row.b}'s table holds no block {gone[0]}")

    def _runs(self, where, words, layer, kind, g, b, u0, u1):
        runs, bt = [], self.pool.bt
        for u in range(u0, u1):
            a = where(layer, kind, g, self.tables[b][u // bt], u % bt)
            if runs and runs[-1][0] + runs[-1][1] * words == a:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1)
            else:
                runs.append((a, 1))
        return runs

    def kv_runs(self, layer, kind, g, b, u0, u1):
        """[(address, rows)]: positions u0..u1-1's rows as runs of adjacent rows."""
        return self._runs(self.pool.row, HEAD_DIM, layer, kind, g, b, u0, u1)

    def kvs_runs(self, layer, kind, g, b, u0, u1):
        """[(address, words)]: the same positions' scale words as runs."""
        return self._runs(self.pool.scale, 1, layer, kind, g, b, u0, u1)


def allowed(mm, rows, tables):
    """The external words a step may touch, from its rows and block tables alone: (reads,
    writes) as [(first, last)]. Reads: the weights (and rope rows, constants), each row's
    token id, every block of each stepping request's table. Writes: each row's K and V row
    and scale word (every layer and KV head), and the next token of each row that
    generates one."""
    pool = mm.pool
    rd, wr = [(0, mm.lay.weight_words - 1)], []
    for row in rows:
        a = mm.token(row.b, row.t)
        rd.append((a, a))
        if row.write:
            wr.append((a + 1, a + 1))
        blk, r = tables[row.b][row.t // pool.bt], row.t % pool.bt
        for layer in range(pool.layers):
            for kind in (0, 1):
                for g in range(pool.heads):
                    w, s = pool.row(layer, kind, g, blk, r), pool.scale(layer, kind, g, blk, r)
                    wr += [(w, w + HEAD_DIM - 1), (s, s)]
    for b in {row.b for row in rows}:
        for blk in tables[b]:
            rd += pool.block_ranges(blk)
    return rd, wr
