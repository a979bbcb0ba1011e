"""The memory image of every model, word for word, against its weights read straight from
the .npz file with numpy -- not through the code that laid them out (tools/lm/compiler's
layout, tools/lm/int8.py's loader): every row of every matrix (the first and last rows of
the embedding and of the head named on their own), at addresses this test computes from
docs/lm.md's "The memory image", and every other word zero but the prompts' ids, for
every committed model and every layout variant (the whole plan, the tiled plan with each
remedy, a generation past 64K words, the server's memory map with the draft's weights
after the main model's)."""
from pathlib import Path

import numpy as np
import pytest

from tools.lm import compiler as C
from tools.lm import generation as G
from tools.lm.generate import load_model

WEIGHTS = Path(__file__).resolve().parents[3] / "tools" / "lm" / "weights"
MODELS = sorted(p.name[:-len("_int8.npz")] for p in WEIGHTS.glob("*_int8.npz"))
ARCH = ("vocab", "ctx", "d", "heads", "layers", "mlp", "kv_heads")    # the export's cfg array
HEAD_TILE = 32          # docs/lm.md: the output head in column tiles of 32


def read_npz(name):
    """(arch dict, {matrix: int64 array}, kv_bits) of a committed export, by numpy alone."""
    with np.load(WEIGHTS / f"{name}_int8.npz") as f:
        arch = dict(zip(ARCH, (int(v) for v in f["cfg"])))
        arch.setdefault("kv_heads", 0)
        w = {k[2:]: f[k].astype(np.int64) for k in f.files if k.startswith("w.")}
        bits = int(f["kv_bits"]) if "kv_bits" in f.files else 8
    return arch, w, bits


def documented_order(arch, w):
    """docs/lm.md's order: [(name, rows x cols values)]: wte, wpe, per layer wq, wk, wv, wo,
    w1, w2, then the head's column tiles of 32, each row-major."""
    out = [("wte", w["wte"]), ("wpe", w["wpe"])]
    for i in range(arch["layers"]):
        out += [(f"h{i}.w{n}", w[f"h{i}.w{n}"]) for n in ("q", "k", "v", "o", "1", "2")]
    V = w["wout"].shape[1]
    return out + [(f"wout.{j}", w["wout"][:, c0:c0 + HEAD_TILE])
                  for j, c0 in enumerate(range(0, V, HEAD_TILE))]


def weight_words(name):
    arch, w, _ = read_npz(name)
    return sum(m.size for _, m in documented_order(arch, w))


def check_weights(ext, name, base):
    """Problems of ext's weight area of model `name` at base: every row of every matrix."""
    arch, w, _ = read_npz(name)
    out, at = [], base
    for mat, m in documented_order(arch, w):
        rows, cols = m.shape
        got = np.asarray(ext[at:at + rows * cols], dtype=np.int64)
        if got.size != m.size:
            return out + [f"{mat}: the image ends at {len(ext)}, the matrix at {at + m.size}"]
        bad = np.nonzero((got.reshape(rows, cols) != m).any(axis=1))[0]
        if bad.size:
            out.append(f"{mat}: rows {bad[:8].tolist()} of {rows} differ (at {at})")
        at += m.size
    # named on their own: the embedding's first and last rows (token 0 and vocab - 1) and
    # the head's (its first and last rows; the first and last token's column, across tiles)
    V, d = arch["vocab"], arch["d"]
    if not np.array_equal(ext[base:base + d], w["wte"][0]) or \
            not np.array_equal(ext[base + (V - 1) * d:base + V * d], w["wte"][V - 1]):
        out.append("wte: the first or the last row differs")
    head = at - d * V                                     # the head: the last d x V words
    tiles = [(c0, min(HEAD_TILE, V - c0)) for c0 in range(0, V, HEAD_TILE)]
    for r in (0, d - 1):
        row, a = [], head
        for _c0, n in tiles:
            row += list(ext[a + r * n:a + (r + 1) * n])
            a += d * n
        if row != w["wout"][r].tolist():
            out.append(f"wout: row {r} differs")
    for col in (0, V - 1):
        j = col // HEAD_TILE
        c0, n = tiles[j]
        a = head + d * c0
        if [int(ext[a + r * n + col - c0]) for r in range(d)] != w["wout"][:, col].tolist():
            out.append(f"wout: the column of token {col} differs")
    return out


def check_rest(ext, size, areas, prompts=(), tokens=0, ctx=0):
    """Problems: the image not `size` words, or a nonzero word outside the weight areas
    [(first, end)] but the prompts' ids (sequence b's at tokens + b * ctx)."""
    if len(ext) != size:
        return [f"the image is {len(ext)} words, the documented layout {size}"]
    free = np.ones(size, dtype=bool)
    for a, z in areas:
        free[a:z] = False
    want = np.zeros(size, dtype=np.int64)
    for b, p in enumerate(prompts):
        want[tokens + b * ctx:tokens + b * ctx + len(p)] = p
    bad = np.nonzero(free & (np.asarray(ext, dtype=np.int64) != want))[0]
    return [f"{bad.size} words outside the weights differ (first at {bad[0]})"] if bad.size else []


def slots(arch, ctx, rem):
    """docs/lm.md: the cache rows a sequence -- the whole plan every position of ctx, the
    tiled plan the positions fed (ctx - 1, at least 1), at most the window."""
    if rem is None:
        return ctx
    fed = max(1, ctx - 1)
    return min(fed, rem.window) if rem.window else fed


def generation_image_problems(name, rem, prompts, new, chip=None):
    arch, _, bits = read_npz(name)
    net = load_model(path=WEIGHTS / f"{name}_int8.npz", kv_bits=bits)
    if rem is None:
        g = G.Generation(net, prompts, new, chip=chip or C.LM_CHIP)
    else:
        g = G.generation(net, prompts, new, rem)
    ext = g.image()
    ctx = max(len(p) + new for p in prompts)
    B, W = len(prompts), weight_words(name)
    dk = 16 * (arch["kv_heads"] or arch["heads"])
    row = dk // 2 if bits == 4 else dk
    size = W + B * ctx + arch["layers"] * 2 * B * slots(arch, ctx, rem) * row
    return check_weights(ext, name, 0) + check_rest(ext, size, [(0, W)], prompts, W, ctx)


def variants(name):
    """The layout variants of a model: (label, remedies or None)."""
    arch, _, bits = read_npz(name)
    plain = bits == 8 and not arch["kv_heads"]
    out = [("whole", None)] if plain else []
    return out + [("tiled", C.Remedies(kv_bits=bits)),
                  ("window", C.Remedies(kv_bits=bits, window=6, sinks=2)),
                  ("tiles", C.Remedies(kv_bits=bits, tile=4))]


CASES = [(m, label) for m in MODELS for label, _ in variants(m)]


def test_every_committed_model_is_checked():
    assert set(MODELS) >= {"add", "add_kv1", "add_kv4", "add_kv1_kv4", "text", "text_kv1",
                           "text_kv4", "text_kv1_kv4", "text_ctx256", "text_ctx256_kv4",
                           "text_draft"}


@pytest.mark.parametrize("name, label", CASES, ids=[f"{m}-{v}" for m, v in CASES])
def test_generation_image_is_the_weights_word_for_word(name, label):
    rem = dict(variants(name))[label]
    arch, _, _ = read_npz(name)
    vocab = arch["vocab"]
    prompts = [[0, vocab - 1, 1], [vocab - 1] * 5, [2]]          # the table's first and last ids
    assert generation_image_problems(name, rem, prompts, 4) == []


def test_an_image_past_64k_words():
    # 16 sequences of 40 on the remedies' chip of 2^20 words: the cache past 64K
    prompts = [[k % 96] * 36 for k in range(16)]
    assert generation_image_problems("text", C.Remedies(), prompts, 4) == []


def test_the_servers_image_holds_both_models():
    # the speculative server's map: the main model's weights at 0, the draft's after them,
    # one token area per request, then the pools (tools/serve/lm_memory.py)
    from tools.serve import requests as rq
    from tools.serve import spec as SP
    net, draft = load_model("text", kv_bits=4), SP.load_draft()
    reqs = rq.poisson(3, 10, seed=3, prompt_len=(4, 8), max_new=(4, 4), ctx=SP.SPEC_CTX)
    srv = SP.SpecServer(net, draft, reqs, 2, remedies=C.Remedies(kv_bits=4, tile=4))
    ext = srv.image()
    W1, W2 = weight_words("text_kv4"), weight_words("text_draft")
    arch, darch = read_npz("text_kv4")[0], read_npz("text_draft")[0]
    n = srv.mm.pool.n_blocks                              # the pools: n blocks of 4 rows each
    pools = 2 * arch["layers"] * n * 4 * 16 + 2 * darch["layers"] * srv.mm.dpool.n_blocks * 4 * darch["d"]
    prompts = [rq.ids("text", q) for q in reqs]
    size = W1 + W2 + len(reqs) * SP.SPEC_CTX + pools
    assert check_weights(ext, "text_kv4", 0) == []
    assert check_weights(ext, "text_draft", W1) == []
    assert check_rest(ext, size, [(0, W1 + W2)], prompts, W1 + W2, SP.SPEC_CTX) == []


def test_the_oracle_catches_a_wrong_row():
    # the check itself: a wrong last row of the embedding, of the head, of a middle matrix,
    # a word written in the cache, each reported
    prompts = [[1, 2]]
    net = load_model("text")
    g = G.Generation(net, prompts, 2)
    ext = g.image()
    W = weight_words("text")
    assert check_weights(ext, "text", 0) == []
    for at, what in ((95 * 32 + 5, "wte"), (W - 1, "wout"), (g.layout.w["h1.w2"] + 31 * 32, "h1.w2")):
        bad = ext.copy()
        bad[at] += 1
        assert any(p.startswith(what) for p in check_weights(bad, "text", 0)), what
    bad = ext.copy()
    bad[-1] = 7
    size = len(ext)
    assert check_rest(bad, size, [(0, W)], prompts, W, g.layout.ctx)
