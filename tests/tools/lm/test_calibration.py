"""The export's calibration run (tools/lm/int8.py peaks) is the float model, in a fixed order.

Its activations agree with the float model's own forward pass (tools/lm/model.py, BLAS and
numpy's exp) to within float64 rounding at every site and channel; its dot products are the
left-to-right sums a plain Python loop gives, bit for bit, whatever the arrays' layout and
however the windows are chunked; its exp is within one unit of the last place of libm's.
That the committed exports come out bit for bit under another BLAS kernel and without
numpy's AVX-512 code is tests/tools/lm/test_train.py's.
"""
import math
import os

import numpy as np
import pytest

from tools.lm import int8, train
from tools.lm import model as M


def _float_peaks(p, cfg, X):
    """The same sites' per-channel peaks from the float model's forward (BLAS, np.exp)."""
    _, c = M.forward(p, cfg, X, keep=True)
    acts = {f"res{j}": r for j, r in enumerate(c["res"])}
    for i in range(cfg.layers):
        h, q, k, v, a, y, h2, u, r, _ = c[i]
        acts.update({f"h{i}.n1": c[i, "n1"][0], f"h{i}.q": h @ p[f"h{i}.wq"],
                     f"h{i}.k": h @ p[f"h{i}.wk"], f"h{i}.v": h @ p[f"h{i}.wv"],
                     f"h{i}.o": y, f"h{i}.n2": c[i, "n2"][0], f"h{i}.u": r})
    acts["nf"] = c["nf"][0]
    return {site: np.abs(t).max(axis=(0, 1)) for site, t in acts.items()}


@pytest.mark.parametrize("task", ["add", "text_kv1"])
def test_the_calibration_run_is_the_float_model(task):
    p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
    X = train.calibration(task)[:40]
    got, want = int8.peaks(p, cfg, X), _float_peaks(p, cfg, X)
    assert sorted(got) == sorted(want)
    for site in want:
        assert got[site].shape == want[site].shape
        assert got[site] == pytest.approx(want[site], rel=1e-13, abs=0), site


def test_chunking_the_windows_changes_no_bit():
    p, cfg = M.load(os.path.join(train.WEIGHTS, "text.npz"))
    X = train.calibration("text")[:23]
    runs = [int8.peaks(p, cfg, X, chunk=c) for c in (64, 7 * 64, 10 ** 6)]
    for other in runs[1:]:
        assert all(np.array_equal(runs[0][s], other[s]) for s in runs[0])


def _left_to_right(terms):
    acc = terms[0]
    for t in terms[1:]:
        acc += t
    return acc


def test_dot_sums_left_to_right_whatever_the_layout():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 3, 5, 37)) * 10.0 ** rng.integers(-6, 7, size=(2, 3, 5, 37))
    b = rng.normal(size=(2, 3, 37, 4))
    want, backward = np.empty((2, 3, 5, 4)), np.empty((2, 3, 5, 4))
    for i, j, m, n in np.ndindex(want.shape):
        terms = [a[i, j, m, k] * b[i, j, k, n] for k in range(37)]
        want[i, j, m, n], backward[i, j, m, n] = _left_to_right(terms), _left_to_right(terms[::-1])
    assert not np.array_equal(want, backward)       # the order shows in these sums' bits
    for x, y in ((a, b), (np.asfortranarray(a), np.asfortranarray(b)),
                 (a.transpose(0, 1, 3, 2).copy().transpose(0, 1, 3, 2),
                  b[:, :, ::-1].copy()[:, :, ::-1])):
        assert np.array_equal(int8.dot(x, y), want)
    # rows computed apart are the same bits as rows computed together
    assert np.array_equal(np.concatenate([int8.dot(a[:, :, r:r + 2], b) for r in (0, 2, 4)],
                                         axis=2), want)
    assert np.array_equal(int8.dot(a[0, 0], b[0, 0]), want[0, 0])   # a matrix by a matrix


def test_sum_last_sums_left_to_right():
    rng = np.random.default_rng(4)
    v = rng.normal(size=(3, 4, 29)) * 10.0 ** rng.integers(-6, 7, size=(3, 4, 29))
    want = np.array([[_left_to_right(list(v[i, j])) for j in range(4)] for i in range(3)])
    backward = np.array([[_left_to_right(list(v[i, j, ::-1])) for j in range(4)] for i in range(3)])
    assert not np.array_equal(want, backward)
    assert np.array_equal(int8.sum_last(v), want)


def test_exp_is_within_one_unit_of_libm():
    x = -np.random.default_rng(5).random(20000) * 16
    x = np.concatenate([x, [0.0, -0.0, -1e-300, -math.log(2), -0.5 * math.log(2), -16.0]])
    got = int8.exp(x)
    want = np.array([math.exp(t) for t in x])
    assert np.all(np.abs(got - want) <= np.spacing(want))
    assert int8.exp(np.array([-np.inf]))[0] == 0.0 and int8.exp(np.array([0.0]))[0] == 1.0
    # elementwise: a value's bits do not depend on its neighbours or the array's shape
    assert np.array_equal(int8.exp(x[::-1])[::-1], got)
    assert np.array_equal(int8.exp(x[:1000].reshape(10, 100)).ravel(), got[:1000])
