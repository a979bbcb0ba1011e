"""ROPE's directed programs (tb/stimulus/ops/__init__.py lists the hooks): its hand
programs at its edges (the real model's int32 Q12 op), each storing what it computed --
  rope_rows       LDX picks rows of rope.rope_table() (positions POSITIONS: 0, 1, 2, 1000,
                  4097, 8191) by a position word; 12 heads of 32 pairs rotated by each
  rope_edges      cos / sin at +-2^14, the 16-bit ends (both -2^15: x c = 2^46, the sum
                  2^47), upper bits that must be ignored; x at the int32 ends (saturation
                  both ways), rounding ties; pairs 1, 2, 31, 32
  rope_overlap    dst over src ahead by 1, 2, 3, behind, in place, over the cos/sin row
  rope_heads      heads 255 of 1 pair and 128 of 16 (the whole scratchpad in place: the
                  head counter's top bit)
-- and every DECODE fault (shape 4, each range 2); its self-contained program and its
resets; the colliding programs' drawer (its second read range, the cos/sin row, aimed at
too) and one-word edges (a pair, the cos/sin row, dst)."""
import random

import numpy as np

from model import isa
from model.ops import rope as record
from tb.stimulus import resets
from tb.stimulus.suitecfg import RANDOM_SEED

OPS = ("ROPE",)
# the instructions of self_contained_program() the reset programs cut in and around
# (tb/stimulus/resets.py): the self-contained program cut by rst in the middle of ROPE
# and around its start, each followed by the same program run in full.
RESET_CUTS = (1, 2)
LM_STREAM = 8            # its place in the language-model hand programs (its own random stream)
COLLIDE = "lm"

Q = 1 << 12
I32 = (-(1 << 31), (1 << 31) - 1)
POSITIONS = (0, 1, 2, 1000, 4097, 8191)      # rope_rows' positions (tests hold them to the float rotation)


# ------------------------------------------------------------------ hand programs
def _rows(B, rng):
    at = 3400                                                 # a 6-row table, then the positions
    rows = [record.rope_table()[p].tolist() for p in POSITIONS]
    x = [rng.choice([rng.randrange(-(1 << 24), 1 << 24), rng.randrange(-64 * Q, 64 * Q)]) for _ in range(768)]
    img = x + [0] * (at - 768) + [w for r in rows for w in r] + list(range(len(POSITIONS)))
    n = len(POSITIONS)
    prog = [B("LD", dst=0, src=0, len=768), B("LD", dst=4000, src=at + 64 * n, len=n)]
    for k in range(n):
        prog += [B("LDX", dst=3000, src=at, len=64, idx=4000 + k, rows=n),
                 B("ROPE", dst=1000, src=0, pairs=32, cs=3000, heads=6), B("ST", src=1000, dst=384 * k, len=384)]
    prog += [B("ROPE", dst=0, src=0, pairs=32, cs=3000, heads=12), B("ST", src=0, dst=384 * n, len=768), B("HALT")]
    return prog, img


def _edges(B, rng):
    cs = [16384, 0, 0, 16384, -16384, 0, 0, -16384, 0x7FFF, -0x8000, -0x8000, 0x7FFF, 0x18000, 0x12340000 | 0x4000,
          -(1 << 31), 0x7FFF0001, 8192, 8192, -8192, 8192, 0x8000, 0x18000] + \
         [rng.randrange(-(1 << 31), 1 << 31) for _ in range(18)] + \
         [rng.randrange(-16384, 16385) for _ in range(24)]                                         # 64 words
    x = [I32[0], I32[1], I32[1], I32[1], I32[0], I32[0], 3, 0, -3, 0, 1, 1, -1, -1, 2, -2, 5, 7, I32[1], I32[0]]
    x += [rng.choice([rng.randrange(-(1 << 31), 1 << 31), rng.randrange(-Q * 99, Q * 99)]) for _ in range(300 - len(x))]
    img = cs + x
    prog = [B("LD", dst=0, src=0, len=len(img))]
    out = 400
    for pairs, heads, src in ((1, 1, 64), (1, 4, 66), (2, 3, 64), (10, 1, 64), (31, 2, 70), (32, 3, 100),
                              (32, 1, 64), (3, 5, 80)):
        for cs0 in (0, 2, 20):
            if cs0 + 2 * pairs > 64:
                continue
            prog.append(B("ROPE", dst=out, src=src, pairs=pairs, cs=cs0, heads=heads))
            out += 2 * pairs * heads
    prog += [B("ST", src=400, dst=0, len=out - 400),
             B("LD", dst=4094, src=0, len=2), B("LD", dst=4092, src=64, len=2),   # the scratchpad's top
             B("ROPE", dst=4092, src=4092, pairs=1, cs=4094, heads=1), B("ST", src=4092, dst=out, len=4), B("HALT")]
    return prog, img


def _overlap(B, rng):
    img = [rng.randrange(-16384, 16385) for _ in range(16)] + [rng.randrange(-(1 << 22), 1 << 22) for _ in range(400)]
    prog, out = [], 0
    for k, dst in enumerate((101, 102, 103, 99, 100, 40, 44, 47, 30)):     # src 100, cos/sin at 40
        prog += [B("LD", dst=40, src=0, len=16), B("LD", dst=100, src=16 + 30 * k, len=48),
                 B("ROPE", dst=dst, src=100, pairs=8, cs=40, heads=3), B("ST", src=30, dst=out, len=130)]
        out += 130
    prog.append(B("HALT"))
    return prog, img


def _heads(B, rng):
    img = [rng.randrange(-16384, 16385) for _ in range(32)] + [rng.randrange(-(1 << 24), 1 << 24)
                                                                for _ in range(4096 - 32)]
    prog = [B("LD", dst=0, src=0, len=4096), B("ROPE", dst=1000, src=100, pairs=1, cs=0, heads=255),
            B("ST", src=1000, dst=0, len=510), B("ROPE", dst=0, src=0, pairs=16, cs=10, heads=128),
            B("ST", src=0, dst=510, len=3586), B("HALT")]
    return prog, img


def lm_programs(B, R, rng):
    """(name, program, image) of the module docstring on the hand programs' chip, then
    its DECODE faults."""
    rng = random.Random(1919)                      # its own stream
    H = B("HALT")
    out = [(name, *make(B, rng)) for name, make in (("rope_rows", _rows), ("rope_edges", _edges),
                                                    ("rope_overlap", _overlap), ("rope_heads", _heads))]
    img = [1] * 64
    return out + [("err4_rope_pairs0", [R("ROPE", dst=0, src=0, pairs=0, cs=0, heads=1), H], img),
                  ("err4_rope_pairs33", [R("ROPE", dst=0, src=0, pairs=33, cs=0, heads=1), H], img),
                  ("err4_rope_heads0", [R("ROPE", dst=0, src=0, pairs=1, cs=0, heads=0), H], img),
                  ("err4_rope_beats_range", [R("ROPE", dst=65535, src=65535, pairs=63, cs=65535, heads=0), H], img),
                  ("err2_rope_src", [R("ROPE", dst=0, src=3969, pairs=32, cs=0, heads=2), H], img),
                  ("err2_rope_cs", [R("ROPE", dst=0, src=0, pairs=32, cs=4033, heads=1), H], img),
                  ("err2_rope_dst", [R("ROPE", dst=4033, src=0, pairs=32, cs=0, heads=1), H], img),
                  ("err2_rope_heads", [R("ROPE", dst=0, src=0, pairs=32, cs=0, heads=65), H], img)]


# ------------------------------------------------------------------ the mutation suites
def self_contained_program():
    """(prog, image): ROPE reading only scratchpad words the program wrote itself: LD of
    48 Q12 words and a 16-word cos/sin row, ROPE (2 heads of 8 pairs), ST."""
    rng = np.random.default_rng(RANDOM_SEED + 101)
    img = np.concatenate([rng.integers(-20 << 12, 20 << 12, size=48), rng.integers(-16384, 16385, size=16)])
    return resets.program(("ROPE", dict(dst=200, src=0, pairs=8, cs=48, heads=2)),
                          ("ST", dict(src=200, dst=1000, len=32))), img



# ------------------------------------------------------------------ colliding programs
def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    """heads x 2 pairs words at src and dst, the cos/sin row 2 pairs (its second read
    range, aimed at half the time a read is)."""
    from tb.stimulus.collide import _near
    pairs = int(rng.integers(1, 13)) if long_ else int(rng.integers(1, 3))
    heads = int(rng.integers(1, 5)) if long_ else int(rng.integers(1, 3))
    n = 2 * pairs * heads
    at_cs = side == "r" and rng.random() < 0.5
    src = _near(rng, n, target if side == "r" and not at_cs else None, window)
    cs = _near(rng, 2 * pairs, target if at_cs else None, window)
    dst = src if side is None and rng.random() < 0.2 else _near(rng, n, target if side == "w" else None, window)
    return isa.build("ROPE", cfg=cfg, dst=dst, src=src, pairs=pairs, cs=cs, heads=heads)


def edge_producers(b, at):
    # 32, 8, 32 words, a free word between each two: each range's edges touch it alone
    return [("ROPE", b("ROPE", dst=at + 42, src=at, pairs=4, cs=at + 33, heads=4))]


def edge_consumers(b, op, word, side, at):
    """Two words from `word`: it reads them as a pair and as the cos/sin row."""
    o1, o2 = at + 121, at + 122
    if side == "r":
        return [b("ROPE", dst=o1, src=word, pairs=1, cs=o2 + 1, heads=1),
                b("ROPE", dst=o1, src=o2 + 1, pairs=1, cs=word, heads=1)]
    return [b("ROPE", dst=word, src=o1, pairs=1, cs=o2 + 1, heads=1)]
