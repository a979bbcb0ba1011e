"""Chapter 9: batched decode of one attention head on GA-2, and the oracle that tests it.

A decode step uses every weight once, so alone it does about one MAC per word moved.
Batching B requests stacks their new tokens as the rows of one matrix product, so the
768 weight words are read once per step for all of them; attention cannot be shared
(each request reads its own K and V cache). This module builds that batched step as a
GA-2 program (program), gives test data (make_batch), an integer reference in plain
Python (int_reference) and the test batching makes possible (check_batching): a
request gets the same answer whether or not other requests ride along, and the same
answer as the plain-Python reference.

Layout and step order follow docs/ch09.md line by line (the chapter's
mutation list, tools/mut_ch09.py, changes single lines of program()).

Its command line is tools/ch09/batch.py (`python -m tools.ch09.batch --check [--no-ragged]
[--quick]`): it runs check_batching and exits non-zero when it finds a problem (the mutation
runs use it). This module imports only the twin, so the chapter's programs are built below
the verification and application layers that run them.
"""
import math
import random
import zlib

import numpy as np

from model import config, isa
from model.machine import Machine
from model.quant import mantissa_shift, quantize, requant, scale_for
from model.reorder import reorder
from model.softmax_gold import softmax_fixed

# ---------------------------------------------------------------- sizes
DM = 16              # hidden size
D = 16               # head size
LMAX = 16            # longest context in the batched layout
BMAX = 4             # most sequences in one batch
CFG = config.CH09    # chapter 9's chip: 8192 words of external memory
ARRAY = CFG.array    # one MM makes at most ARRAY x ARRAY outputs
EXT = CFG.ext_words

# ---------------------------------------------------------------- external memory (words)
EXT_WQ, EXT_WK, EXT_WV = 512, 768, 1024      # row-major 16 x 16, contiguous (one load)
EXT_X = 2048         # sequence b's hidden rows at EXT_X + 256 b, row t at +16 t
EXT_K = 3072         # sequence b's K cache
EXT_V = 4096         # sequence b's V cache
EXT_OUT = 5120       # sequence b's newest attention output at EXT_OUT + 16 b
EXT_SEQ = 256        # words per sequence in the hidden/K/V regions

# ---------------------------------------------------------------- scratchpad (words)
SP_X = 0             # batch rows of hidden states (row j = slot j)
SP_W = 64            # Wq, Wk, Wv (768 words)
SP_Q32, SP_K32, SP_V32 = 832, 896, 960       # int32 projections, rows of 16
SP_Q8 = 1024         # int8 queries, rows of 16
SP_S32 = 1088        # scores int32
SP_S8 = 1120         # scores int8
SP_P = 1152          # probabilities (Q16)
SP_A8 = 1184         # int8 attention weights
SP_O32 = 1216        # output int32
SP_O8 = 1232         # output int8
SP_CACHE = 1280      # slot j's K cache at SP_CACHE + 512 j, its V cache 256 further
SLOT_WORDS = 512


def ext_k(b):
    """External address of sequence b's K cache (row t at +16 t)."""
    return EXT_K + EXT_SEQ * b


def ext_v(b):
    """External address of sequence b's V cache (row t at +16 t)."""
    return EXT_V + EXT_SEQ * b


def ext_hidden(b):
    """External address of sequence b's hidden rows (row t at +16 t)."""
    return EXT_X + EXT_SEQ * b


def slot_base(j):
    """Scratchpad address of batch slot j's caches."""
    return SP_CACHE + SLOT_WORDS * j


def sp_k(j):
    """Scratchpad address of slot j's K cache (row t at +16 t)."""
    return slot_base(j)


def sp_v(j):
    """Scratchpad address of slot j's V cache (row t at +16 t)."""
    return slot_base(j) + LMAX * D


# ---------------------------------------------------------------- test data
def _matmul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def make_batch(nseq, L, seed):
    """Test data for nseq sequences of L tokens: weights, hidden states, float reference, scales.

    random.Random(seed) draws Wq, Wk, Wv (row-major, N(0, 1/sqrt(DM))) and then each
    sequence's L hidden rows (N(0, 1)). The float reference gives Q, K, V and the causal
    attention output of every sequence at every token. ONE set of scales serves the whole
    batch (a model has one set of scales): each scale_for over all values of its kind.
    Integer weights and hidden states (quantize) are part of the data.
    """
    if not isinstance(nseq, int) or not 1 <= nseq <= BMAX:
        raise ValueError(f"make_batch: nseq={nseq!r} outside 1..{BMAX}")
    if not isinstance(L, int) or not 1 <= L <= LMAX:
        raise ValueError(f"make_batch: L={L!r} outside 1..{LMAX}")
    rng = random.Random(seed)
    sd = 1 / math.sqrt(DM)
    W = {n: [[rng.gauss(0, sd) for _ in range(D)] for _ in range(DM)] for n in ("wq", "wk", "wv")}
    X = [[[rng.gauss(0, 1) for _ in range(DM)] for _ in range(L)] for _ in range(nseq)]
    Q = [_matmul(x, W["wq"]) for x in X]
    K = [_matmul(x, W["wk"]) for x in X]
    V = [_matmul(x, W["wv"]) for x in X]
    O = []  # noqa: E741 -- O[b][t]: attention output at token t (0-based), next to Q, K, V
    for b in range(nseq):
        rows = []
        for t in range(L):
            s = [sum(qq * kk for qq, kk in zip(Q[b][t], K[b][i])) / math.sqrt(D) for i in range(t + 1)]
            mx = max(s)
            e = [math.exp(v - mx) for v in s]
            tot = sum(e)
            rows.append([sum(e[i] / tot * V[b][i][n] for i in range(t + 1)) for n in range(D)])
        O.append(rows)

    def flat(x):
        return [v for seq in x for row in seq for v in row]

    sc = {"x": scale_for(flat(X)), "q": scale_for(flat(Q)), "k": scale_for(flat(K)),
          "v": scale_for(flat(V)), "o": scale_for(flat(O))}
    for n in ("wq", "wk", "wv"):
        sc[n] = scale_for([v for row in W[n] for v in row])
    return {
        "nseq": nseq, "L": L, "seed": seed,
        "W": W, "X": X, "Q": Q, "K": K, "V": V, "O": O, "scales": sc,
        "Wi": {n: [[quantize(v, sc[n]) for v in row] for row in W[n]] for n in W},
        "Xi": [[[quantize(v, sc["x"]) for v in row] for row in seq] for seq in X],
    }


def rq_params(ex):
    """Requantization (m, s) pairs of the batch: q, k, v, scores, weights, out."""
    s = ex["scales"]
    return {
        "q": mantissa_shift(s["x"] * s["wq"] / s["q"]),
        "k": mantissa_shift(s["x"] * s["wk"] / s["k"]),
        "v": mantissa_shift(s["x"] * s["wv"] / s["v"]),
        "scores": mantissa_shift(s["q"] * s["k"] / math.sqrt(D) * 16),
        "weights": mantissa_shift(127 / 65536),
        "out": mantissa_shift(s["v"] / (127 * s["o"])),
    }


def ext_image(ex):
    """The external memory before the first token: weights and hidden rows, caches and outputs zero."""
    img = np.zeros(EXT, dtype=np.int64)
    for name, at in (("wq", EXT_WQ), ("wk", EXT_WK), ("wv", EXT_WV)):
        img[at:at + DM * D] = np.array(ex["Wi"][name]).ravel()
    for b, rows in enumerate(ex["Xi"]):
        img[ext_hidden(b):ext_hidden(b) + DM * len(rows)] = np.array(rows).ravel()
    return img


# ---------------------------------------------------------------- the batched step
def _check_step(seqs, ts):
    seqs, ts = list(seqs), list(ts)
    if not seqs:
        raise ValueError("program: no sequences")
    if len(seqs) > BMAX:
        raise ValueError(f"program: {len(seqs)} sequences, at most {BMAX} fit the batch")
    if len(ts) != len(seqs):
        raise ValueError(f"program: {len(seqs)} sequences but {len(ts)} lengths")
    for b in seqs:
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 0 <= b < BMAX:
            raise ValueError(f"program: unknown sequence {b!r} (sequences are 0..{BMAX - 1})")
    for b in set(seqs):
        if seqs.count(b) > 1:
            raise ValueError(f"program: sequence {b} appears twice in the batch")
    for b, t in zip(seqs, ts):
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= LMAX:
            raise ValueError(f"program: sequence {b} length {t!r} outside 1..{LMAX}")
    return [int(b) for b in seqs], [int(t) for t in ts]


def _check_params(P):
    need = ("q", "k", "v", "scores", "weights", "out")
    if not isinstance(P, dict) or any(k not in P for k in need):
        raise ValueError(f"program: P must be a dict with (m, s) for {', '.join(need)} (see rq_params)")


def check_config(cfg):
    """ValueError unless chip cfg holds chapter 9's layout (external and scratchpad maps)."""
    if not isinstance(cfg, config.Config):
        raise ValueError(f"program: cfg must be a model.config.Config, got {type(cfg).__name__}")
    need_ext = EXT_OUT + D * BMAX
    need_sp = slot_base(BMAX)
    if cfg.ext_words < need_ext:
        raise ValueError(f"program: chapter 9's layout needs {need_ext} external words, "
                         f"the chip has {cfg.ext_words}")
    if cfg.sp_words < need_sp:
        raise ValueError(f"program: chapter 9's layout needs {need_sp} scratchpad words, "
                         f"the chip has {cfg.sp_words}")
    if cfg.sm_max_len < LMAX:
        raise ValueError(f"program: contexts up to {LMAX} need sm_max_len >= {LMAX}, "
                         f"the chip has {cfg.sm_max_len}")


def program(seqs, ts, P, cfg=CFG):
    """One batched decode step: slot j holds sequence seqs[j] with ts[j] tokens (new one included).

    P are the requantization parameters (rq_params). Returns a list of Instr ending in
    HALT, built for the chip cfg (default config.CH09): every field is checked against it.
    In the overlap timing mode (cfg.mode == "overlap") the same instructions come in the
    order model/reorder.py finds for it (loads ahead of the compute that does not need
    them); outputs and caches are identical, the layout is the same.
    """
    seqs, ts = _check_step(seqs, ts)
    _check_params(P)
    check_config(cfg)
    n = len(seqs)
    prog = []

    def ins(op, **f):
        prog.append(isa.build(op, cfg=cfg, **f))

    # 1. per slot, the hidden row of the new token into its batch row
    for j, b in enumerate(seqs):
        x_row = ext_hidden(b) + DM * (ts[j] - 1)
        ins("LD", dst=SP_X + DM * j, src=x_row, len=DM)
    # 2. ONE load of all three weight matrices (the shared traffic)
    ins("LD", dst=SP_W, src=EXT_WQ, len=3 * DM * D)
    # 3. per slot with cached tokens, its K and V cache rows 0..ts[j]-2
    for j, b in enumerate(seqs):
        if ts[j] > 1:
            ins("LD", dst=sp_k(j), src=ext_k(b), len=D * (ts[j] - 1))
            ins("LD", dst=sp_v(j), src=ext_v(b), len=D * (ts[j] - 1))
    # 4. projections: per weight, per 4-column block, one MM with M = the batch
    for w, proj in enumerate((SP_Q32, SP_K32, SP_V32)):
        for c in range(0, D, ARRAY):
            ins("MM", dst=proj + c, A=SP_X, B=SP_W + w * DM * D + c, M=n, K=DM, N=ARRAY, tb=0, lda=DM, ldb=D, ldc=D)
    # 5. all query rows requantized at once
    ins("RQ", dst=SP_Q8, src=SP_Q32, len=D * n, m=P["q"][0], s=P["q"][1])
    # 6. per slot, the new K and V rows into its cache at row ts[j]-1, and out to its external caches
    for j, b in enumerate(seqs):
        new_k = sp_k(j) + D * (ts[j] - 1)
        new_v = sp_v(j) + D * (ts[j] - 1)
        ins("RQ", dst=new_k, src=SP_K32 + D * j, len=D, m=P["k"][0], s=P["k"][1])
        ins("RQ", dst=new_v, src=SP_V32 + D * j, len=D, m=P["v"][0], s=P["v"][1])
        ins("ST", src=new_k, dst=ext_k(b) + D * (ts[j] - 1), len=D)
        ins("ST", src=new_v, dst=ext_v(b) + D * (ts[j] - 1), len=D)
    # 7. per slot, attention over its own L = ts[j] tokens
    for j, b in enumerate(seqs):
        L = ts[j]
        for c in range(0, L, ARRAY):
            ins("MM", dst=SP_S32 + c, A=SP_Q8 + D * j, B=sp_k(j) + D * c, M=1, K=D,
                N=min(ARRAY, L - c), tb=1, lda=D, ldb=D, ldc=D)
        ins("RQ", dst=SP_S8, src=SP_S32, len=L, m=P["scores"][0], s=P["scores"][1])
        ins("SM", dst=SP_P, src=SP_S8, len=L)
        ins("RQ", dst=SP_A8, src=SP_P, len=L, m=P["weights"][0], s=P["weights"][1])
        for c in range(0, D, ARRAY):
            ins("MM", dst=SP_O32 + c, A=SP_A8, B=sp_v(j) + c, M=1, K=L, N=ARRAY, tb=0, lda=L, ldb=D, ldc=D)
        ins("RQ", dst=SP_O8, src=SP_O32, len=D, m=P["out"][0], s=P["out"][1])
        ins("ST", src=SP_O8, dst=EXT_OUT + D * b, len=D)
    # 8. stop
    ins("HALT")
    return reorder(prog, cfg) if cfg.mode == "overlap" else prog


def outputs(ext, seqs):
    """{b: the 16-word output of sequence b} read from an external memory image."""
    ext = np.asarray(ext)
    return {b: [int(v) for v in ext[EXT_OUT + D * b:EXT_OUT + D * b + D]] for b in seqs}


def cache_rows(ext, b, t):
    """(K rows, V rows) 0..t-1 of sequence b in an external memory image, as lists of lists."""
    ext = np.asarray(ext)
    k = ext[ext_k(b):ext_k(b) + D * t].reshape(t, D)
    v = ext[ext_v(b):ext_v(b) + D * t].reshape(t, D)
    return k.tolist(), v.tolist()


def traffic(ts):
    """The spec's traffic formula of one step with lengths ts: words and MACs, shared and not.

    Words: 768 (weights, once) + per sequence 16 hidden + 2*(t-1)*16 cache in + 2*16 cache
    out + 16 output. MACs: 768 projection MACs per sequence (3 x 16 x 16) + attention
    16 t (scores) + 16 t (weights x V).
    """
    ts = [int(t) for t in ts]
    per_words = [DM + 2 * (t - 1) * D + 2 * D + D for t in ts]
    per_proj = [3 * DM * D for _ in ts]
    per_attn = [2 * D * t for t in ts]
    return {"words": 3 * DM * D + sum(per_words), "shared_words": 3 * DM * D,
            "per_seq_words": per_words, "macs": sum(per_proj) + sum(per_attn),
            "proj_macs": sum(per_proj), "attn_macs": sum(per_attn)}


# ---------------------------------------------------------------- integer reference
def _memo(ex, key, make):
    """A value computed once per test batch (kept in ex under a private key)."""
    memo = ex.setdefault("_memo", {})
    if key not in memo:
        memo[key] = make()
    return memo[key]


def int_kv(ex, b, t):
    """Sequence b's int8 K and V rows 0..t-1, in plain Python integers."""
    P = _memo(ex, "P", lambda: rq_params(ex))

    def rows(name, pk):
        x, W = ex["Xi"][b], ex["Wi"][name]
        return [[requant(sum(x[i][d] * W[d][n] for d in range(DM)), *P[pk]) for n in range(D)]
                for i in range(ex["L"])]
    K = _memo(ex, ("K", b), lambda: rows("wk", "k"))
    V = _memo(ex, ("V", b), lambda: rows("wv", "v"))
    return [r[:] for r in K[:t]], [r[:] for r in V[:t]]


def int_reference(ex, b, t):
    """Sequence b's int8 attention output at its t-th token: the step's integer arithmetic
    (quant.requant, softmax_gold.softmax_fixed) in plain Python, no instructions, no addresses."""
    if not 0 <= b < ex["nseq"] or not 1 <= t <= ex["L"]:
        raise ValueError(f"int_reference: sequence {b} token {t} not in the batch")
    P = _memo(ex, "P", lambda: rq_params(ex))
    x, Wq = ex["Xi"][b][t - 1], ex["Wi"]["wq"]
    K, V = int_kv(ex, b, t)
    q = [requant(sum(x[d] * Wq[d][n] for d in range(DM)), *P["q"]) for n in range(D)]
    scores = [requant(sum(q[d] * K[i][d] for d in range(D)), *P["scores"]) for i in range(t)]
    p = softmax_fixed(scores)
    w = [requant(pi, *P["weights"]) for pi in p]
    return [requant(sum(w[i] * V[i][n] for i in range(t)), *P["out"]) for n in range(D)]


# ---------------------------------------------------------------- the test
RAGGED = (3, 9, 1, 14)
N_RANDOM_RAGGED = 6          # seeded random ragged batches in the full check (2 in --quick)


def garbage_sp(seed, cfg=CFG):
    """A scratchpad image that cannot help a program: cfg.sp_words seeded garbage words.

    numpy's default_rng(seed) draws each word as a random signed 32-bit word or, with
    probability 1/2, a random int8-range value (what MM and SM would read as a plausible
    operand). A step that reads a word it did not load or compute gets a wrong answer.
    The same seed gives the same image (the co-simulation preloads it into the chip)."""
    rng = np.random.default_rng(int(seed))
    n = cfg.sp_words
    words = rng.integers(-(1 << 31), 1 << 31, size=n, dtype=np.int64)
    small = rng.integers(-128, 128, size=n, dtype=np.int64)
    return np.where(rng.random(n) < 0.5, small, words)


def garbage_seed(where):
    """The garbage seed of one checked step, from its description (crc32: stable across runs)."""
    return zlib.crc32(str(where).encode())


def fresh_machine(seed, cfg=CFG):
    """A reference Machine whose scratchpad holds garbage_sp(seed, cfg), not a used one's rows."""
    m = Machine(cfg)
    m.sp[:] = garbage_sp(seed, cfg)
    return m


def ragged_configs(seed, n=N_RANDOM_RAGGED):
    """n seeded random ragged batches [(seqs, ts)]: 2..4 slots, lengths 1..16, sequence ids
    drawn from 0..BMAX-1 in shuffled slot order (never [0, 1, .., B-1]). The first batch
    puts length 1 in the first slot and 2 in another, the second puts 2 first and 1 in
    another; from the third on, a length of 1 or 2 lands in a random slot."""
    rng = random.Random(f"ragged {seed}")
    out = []
    for i in range(n):
        B = rng.randint(2, BMAX)
        seqs = list(range(B))
        while seqs == list(range(B)):
            seqs = rng.sample(range(BMAX), B)
        ts = [rng.randint(1, LMAX) for _ in seqs]
        other = rng.randrange(1, B)
        if i == 0:
            ts[0], ts[other] = 1, 2
        elif i == 1:
            ts[0], ts[other] = 2, 1
        else:
            ts[rng.randrange(B)] = rng.choice((1, 2))
        out.append((seqs, ts))
    return out


class Refused(str):
    """A finding that is the builder refusing a step (ValueError), not a wrong answer."""


def _compare(where, ext_batch, ext_alone, b, t, ref_out, ref_kv):
    """Problems of sequence b at token t: batched vs alone, and alone vs the integer reference."""
    probs = []
    ob, oa = outputs(ext_batch, [b])[b], outputs(ext_alone, [b])[b]
    if ob != oa:
        probs.append(f"{where}: sequence {b} token {t}: batched output {ob} != alone {oa}")
    kb, vb = cache_rows(ext_batch, b, t)
    ka, va = cache_rows(ext_alone, b, t)
    if kb != ka:
        probs.append(f"{where}: sequence {b} token {t}: batched K cache differs from alone")
    if vb != va:
        probs.append(f"{where}: sequence {b} token {t}: batched V cache differs from alone")
    if oa != ref_out:
        probs.append(f"{where}: sequence {b} token {t}: alone output {oa} != int_reference {ref_out}")
    if (ka, va) != ref_kv:
        probs.append(f"{where}: sequence {b} token {t}: alone K/V cache != int_reference")
    return probs


def _step(seqs, ts, P, ext, where, probs, cfg):
    """Build and run one step on a fresh Machine with a garbage scratchpad (seed
    garbage_seed(where)): (the new external memory or None after a finding -- a refusal,
    a crash: GA2Error, ValueError --, the garbage seed)."""
    g = garbage_seed(where)
    try:
        prog = program(seqs, ts, P, cfg)
    except ValueError as e:
        probs.append(Refused(f"{where} garbage={g}: builder refused: {e}"))
        return None, g
    try:
        return fresh_machine(g, cfg).run(prog, ext).ext, g
    except Exception as e:  # noqa: BLE001 -- every crash is a finding
        probs.append(f"{where} garbage={g}: crashed: {type(e).__name__}: {e}")
        return None, g


def _invariance(B, L, seed, order, probs, cfg):
    ex = make_batch(B, L, seed)
    P = rq_params(ex)
    seqs = list(range(B)) if order == 0 else list(reversed(range(B)))
    ext_b = ext_image(ex)
    alone = {b: ext_b.copy() for b in seqs}
    where = f"B={B} L={L} seed={seed} seqs={seqs}"
    for t in range(1, L + 1):
        ext_b, gb = _step(seqs, [t] * B, P, ext_b, f"{where} token {t} batched", probs, cfg)
        if ext_b is None:
            return
        for b in seqs:
            alone[b], ga = _step([b], [t], P, alone[b], f"{where} token {t} alone {b}", probs, cfg)
            if alone[b] is None:
                return
            n0 = len(probs)
            probs += _compare(f"{where} token {t} garbage batched={gb} alone={ga}", ext_b, alone[b], b, t,
                              int_reference(ex, b, t), int_kv(ex, b, t))
            if len(probs) > n0:
                return                      # one finding per configuration is enough


def _ragged(seed, probs, cfg, lengths=RAGGED, seqs=None):
    """Each sequence advanced alone to its length minus one, then ONE batched step with
    slot j = sequence seqs[j] at length lengths[j], compared with each sequence alone."""
    lengths = list(lengths)
    seqs = list(range(len(lengths))) if seqs is None else list(seqs)
    ex = make_batch(max(seqs) + 1, max(lengths), seed)
    P = rq_params(ex)
    where = f"ragged seqs={seqs} ts={lengths} seed={seed}"
    img = ext_image(ex)
    for b, T in zip(seqs, lengths):            # each sequence advanced alone to T - 1 tokens
        for t in range(1, T):
            img, _ = _step([b], [t], P, img, f"{where} advance {b} token {t}", probs, cfg)
            if img is None:
                return
    ext_b, gb = _step(seqs, lengths, P, img.copy(), f"{where} batched", probs, cfg)
    if ext_b is None:
        return
    for b, T in zip(seqs, lengths):
        ea, ga = _step([b], [T], P, img.copy(), f"{where} alone {b}", probs, cfg)
        if ea is None:
            return
        probs += _compare(f"{where} garbage batched={gb} alone={ga}", ext_b, ea, b, T,
                          int_reference(ex, b, T), int_kv(ex, b, T))


def check_batching(seeds=(1, 2), batches=(1, 2, 3, 4), lengths=(1, 2, 5, 9, 16), ragged=True, quick=False,
                   n_random=N_RANDOM_RAGGED, cfg=CFG):
    """Findings (empty list = none) of the batching oracle; Refused ones are builder refusals.

    Every step it checks (and every step that fills a cache) runs on a fresh Machine whose
    scratchpad is garbage (fresh_machine, garbage_sp; the seed is in the finding's
    "where"), so rows an earlier step left behind cannot stand in for a load; only the
    external memory carries over. Batch invariance: for each batch size, length and seed,
    step the batch token by token and, beside it, each sequence alone on its own copy of
    external memory; after every step each sequence's output and its external K/V cache
    rows must be equal in both, and the alone run must equal int_reference (and int_kv)
    exactly. The second seed puts the sequences in reverse slot order, so slot j !=
    sequence j. Then (ragged=True) the fixed ragged batch (sequences advanced alone to 3,
    9, 1, 14 minus one tokens, ONE batched step with ts = [3, 9, 1, 14]) and n_random
    seeded random ragged batches (ragged_configs: shuffled sequence ids, lengths with 1
    and 2, the first slot at length 1), compared the same way. quick=True checks a subset
    (one seed, lengths 2 and 9, two random ragged batches). cfg is the chip (its timing
    mode chooses the program order; config.CH09_OVERLAP checks the overlap mode's).
    """
    if quick:
        seeds, lengths, n_random = seeds[:1], (2, 9), min(n_random, 2)
    probs = []
    for si, seed in enumerate(seeds):
        for B in batches:
            for L in lengths:
                _invariance(B, L, seed, si % 2, probs, cfg)
    if ragged:
        _ragged(seeds[0], probs, cfg)
        for seqs, ts in ragged_configs(seeds[0], n_random):
            _ragged(seeds[0], probs, cfg, ts, seqs)
    return probs
