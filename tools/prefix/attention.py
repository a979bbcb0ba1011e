"""Serving on GA-2, part 3: shared prefixes (docs/prefix.md), the attention side:
shared-prefix attention (step_program) and decode_run, multi-step runs over prompts
already in the pool. Prefill on the chip, the prefix cache and the shared-prefix check
are tools/prefix/cache.py.

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
tools/serve/paged.py; SH_S32 8 score vectors of 64; SH_KC, SH_VC the gathered K and V rows of
ONE group: its prefix in rows 0..S-1, each member's suffix in rows S..t-1 in turn.
"""
import random as _random
from collections import namedtuple as _nt

from model import config, isa
from model.quant import quantize as _quantize
from model.reorder import reorder
from tools.serve import engine as _serving
from tools.serve import oracle as _oracle
from tools.serve import paged
from tools.serve import workload as _workload
from tools.serve.paged import DM, EXT_W, SP_K32, SP_Q8, SP_Q32, SP_V32, SP_W, SP_X, W_WORDS, D

SH_A8 = 0             # 8 x 64 int8 weights (per sequence)
SH_S8 = 512           # 64
SH_P = 576            # 64
SH_O32 = 640          # 8 x 16
SH_O8 = 768           # 16
SH_S32 = 1408         # 8 x 64 int32 scores (per sequence)
SC = paged.MAX_CTX     # the stride between per-sequence vectors (scores, weights): 64
SH_KC = 1920          # 64 rows of K
SH_VC = SH_KC + paged.MAX_CTX * D
SH_END = SH_VC + paged.MAX_CTX * D

assert SH_O8 + D <= SP_Q32 and SH_S32 >= SP_Q8 + paged.MAX_BATCH * D
assert SH_S32 + paged.MAX_BATCH * SC <= SH_KC


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


def step_program(entries, lay, P, cfg=config.CH09):
    """One batched decode step with shared-prefix attention (the module docstring).
    Same entries, layout and rq_params as model/paged.step_program; the same outputs
    and K/V rows bit for bit."""
    entries = [(int(r), int(t), tuple(int(b) for b in tb)) for r, t, tb in entries]
    paged._check_entries(entries, lay, cfg)
    paged.check_config(cfg, lay)
    if cfg.sp_words < SH_END:
        raise ValueError(f"the shared-prefix step needs {SH_END} scratchpad words, the chip has {cfg.sp_words}")
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
    # 2. the shared weights, one load; 3. projections; 4. all queries (as tools/serve/paged.py)
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
            for a in range(0, len(ms), A):
                sub = ms[a:a + A]
                for c in range(0, S, A):                  # the prefix's 4-key tiles
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
            acc = 1                                       # added onto each member's suffix part
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
    if cfg.mode == "overlap":       # the overlapping units' order (model/reorder.py)
        prog = reorder(prog, cfg)
    return prog


# ---------------------------------------------------------------- requests with a shared prefix
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
    own = _oracle.request_rows(model, _workload.Request(q.id, q.tokens, q.arrival))
    if not q.group or not q.plen:
        return own
    pre = group_rows(model, q.group, period=(periods or {}).get(q.group))
    return [list(r) for r in pre[:q.plen]] + own[q.plen:]


class Oracle(_oracle.Oracle):
    """Each request decoded ALONE by chapter 9's plain-Python integer reference (no
    sharing, no instructions): serving.Oracle on the rows of request_rows."""

    def __init__(self, model, requests, periods=None):
        self.model = model
        self.ex = [{"nseq": 1, "L": q.tokens, "Xi": [request_rows(model, q, periods)], "Wi": model["Wi"],
                    "scales": model["scales"]} for q in requests]
        self._out = {}


base_image = _oracle.base_image        # weights and every request's hidden rows, the rest garbage


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
    model = _oracle.model_data(seed)
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
    model = _oracle.model_data(seed)
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


def run_programs(run, shared=True):
    """Every step's program of a DecodeRun (shared-prefix attention or tools/serve/paged.py's)."""
    P = run.oracle.model["P"]
    if shared:
        return [step_program(e, run.layout, P, run.cfg) for e in run.steps]
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
