"""PACK4's and UNPACK4's directed programs (each tests the other by a round trip;
tb/stimulus/ops/__init__.py lists the hooks): their saturation and sign boundaries, every
byte value unpacked, dst over src, the scratchpad's last words, their faults and decode
edges (the 2*len spans), the self-contained program and its resets, the hazards of the
pack4 unit with the dma and the matrix unit, the colliding and region drawers."""
import random

import numpy as np

from model import isa
from tb.stimulus import resets
from tb.stimulus.suitecfg import RANDOM_SEED

OPS = ("PACK4", "UNPACK4")
# the instructions of self_contained_program() the reset programs cut in and around
# (tb/stimulus/resets.py): the self-contained program cut by rst in each of the two and
# around their starts, each followed by the same program run in full.
RESET_CUTS = (1, 3)
LM_STREAM = 5            # its place in the language-model hand programs (its own random stream)
COLLIDE = "lm"
EDGE_GROUP = 2           # their boundary edges chained together
REGION_WEIGHT = 1

# the edge inputs: every saturation boundary of PACK4 (int8 low bytes, upper bits that
# must be ignored) and every byte value for UNPACK4
PACK4_EDGES = [-128, -127, -9, -8, -7, -1, 0, 1, 6, 7, 8, 9, 127, 0x1FF, 0x108, 0xF7, -0x100 + 7,
               0x7FFFFFF8, -(1 << 31), 0x12345607]


def _spans(op, n):
    """(words read, words written) of op with len n: PACK4 reads 2*len, UNPACK4 writes it."""
    return (2 * n, n) if op == "PACK4" else (n, 2 * n)


def lm_programs(B, R, rng):
    """Both at their saturation and sign boundaries, every byte value unpacked, a round
    trip, dst over src ahead, behind and in place, the scratchpad's last words, and every
    DECODE fault of the two (len 0, src / dst past the scratchpad with the 2*len spans)."""
    rng = random.Random(11)
    H = B("HALT")
    img = list(PACK4_EDGES) + [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(44)]       # 64 words
    img += list(range(256)) + [0xFFFFFF00 - (1 << 32), 0x12345678, -1]                  # 259 words
    img += [rng.randrange(-128, 128) for _ in range(4096 - len(img))]
    edges = [B("LD", dst=0, src=0, len=64), B("PACK4", dst=200, src=0, len=32),
             B("UNPACK4", dst=300, src=200, len=32),                 # = sat4 of the inputs
             B("LD", dst=1000, src=64, len=259), B("UNPACK4", dst=1500, src=1000, len=259),
             B("PACK4", dst=2100, src=1500, len=259),                # packs them back
             B("PACK4", dst=4094, src=4090, len=2), B("UNPACK4", dst=4092, src=4094, len=2),
             B("ST", src=0, dst=0, len=2400), B("ST", src=4000, dst=2400, len=96), H]
    over = [B("LD", dst=0, src=400, len=600)]
    for k, shift in enumerate((-9, -4, -1, 0, 1, 2, 3, 7, 8, 9)):
        base = 20 + 40 * k
        over += [B("PACK4", dst=base + shift, src=base, len=8)]
    for k, shift in enumerate((-9, -4, -1, 0, 1, 2, 3, 7, 8, 9)):
        base = 500 + 40 * k
        over += [B("UNPACK4", dst=base + shift, src=base, len=8)]
    over += [B("ST", src=0, dst=0, len=1000), H]
    whole = [B("LD", dst=0, src=0, len=4096), B("PACK4", dst=0, src=0, len=2048),   # len = SP / 2
             B("ST", src=0, dst=0, len=2048), B("LD", dst=2048, src=0, len=2048),
             B("UNPACK4", dst=0, src=2048, len=2048), B("ST", src=0, dst=0, len=4096), H]
    return [("pack4_edges", edges, img), ("pack4_overlap", over, img), ("pack4_whole", whole, img),
            ("err4_pack4_len0", [R("PACK4", dst=0, src=0, len=0), H], img),
            ("err4_unpack4_len0", [R("UNPACK4", dst=0, src=0, len=0), H], img),
            ("err4_pack4_beats_range", [R("PACK4", dst=65535, src=65535, len=0), H], img),
            ("err2_pack4_src", [R("PACK4", dst=0, src=4096 - 8, len=5), H], img),     # 2*len past
            ("err2_pack4_dst", [R("PACK4", dst=4096 - 4, src=0, len=5), H], img),
            ("err2_unpack4_src", [R("UNPACK4", dst=0, src=4096 - 4, len=5), H], img),
            ("err2_unpack4_dst", [R("UNPACK4", dst=4096 - 8, src=0, len=5), H], img),  # 2*len past
            ("err2_unpack4_src_first", [R("UNPACK4", dst=5000, src=5000, len=1), H], img),
            ("ok_pack4_top", [R("PACK4", dst=4092, src=4088, len=4), R("UNPACK4", dst=4088, src=4092, len=4),
                              B("ST", src=4080, dst=0, len=16), H], img)]


# ------------------------------------------------------------------ the mutation suites
def self_contained_program():
    """(prog, image): PACK4 and UNPACK4 reading only scratchpad words the program wrote
    itself: LD, PACK4, UNPACK4 of its result, ST."""
    rng = np.random.default_rng(RANDOM_SEED + 99)
    img = rng.integers(-128, 128, size=64)
    return resets.program(("PACK4", dict(dst=100, src=0, len=32)),
                          ("UNPACK4", dict(dst=200, src=100, len=32)),
                          ("ST", dict(src=100, dst=1000, len=164))), img



def edges_n(v, x, n, SP, EXT):
    v("PACK4", dst=SP - 3 * n, src=SP - 2 * n, len=n)
    v("PACK4", dst=SP - n, src=SP - 3 * n, len=n)
    v("UNPACK4", dst=SP - 3 * n, src=SP - n, len=n)
    v("UNPACK4", dst=SP - 2 * n, src=SP - 3 * n, len=n)
    x(f"PACK4 src {n}", "PACK4", dst=0, src=SP - 2 * n + 1, len=n)
    x(f"PACK4 dst {n}", "PACK4", dst=SP - n + 1, src=0, len=n)
    x(f"UNPACK4 src {n}", "UNPACK4", dst=0, src=SP - n + 1, len=n)
    x(f"UNPACK4 dst {n}", "UNPACK4", dst=SP - 2 * n + 1, src=0, len=n)


def edges(v, x, SP, EXT, T):
    v("PACK4", dst=0, src=0, len=SP // 2)        # the whole scratchpad: len's top bit
    v("UNPACK4", dst=0, src=SP // 2, len=SP // 2)
    for op in OPS:
        x(f"{op} len 0", op, dst=5, src=5, len=0)
        x(f"{op} len 0 + sp", op, dst=SP - 1, src=SP - 1, len=0)
    for n in (1, 20):                             # range sums just past 2^16 (2*len too)
        x(f"PACK4 src wrap {n}", "PACK4", dst=0, src=T - n - 1, len=n)
        x(f"PACK4 dst wrap {n}", "PACK4", dst=T - n // 2 - 1, src=0, len=n)
        x(f"UNPACK4 src wrap {n}", "UNPACK4", dst=0, src=T - n // 2 - 1, len=n)
        x(f"UNPACK4 dst wrap {n}", "UNPACK4", dst=T - n - 1, src=0, len=n)
    x("PACK4 len 4096", "PACK4", dst=0, src=0, len=4096)        # 2*len = 8192: past, and bit 13


# ------------------------------------------------------------------ colliding programs
def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    """Read and write spans differ: 2*len and len."""
    from tb.stimulus.collide import _near
    n = min(n, 40)
    rd, wr = _spans(op, n)
    src = _near(rng, rd, target if side == "r" else None, window)
    dst = _near(rng, wr, target if side == "w" else None, window)
    return isa.build(op, cfg=cfg, dst=dst, src=src, len=n)


def edge_producers(b, at):
    return [("PACK4", b("PACK4", dst=at + 48, src=at, len=12)),        # reads 24, writes 12
            ("UNPACK4", b("UNPACK4", dst=at + 24, src=at, len=12))]    # reads 12, writes 24


def edge_consumers(b, op, word, side, at):
    """One word exactly: UNPACK4 len 1 reads it, PACK4 len 1 writes it."""
    o1 = at + 121
    if side == "r":
        return [b("UNPACK4", dst=o1, src=word, len=1)]
    return [b("PACK4", dst=word, src=o1, len=1)]


# ------------------------------------------------------------------ holes, region programs
def cut(b):
    from tb import coverage
    return [(coverage.PK_UNIT, b("UNPACK4", dst=2000, src=0, len=200))]


def hole_programs(cfg):
    """[(label, prog)]: for every hazard kind and every pair of the pack4 unit with the dma
    and the matrix unit (either one busy, the other's instruction decoding), two
    instructions whose ranges meet in exactly that kind (PACK4 and UNPACK4 in turn)."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    a = 1000                                          # the shared words
    far = 3000                                        # everything else

    def pk(op, rd=None, wr=None):                    # reading rd, writing wr
        return b(op, dst=a if wr else far, src=a if rd else far + 200, len=8)

    def mm(rd=None, wr=None, k=40):
        return b("MM", dst=a if wr else far + 400, A=a if rd else far + 600, B=far + 800, M=4, K=k,
                 N=4, tb=1, lda=k, ldb=k, ldc=4)

    def ld(n=40):  # writes a
        return b("LD", dst=a, src=0, len=n)

    def st(n=40):  # reads a
        return b("ST", src=a, dst=0, len=n)
    P, U = OPS
    pairs = {("dma", "RAW"): [ld(), pk(P, rd=1)], ("dma", "WAR"): [st(), pk(U, wr=1)],
             ("dma", "WAW"): [ld(), pk(P, wr=1)],
             ("mm", "RAW"): [mm(wr=1), pk(U, rd=1)], ("mm", "WAR"): [mm(rd=1), pk(P, wr=1)],
             ("mm", "WAW"): [mm(wr=1), pk(U, wr=1)],
             ("to_dma", "RAW"): [pk(U, wr=1), st(4)], ("to_dma", "WAR"): [pk(P, rd=1), ld(4)],
             ("to_dma", "WAW"): [pk(U, wr=1), ld(4)],
             ("to_mm", "RAW"): [pk(P, wr=1), mm(rd=1, k=4)],
             ("to_mm", "WAR"): [pk(U, rd=1), mm(wr=1, k=4)],
             ("to_mm", "WAW"): [pk(P, wr=1), mm(wr=1, k=4)]}
    out = []
    for (pair, kind), two in pairs.items():
        out.append((f"pack4 hazard {kind} {pair}", [b("LD", dst=0, src=0, len=64)] + two +
                    [b("ST", src=a, dst=100, len=16), b("HALT")]))
    return out


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, 60)
    rd, wr = _spans(op, n)
    src = addr(rd)
    dst = rng.choice([addr(wr), max(0, src + rng.randrange(-3, 4))])
    prog.append(isa.build(op, cfg=cfg, dst=dst, src=src, len=n))
