"""The demo programs: a small fixed set that touches every op, and the demo run's set.

demo_programs(cfg) is two programs (LD, MM in both layouts, the vector ops' of
tb/stimulus/ops/ (hook demo), ST; then loads and stores of the first one's results)
that `python -m tb.hw` and the co-simulation tests run first; demo_set() adds one bad
program per error code with its follow-up and 20 seeded random programs (`python -m tb.demo`).
"""
import numpy as np

from model import config, isa
from tb.stimulus import badprog, ops, randprog


def demo_programs(cfg=None):
    """A small fixed set of programs (LD, MM both layouts, the demo ops, ST)."""
    cfg = config.resolve(cfg)
    ext = cfg.ext_words
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    rng = np.random.default_rng(7)
    image = rng.integers(-128, 128, size=min(ext, 256))
    p1 = [b("LD", dst=0, src=0, len=64),
          b("MM", dst=100, A=0, B=16, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4),
          b("MM", dst=120, A=0, B=16, M=3, K=4, N=2, tb=1, lda=4, ldb=4, ldc=2),
          *ops.call("demo", b),
          b("ST", src=100, dst=min(ext - 64, 300), len=64),
          b("HALT")]
    p2 = [b("LD", dst=200, src=0, len=8), b("ST", src=200, dst=0, len=8),
          b("ST", src=160, dst=8, len=16), b("HALT")]
    return [(p1, image), (p2, image)]


def demo_set():
    """[(prog, image)]: demo_programs(), one bad program per error code each followed by
    its follow-up, and 20 seeded random programs (config.DEFAULT)."""
    pairs = list(demo_programs())
    for code in (1, 2, 3, 4, 5):
        bad = badprog.bad_program(code, code)
        pairs += [(bad.prog, bad.image), badprog.follow_up(bad)]
    pairs += randprog.random_programs(2024, 20)
    return pairs
