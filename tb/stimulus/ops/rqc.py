"""RQC's directed programs (tb/stimulus/ops/__init__.py lists the hooks): its hand
programs at its edges (every shift path, F = +-1, ties, saturation, dst over each source,
M = 255, a column pointer past 2048, every DECODE fault), its self-contained program and
its resets, and the colliding programs' drawer and one-word edges (each of its three read
ranges: src, row scales, column scales)."""
import random

import numpy as np

from model import isa
from tb.stimulus import resets
from tb.stimulus.suitecfg import RANDOM_SEED

OPS = ("RQC",)
# the instructions of self_contained_program() the reset programs cut in and around
# (tb/stimulus/resets.py): the self-contained program cut by rst in the middle of RQC
# and around its start, each followed by the same program run in full.
RESET_CUTS = (1, 2)
LM_STREAM = 6            # its place in the language-model hand programs (its own random stream)
COLLIDE = "lm"


# ------------------------------------------------------------------ hand programs
# RQC's edge operands: accs at the int32 ends, small odd / even values (rounding ties), and
# mantissas 0, 1..3 (unnormalized: F = +-1, +-2), the normalized ends and the middle
RQC_ACCS = [0, 1, -1, 2, -2, 3, -3, 5, -5, (1 << 31) - 1, -(1 << 31), -(1 << 31) + 1, 1 << 30, -(1 << 30),
            (1 << 30) + 1, -(1 << 30) - 1, 0x7FFF0000, -0x7FFF0000, 65535, -65536]
RQC_MS = [0, 1, 2, 3, 1 << 15, (1 << 15) + 1, (1 << 16) - 1, 0xC000, 0xB505]
# the shifts k = sh - 1 = 29 - q - e_r - e_c the unit's paths turn on: the left shifts and
# their clamp at -32, 0, the rounding ones, the clamp at 63
RQC_KS = list(range(-40, 70)) + [-256, -200, -128, -64, -34, 100, 127, 200, 285]


def _rqc_word(m, e):
    """A scale word (model/wide.py) with the high byte set (bits 31:24 are ignored)."""
    return (m | ((e & 0xFF) << 16) | (0xA5 << 24)) - (1 << 32)


def lm_programs(B, R, rng):
    """(name, program, image) for RQC on the hand programs' chip: every shift k of its
    paths (left shifts, the clamps at -32 and 63, rounding ties) with the int32 ends, F =
    +-1 from unnormalized mantissas, zeros and saturation both ways (rqc_edges: groups of
    one row scale and q, each element its own column scale and acc; the same words as
    4-row tiles; the decisive shifts row by row, up to 285, in columns of at most 160 rows
    under a mantissa-1 and a full column scale); dst over each source ahead, behind and in
    place, ld = 0, rstride = 0 and strided rows (rqc_overlap); the row counter's top bit
    (M = 255), a
    column pointer past 2048 and ranges ending on the scratchpad's last word (rqc_whole);
    every DECODE fault (M or N 0, each range past the scratchpad, the shape fault first)."""
    rng = random.Random(37)                        # its own stream (written after the others)
    H = B("HALT")
    n, ng = 24, 30                                 # elements per group (one RQC, M = 1), groups
    accs, rows, cols, qs = [], [], [], []
    for _ in range(ng):
        q = rng.choice((0, 12, 12, 31, rng.randrange(32)))
        er = rng.randrange(-100, 100)
        rows.append(_rqc_word(rng.choice(RQC_MS + [rng.randrange(1 << 16)]), er))
        qs.append(q)
        for _ in range(n):
            k = rng.choice(RQC_KS)
            ec = 29 - q - er - k
            ec = ec if -128 <= ec <= 127 else rng.randrange(-128, 128)
            cols.append(_rqc_word(rng.choice(RQC_MS + [rng.randrange(1 << 15, 1 << 16)]), ec))
            accs.append(rng.choice(RQC_ACCS + [rng.randrange(-(1 << 31), 1 << 31), rng.randrange(-9, 10)]))
    # the decisive shifts, one row each, q 0: block A under column words of exponent 0
    # (e_r = 29 - k), block B, the shifts past 255 (k's bit 8), under exponent -128
    blocks = []
    for e_c, ks in ((0, (-100, -34, -33, -32, -31, -2, -1, 0, 1, 2, 30, 31, 32, 33, 61, 62, 63, 64, 65, 100)),
                    (-128, (150, 200, 255, 256, 257, 270, 285))):
        bacc, brow = [], []
        for k in ks:
            for a in (1, -1, 2, -2, 3, (1 << 31) - 1, -(1 << 31), -(1 << 30)):
                for mr in (1, (1 << 16) - 1):
                    bacc.append(a)
                    brow.append(_rqc_word(mr, 29 - k - e_c))
        blocks.append((bacc, brow, [_rqc_word(1, e_c), _rqc_word((1 << 16) - 1, e_c)]))
    dacc = [a for b in blocks for a in b[0]]
    drow = [w for b in blocks for w in b[1]]
    # sp: accs at 0, column words at CW, row words at RW, the decisive accs and row words
    # at DA / DR, their column words at DC; results from OUT
    cw, rw = ng * n, 2 * ng * n
    da, dr = rw + ng, rw + ng + len(dacc)
    dc = dr + len(drow)
    out = 3000
    img = accs + cols + rows + dacc + drow + [w for b in blocks for w in b[2]]
    img += [rng.randrange(-(1 << 31), 1 << 31) for _ in range(4096 - len(img))]
    edges = [B("LD", dst=0, src=0, len=dc + 2 * len(blocks))]
    for g in range(ng):
        edges += [B("RQC", dst=out + (g % 15) * n, src=g * n, M=1, N=n, ld=0, rsc=rw + g, rstride=0,
                    csc=cw + g * n, q=qs[g])]
        if g % 15 == 14:
            edges += [B("ST", src=out, dst=(g // 15) * 15 * n, len=15 * n)]
    for g in range(0, ng - 3, 4):                  # 4-row tiles: each row its own scale, q 12
        edges += [B("RQC", dst=out + (g // 4) * 4 * n, src=g * n, M=4, N=n, ld=n, rsc=rw + g, rstride=1,
                    csc=cw + g * n)]
    edges += [B("ST", src=out, dst=1000, len=(ng // 4) * 4 * n)]
    at, o = 0, 0                                   # each decisive row under both its column words
    for bi, (bacc, _, _) in enumerate(blocks):
        for c in (0, 1):
            for h in range(0, len(bacc), 160):     # columns of at most 160 rows
                rows_h = min(160, len(bacc) - h)
                edges += [B("RQC", dst=out + o, src=da + at + h, M=rows_h, N=1, ld=1, rsc=dr + at + h,
                            rstride=1, csc=dc + 2 * bi + c, q=0)]
                o += rows_h
        at += len(bacc)
    edges += [B("ST", src=out, dst=2000, len=o), H]
    over = [B("LD", dst=0, src=0, len=600)]
    for k, (dst, src, rsc, csc, m, nn, ld, rstride) in enumerate((
            (1, 0, -10, 20, 3, 5, 5, 1), (-1, 0, 30, 40, 3, 5, 6, 2), (0, 0, -10, -20, 2, 7, 7, 1),
            (-5, 0, -10, -3, 2, 4, 4, 0), (10, 0, 11, 20, 3, 4, 0, 1), (-10, 0, -8, -9, 4, 3, 3, 3),
            (0, 0, 2, 1, 3, 6, 6, 6), (10, 0, 10, 20, 1, 12, 0, 0))):
        base = 30 + 70 * k
        over += [B("RQC", dst=base + dst, src=base + src, M=m, N=nn, ld=ld, rsc=base + rsc, rstride=rstride,
                   csc=base + csc, q=rng.randrange(32))]
    over += [B("ST", src=0, dst=0, len=600), H]
    whole = [B("LD", dst=0, src=0, len=2300), B("LD", dst=3400, src=3400, len=696),
             B("RQC", dst=3000, src=0, M=255, N=1, ld=1, rsc=300, rstride=1, csc=600),
             B("RQC", dst=3500, src=1000, M=130, N=2, ld=3, rsc=4095 - 129 * 5, rstride=5, csc=4094),
             B("RQC", dst=3796, src=2000, M=1, N=300, ld=0, rsc=4095, rstride=0, csc=1900, q=20),
             B("RQC", dst=3460, src=2010, M=20, N=2, ld=9, rsc=2100, rstride=7, csc=2290, q=3),
             B("ST", src=3000, dst=0, len=1096), H]
    wimg = [rng.choice(RQC_ACCS + [rng.randrange(-(1 << 31), 1 << 31)]) if i % 2 else
            _rqc_word(rng.randrange(1 << 15, 1 << 16), rng.randrange(-25, 10)) for i in range(4096)]
    ok = dict(dst=0, src=0, M=2, N=3, ld=3, rsc=10, rstride=1, csc=20)
    return [("rqc_edges", edges, img), ("rqc_overlap", over, wimg), ("rqc_whole", whole, wimg),
            ("err4_rqc_M0", [R("RQC", **{**ok, "M": 0}, q=12), H], img),
            ("err4_rqc_N0", [R("RQC", **{**ok, "N": 0}, q=12), H], img),
            ("err4_rqc_beats_range", [R("RQC", **{**ok, "N": 0, "dst": 65535, "src": 65535}, q=12), H], img),
            ("err2_rqc_src", [R("RQC", **{**ok, "src": 4096 - 5}, q=12), H], img),        # (M-1)*ld + N
            ("err2_rqc_rsc", [R("RQC", **{**ok, "rsc": 4095, "rstride": 1}, q=12), H], img),
            ("err2_rqc_csc", [R("RQC", **{**ok, "csc": 4096 - 2}, q=12), H], img),
            ("err2_rqc_dst", [R("RQC", **{**ok, "dst": 4096 - 5}, q=12), H], img)]


# ------------------------------------------------------------------ the mutation suites
def self_contained_program():
    """(prog, image): RQC reading only scratchpad words the program wrote itself: LD of
    its accs and scale words, RQC, ST."""
    rng = np.random.default_rng(RANDOM_SEED + 98)
    img = rng.integers(-(1 << 31), 1 << 31, size=64)
    return resets.program(("RQC", dict(dst=100, src=0, M=3, N=8, ld=9, rsc=40, rstride=2, csc=50, q=12)),
                          ("ST", dict(src=100, dst=1000, len=24))), img



# ------------------------------------------------------------------ colliding programs
def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    """Three read ranges: aim one of them (or dst); every span inside a window."""
    from tb.stimulus.collide import _near
    m, nn = int(rng.integers(1, 5)), max(1, min(n, 16))
    ld, rstride = nn + int(rng.integers(0, 3)), int(rng.integers(0, 3))
    spans = {"src": (m - 1) * ld + nn, "rsc": (m - 1) * rstride + 1, "csc": nn, "dst": m * nn}
    aim = "dst" if side == "w" else ("src", "rsc", "csc")[int(rng.integers(0, 3))] if side == "r" else None
    f = {k: _near(rng, v, target if k == aim else None, window) for k, v in spans.items()}
    return isa.build("RQC", cfg=cfg, M=m, N=nn, ld=ld, rstride=rstride, q=int(rng.integers(0, 32)), **f)


def edge_producers(b, at):
    """Three reads: src at..+23, row scales at+24, +26, +28, column scales at+30..+37."""
    return [("RQC", b("RQC", dst=at + 48, src=at, M=3, N=8, ld=8, rsc=at + 25, rstride=2, csc=at + 31))]


def edge_consumers(b, op, word, side, at):
    """Reads the word as src, as a row scale and as a column scale; writes it as dst."""
    o1, o2 = at + 121, at + 122
    if side == "r":
        return [b("RQC", dst=o1, src=word, M=1, N=1, ld=0, rsc=o2, rstride=0, csc=o2),
                b("RQC", dst=o1, src=o2, M=1, N=1, ld=0, rsc=word, rstride=0, csc=o2),
                b("RQC", dst=o1, src=o2, M=1, N=1, ld=0, rsc=o2, rstride=0, csc=word)]
    return [b("RQC", dst=word, src=o1, M=1, N=1, ld=0, rsc=o2, rstride=0, csc=o2)]
