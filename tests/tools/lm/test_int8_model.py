"""The integer model (tools/lm/int8.py Int8Model) against a plain-Python decode, and the
committed addition score.

plain_decode below is docs/lm.md's "Numerics" written out token by token, as the chip will
run it: one token at a time with a KV cache, in Python integers, through
model.quant.requant, model.softmax_gold.softmax_fixed and math.isqrt, no numpy and no
code of tools/lm/int8.py. The vectorized integer forward must give the same int32 logits
at every position. The addition answers are judged by Python's own a + b.
"""
import json
import math
import os

import numpy as np
import pytest

from model.quant import requant
from model.softmax_gold import softmax_fixed
from tools.lm import data, int8
from tools.lm import eval as lm_eval
from tools.lm.train import WEIGHTS


def _norm(x, m, s):
    ss = sum(v * v for v in x)
    if ss == 0:
        return [0] * len(x)
    r = (1 << 29) // math.isqrt(ss << 10)
    return [requant(v * r, m, s) for v in x]


def _sat(v):
    return max(-128, min(127, v))


def _mv(x, W):
    """x (list) times W (rows of the int8 matrix): the int32 accumulations, column by column."""
    return [sum(x[r] * W[r][c] for r in range(len(x))) for c in range(len(W[0]))]


def plain_decode(q, tokens):
    """int32 logits after each token, decoding one token at a time with a KV cache."""
    cfg, rq = q.cfg, q.rq
    W = {n: v.tolist() for n, v in q.w.items()}
    K = [[] for _ in range(cfg.layers)]
    V = [[] for _ in range(cfg.layers)]
    out = []
    for t, tok in enumerate(tokens):
        x = [_sat(a + b) for a, b in zip(W["wte"][tok], W["wpe"][t])]
        for i in range(cfg.layers):
            h = _norm(x, *rq[f"h{i}.n1"])
            qv, kv, vv = ([requant(a, *rq[f"h{i}.{n}"]) for a in _mv(h, W[f"h{i}.w{n}"])]
                          for n in "qkv")
            K[i].append(kv)
            V[i].append(vv)
            o = []
            for hd in range(cfg.heads):
                c = range(16 * hd, 16 * hd + 16)
                sc = [requant(sum(qv[d] * k[d] for d in c), *rq[f"h{i}.scores"]) for k in K[i]]
                w = [requant(p, *rq["weights"]) for p in softmax_fixed(sc)]
                o += [requant(sum(w[u] * V[i][u][d] for u in range(t + 1)), *rq[f"h{i}.o"])
                      for d in c]
            att = [requant(a, *rq[f"h{i}.attn"]) for a in _mv(o, W[f"h{i}.wo"])]
            x = [_sat(requant(a, *rq[f"res{2 * i}"]) + b) for a, b in zip(x, att)]
            h2 = _norm(x, *rq[f"h{i}.n2"])
            u = [max(0, requant(a, *rq[f"h{i}.u"])) for a in _mv(h2, W[f"h{i}.w1"])]
            mlp = [requant(a, *rq[f"h{i}.mlp"]) for a in _mv(u, W[f"h{i}.w2"])]
            x = [_sat(requant(a, *rq[f"res{2 * i + 1}"]) + b) for a, b in zip(x, mlp)]
        out.append(_mv(_norm(x, *rq["nf"]), W["wout"]))
    return out


@pytest.fixture(scope="module")
def models():
    return {t: lm_eval.load(t) for t in ("add", "text")}


def test_the_integer_forward_is_the_plain_decode_addition(models):
    q = models["add"][2]
    for i in (0, 4321, 9999, 5050):
        toks = data.add_all()[i].tolist()
        assert q.logits(np.array([toks])).tolist()[0] == plain_decode(q, toks)


def test_the_integer_forward_is_the_plain_decode_text(models):
    q = models["text"][2]
    toks = data.encode('The "while" statement is used for repeated execution as long as\n').tolist()
    assert len(toks) == q.cfg.ctx                   # every position of the context
    assert q.logits(np.array([toks])).tolist()[0] == plain_decode(q, toks)


def test_a_prefix_gives_the_same_logits(models):
    """Causal: a decode step at token t sees tokens 0..t only (what greedy relies on)."""
    q = models["text"][2]
    X = data.text_windows(data.text_split()[1], q.cfg.ctx)[0][:3]
    full = q.logits(X)
    for t in (1, 17, 40):
        assert np.array_equal(q.logits(X[:, :t]), full[:, :t])


def test_a_few_hundred_problems_give_the_committed_answers(models):
    """The int8 model's answers on 300 problems: right exactly where the committed score
    says (every problem not in its list of wrong ones), right meaning Python's a + b."""
    p, cfg, q = models["add"]
    with open(os.path.join(WEIGHTS, "measured.json")) as f:
        wrong = set(json.load(f)["add"]["int8"]["wrong"])
    idx = np.random.default_rng(5).choice(10000, 300, replace=False)
    prompt = data.add_all()[idx, :data.ADD_PROMPT]
    out = int8.greedy(q.logits, prompt, 3, cfg.ctx)[:, data.ADD_PROMPT:]
    for i, o in zip(idx, out):
        a, b = divmod(int(i), 100)
        assert (o[0] + 10 * o[1] + 100 * o[2] == a + b) == (f"{a}+{b}" not in wrong), (a, b, o)
