"""The float model's backward pass is the derivative of its loss (central differences),
with the attention-score clamp both inside and beyond its range, multi-head and with one
KV head shared by both query heads (grouped-query attention)."""
import numpy as np
import pytest

from tools.lm import model as M


@pytest.mark.parametrize("kv_heads", [0, 1], ids=["multi-head", "multi-query"])
def test_backward_is_the_derivative_of_the_loss(kv_heads):
    cfg = M.Config(vocab=12, ctx=8, mlp=16, kv_heads=kv_heads)
    rng = np.random.default_rng(0)
    p = {n: v + rng.normal(0, 0.3, v.shape) for n, v in M.init(cfg, 0).items()}
    for n in ("h0.wq", "h0.wk", "h1.wq", "h1.wk"):
        p[n] *= 2.5                     # some scores beyond the clamp, some inside
    X, Y = rng.integers(0, 12, (3, 7)), rng.integers(0, 12, (3, 7))
    mask = rng.random((3, 7)) < 0.7
    _, c = M.forward(p, cfg, X, keep=True)
    assert 0.02 < np.mean(c[0][-1]) < 0.98          # the clamp is exercised
    _, g = M.loss_and_grad(p, cfg, X, Y, mask)
    h = 1e-6
    for n in M.names(cfg):
        for _ in range(4):
            idx = tuple(int(rng.integers(0, s)) for s in p[n].shape)
            old = p[n][idx]
            p[n][idx] = old + h
            up = M.cross_entropy(M.forward(p, cfg, X), Y, mask)
            p[n][idx] = old - h
            down = M.cross_entropy(M.forward(p, cfg, X), Y, mask)
            p[n][idx] = old
            num = (up - down) / (2 * h)
            assert abs(num - g[n][idx]) <= 1e-8 + 1e-4 * abs(num), (n, idx, num, g[n][idx])
