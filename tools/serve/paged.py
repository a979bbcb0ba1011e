"""Serving on GA-2, part 1: the paged KV cache and the step builder (docs/serving.md).

The K and V caches of every request live in fixed-size blocks of `block_tokens` token
rows from ONE pool in external memory: block i's K page is at k_page(i), its V page at
v_page(i) (row r of the block at +16 r). A request's block table lists its blocks in
token order (token t-1 is row (t-1) % block_tokens of block table[(t-1) // block_tokens]).
The pool is managed by tools/serve/engine.py (allocation, freeing, admission); this module
only knows the addresses and builds one decode step from the block tables.

External memory (words), a Layout:
    0                 Wq, Wk, Wv (row-major 16 x 16 each, contiguous: one load)
    POOL = 1024       K pages of blocks 0..n_blocks-1, then their V pages
    in_base           each request's hidden rows (row t-1 at in_addr(r) + 16 (t-1))
    out_base          each request's outputs (token t's attention output at out_addr(r) + 16 (t-1))
Requests' input and output areas are placed in the workload's order (Layout.rows).

Scratchpad (words; every step starts from garbage, nothing carries over):
    SP_X 0      batch rows of hidden states (row j = batch slot j, up to 8)
    SP_W 128    Wq, Wk, Wv (768 words)
    SP_Q32 896, SP_K32 1024, SP_V32 1152   int32 projections (rows of 16)
    SP_Q8 1280  int8 queries
    SP_S32 1408, SP_S8 1472, SP_P 1536, SP_A8 1600   scores, probabilities, weights (64 each)
    SP_O32 1664, SP_O8 1680   output
    SP_KC 1792, SP_VC 2816   ONE slot's gathered K and V cache (64 rows each): the
                             attention of the slots runs one after the other (tiling)

One step, step_program(entries, lay, P, cfg): entries are (request index, t, table) in
batch-slot order, t the request's token count including the new one:
 1. per slot, LD its hidden row t-1 into batch row j;
 2. ONE LD of the three weight matrices;
 3. projections: per weight, per group of 4 rows, per 4-column block, one MM (M <= 4);
 4. one RQ of all query rows;
 5. per slot: gather rows 0..t-2 of its K pages, one LD per run of adjacent blocks,
    then the same for V; RQ the new K and V rows into row t-1 of the gathered caches
    and ST them into row (t-1) % block_tokens of block table[(t-1) // block_tokens];
    attention over its t tokens (score MMs against the K cache read transposed, RQ,
    SM, RQ, 4 MMs of weights x V, RQ); ST the output to its output row t-1;
 6. HALT.

The deliberately broken variants of this builder are mutants (one-line edits of a copy of
this file) in tools/serve/mutants.py, not part of it.
"""
from collections import namedtuple

from model import config, isa
from model.batch import DM, D  # the model slice's sizes: chapter 9's head (hidden 16, head 16)
from model.reorder import reorder

MAX_CTX = config.CH09.sm_max_len        # longest context: the softmax unit's longest vector (64)
MAX_BATCH = 8        # most sequences in one step
EXT_W = 0            # Wq, Wk, Wv
W_WORDS = 3 * DM * D
POOL = 1024          # first K page

SP_X = 0
SP_W = 128
SP_Q32, SP_K32, SP_V32 = 896, 1024, 1152
SP_Q8 = 1280
SP_S32, SP_S8, SP_P, SP_A8 = 1408, 1472, 1536, 1600
SP_O32, SP_O8 = 1664, 1680
SP_KC = 1792
SP_VC = SP_KC + MAX_CTX * D            # 2816
SP_END = SP_VC + MAX_CTX * D

Layout = namedtuple("Layout", "block_tokens n_blocks rows in_base out_base ext_words")
Layout.__doc__ = """External-memory map of a serving run: block_tokens (rows per block),
n_blocks (blocks in the pool), rows (each request's token count, in workload order: the
sizes of its input and output areas), in_base, out_base, ext_words (the words it needs)."""


def block_words(lay):
    """Words of one K page (= one V page): block_tokens rows of 16."""
    return lay.block_tokens * D


def blocks_needed(tokens, block_tokens):
    """Blocks a request of `tokens` tokens holds at its end (its block table's length)."""
    return -(-tokens // block_tokens)


def make_layout(block_tokens, n_blocks, rows):
    """The Layout of a pool of n_blocks blocks of block_tokens rows and requests with rows[r]
    tokens each (ValueError for sizes that cannot work)."""
    if isinstance(block_tokens, bool) or not isinstance(block_tokens, int) or not 1 <= block_tokens <= MAX_CTX:
        raise ValueError(f"block_tokens={block_tokens!r} outside 1..{MAX_CTX}")
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, int) or n_blocks < 1:
        raise ValueError(f"n_blocks={n_blocks!r}: the pool needs at least one block")
    rows = [int(n) for n in rows]
    in_base = POOL + 2 * n_blocks * block_tokens * D
    out_base = in_base + D * sum(rows)
    return Layout(block_tokens, n_blocks, tuple(rows), in_base, out_base, out_base + D * sum(rows))


def k_page(lay, blk):
    """External address of block blk's K page."""
    return POOL + blk * block_words(lay)


def v_page(lay, blk):
    """External address of block blk's V page."""
    return POOL + (lay.n_blocks + blk) * block_words(lay)


def in_addr(lay, r):
    """External address of request r's hidden rows (row t-1 at +16 (t-1))."""
    return lay.in_base + D * sum(lay.rows[:r])


def out_addr(lay, r):
    """External address of request r's outputs (token t at +16 (t-1))."""
    return lay.out_base + D * sum(lay.rows[:r])


def check_config(cfg, lay):
    """ValueError unless chip cfg holds the layout and the contexts it serves."""
    if not isinstance(cfg, config.Config):
        raise ValueError(f"cfg must be a model.config.Config, got {type(cfg).__name__}")
    if cfg.ext_words < lay.ext_words:
        raise ValueError(f"the serving layout needs {lay.ext_words} external words "
                         f"({lay.n_blocks} blocks of {lay.block_tokens} tokens and "
                         f"{sum(lay.rows)} request rows), the chip has {cfg.ext_words}")
    if cfg.sp_words < SP_END:
        raise ValueError(f"the serving step needs {SP_END} scratchpad words, the chip has {cfg.sp_words}")


def max_context(cfg):
    """The longest context a step can attend over on chip cfg."""
    return min(MAX_CTX, cfg.sm_max_len)


def runs(table, n_rows, block_tokens):
    """The gather of rows 0..n_rows-1 of a block table as [(first row, first block, rows)]:
    one entry per run of adjacent blocks (block ids consecutive in the table)."""
    out = []
    nblk = blocks_needed(n_rows, block_tokens)
    i = 0
    while i < nblk:
        j = i
        while j + 1 < nblk and table[j + 1] == table[j] + 1:
            j += 1
        first = i * block_tokens
        last = min((j + 1) * block_tokens, n_rows)
        out.append((first, table[i], last - first))
        i = j + 1
    return out


def _check_entries(entries, lay, cfg):
    if not entries:
        raise ValueError("step: no sequences")
    if len(entries) > MAX_BATCH:
        raise ValueError(f"step: {len(entries)} sequences, at most {MAX_BATCH} fit a step")
    seen = set()
    for r, t, table in entries:
        if r in seen:
            raise ValueError(f"step: request {r} appears twice")
        seen.add(r)
        if not 0 <= r < len(lay.rows):
            raise ValueError(f"step: unknown request index {r}")
        if not 1 <= t <= min(lay.rows[r], max_context(cfg)):
            raise ValueError(f"step: request {r} at token {t}, outside 1..{min(lay.rows[r], max_context(cfg))}")
        if len(table) != blocks_needed(t, lay.block_tokens):
            raise ValueError(f"step: request {r} at token {t} has {len(table)} blocks, "
                             f"needs {blocks_needed(t, lay.block_tokens)}")
        if any(not 0 <= b < lay.n_blocks for b in table):
            raise ValueError(f"step: request {r}'s table {list(table)} names a block outside the pool")


def step_program(entries, lay, P, cfg=config.CH09):
    """One batched decode step over a paged KV cache (the module docstring's order).

    entries: [(request index, t, block table)] in batch-slot order; P: rq_params (one set
    for the model); returns a list of Instr ending in HALT, built for chip cfg."""
    entries = [(int(r), int(t), tuple(int(b) for b in tb)) for r, t, tb in entries]
    _check_entries(entries, lay, cfg)
    check_config(cfg, lay)
    A = cfg.array
    BT = lay.block_tokens
    n = len(entries)
    prog = []

    def ins(op, **f):
        prog.append(isa.build(op, cfg=cfg, **f))

    # 1. hidden rows
    for j, (r, t, _) in enumerate(entries):
        ins("LD", dst=SP_X + DM * j, src=in_addr(lay, r) + DM * (t - 1), len=DM)
    # 2. the shared weights, one load
    ins("LD", dst=SP_W, src=EXT_W, len=W_WORDS)
    # 3. projections, at most 4 rows per MM
    for w, proj in enumerate((SP_Q32, SP_K32, SP_V32)):
        for g in range(0, n, A):
            for c in range(0, D, A):
                ins("MM", dst=proj + D * g + c, A=SP_X + DM * g, B=SP_W + w * DM * D + c,
                    M=min(A, n - g), K=DM, N=A, tb=0, lda=DM, ldb=D, ldc=D)
    # 4. all queries
    ins("RQ", dst=SP_Q8, src=SP_Q32, len=D * n, m=P["q"][0], s=P["q"][1])
    # 5. per slot: gather, append, attend
    for j, (r, t, table) in enumerate(entries):
        table = list(table)
        gather = runs(table, t - 1, BT)
        for base, page in ((SP_KC, k_page), (SP_VC, v_page)):
            for first, blk, nrows in gather:
                ins("LD", dst=base + D * first, src=page(lay, blk), len=D * nrows)
        row = t - 1
        blk = table[row // BT]                    # the block that holds the new row
        ins("RQ", dst=SP_KC + D * row, src=SP_K32 + D * j, len=D, m=P["k"][0], s=P["k"][1])
        ins("RQ", dst=SP_VC + D * row, src=SP_V32 + D * j, len=D, m=P["v"][0], s=P["v"][1])
        ins("ST", src=SP_KC + D * row, dst=k_page(lay, blk) + D * (row % BT), len=D)
        ins("ST", src=SP_VC + D * row, dst=v_page(lay, blk) + D * (row % BT), len=D)
        for c in range(0, t, A):
            ins("MM", dst=SP_S32 + c, A=SP_Q8 + D * j, B=SP_KC + D * c, M=1, K=D, N=min(A, t - c),
                tb=1, lda=D, ldb=D, ldc=D)
        ins("RQ", dst=SP_S8, src=SP_S32, len=t, m=P["scores"][0], s=P["scores"][1])
        ins("SM", dst=SP_P, src=SP_S8, len=t)
        ins("RQ", dst=SP_A8, src=SP_P, len=t, m=P["weights"][0], s=P["weights"][1])
        for c in range(0, D, A):
            ins("MM", dst=SP_O32 + c, A=SP_A8, B=SP_VC + c, M=1, K=t, N=A, tb=0, lda=t, ldb=D, ldc=D)
        ins("RQ", dst=SP_O8, src=SP_O32, len=D, m=P["out"][0], s=P["out"][1])
        ins("ST", src=SP_O8, dst=out_addr(lay, r) + D * (t - 1), len=D)
    ins("HALT")
    if cfg.mode == "overlap":       # the overlapping units' order (model/reorder.py)
        prog = reorder(prog, cfg)
    return prog


def accesses(prog):
    """The external-memory accesses a program makes, from its instructions (the model's
    side of the bus monitor): [(kind 'r'|'w', first, last)], one per LD/ST, in order."""
    out = []
    for word in isa.as_words(prog):
        i = isa.decode(word)
        if i.op == "HALT":
            break
        if i.op in ("LD", "ST"):                     # the full address: xhi * 65536 + src/dst
            a = isa.ext_addr(i)
            out.append(("r" if i.op == "LD" else "w", a, a + i.len - 1))
    return out


def allowed(entries, lay):
    """The external words a step may touch, from its block tables alone (not the program):
    (read ranges, write ranges) as [(first, last)]. Reads: the weights, each slot's hidden
    row t-1, the K and V pages of every block in its table. Writes: each slot's new K and V
    row (row t-1 of its table) and its output row t-1."""
    BT, bw = lay.block_tokens, block_words(lay)
    rd = [(EXT_W, EXT_W + W_WORDS - 1)]
    wr = []
    for r, t, table in entries:
        x = in_addr(lay, r) + D * (t - 1)
        rd.append((x, x + D - 1))
        for blk in table:
            rd.append((k_page(lay, blk), k_page(lay, blk) + bw - 1))
            rd.append((v_page(lay, blk), v_page(lay, blk) + bw - 1))
        row = t - 1
        blk = table[row // BT]
        for a in (k_page(lay, blk) + D * (row % BT), v_page(lay, blk) + D * (row % BT),
                  out_addr(lay, r) + D * row):
            wr.append((a, a + D - 1))
    return rd, wr


def isolation_issues(bus, entries, lay, where=""):
    """Findings of one step's bus record (accesses() or the chip's pK_bus.txt ranges)
    against allowed(entries, lay): each access outside, named with the block it hit."""
    rd, wr = allowed(entries, lay)
    probs = []

    def inside(a, b, ranges):
        # every word of a..b inside the union of ranges
        cover = sorted(ranges)
        x = a
        for lo, hi in cover:
            if lo <= x <= hi:
                x = hi + 1
                if x > b:
                    return True
        return x > b

    for kind, a, b in bus:
        if kind not in ("r", "w") or a < 0 or b < a:
            probs.append(f"{where}: unreadable bus record {kind} {a} {b}")
            continue
        if not inside(a, b, rd if kind == "r" else wr):
            probs.append(f"{where}: {'read' if kind == 'r' else 'wrote'} ext[{a}..{b}] "
                         f"({describe(lay, a)}), outside the step's allowed set")
    return probs


def describe(lay, addr):
    """What an external address is, in words (for messages)."""
    bw = block_words(lay)
    if addr < W_WORDS:
        return "weights"
    if POOL <= addr < POOL + lay.n_blocks * bw:
        return f"K page of block {(addr - POOL) // bw}"
    if POOL + lay.n_blocks * bw <= addr < lay.in_base:
        return f"V page of block {(addr - POOL) // bw - lay.n_blocks}"
    if lay.in_base <= addr < lay.out_base:
        return "input rows"
    if lay.out_base <= addr < lay.ext_words:
        return "output rows"
    return "unused memory"
