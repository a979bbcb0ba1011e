"""The integer weights (tools/smollm2/intweights.py) on a cut of the real model: every row's
int8 values times its scale word's exact value within half a step of the folded float
matrix, the folds as the float reference computes them, the cache's round trip."""
import math
from fractions import Fraction

import numpy as np
import pytest

from model import wide
from tools.smollm2 import float_ref, intweights

FOLDS = {  # IntLayer matrix -> (float matrix, the norm gain folded into it or None)
    "wq": ("wq", "attn_norm"), "wk": ("wk", "attn_norm"), "wv": ("wv", "attn_norm"), "wo": ("wo", None),
    "wg": ("w_gate", "ffn_norm"), "wu": ("w_up", "ffn_norm"), "wd": ("w_down", None)}


def values(words):
    """The exact values of scale words as float64 (16-bit mantissas: exact)."""
    return np.array([float(wide.sc_value(int(w))) for w in words])


def check_rows(w8, cs, folded, extra=1.0):
    """Every row o: |W8[o] v_o - folded[o]| <= v_o / 2 with v_o the value of the word of
    max|folded[o]| / 127, and cs_o that word's value times extra (to the word's 2^-16)."""
    amax = np.abs(folded).max(axis=1)
    v = amax / 127
    assert w8.dtype == np.int8 and np.abs(w8).max() <= 127
    err = np.abs(w8 * values([wide.sc_of(x) for x in v])[:, None] - folded)
    assert (err <= v[:, None] * (0.5 + 2 ** -15)).all(), np.argmax(err.max(axis=1) / v)
    assert (np.abs(w8).max(axis=1) == 127).all()            # each row's largest entry is +-127
    assert np.allclose(values(cs), v * extra, rtol=2 ** -15, atol=0)
    for o in (0, len(w8) - 1):                              # the first and last rows, exactly
        vo = Fraction(wide.sc_value(wide.sc_of(Fraction(float(v[o])))))
        for i in (0, w8.shape[1] - 1, int(np.argmax(np.abs(folded[o])))):
            q = Fraction(float(folded[o, i])) / vo
            want = max(-127, min(127, math.floor(abs(q) + Fraction(1, 2)))) * (1 if q >= 0 else -1)
            assert w8[o, i] == want


def test_every_row_within_half_a_step_of_the_folded_matrix(cut_float, cut_int):
    for Lf, Li in zip(cut_float.layers, cut_int.layers):
        for name, (fname, gain) in FOLDS.items():
            W = np.asarray(getattr(Lf, fname), np.float64)
            folded = W * np.asarray(getattr(Lf, gain), np.float64)[None, :] if gain else W
            extra = 1 / (8 * math.log(2)) if name == "wq" else 1.0      # C = log2(e) / sqrt(64)
            check_rows(getattr(Li, name), getattr(Li, "cs" + name[1]), folded, extra)
    head = np.asarray(cut_float.embed, np.float64) * np.asarray(cut_float.out_norm, np.float64)[None, :]
    check_rows(cut_int.head, cut_int.csh, head)
    assert cut_int.ONE == intweights.ONE and wide.sc_value(intweights.ONE) == 1


def test_embedding_in_q12(cut_float, cut_int):
    e = np.asarray(cut_float.embed, np.float64) * 4096
    assert cut_int.embed12.dtype == np.int32 and cut_int.embed12.shape == e.shape
    assert (np.abs(cut_int.embed12 - e) <= 0.5).all()


def test_the_folds_are_the_float_references_arithmetic(cut_float, cut_int, short_ids):
    """q, k, v, gate of the float reference (RMSNorm with its gain, then the matrix; q times
    C = log2(e) / 8) equal (x / rms) @ (W8 * v).T within the int8 weights' bound: each
    output o at most sum_i |x_i / rms| v_o / 2 away (and float32's rounding)."""
    Lf, Li = cut_float.layers[0], cut_int.layers[0]
    c = cut_float.config
    x = np.asarray(cut_float.embed[short_ids], np.float32)
    xn = x / np.sqrt(np.mean(np.square(x.astype(np.float64)), axis=1, keepdims=True) + c.eps)
    for fl, norm, il, cs, extra in ((Lf.wq, Lf.attn_norm, Li.wq, Li.csq, math.log2(math.e) / 8),
                                    (Lf.wk, Lf.attn_norm, Li.wk, Li.csk, 1.0),
                                    (Lf.wv, Lf.attn_norm, Li.wv, Li.csv, 1.0),
                                    (Lf.w_gate, Lf.ffn_norm, Li.wg, Li.csg, 1.0)):
        want = float_ref.rmsnorm(x, norm, c.eps) @ fl.T * extra
        v = values(cs) / extra                        # the step of each row (csq carries C)
        got = xn @ (il * v[:, None]).T * extra
        bound = np.abs(xn).sum(axis=1)[:, None] * (v * extra / 2 * (1 + 2 ** -14))[None, :]
        assert (np.abs(got - want) <= bound + 1e-5 * np.abs(want).max()).all()
        assert np.abs(got - want).max() < 0.05 * np.abs(want).max()


def test_rounding_and_zero_rows():
    assert intweights.round_half_away([0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 3.4999]).tolist() == \
        [1, -1, 2, 3, -3, 0, 3]
    w8, cs = intweights.quantize_rows(np.array([[0.0, 0.0], [1.0, -0.5], [0.0, 2.0]]))
    assert cs[0] == 0 and w8[0].tolist() == [0, 0]
    assert w8[1].tolist() == [127, -64] and w8[2].tolist() == [0, 127]     # -0.5 / v = -63.50006
    assert wide.sc_value(cs[1]) == Fraction(wide.sc_value(wide.sc_of(Fraction(1, 127))))


def test_the_cache_round_trip(tmp_path, cut_int):
    p = tmp_path / "w.npz"
    intweights._save(cut_int, p)
    back = intweights._load(p, cut_int.config)
    for a, b in ((back.embed12, cut_int.embed12), (back.head, cut_int.head), (back.csh, cut_int.csh)):
        assert a.dtype == b.dtype and (a == b).all()
    for La, Lb in zip(back.layers, cut_int.layers):
        for n in intweights.IntLayer.__dataclass_fields__:
            assert (getattr(La, n) == getattr(Lb, n)).all() and getattr(La, n).dtype == getattr(Lb, n).dtype
    with pytest.raises(ValueError, match="another configuration"):
        intweights._load(p, cut_int.config.__class__(**{**cut_int.config.__dict__, "ffn": 1}))


def test_cut_refuses_what_the_model_lacks(model):
    with pytest.raises(ValueError, match="outside the model's"):
        intweights.cut_model(model, 31, 1, 8, 8)
