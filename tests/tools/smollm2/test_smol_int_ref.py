"""The integer reference (tools/smollm2/int_ref.py): batched equal to one position at a
time, word for word (logits and KV cache); close to the float reference on a cut of the
real model; a tiny model whose words are computed by hand; its op-level pieces against
the ops' one-row references."""
import math

import numpy as np
import pytest

from model.ops import qnt, smw
from tools.smollm2 import float_ref, gguf_model, int_ref, intweights


def test_batched_equals_one_position_at_a_time(cut_int, short_ids):
    ids = short_ids[:20]
    a = int_ref.IntRef(cut_int)
    s = a.teacher_forced(ids, chunk=7, keep_logits=True)       # chunks of 7 positions
    b = int_ref.IntRef(cut_int)
    one = [b.prefill(ids[:1])] + [b.step(t) for t in ids[1:]]
    assert (np.array(one) == s.logits).all()
    n = len(ids)
    for name in ("k8", "ks", "v8", "vs"):
        assert (getattr(a.cache, name)[:, :, :n] == getattr(b.cache, name)[:, :, :n]).all()
    assert a.cache.length == b.cache.length == n
    k8, ks, v8, vs = b.cache.row(1, 0, n - 1)
    assert k8.dtype == np.int8 and np.abs(k8).max() == 127 and ks > 0 and np.abs(v8).max() == 127 and vs > 0
    c = int_ref.IntRef(cut_int)                                 # a prompt prefilled at once, then steps
    last = c.prefill(ids[:9])
    assert (last == s.logits[8]).all() and (c.step(ids[9]) == s.logits[9]).all()
    with pytest.raises(ValueError, match="the cache holds"):
        b.cache.row(0, 0, n)


def test_generate_is_greedy_on_its_own_logits(cut_int, short_ids):
    r = int_ref.IntRef(cut_int)
    new = r.generate(short_ids[:6], 5)
    s = int_ref.IntRef(cut_int).teacher_forced(short_ids[:6] + new)
    assert len(new) == 5 and s.top1[5:10].tolist() == new


def test_close_to_the_float_reference(cut_float, cut_int, short_ids):
    fs = float_ref.FloatModel(cut_float).teacher_forced(short_ids, keep_logits=True)
    r = int_ref.IntRef(cut_int)
    s = r.teacher_forced(short_ids, keep_logits=True)
    d = s.logits / 4096 - fs.logits
    assert np.sqrt(np.mean(d ** 2)) < 0.06 * np.sqrt(np.mean(fs.logits.astype(np.float64) ** 2))
    assert np.mean(s.top1 == fs.top1) >= 0.85                  # measured 97.9%
    assert abs(float_ref.perplexity(s.nll) / float_ref.perplexity(fs.nll) - 1) < 0.1
    # the final hidden state: the float reference's, after out_norm, from the int words
    cache = float_ref.FloatModel(cut_float).new_cache(len(short_ids))
    hf = float_ref.FloatModel(cut_float).forward(short_ids, cache)[-1]
    hi = float_ref.rmsnorm(r.hidden[None, :] / 4096, cut_float.out_norm, cut_float.config.eps)[0]
    assert np.abs(hi - hf).max() < 0.05 * np.abs(hf).max()


def tiny():
    """One layer, d = 2, one head of 2: the q and k and the FFN weights zero (uniform
    attention, no FFN), wv, wo and the head the identity, tokens 0 and 1 the unit vectors."""
    c = gguf_model.Config(n_layer=1, d=2, n_head=1, n_kv_head=1, head_dim=2, ffn=1, vocab=2, eps=1e-5,
                          rope_base=100000.0, ctx=8)
    eye, zero, one = np.eye(2, dtype=np.float32), np.zeros((2, 2), np.float32), np.ones(2, np.float32)
    L = gguf_model.Layer(attn_norm=one, wq=zero, wk=zero, wv=eye, wo=eye, ffn_norm=one,
                         w_gate=np.zeros((1, 2), np.float32), w_up=np.zeros((1, 2), np.float32),
                         w_down=np.zeros((2, 1), np.float32))
    return gguf_model.Model(config=c, embed=eye, head=eye, out_norm=one, layers=(L,), tokens=(), merges=(),
                            token_types=(), bos=0, eos=1, chat_template="", meta={})


def test_a_tiny_model_by_hand():
    """Tokens 0, 1 (x = e0, e1): v_t = x_t / rms(x_t) = sqrt(2) e_t; position 0 attends to
    itself alone, position 1 to both keys equally (all scores 0); so the residual words are
    4096 (e0 + sqrt(2) e0) and 4096 (e1 + (sqrt(2) e0 + sqrt(2) e1) / 2), and the logits of
    position 1 are 4096 x1 / rms(x1)."""
    r = int_ref.IntRef(intweights.prepare(tiny()))
    x = r.forward([0, 1], logits=False)
    r2 = math.sqrt(2)
    want = np.array([[1 + r2, 0], [r2 / 2, 1 + r2 / 2]]) * 4096
    assert np.abs(x - want).max() <= 3, x                      # a chain of roundings, each half a word
    assert (r.cache.ks[0, 0, :2] == 0).all()                     # k = 0: the scale word 0
    x1 = want[1] / 4096
    logits = r.head(x[1:])[0]
    assert np.abs(logits - 4096 * x1 / np.sqrt(np.mean(x1 ** 2))).max() <= 3, logits
    assert int(np.argmax(logits)) == 1


def test_the_pieces_equal_the_ops_one_row_references():
    rng = np.random.default_rng(7)
    x = rng.integers(-(1 << 20), 1 << 20, size=(6, 40))
    x[2] = 0
    for rms in (0, 1):
        for b16 in (0, 1):
            v, w = int_ref.qnt_rows(x, 12, b16, rms)
            for t in range(len(x)):
                R, sh, word = qnt.row_params(x[t], 12, b16, rms)
                assert w[t] == word and (v[t] == qnt.quantize_vec(x[t], R, sh)).all()
    s = rng.integers(-3000, 3000, size=(5, 9))
    length = np.array([1, 3, 5, 8, 9])
    p = int_ref.smw_rows(s, length)
    for t, n in enumerate(length):
        assert (p[t, :n] == smw.smw_vec(s[t, :n])).all() and (p[t, n:] == 0).all()
    a = rng.integers(-(1 << 15) + 1, 1 << 15, size=(3, 2047))
    w8 = rng.integers(-127, 128, size=(4, 2047)).astype(np.int8)
    exact = [[sum(int(u) * int(v) for u, v in zip(a[i], w8[j])) for j in range(4)] for i in range(3)]
    wrapped = [[(e + (1 << 31)) % (1 << 32) - (1 << 31) for e in row] for row in exact]
    assert int_ref.mm(a, w8).tolist() == wrapped
    big = 32767 * 127 * 2047                                    # past int32: wraps as MM's accumulator
    got = int_ref.mm(np.full((1, 2047), 32767), np.full((1, 2047), 127, np.int8))[0, 0]
    assert got == (big + (1 << 31)) % (1 << 32) - (1 << 31) and got != big
    r = int_ref.IntRef.__new__(int_ref.IntRef)                  # the headroom's bookkeeping alone
    r.peaks, r.wraps = {}, {}
    r._mm("pv", np.full((2, 2047), 32767), np.full((3, 2047), 127, np.int8))
    assert r.peaks == {"mm pv": big} and r.wraps == {"mm pv": 6}


def test_bad_input(cut_int):
    r = int_ref.IntRef(cut_int)
    with pytest.raises(ValueError, match="token id outside 0..4095"):
        r.prefill([4096])
    with pytest.raises(ValueError, match="at least 2"):
        r.teacher_forced([1])
    with pytest.raises(ValueError, match="an empty prompt"):
        r.generate([], 3)


def test_the_weighted_sum_of_v_in_tiles(cut_int, short_ids):
    """pv_tile: batched equal to one position at a time; a tile as long as the sequence is
    the one-tile sum; tiles of 4 keys move the logits by little; the safe bound 516."""
    ids = short_ids[:14]
    whole = int_ref.IntRef(cut_int).teacher_forced(ids, keep_logits=True).logits
    assert (int_ref.IntRef(cut_int, pv_tile=14).teacher_forced(ids, keep_logits=True).logits == whole).all()
    tiled = int_ref.IntRef(cut_int, pv_tile=4).teacher_forced(ids, chunk=5, keep_logits=True).logits
    b = int_ref.IntRef(cut_int, pv_tile=4)
    one = [b.prefill(ids[:1])] + [b.step(t) for t in ids[1:]]
    assert (np.array(one) == tiled).all()
    assert not (tiled == whole).all() and np.abs(tiled - whole).max() < 0.05 * np.abs(whole).max()
    assert int_ref.PV_TILE_SAFE == 516 and 32767 * 127 * 516 < 2 ** 31 <= 32767 * 127 * 517
    with pytest.raises(ValueError, match="pv_tile 517"):
        int_ref.IntRef(cut_int, pv_tile=517)
