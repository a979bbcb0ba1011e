"""Colliding-program hooks that op modules of tb/stimulus/ops share, made for an op by
name: the drawer of a colliding instruction and the one-word edges' producer and
consumers (tb/stimulus/collide.py calls them) of

  two_operand(op)     an element-wise op of dst, src, len, src2: the drawer
                      aims src or src2 and may lay dst over src; the consumers read the
                      word as src and as src2
  requant(op, ...)    a requantizing op of dst, src, len, m, s: the drawer may
                      lay dst over src (either way), m and s drawn as rand_ms draws them;
                      and its n-word edges (tb/stimulus/edges.py: edges_n)

Why here: the op modules' copies differed in the op's name and constants only, and
tb/stimulus/ops holds op modules alone (its package imports every module it holds); like
every generic stimulus file this one names no op (the op modules pass theirs).
"""
from model import isa


def two_operand(op):
    """(collide_make, edge_producers, edge_consumers) of op (see the module docstring)."""
    def collide_make(rng, cfg, _op, n, src, dst, long_, side, target, window):
        from tb.stimulus.collide import _clip, _near
        src2 = _near(rng, n, None, window)
        if side == "r" and rng.random() < 0.5:           # aim src2 instead of src
            src, src2 = src2, src
        if side is None and rng.random() < 0.2:          # dst overlapping src
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        return isa.build(op, cfg=cfg, dst=dst, src=src, len=n, src2=src2)

    def edge_producers(b, at):
        return [(op, b(op, dst=at + 50, src=at, len=24, src2=at + 25))]

    def edge_consumers(b, _op, word, side, at):
        o1, o2 = at + 121, at + 122
        if side == "r":
            return [b(op, dst=o1, src=word, len=1, src2=o2), b(op, dst=o1, src=o2, len=1, src2=word)]
        return [b(op, dst=word, src=o1, len=1, src2=o2)]
    return collide_make, edge_producers, edge_consumers


def requant(op, s_producer, s_consumer, other):
    """(collide_make, edge_producers, edge_consumers, edges_n) of op (see the module
    docstring): the producer writes 24 words with m = 20000 and s_producer, a consumer
    reads or writes the word with m = 30000 and s_consumer, its other end at at + other;
    edges_n puts n words at the scratchpad's end, and one past it."""
    def collide_make(rng, cfg, _op, n, src, dst, long_, side, target, window):
        from tb.stimulus.collide import _clip
        from tb.stimulus.randops import rand_ms
        if side is None and rng.random() < 0.2:          # src/dst overlapping, either way
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        m, s = rand_ms(rng)
        return isa.build(op, cfg=cfg, dst=dst, src=src, len=n, m=m, s=s)

    def edge_producers(b, at):
        return [(op, b(op, dst=at + 25, src=at, len=24, m=20000, s=s_producer))]

    def edge_consumers(b, _op, word, side, at):
        o = at + other
        if side == "r":
            return [b(op, dst=o, src=word, len=1, m=30000, s=s_consumer)]
        return [b(op, dst=word, src=o, len=1, m=30000, s=s_consumer)]

    def edges_n(v, x, n, SP, EXT):
        v(op, dst=SP - n, src=SP - 2 * n, len=n, m=20000, s=14)
        v(op, dst=SP - 2 * n, src=SP - n, len=n, m=20000, s=14)
        x(f"{op} src {n}", op, dst=0, src=SP - n + 1, len=n, m=1, s=0)
        x(f"{op} dst {n}", op, dst=SP - n + 1, src=0, len=n, m=1, s=0)
    return collide_make, edge_producers, edge_consumers, edges_n
