"""Serving on GA-2, part 3b: prefill on the chip and the prefix cache (docs/prefix.md).

prefill_program fills a request's K and V blocks for a run of prompt rows with 4-row
matrix products; cache_run serves requests whose prompts are matched on whole blocks
(a key of the block's rows, its position and its parent block's key), taken by
reference (refcount), prefilled only past the cached blocks, copied before any write
into a shared block, revived from the LRU list before anything is evicted; cache_issues
checks a run (every token against the request alone, the chip's bus writes against the
block tables). check_prefix / `python -m tools.prefix.cache --check` is the check
tools/prefix/mutants.py runs. The shared-prefix attention the steps use is tools/prefix/attention.py.
"""
import random as _random
import sys
from collections import namedtuple as _nt

from model import batch as _batch
from model import config, isa
from model.reorder import reorder
from tools.prefix.attention import (
    Oracle,
    PReq,
    base_image,
    decode_run,
    output_issues,
    random_requests,
    run_issues,
    run_programs,
    step_program,
)
from tools.serve import engine as _serving
from tools.serve import oracle as _oracle
from tools.serve import paged
from tools.serve.paged import DM, EXT_W, D

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
    if cfg.mode == "overlap":       # the overlapping units' order (model/reorder.py)
        prog = reorder(prog, cfg)
    return prog


# ---------------------------------------------------------------- the prefix cache
Prog = _nt("Prog", "kind prog r entries live cached")
Prog.__doc__ = """One program of a cache run: kind 'prefill' | 'copy' | 'step', the program,
r (the request of a prefill or copy), entries (a step's), live {request: table} of every
admitted request and cached (blocks registered in the cache) just before it runs."""

CacheRun = _nt("CacheRun", "requests layout cfg image oracle programs stats")


def plen_of(q):
    """A request's prompt length (its prompt field, else its shared prefix length)."""
    return q.prompt if q.prompt is not None else q.plen


def block_hash(rows, i, parent):
    """The cache key of full prompt block i: its token rows, its position and its
    parent's key (so a block matches only after the same whole prefix)."""
    return hash((parent, i, tuple(tuple(r) for r in rows)))


def cache_run(requests, block_tokens, n_blocks, cache=True, capacity=paged.MAX_BATCH, shared=True,
              seed=1, periods=None, mode="inorder"):
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
    model = _oracle.model_data(seed)
    oracle = Oracle(model, requests, periods)
    BT = block_tokens
    lay = paged.make_layout(BT, n_blocks, [q.tokens for q in requests])
    cfg = _serving.config_for(lay, _oracle.CFG.replace(mode=mode) if mode != _oracle.CFG.mode
                              else _oracle.CFG)   # mode: the timing mode its programs are built for
    P = model["P"]
    img = base_image(lay, model, oracle)
    rows = [ex["Xi"][0] for ex in oracle.ex]
    free = list(range(n_blocks))            # never cached or evicted, lowest first
    lru = []                                # freed cached blocks, least recently freed first
    ref = [0] * n_blocks
    key_of, cache_map = {}, {}              # block -> key, key -> block
    tables, nxt = {}, {}
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
            parent = block_hash(rows[r][i * BT:(i + 1) * BT], i, parent)
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
            need += 1 if cow else 0
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
            if cow:
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
                    k0, v0 = paged.k_page(lay, blk) + off, paged.v_page(lay, blk) + off
                    if [int(v) for v in ext[k0:k0 + D]] != K[row] or [int(v) for v in ext[v0:v0 + D]] != V[row]:
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
    from model.machine import Machine
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


# ---------------------------------------------------------------- the check (tools/prefix/mutants.py)
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
    from tb import cli
    return cli.check_command(argv, "tools.prefix.cache", "shared-prefix", check_prefix, "fewer runs")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
