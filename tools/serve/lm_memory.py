"""The memory map of the language-model server: weights, token areas, paged KV pools,
and the address protocol the step compiler takes (tools/lm/compiler's mem=).

External memory (16-bit addresses: 65,536 words), a MemoryMap:
    0             the main model's int8 weights (tools/lm/compiler's order: compiler.Layout)
    (then)        the draft model's weights, when speculative decoding serves (spec.py)
    tokens        one token area of ctx words per request, in workload order: its prompt
                  ids (written by the host before the run), then what the chip generates
    pools         per model a KV pool (Pool): n_blocks blocks of block_tokens rows of its
                  layout's row_words words, stored as one plane per (layer, K or V): plane
                  p holds every block's rows of that layer and kind, block i at
                  +i * block_tokens * row_words, so adjacent blocks of a table are one load
A request's block table lists its blocks in token order: its row t is row t % block_tokens
of block table[t // block_tokens]. Paged(...) turns a step's tables into the compiler's
address protocol (token, kv_row, kv_attend); allowed(...) is the isolation monitor's set
of words a step may touch, from the tables alone (not from the program).

With the chapter's remedies (MemoryMap(..., remedies=Remedies(...)), docs/serving_lm.md
"Remedies in the server") the main model's description is the compiler's tiled plan: a
pool row is its row_words words (kv_heads * 16 for grouped-query attention, half that for
the 4-bit cache: the same pool words hold more blocks); with a sliding window a table is
still indexed by position (block t // block_tokens) but holds None where a block has
returned to the pool: its positions have all left the window and it holds no sink;
tiles split the attended rows as in a generation. Paged.kv_attend gives a step the
attended rows (the sinks and the last W - S positions, or all) as runs of adjacent rows.
The draft model (speculative decoding) is always the plain one: its own pool, no window.
"""
from tools.lm import compiler as C

BLOCK_TOKENS = 4
CTX = 32                 # the serving context: a request's prompt + generated tokens
ROWS = 8                 # rows per step at most: the token budget (the Layout's batch)
SERVE_CHIP = C.LM_CHIP


class Pool:
    """The planes of one model's KV blocks: n_blocks of block_tokens rows of its layout's
    row_words words, every layer's K and V."""

    def __init__(self, lay, n_blocks, block_tokens, base):
        self.layers, self.n_blocks, self.bt, self.base = lay.desc.layers, n_blocks, block_tokens, base
        self.row_words = lay.row_words
        self.plane_words = n_blocks * block_tokens * self.row_words
        self.words = 2 * self.layers * self.plane_words

    def plane(self, layer, kind):
        return self.base + (layer * 2 + kind) * self.plane_words

    def row(self, layer, kind, blk, r):
        """The external address of row r of block blk's K (kind 0) or V (kind 1) of layer."""
        return self.plane(layer, kind) + (blk * self.bt + r) * self.row_words

    def block_range(self, layer, kind, blk):
        a = self.row(layer, kind, blk, 0)
        return a, a + self.bt * self.row_words - 1


def check_sizes(n_blocks, block_tokens, rows, n_requests):
    """ValueError naming the first of a serving map's sizes that is not a positive integer."""
    for what, v in (("pool blocks", n_blocks), ("block_tokens", block_tokens),
                    ("rows per step", rows), ("requests", n_requests)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{what} must be an integer >= 1, got {v!r}")


class TokenAreas:
    """What every serving map shares: a token area of ctx words per request from `tokens`
    on, after the weights, and the check that its ext_words fit the chip."""

    def token(self, b, t):
        return self.tokens + b * self.ctx + t

    def check_fits(self, n_requests, chip_cfg):
        if self.ext_words > chip_cfg.ext_words:
            areas = n_requests * self.ctx
            raise ValueError(f"the serving memory map needs {self.ext_words} words of external memory "
                             f"(weights {self.tokens}, token areas {areas}, KV pool(s) "
                             f"{self.ext_words - self.tokens - areas}); the chip has {chip_cfg.ext_words}")


class MemoryMap(TokenAreas):
    """Where everything of a serving run is (ValueError when it does not fit the chip).

    lay: the main model's compiler.Layout (its weights at 0, no cache of its own), pool its
    KV pool; dlay, dpool the draft model's (None without one); tokens: the first token
    area; ctx: words per token area. remedies: a compiler.Remedies (or None: the
    unmodified model; a grouped-query or 4-bit model gets Remedies(kv_bits=...)), kept
    as .remedies."""

    def __init__(self, net, n_requests, n_blocks, block_tokens=BLOCK_TOKENS, ctx=CTX,
                 rows=ROWS, draft=None, draft_blocks=None, chip_cfg=SERVE_CHIP, remedies=None):
        check_sizes(n_blocks, block_tokens, rows, n_requests)
        self.ctx, self.bt, self.rows = ctx, block_tokens, rows
        kv_bits = getattr(net, "kv_bits", 8)
        if remedies is None and (net.cfg.kv_heads or kv_bits != 8):
            remedies = C.Remedies(kv_bits=kv_bits)
        self.remedies = remedies
        self.lay = C.Layout(C.describe(net, remedies), rows, ctx, chip_cfg, cache=False)
        at = self.lay.weight_words
        self.dlay = None
        if draft is not None:
            self.dlay = C.Layout(C.describe(draft), rows, ctx, chip_cfg, cache=False, base=at)
            at = self.dlay.weight_words
        self.tokens = at
        at += n_requests * ctx
        self.pool = Pool(self.lay, n_blocks, block_tokens, at)
        at += self.pool.words
        self.dpool = None
        if draft is not None:
            self.dpool = Pool(self.dlay, draft_blocks or n_blocks, block_tokens, at)
            at += self.dpool.words
        self.ext_words = at
        self.check_fits(n_requests, chip_cfg)

    def layout(self, draft=False):
        return self.dlay if draft else self.lay

    def kv_pool(self, draft=False):
        return self.dpool if draft else self.pool


class Paged:
    """The address protocol (compiler.step_program's mem=) of one step: request b's token
    ids in its token area, its KV rows in its block table's blocks."""

    def __init__(self, mm, tables, draft=False):
        self.mm, self.tables = mm, tables
        self.lay, self.pool = mm.layout(draft), mm.kv_pool(draft)

    def token(self, b, t):
        return self.mm.token(b, t)

    def kv_row(self, layer, kind, b, t):
        bt = self.pool.bt
        return self.pool.row(layer, kind, self.tables[b][t // bt], t % bt)

    def kv_attend(self, layer, kind, b, t):
        """(runs, index, n) of the row at position t: the positions it attends (the sinks
        and the last W - S, or all), by position; row t last (index n - 1), the cached
        ones loaded as runs of adjacent rows (adjacent blocks of a table merge). ValueError
        for a position whose block has returned to the pool (the server checks first)."""
        pos = self.lay.attended(t)
        runs, bt, rw = [], self.pool.bt, self.pool.row_words
        for k, u in enumerate(pos[:-1]):
            blk = self.tables[b][u // bt]
            if blk is None:
                raise ValueError(f"request {b}: position {u} is in a block returned to the pool")
            a = self.pool.row(layer, kind, blk, u % bt)
            if runs and runs[-1][1] + runs[-1][2] * rw == a:
                runs[-1] = (runs[-1][0], runs[-1][1], runs[-1][2] + 1)
            else:
                runs.append((k, a, 1))
        return runs, len(pos) - 1, len(pos)


def released_reads(mm, rows, tables):
    """Findings of a step whose rows would attend (or store) a position whose block is not
    in its table (returned to the pool, or never taken): from the rows and tables alone."""
    out = []
    bt = mm.pool.bt
    for row in rows:
        pos = mm.lay.attended(row.t)
        tab = tables[row.b]
        gone = sorted({u // bt for u in pos if u // bt >= len(tab) or tab[u // bt] is None})
        if gone:
            out.append(f"request {row.b} at position {row.t} attends block(s) {gone} of its "
                       "table it does not hold")
    return out


def allowed(mm, rows, tables, draft=False):
    """The external words a step may touch, from its rows and block tables alone: (reads,
    writes) as [(first, last)]. Reads: the model's weights, each row's token id, every
    block of each stepping request's table (every plane). Writes: each row's K and V row
    (every layer), and the next token of each row that generates one."""
    lay, pool = mm.layout(draft), mm.kv_pool(draft)
    first = 0 if not draft else mm.lay.weight_words
    rd, wr = [(first, lay.weight_words - 1)], []
    for row in rows:
        a = mm.token(row.b, row.t)
        rd.append((a, a))
        if row.write:
            wr.append((a + 1, a + 1))
        blk = tables[row.b][row.t // pool.bt]
        for i in range(pool.layers):
            for kind in (0, 1):
                w = pool.row(i, kind, blk, row.t % pool.bt)
                wr.append((w, w + pool.row_words - 1))
    for b in {row.b for row in rows}:
        for blk in (x for x in tables[b] if x is not None):   # the live blocks only
            for i in range(pool.layers):
                for kind in (0, 1):
                    rd.append(pool.block_range(i, kind, blk))
    return rd, wr


def covered(a, b, ranges):
    """Every word of a..b inside the union of ranges [(first, last)]."""
    x = a
    for lo, hi in sorted(ranges):
        if lo <= x <= hi:
            x = hi + 1
            if x > b:
                return True
    return x > b


def isolation_issues(bus, allowed_sets, where):
    """Findings of one step's bus record [(kind 'r'|'w', first, last)] (the program's
    LD/ST ranges on the model, the wrapper's monitor on the chip) against its allowed set."""
    rd, wr = allowed_sets
    out = []
    for kind, a, b in bus:
        if kind not in ("r", "w") or b < a or not covered(a, b, rd if kind == "r" else wr):
            out.append(f"{where}: {kind} ext[{a}..{b}] outside the step's allowed set")
    return out
