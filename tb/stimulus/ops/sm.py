"""SM's directed programs (tb/stimulus/ops/__init__.py lists the hooks): every length
class, all-equal and extreme inputs, vectors at the divider's edges, its faults and decode
edges, the classic self-contained program (LD, MM, RQ, SM, ST) and the resets cut in it,
the wide chip's long softmax."""
import functools
import random

import numpy as np

from model import isa
from tb.stimulus.suitecfg import CFG, RANDOM_SEED

OPS = ("SM",)
COLLIDE = "sm"           # in the colliding programs drawn with_sm (collide.py)
COLLIDE_LEN = 64         # its length in a colliding program: 1..64
EDGE_GROUP = 0           # its boundary edges chained with LD's and ST's
REGION_WEIGHT = 1


# ------------------------------------------------------------------ hand programs
def hand_programs(B, R, rng, img):
    H = B("HALT")
    sm = [B("LD", dst=0, src=0, len=512)]
    for n, src in ((1, 0), (2, 3), (7, 10), (16, 40), (63, 100), (64, 200), (64, 300)):
        sm.append(B("SM", dst=1000 + 70 * (n % 13) + src, src=src, len=n))
    sm += [B("SM", dst=5, src=0, len=64),       # overlapping: reads all before writes
           B("ST", src=0, dst=0, len=2048), H]
    small = [rng.randrange(-128, 128) for _ in range(64)]
    sm_eq = [5] * 64                            # all equal
    sm_ext = [127, -128] * 32                   # extremes
    edges = [B("LD", dst=0, src=0, len=64), B("SM", dst=100, src=0, len=64),
             B("LD", dst=200, src=64, len=64), B("SM", dst=300, src=200, len=64),
             B("LD", dst=400, src=128, len=64), B("SM", dst=500, src=400, len=64),
             B("ST", src=0, dst=0, len=600), H]
    return [("sm", sm, img), ("sm_edges", edges, small + sm_eq + sm_ext)]


def hand_faults(B, R, ld, H, img):
    return [("err4_sm65", [R("SM", dst=0, src=0, len=65), H], img),
            ("err4_beats_range", [R("SM", dst=65535, src=65535, len=0), H], img),
            ("err2_sm_src", [R("SM", dst=0, src=4064, len=33), H], img)]


def isaext(cfg, b, x, img, rng):
    """SM of 65, 256 and 1024 elements (all equal, extremes, random) stored back."""
    H = b("HALT")
    sm = [b("LD", dst=0, src=0, len=1024)]
    vals = [rng.randrange(-128, 128) for _ in range(1024)]
    sm_img = list(img)
    sm_img[0:1024] = vals
    sm_img[2000:2256] = [5] * 256                                # all equal
    sm_img[3000:3065] = [127, -128] * 32 + [127]                  # extremes
    sm += [b("SM", dst=1024, src=0, len=1024), b("ST", src=1024, dst=10000, len=1024),
           b("LD", dst=0, src=2000, len=256), b("SM", dst=300, src=0, len=256),
           b("ST", src=300, dst=12000, len=256),
           b("LD", dst=0, src=3000, len=65), b("SM", dst=100, src=0, len=65),
           b("ST", src=100, dst=13000, len=65),
           b("LD", dst=0, src=4000, len=65), b("SM", dst=200, src=0, len=65),
           b("ST", src=200, dst=14000, len=65), H]
    return [("sm_long", sm, sm_img)]


def bench(B):
    return [B("SM", dst=2200, src=2100, len=16)]


def demo(b):
    return [b("SM", dst=160, src=0, len=16)]


# ------------------------------------------------------------------ the mutation suites
def _softmax_q16(x):
    """softmax_fixed of int8 values, recomputed here from the spec's formula."""
    import math
    mx = max(x)
    e = [int(math.floor(65535 * math.exp(-(mx - v) / 16) + 0.5)) for v in x]
    S = sum(e)
    return e, S


def crafted_programs(seed=RANDOM_SEED):
    """Data that random programs rarely produce, each result stored at once:
    SM inputs whose max is exactly one above the running max (ascending runs), all
    negative, all -128, len 1 and 64, and vectors chosen so that floor(e*65536/S) moves
    when the dividend gains 1 or the sum loses 1; RQ with dst = src + 1 and src + 2 (the
    scratchpad's write-first bypass, docs/isa.md). The search for those vectors takes
    about 1.7 CPU s; it is made once per process and seed (the in-order and the overlap
    suites both hold these programs), each caller getting its own copy."""
    import copy
    return copy.deepcopy(_crafted_programs(seed))


@functools.cache
def _crafted_programs(seed):
    rng = random.Random(seed + 11)
    vecs = [[5], [-128], [127], list(range(0, 16)), list(range(-20, -4)), [10, 11], [3, 4, 5, 6],
            [-100, -90, -95, -120], [-128] * 5, [-128, -127, -128], [50, 20, 49], [-1, -2], [7] * 64, [-128] * 64,
            [rng.randint(-8, 8) for _ in range(64)], [rng.randint(-128, 127) for _ in range(64)]]
    found = {"dividend": 0, "sum": 0}
    while min(found.values()) < 2:
        x = [rng.randint(-60, 60) for _ in range(rng.randint(2, 6))]
        e, S = _softmax_q16(x)
        hit = False
        if found["dividend"] < 2 and any((v * 65536 + 1) // S != (v * 65536) // S for v in e):
            found["dividend"] += 1
            hit = True
        if found["sum"] < 2 and any((v * 65536) // (S - 1) != (v * 65536) // S for v in e):
            found["sum"] += 1
            hit = True
        if hit:
            vecs.append(x)
    img, prog, pos = [], [], 0

    def b(op, **f):
        prog.append(isa.build(op, cfg=CFG, **f))

    for x in vecs:
        img += x
    b("LD", dst=0, src=0, len=len(img))
    for x in vecs:
        b("SM", dst=2000, src=pos, len=len(x))
        b("ST", src=2000, dst=4000 + pos, len=len(x))
        pos += len(x)
    rq_in = [rng.randint(-100, 100) for _ in range(24)]
    img_rq = len(img)
    img += rq_in
    for k, off in enumerate((1, 2, 3)):
        base = 2500 + 100 * k
        b("LD", dst=base, src=img_rq, len=24)
        b("RQ", dst=base + off, src=base, len=20, m=20000, s=14)
        b("ST", src=base, dst=6000 + 40 * k, len=24 + off)
    b("HALT")
    return [("crafted SM/RQ", prog, img)]


def self_contained_program():
    """(prog, image): LD, MM, RQ, SM, ST that reads only scratchpad words it wrote itself,
    so its results do not depend on what an aborted program left in the scratchpad."""
    rng = np.random.default_rng(RANDOM_SEED + 99)
    img = rng.integers(-128, 128, size=64)

    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)

    prog = [b("LD", dst=0, src=0, len=64),
            b("MM", dst=100, A=0, B=16, M=4, K=8, N=4, tb=0, lda=8, ldb=4, ldc=4),
            b("RQ", dst=200, src=100, len=16, m=20000, s=12),
            b("MM", dst=120, A=4, B=32, M=3, K=5, N=2, tb=1, lda=9, ldb=6, ldc=2),
            b("SM", dst=300, src=200, len=6),
            b("ST", src=100, dst=1000, len=26),
            b("ST", src=200, dst=1100, len=16),
            b("ST", src=300, dst=1200, len=6),
            b("HALT")]
    return prog, img


def reset_programs():
    """Reset while busy: the self-contained program cut by rst in the middle of each unit
    (LD, MM, RQ, SM's divide phase) and around each unit's start, each followed by the
    same program run in full. Entries are (label, prog, image, abort_at)."""
    from model import timing
    prog, img = self_contained_program()
    out = []
    for ev in timing.schedule(prog, CFG).events[:5]:
        busy = ev.end - ev.start + 1
        at = ev.issue + (busy * 3) // 4          # three quarters into the unit's busy time
        out.append((f"reset in {ev.op}", prog, img, at))
        out.append((f"after reset in {ev.op}", prog, img))
    # reset around the cycle a unit is started (its DECODE): a reset must win over the
    # start, or the unit runs after the reset
    for ev in timing.schedule(prog, CFG).events[:5:1]:
        if ev.op == "MM" and ev.pc > 1:
            continue
        for at in (ev.issue - 1, ev.issue):         # the cut's reset edge ends cycle at + 1
            out.append((f"reset at the start of {ev.op} ({at})", prog, img, at))
            out.append((f"after reset at the start of {ev.op} ({at})", prog, img))
    return out


def busy(b):
    """The vector unit's share of the overlap suite's busy units."""
    return [b("SM", dst=500, src=520, len=64)]


def edges_n(v, x, n, SP, EXT):
    v("SM", dst=SP - 2 * n, src=SP - n, len=n)
    v("SM", dst=SP - n, src=SP - 2 * n, len=n)
    x(f"SM src {n}", "SM", dst=0, src=SP - n + 1, len=n)
    x(f"SM dst {n}", "SM", dst=SP - n + 1, src=0, len=n)


def edges(v, x, SP, EXT, T):
    x("SM len 0", "SM", len=0, dst=5, src=5)
    x("SM len 65", "SM", dst=0, src=100, len=65)
    x("SM len 8191", "SM", dst=0, src=100, len=8191)
    for n in (1, 20):
        x(f"SM src wrap {n}", "SM", dst=0, src=T - n // 2 - 1, len=n)
        x(f"SM dst wrap {n}", "SM", dst=T - n // 2 - 1, src=0, len=n)
    # lengths whose low 12 bits are a valid length: a shape check on a truncated length
    # would pass them to the range check (a different fault code)
    for n in (4096 + 10, 4096 + 64):
        x(f"SM len {n}", "SM", dst=0, src=100, len=n)


# ------------------------------------------------------------------ colliding programs
def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    return isa.build("SM", cfg=cfg, dst=dst, src=src, len=n)


def edge_producers(b, at):
    return [("SM", b("SM", dst=at + 25, src=at, len=24))]


def edge_consumers(b, op, word, side, at):
    other = at + 126
    if side == "r":
        return [b("SM", dst=other, src=word, len=1)]
    return [b("SM", dst=word, src=other, len=1)]


# ------------------------------------------------------------------ bad programs
def bad_shape(rng):
    """A shape fault, len past its limit: (instruction, the sp range it would have written)."""
    return isa.raw("SM", dst=400, src=64, len=int(rng.choice([65, 100, 8191]))), (400, 64)


def wrap_kinds():
    """badprog.WRAP_KINDS' entries of SM: its ranges past 2^16, its shape first."""
    return [("SM", "src", 16), ("SM", "dst", 16), ("SM", "len", 16)]


# ------------------------------------------------------------------ holes, region programs
def cut(b):
    return [("vec", b("SM", dst=2000, src=0, len=64))]


def hole_programs(cfg):
    return _classes(cfg)


def wide_programs(cfg):
    return _classes(cfg)


def _classes(cfg):
    """[(label, prog)]: one SM per length class of cfg's sm_max_len (a range: its middle),
    stored back."""
    from tb import coverage

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    top = cfg.sm_max_len
    prog = [b("LD", dst=0, src=0, len=min(top, cfg.ext_words))]
    for c in coverage.sm_classes(cfg):
        lo, _, hi = c.partition("..")
        n = (int(lo) + int(hi or lo)) // 2
        prog += [b("SM", dst=2048, src=0, len=n), b("ST", src=2048, dst=n % 1000, len=n)]
    return [("softmax classes", prog + [b("HALT")])]


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, 65)
    prog.append(isa.build("SM", cfg=cfg, dst=addr(n), src=addr(n), len=n))


def region_bad(rng):
    return isa.raw("SM", dst=rng.randrange(0, 4096), src=rng.randrange(3900, 4096), len=rng.randrange(0, 100))
