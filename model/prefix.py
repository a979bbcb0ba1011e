"""Serving on GA-2, part 3: shared prefixes (docs/prefix.md): shared-prefix attention
(step_program), prefill on the chip (prefill_program) and a prefix cache (cache_run,
checked by cache_issues); decode_run: multi-step runs over prompts already in the pool.

When several sequences of a step hold the same leading blocks in their block tables (a
shared prompt prefix: the same K and V rows, held once in the pool), the step loads
those blocks ONCE and computes the prefix part of attention for all of them together:

  scores   per 4-key tile of the prefix, ONE MM with M = the sharing sequences (their
           int8 query rows stacked, lda = 16), B = the prefix K rows read transposed,
           ldc = 64 (the stride between the sequences' score vectors); then each
           sequence's own suffix tiles (M = 1) into its own score vector;
  softmax  per sequence over its WHOLE score vector (prefix and suffix), exactly as
           unshared: RQ, SM, RQ to its int8 weights;
  sum      each sequence's suffix part, weights[S..t) x V[S..t) (MM, acc = 0), then the
           prefix part for all sharing sequences at once, weights[0..S) x V[0..S)
           (MM with M = the sharing sequences, lda = 64, acc = 1: C += A x B, the ISA's
           accumulate flag), then RQ and ST of each output.

Integer addition is exact (no int32 overflow at these sizes, and wraparound is the same
either way), so every output equals the unshared step's bit for bit.

Sharing: share_groups(entries, block_tokens) groups the step's sequences by the first
block of their tables; a group's shared rows S are the longest run of leading blocks
common to all its members and complete before each member's new row (row t-1 is never
in a shared block: the serving engine copies a shared block before any write into it).
A sequence with no partner is a group of one with S = 0 (the unshared arithmetic in the
new layout).

Scratchpad (words): rows 0..895 (hidden rows and weights) are free once the projections
are done and hold the per-sequence weights (SH_A8, 8 x 64), S8 and P (one sequence at a
time), the int32 outputs (SH_O32, 8 x 16) and one int8 output row; SP_Q32 .. SP_Q8 as in
model/paged.py; SH_S32 8 score vectors of 64; SH_KC, SH_VC the gathered K and V rows of
ONE group: its prefix in rows 0..S-1, each member's suffix in rows S..t-1 in turn.
"""
from . import config, isa, paged
from .paged import D, DM, SP_K32, SP_Q8, SP_Q32, SP_V32, SP_W, SP_X, W_WORDS, EXT_W

SH_A8 = 0             # 8 x 64 int8 weights (per sequence)
SH_S8 = 512           # 64
SH_P = 576            # 64
SH_O32 = 640          # 8 x 16
SH_O8 = 768           # 16
SH_S32 = 1408         # 8 x 64 int32 scores (per sequence)
SC = 64               # the stride between per-sequence vectors (scores, weights)
SH_KC = 1920          # 64 rows of K
SH_VC = SH_KC + paged.MAX_CTX * D
SH_END = SH_VC + paged.MAX_CTX * D

assert SH_O8 + D <= SP_Q32 and SH_S32 >= SP_Q8 + paged.MAX_BATCH * D
assert SH_S32 + paged.MAX_BATCH * SC <= SH_KC

# Deliberately broken builders (the suite must catch each): wrong tokens.
BUGS = {
    "prefix_sum_overwrites": "the prefix part of the weighted sum overwrites the suffix part (acc = 0)",
    "prefix_one_block_short": "the prefix part of the scores stops one 4-key tile short",
}


def share_groups(entries, block_tokens):
    """[(member indices into entries, shared rows S)]: the step's sequences grouped by
    their tables' first block, S = block_tokens x the leading blocks common to all
    members and complete before each member's new row; S = 0 for a group of one."""
    by_first, order = {}, []
    for k, (_, t, table) in enumerate(entries):
        key = table[0] if (t - 1) // block_tokens >= 1 else ("alone", k)
        if key not in by_first:
            by_first[key] = []
            order.append(key)
        by_first[key].append(k)
    out = []
    for key in order:
        ks = by_first[key]
        if len(ks) < 2:
            out.append((ks, 0))
            continue
        s = min((entries[k][1] - 1) // block_tokens for k in ks)
        t0 = entries[ks[0]][2]
        for k in ks[1:]:
            tk, c = entries[k][2], 0
            while c < s and tk[c] == t0[c]:
                c += 1
            s = c
        out.append((ks, s * block_tokens))
    return out


def step_program(entries, lay, P, cfg=config.CH09, bug=None):
    """One batched decode step with shared-prefix attention (the module docstring).
    Same entries, layout and rq_params as model/paged.step_program; the same outputs
    and K/V rows bit for bit."""
    entries = [(int(r), int(t), tuple(int(b) for b in tb)) for r, t, tb in entries]
    paged._check_entries(entries, lay, cfg)
    paged.check_config(cfg, lay)
    if cfg.sp_words < SH_END:
        raise ValueError(f"the shared-prefix step needs {SH_END} scratchpad words, the chip has {cfg.sp_words}")
    if bug is not None and bug not in BUGS:
        raise ValueError(f"unknown bug {bug!r}")
    A = cfg.array
    BT = lay.block_tokens
    n = len(entries)
    groups = share_groups(entries, BT)
    order = [k for ks, _ in groups for k in ks]          # internal row m -> entry index
    prog = []

    def ins(op, **f):
        prog.append(isa.build(op, cfg=cfg, **f))

    # 1. hidden rows, in group order (a group's queries are adjacent rows)
    for m, k in enumerate(order):
        r, t, _ = entries[k]
        ins("LD", dst=SP_X + DM * m, src=paged.in_addr(lay, r) + DM * (t - 1), len=DM)
    # 2. the shared weights, one load; 3. projections; 4. all queries (as model/paged.py)
    ins("LD", dst=SP_W, src=EXT_W, len=W_WORDS)
    for w, proj in enumerate((SP_Q32, paged.SP_K32, paged.SP_V32)):
        for g in range(0, n, A):
            for c in range(0, D, A):
                ins("MM", dst=proj + D * g + c, A=SP_X + DM * g, B=SP_W + w * DM * D + c,
                    M=min(A, n - g), K=DM, N=A, tb=0, lda=DM, ldb=D, ldc=D)
    ins("RQ", dst=SP_Q8, src=SP_Q32, len=D * n, m=P["q"][0], s=P["q"][1])
    # 5. per group: its prefix once, each member's suffix, the prefix sum for all
    m0 = 0
    for ks, S in groups:
        ms = list(range(m0, m0 + len(ks)))
        m0 += len(ks)
        if S:
            for base, page in ((SH_KC, paged.k_page), (SH_VC, paged.v_page)):
                for first, blk, nrows in paged.runs(entries[ks[0]][2], S, BT):
                    ins("LD", dst=base + D * first, src=page(lay, blk), len=D * nrows)
            s_end = S - A if bug == "prefix_one_block_short" and S > A else S
            for a in range(0, len(ms), A):
                sub = ms[a:a + A]
                for c in range(0, s_end, A):
                    ins("MM", dst=SH_S32 + SC * sub[0] + c, A=SP_Q8 + D * sub[0], B=SH_KC + D * c,
                        M=len(sub), K=D, N=min(A, S - c), tb=1, lda=D, ldb=D, ldc=SC)
        for m, k in zip(ms, ks):
            r, t, table = entries[k]
            sb = S // BT
            for base, page in ((SH_KC, paged.k_page), (SH_VC, paged.v_page)):
                for first, blk, nrows in paged.runs(table[sb:], t - 1 - S, BT):
                    ins("LD", dst=base + D * (S + first), src=page(lay, blk), len=D * nrows)
            row = t - 1
            blk = table[row // BT]
            ins("RQ", dst=SH_KC + D * row, src=SP_K32 + D * m, len=D, m=P["k"][0], s=P["k"][1])
            ins("RQ", dst=SH_VC + D * row, src=SP_V32 + D * m, len=D, m=P["v"][0], s=P["v"][1])
            ins("ST", src=SH_KC + D * row, dst=paged.k_page(lay, blk) + D * (row % BT), len=D)
            ins("ST", src=SH_VC + D * row, dst=paged.v_page(lay, blk) + D * (row % BT), len=D)
            for c in range(S, t, A):
                ins("MM", dst=SH_S32 + SC * m + c, A=SP_Q8 + D * m, B=SH_KC + D * c, M=1, K=D,
                    N=min(A, t - c), tb=1, lda=D, ldb=D, ldc=D)
            ins("RQ", dst=SH_S8, src=SH_S32 + SC * m, len=t, m=P["scores"][0], s=P["scores"][1])
            ins("SM", dst=SH_P, src=SH_S8, len=t)
            ins("RQ", dst=SH_A8 + SC * m, src=SH_P, len=t, m=P["weights"][0], s=P["weights"][1])
            for c in range(0, D, A):
                ins("MM", dst=SH_O32 + D * m + c, A=SH_A8 + SC * m + S, B=SH_VC + D * S + c, M=1,
                    K=t - S, N=A, tb=0, lda=SC, ldb=D, ldc=D)
        if S:
            acc = 0 if bug == "prefix_sum_overwrites" else 1
            for a in range(0, len(ms), A):
                sub = ms[a:a + A]
                for c in range(0, D, A):
                    ins("MM", dst=SH_O32 + D * sub[0] + c, A=SH_A8 + SC * sub[0], B=SH_VC + c,
                        M=len(sub), K=S, N=A, tb=0, lda=SC, ldb=D, ldc=D, acc=acc)
        for m, k in zip(ms, ks):
            r, t, _ = entries[k]
            ins("RQ", dst=SH_O8, src=SH_O32 + D * m, len=D, m=P["out"][0], s=P["out"][1])
            ins("ST", src=SH_O8, dst=paged.out_addr(lay, r) + D * (t - 1), len=D)
    ins("HALT")
    return prog


# ---------------------------------------------------------------- requests with a shared prefix
import random as _random                                     # noqa: E402
from collections import namedtuple as _nt                    # noqa: E402

import numpy as _np                                          # noqa: E402

from . import batch as _batch, serving as _serving          # noqa: E402
from .quant import quantize as _quantize                     # noqa: E402

PReq = _nt("PReq", "id group plen tokens arrival prompt", defaults=(None, 0, 1, 0, None))
PReq.__doc__ = """A request whose first plen hidden rows are its group's shared prompt
prefix (the same rows for every request of the group), then its own rows; tokens rows in
all (1..64); arrival tick; prompt: its prompt's rows (default plen; the prefix cache's
runs decode from token prompt on), the rows after plen its own."""


def group_rows(model, group, n=paged.MAX_CTX, period=None):
    """A group's prefix rows (n of them), from random.Random of the model seed and the
    group name; period: the rows repeat every `period` rows (repeated blocks)."""
    rng = _random.Random(f"prefix {model['seed']} {group}")
    sx = model["scales"]["x"]
    rows = [[_quantize(rng.gauss(0, 1), sx) for _ in range(DM)] for _ in range(n)]
    if period:
        rows = [rows[i % period] for i in range(n)]
    return rows


def request_rows(model, q, periods=None):
    """q's hidden rows: its group's first q.plen rows, then its own (serving.request_rows)."""
    own = _serving.request_rows(model, _serving.Request(q.id, q.tokens, q.arrival))
    if not q.group or not q.plen:
        return own
    pre = group_rows(model, q.group, period=(periods or {}).get(q.group))
    return [list(r) for r in pre[:q.plen]] + own[q.plen:]


class Oracle(_serving.Oracle):
    """Each request decoded ALONE by chapter 9's plain-Python integer reference (no
    sharing, no instructions): serving.Oracle on the rows of request_rows."""

    def __init__(self, model, requests, periods=None):
        self.model = model
        self.ex = [{"nseq": 1, "L": q.tokens, "Xi": [request_rows(model, q, periods)], "Wi": model["Wi"],
                    "scales": model["scales"]} for q in requests]
        self._out = {}


def base_image(lay, model, oracle, seed=0):
    """Weights and every request's hidden rows; the rest seeded garbage (serving.ext_image)."""
    rng = _np.random.default_rng(seed)
    img = rng.integers(-128, 128, size=lay.ext_words, dtype=_np.int64)
    w = _np.concatenate([_np.array(model["Wi"][n]).ravel() for n in ("wq", "wk", "wv")])
    img[EXT_W:EXT_W + W_WORDS] = w
    for r in range(len(oracle.ex)):
        rows = _np.array(oracle.ex[r]["Xi"][0]).ravel()
        a = paged.in_addr(lay, r)
        img[a:a + rows.size] = rows
    return img


def put_kv(img, lay, oracle, r, table, rows):
    """Write request r's K and V rows `rows` (oracle values) into its blocks."""
    BT = lay.block_tokens
    K, V = oracle.kv(r, max(rows) + 1)
    for row in rows:
        blk, off = table[row // BT], D * (row % BT)
        img[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + D] = K[row]
        img[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + D] = V[row]


def shared_step(B, P, extra=3, block_tokens=16, seed=1):
    """The measured step: B requests sharing a P-token prefix (P a multiple of
    block_tokens: whole shared blocks), each at token t = P + extra + 1 with its own rows
    P..t-2 already in its own blocks. Returns a dict: model, requests, layout, cfg,
    entries, image (prefix and own rows written from the oracle: the prefill's result,
    not computed by the step), oracle."""
    model = _serving.model_data(seed)
    t = P + extra + 1
    reqs = [PReq(f"s{i}", "sys", P, t, 0) for i in range(B)]
    oracle = Oracle(model, reqs)
    BT = block_tokens
    n_pre = P // BT
    own = -(-t // BT) - n_pre
    n_blocks = n_pre + B * own
    lay = paged.make_layout(BT, n_blocks, [q.tokens for q in reqs])
    cfg = _serving.config_for(lay)
    img = base_image(lay, model, oracle)
    pre = list(range(n_pre))
    entries = []
    for i in range(B):
        table = pre + [n_pre + i * own + j for j in range(own)]
        entries.append((i, t, tuple(table)))
        put_kv(img, lay, oracle, i, table, range(0 if i == 0 else P, t - 1))
    return {"model": model, "requests": reqs, "layout": lay, "cfg": cfg, "entries": entries,
            "image": img, "oracle": oracle, "t": t}


def output_issues(ext, lay, entries, oracle, where):
    """Each entry's output row against the request decoded alone."""
    probs = []
    for r, t, _ in entries:
        a = paged.out_addr(lay, r) + D * (t - 1)
        got = [int(v) for v in ext[a:a + D]]
        if got != oracle.output(r, t):
            probs.append(f"{where}: request {r} token {t}: output {got} != alone {oracle.output(r, t)}")
    return probs


# ---------------------------------------------------------------- a decode run with shared prefixes
DecodeRun = _nt("DecodeRun", "requests layout cfg image oracle steps tables")
DecodeRun.__doc__ = """A multi-step decode run over prompts already in the pool: requests,
layout, cfg, image (prompts' K/V rows written from the oracle: the prefill's result),
oracle, steps ([entries] per step), tables (each request's block table at its end)."""


def decode_run(requests, block_tokens, capacity=paged.MAX_BATCH, seed=1, periods=None):
    """Requests with group prefixes, each prompt (its plen rows) already in the pool: a
    group's whole prefix blocks are held ONCE and referenced by every member's table; a
    prefix ending inside a block has that block copied into each member's own first
    private block (copy-on-write: the member's new rows go there). Then decode steps:
    each tick, the arrived unfinished requests (FIFO by arrival, at most `capacity`)
    each run their next token t = plen + 1 .. tokens."""
    model = _serving.model_data(seed)
    oracle = Oracle(model, requests, periods)
    BT = block_tokens
    tables, shared, nb = [], {}, 0
    for q in requests:
        n_sh = q.plen // BT if q.group else 0
        if q.group and n_sh and (q.group, n_sh) not in shared:
            shared[(q.group, n_sh)] = list(range(nb, nb + n_sh))
            nb += n_sh
        pre = shared[(q.group, n_sh)] if n_sh else []
        own = -(-q.tokens // BT) - len(pre)
        tables.append(pre + list(range(nb, nb + own)))
        nb += own
    lay = paged.make_layout(BT, nb, [q.tokens for q in requests])
    cfg = _serving.config_for(lay)
    img = base_image(lay, model, oracle)
    done = set()
    for r, q in enumerate(requests):
        if q.plen:
            n_sh = q.plen // BT if q.group else 0
            key = (q.group, n_sh)
            rows = range(n_sh * BT, q.plen)
            if n_sh and key not in done:
                done.add(key)
                rows = range(0, q.plen)
            if len(rows):
                put_kv(img, lay, oracle, r, tables[r], rows)
    steps, nxt, tick = [], {r: q.plen + 1 for r, q in enumerate(requests)}, 0
    order = sorted(range(len(requests)), key=lambda r: (requests[r].arrival, r))
    while any(nxt[r] <= requests[r].tokens for r in order):
        act = [r for r in order if requests[r].arrival <= tick and nxt[r] <= requests[r].tokens][:capacity]
        if act:
            steps.append([(r, nxt[r], tuple(tables[r][:-(-nxt[r] // BT)])) for r in act])
            for r in act:
                nxt[r] += 1
        tick += 1
    return DecodeRun(list(requests), lay, cfg, img, oracle, steps, tables)


def run_programs(run, shared=True, bug=None):
    """Every step's program of a DecodeRun (shared-prefix attention or model/paged.py's)."""
    P = run.oracle.model["P"]
    if shared:
        return [step_program(e, run.layout, P, run.cfg, bug=bug) for e in run.steps]
    return [paged.step_program(e, run.layout, P, run.cfg) for e in run.steps]


def run_issues(ext_after, run, where):
    """Findings over a whole run: each step's outputs (ext_after[i]: the external memory
    after step i) against each request alone, and the final memory's every generated
    token (plen + 1 .. tokens) and every request's K/V rows."""
    probs = []
    for i, e in enumerate(run.steps):
        probs += output_issues(ext_after[i], run.layout, e, run.oracle, f"{where} step {i}")
    ext, lay = ext_after[-1], run.layout
    for r, q in enumerate(run.requests):
        for t in range(q.plen + 1, q.tokens + 1):
            a = paged.out_addr(lay, r) + D * (t - 1)
            if [int(v) for v in ext[a:a + D]] != run.oracle.output(r, t):
                probs.append(f"{where}: request {q.id} token {t}: final output != alone")
                break
        K, V = run.oracle.kv(r, q.tokens)
        for row in range(q.tokens):
            blk, off = run.tables[r][row // lay.block_tokens], D * (row % lay.block_tokens)
            if [int(v) for v in ext[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + D]] != K[row] or \
               [int(v) for v in ext[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + D]] != V[row]:
                probs.append(f"{where}: request {q.id} K/V row {row} in block {blk} differs from alone")
                break
    return probs


def random_requests(seed, block_tokens, n=None):
    """A random workload with shared prefixes: 2 or 3 groups, prefix lengths random
    (some ending inside a block, one a whole number of blocks), requests in random
    arrival order, one request whose whole prompt is its group's prefix, plus a request
    of no group."""
    rng = _random.Random(f"prefix workload {seed}")
    BT = block_tokens
    n = n or rng.randint(4, 7)
    groups = [f"g{k}" for k in range(rng.randint(2, 3))]
    plen = {g: rng.randint(1, 40) for g in groups}
    plen[groups[0]] = BT * rng.randint(1, 3)                    # whole blocks
    plen[groups[1]] = BT * rng.randint(1, 3) + rng.randint(1, BT - 1) if BT > 1 else plen[groups[1]]
    reqs = []
    for i in range(n):
        g = groups[i % len(groups)]
        tokens = min(paged.MAX_CTX, plen[g] + rng.randint(1, 10))
        reqs.append(PReq(f"q{i}", g, plen[g], tokens, rng.randint(0, 6)))
    reqs.append(PReq(f"q{n}", None, 0, rng.randint(2, 12), rng.randint(0, 4)))
    rng.shuffle(reqs)
    return reqs


# ---------------------------------------------------------------- prefill on the chip
PF_X = 0              # up to 64 hidden rows of 16
PF_W = 1024           # Wk, Wv (512 words)
PF_K = 1536           # up to 64 int32 K rows, requantized in place to int8
PF_V = PF_K + paged.MAX_CTX * D
PF_END = PF_V + paged.MAX_CTX * D
W_K = EXT_W + DM * D  # Wk's external address (Wq, Wk, Wv contiguous)


def prefill_program(r, first, last, table, lay, P, cfg=config.CH09):
    """Fill request r's K and V rows first..last-1 (its prompt, or the part of it the
    prefix cache does not hold) into its blocks `table`: one LD of the hidden rows, one
    of Wk and Wv, the projections as matrix products of M = 4 rows per tile (M < 4 for
    the last), K = 16, N = 4; one RQ each of all K and all V rows (in place), then one ST
    of K and one of V per run of the rows in one block. Writes nothing else."""
    n = last - first
    if not 1 <= n <= paged.MAX_CTX or first < 0:
        raise ValueError(f"prefill: rows {first}..{last - 1}")
    if cfg.sp_words < PF_END:
        raise ValueError(f"prefill needs {PF_END} scratchpad words, the chip has {cfg.sp_words}")
    A, BT = cfg.array, lay.block_tokens
    prog = []

    def ins(op, **f):
        prog.append(isa.build(op, cfg=cfg, **f))

    ins("LD", dst=PF_X, src=paged.in_addr(lay, r) + DM * first, len=DM * n)
    ins("LD", dst=PF_W, src=W_K, len=2 * DM * D)
    for w, dst in enumerate((PF_K, PF_V)):
        for g in range(0, n, A):
            for c in range(0, D, A):
                ins("MM", dst=dst + D * g + c, A=PF_X + DM * g, B=PF_W + w * DM * D + c,
                    M=min(A, n - g), K=DM, N=A, tb=0, lda=DM, ldb=D, ldc=D)
    ins("RQ", dst=PF_K, src=PF_K, len=D * n, m=P["k"][0], s=P["k"][1])
    ins("RQ", dst=PF_V, src=PF_V, len=D * n, m=P["v"][0], s=P["v"][1])
    row = first
    while row < last:
        blk, off = table[row // BT], row % BT
        k = min(BT - off, last - row)
        for base, page in ((PF_K, paged.k_page), (PF_V, paged.v_page)):
            ins("ST", src=base + D * (row - first), dst=page(lay, blk) + D * off, len=D * k)
        row += k
    ins("HALT")
    return prog


# ---------------------------------------------------------------- the prefix cache
CBUGS = {
    "no_copy_on_write": "a request whose whole prompt is cached writes its last prompt row into the shared block",
    "hash_ignores_position": "a block's hash is its token rows only (no position, no parent)",
}

Prog = _nt("Prog", "kind prog r entries live cached")
Prog.__doc__ = """One program of a cache run: kind 'prefill' | 'copy' | 'step', the program,
r (the request of a prefill or copy), entries (a step's), live {request: table} of every
admitted request and cached (blocks registered in the cache) just before it runs."""

CacheRun = _nt("CacheRun", "requests layout cfg image oracle programs stats")


def plen_of(q):
    """A request's prompt length (its prompt field, else its shared prefix length)."""
    return q.prompt if q.prompt is not None else q.plen


def block_hash(rows, i, parent, bug=None):
    """The cache key of full prompt block i: its token rows, its position and its
    parent's key (so a block matches only after the same whole prefix)."""
    if bug == "hash_ignores_position":
        return hash(tuple(tuple(r) for r in rows))
    return hash((parent, i, tuple(tuple(r) for r in rows)))


def cache_run(requests, block_tokens, n_blocks, cache=True, capacity=paged.MAX_BATCH, shared=True,
              seed=1, periods=None, bug=None):
    """Serve requests (PReq; prompt = the first plen rows, decoded from token plen, i.e.
    the last prompt row is run as the first decode step, as vLLM recomputes it) with an
    on-chip prefill and, with cache=True, a prefix cache:

    - at admission (FIFO by arrival, up to `capacity` running), the request's full prompt
      blocks are looked up by block_hash in order; the leading hits are taken by
      reference (refcount + 1; a freed block still cached is revived), it allocates the
      rest of its blocks (a never-cached free block first, else the least recently
      freed cached block is evicted) and prefills only rows S .. plen-2;
    - a request whose whole prompt is cached copies the last prompt block first (a copy
      program) and writes its recomputed last prompt row into the copy;
    - a full prompt block is registered once all its rows are written;
    - at completion each block's refcount drops; at 0 a cached block joins the LRU list.
    cache=False: no lookups and no registration (every prompt fully prefilled).
    Each tick: admissions (their copy and prefill programs), then one decode step of
    every running request (shared-prefix attention with shared=True)."""
    if bug is not None and bug not in CBUGS:
        raise ValueError(f"unknown bug {bug!r}")
    model = _serving.model_data(seed)
    oracle = Oracle(model, requests, periods)
    BT = block_tokens
    lay = paged.make_layout(BT, n_blocks, [q.tokens for q in requests])
    cfg = _serving.config_for(lay)
    P = model["P"]
    img = base_image(lay, model, oracle)
    rows = [ex["Xi"][0] for ex in oracle.ex]
    free = list(range(n_blocks))            # never cached or evicted, lowest first
    lru = []                                # freed cached blocks, least recently freed first
    ref = [0] * n_blocks
    key_of, cache_map = {}, {}              # block -> key, key -> block
    tables, nxt, start, pending = {}, {}, {}, {}
    programs, running = [], []
    stats = {"prefill_rows": 0, "cached_rows": 0, "copies": 0, "evictions": 0, "revived": 0,
             "peak_blocks": 0}
    queue = sorted(range(len(requests)), key=lambda r: (requests[r].arrival, r))
    finished, tick = set(), 0

    def snapshot():
        return {r: tuple(tables[r]) for r in running}, frozenset(cache_map.values())

    def alloc():
        if free:
            return free.pop(0)
        if lru:
            b = lru.pop(0)
            del cache_map[key_of.pop(b)]
            stats["evictions"] += 1
            return b
        return None

    def keys(r):
        q, out, parent = requests[r], [], None
        for i in range(plen_of(q) // BT):
            parent = block_hash(rows[r][i * BT:(i + 1) * BT], i, parent, bug)
            out.append(parent)
        return out

    def register(r, upto_row):
        """Register r's full prompt blocks whose rows 0..upto_row-1 are all written."""
        if not cache:
            return
        for i, k in enumerate(keys(r)):
            if (i + 1) * BT <= upto_row and k not in cache_map and tables[r][i] not in key_of:
                cache_map[k] = tables[r][i]
                key_of[tables[r][i]] = k

    while len(finished) < len(requests):
        if tick > 10000:
            raise RuntimeError("cache_run: not finished")
        while queue and requests[queue[0]].arrival <= tick and len(running) < capacity:
            r = queue[0]
            q = requests[r]
            hit = []
            if cache:
                for k in keys(r):
                    if k not in cache_map:
                        break
                    hit.append(cache_map[k])
            first_t = max(plen_of(q), 1)
            need = -(-q.tokens // BT) - len(hit)
            cow = bool(hit) and len(hit) * BT >= first_t     # the last prompt row is in a hit
            need += 1 if cow and bug != "no_copy_on_write" else 0
            if need > len(free) + len([b for b in lru if b not in hit]):
                break                                         # wait for blocks (no overtaking)
            queue.pop(0)
            for b in hit:
                if ref[b] == 0 and b in lru:
                    lru.remove(b)
                    stats["revived"] += 1
                ref[b] += 1
            table = list(hit)
            for _ in range(-(-q.tokens // BT) - len(hit)):
                b = alloc()
                ref[b] += 1
                table.append(b)
            tables[r] = table
            running.append(r)
            S = len(hit) * BT
            stats["cached_rows"] += min(S, first_t - 1)
            if cow and bug != "no_copy_on_write":
                i = (first_t - 1) // BT
                old, new = table[i], alloc()
                ref[new] += 1
                live, cached = snapshot()
                cp = []
                for page in (paged.k_page, paged.v_page):
                    cp.append(isa.build("LD", cfg=cfg, dst=0, src=page(lay, old), len=BT * D))
                    cp.append(isa.build("ST", cfg=cfg, src=0, dst=page(lay, new), len=BT * D))
                cp.append(isa.build("HALT"))
                programs.append(Prog("copy", cp, r, None, live, cached))
                ref[old] -= 1
                table[i] = new
                stats["copies"] += 1
            if first_t - 1 > S:
                live, cached = snapshot()
                programs.append(Prog("prefill", prefill_program(r, S, first_t - 1, table, lay, P, cfg),
                                     r, None, live, cached))
                stats["prefill_rows"] += first_t - 1 - S
            register(r, first_t - 1)
            nxt[r] = first_t
        if running:
            entries = [(r, nxt[r], tuple(tables[r][:-(-nxt[r] // BT)])) for r in running]
            live, cached = snapshot()
            build = step_program if shared else paged.step_program
            programs.append(Prog("step", build(entries, lay, P, cfg), None, entries, live, cached))
            stats["peak_blocks"] = max(stats["peak_blocks"], n_blocks - len(free) - len(lru))
            for r, t, _ in entries:
                register(r, t)
                nxt[r] = t + 1
                if t == requests[r].tokens:
                    running.remove(r)
                    finished.add(r)
                    for b in tables[r]:
                        ref[b] -= 1
                        if ref[b] == 0:
                            (lru if b in key_of else free).append(b)
                    free.sort()
        tick += 1
    return CacheRun(list(requests), lay, cfg, img, oracle, programs, stats)


def cache_issues(run, ext_after, bus, where):
    """Findings of a cache run from each program's external memory after it (ext_after)
    and its external-bus record (bus: [(kind, first, last)] per program, the chip's or
    paged.accesses): every step's outputs and its requests' K/V rows against each
    request alone; every generated token at the end; and, from the bus and the recorded
    tables alone (not the cache's keys): no program writes a block that another running
    request's table holds or that the cache holds (copy-on-write), and every block a
    step reads through table index i was written at index i (position)."""
    lay, BT = run.layout, run.layout.block_tokens
    bw = paged.block_words(lay)
    pool_end = paged.POOL + 2 * lay.n_blocks * bw
    probs, pos = [], {}
    for k, (p, ext) in enumerate(zip(run.programs, ext_after)):
        w = f"{where} program {k} ({p.kind})"
        owner = p.r
        mine = set()
        if p.kind == "step":
            mine = {b for r, t, tb in p.entries for b in [tb[(t - 1) // BT]]}
        for kind, a, b in bus[k]:
            if kind != "w" or not paged.POOL <= a < pool_end:
                continue
            for addr in range(a, b + 1, D):
                blk = ((addr - paged.POOL) // bw) % lay.n_blocks
                row = ((addr - paged.POOL) % bw) // D
                writers = [r for r, tb in p.live.items() if blk in tb and
                           (r == owner or (p.kind == "step" and any(e[0] == r and tb[(e[1] - 1) // BT] == blk
                                                                   for e in p.entries)))]
                others = [r for r, tb in p.live.items() if blk in tb and r not in writers]
                if others or blk in p.cached:
                    probs.append(f"{w}: wrote block {blk} held by "
                                 f"{'the cache' if blk in p.cached else 'request ' + str(others[0])}")
                    break
                for r in writers:
                    pos[blk] = p.live[r].index(blk)
                _ = row
        if p.kind == "step":
            probs += output_issues(ext, lay, p.entries, run.oracle, w)
            for r, t, tb in p.entries:
                for i in range(-(-(t - 1) // BT)):
                    if pos.get(tb[i]) not in (None, i) or tb.count(tb[i]) > 1:
                        probs.append(f"{w}: request {r} reads block {tb[i]} at table index {i}, "
                                     f"written at index {pos.get(tb[i])}"
                                     + (" (it is in its table twice)" if tb.count(tb[i]) > 1 else ""))
                        break
                K, V = run.oracle.kv(r, t)
                for row in range(t):
                    blk, off = tb[row // BT], D * (row % BT)
                    if [int(v) for v in ext[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + D]] != K[row] or \
                       [int(v) for v in ext[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + D]] != V[row]:
                        probs.append(f"{w}: request {r} K/V row {row} in block {blk} != alone")
                        break
    ext = ext_after[-1]
    for r, q in enumerate(run.requests):
        for t in range(max(plen_of(q), 1), q.tokens + 1):
            a = paged.out_addr(lay, r) + D * (t - 1)
            if [int(v) for v in ext[a:a + D]] != run.oracle.output(r, t):
                probs.append(f"{where}: request {q.id} token {t}: final output != alone")
                break
    return probs


def cache_requests(seed, block_tokens, n=None):
    """A random cache workload: groups with prefixes of random lengths (one of whole
    blocks, one ending inside a block, one whose rows repeat every block), members with
    prompts of different lengths of their group's rows (a member whose prompt is all
    cached: a whole-block prompt arriving after its group's first), random arrivals."""
    rng = _random.Random(f"cache workload {seed}")
    BT = block_tokens
    n = n or rng.randint(6, 9)
    base = {"ga": BT * rng.randint(1, 3), "gb": BT * rng.randint(1, 2) + rng.randint(1, BT - 1),
            "rep": 2 * BT + rng.randint(0, BT - 1)}
    reqs = []
    for i in range(n):
        g = ("ga", "gb", "rep")[i % 3]
        plen = base[g] if i < 3 or rng.random() < 0.5 else max(1, base[g] - rng.randint(0, 2 * BT))
        tokens = min(paged.MAX_CTX, plen + rng.randint(1, 8))
        reqs.append(PReq(f"c{i}", g, plen, tokens, rng.randint(0, 10) if i >= 3 else i))
    reqs.append(PReq(f"c{n}", "ga", base["ga"], base["ga"] + 2, 12))      # all cached, late
    return reqs, {"rep": BT}


def cache_reference(run, seed_tag="cache"):
    """Run a cache run's programs on the reference: (ext after each, bus per program, cycles per program)."""
    from .machine import Machine
    m, ext, after, bus, cyc = Machine(run.cfg), run.image.copy(), [], [], []
    for i, p in enumerate(run.programs):
        m.sp[:] = _batch.garbage_sp(_batch.garbage_seed(f"{seed_tag} {i}"), run.cfg)
        res = m.run(p.prog, ext)
        ext = res.ext
        after.append(ext)
        bus.append(paged.accesses(p.prog))
        cyc.append(int(res.counters.cycles))
    return after, bus, cyc


def system_prompt_requests(n=8, sys_rows=32, own=(4, 6, 8, 5, 7, 4, 6, 8), gen=6):
    """The common-system-prompt workload: n requests whose prompts are the same sys_rows
    rows followed by their own, one arriving per tick."""
    return [PReq(f"u{i}", "sys", sys_rows, sys_rows + own[i % len(own)] + gen, i,
                 sys_rows + own[i % len(own)]) for i in range(n)]


# ---------------------------------------------------------------- the check (tools/mut_prefix.py)
def check_prefix(quick=False):
    """Findings of the shared-prefix check on the reference: random shared-prefix decode
    runs (shared-prefix attention against each request alone), random prefix-cache runs
    (tight pools: copies, evictions, revivals) and the crafted LRU pool."""
    probs = []
    for sd in ((0,) if quick else (0, 1)):
        for BT in (4, 5):
            run = decode_run(random_requests(sd, BT), BT)
            after, bus, _ = cache_reference(CacheRun(run.requests, run.layout, run.cfg, run.image, run.oracle,
                                                     [Prog("step", p, None, e, {}, frozenset())
                                                      for p, e in zip(run_programs(run), run.steps)], {}),
                                            f"check decode {sd} {BT}")
            probs += run_issues(after, run, f"decode run {sd} blocks of {BT}")
    for sd, BT, nb in (((0, 4, 12), (1, 5, 12)) if quick else ((0, 4, 12), (1, 5, 12), (2, 16, 5), (3, 4, 40))):
        reqs, per = cache_requests(sd, BT)
        try:
            run = cache_run(reqs, BT, nb, periods=per)
        except (RuntimeError, ValueError, IndexError, KeyError, TypeError) as e:
            probs.append(f"cache run {sd}: the engine failed: {e}")
            continue
        after, bus, _ = cache_reference(run, f"check cache {sd}")
        probs += cache_issues(run, after, bus, f"cache run {sd} blocks of {BT} pool {nb}")
    return probs


def main(argv=None):
    import argparse
    import sys
    import time
    ap = argparse.ArgumentParser(description="shared-prefix check on the reference (check_prefix)")
    ap.add_argument("--check", action="store_true", help="run check_prefix (the default action)")
    ap.add_argument("--quick", action="store_true", help="fewer runs")
    a = ap.parse_args(argv)
    t0 = time.time()
    probs = check_prefix(a.quick)
    for p in probs[:20]:
        print("PROBLEM", p)
    print(f"check_prefix{' (quick)' if a.quick else ''}: {len(probs)} problem(s) in {time.time() - t0:.2f} s")
    sys.stdout.flush()
    return 1 if probs else 0


if __name__ == "__main__":
    import sys as _sys
    _sys.exit(main())
