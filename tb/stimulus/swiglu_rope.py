"""Hand programs of SWIGLU and ROPE at their edges (the real model's int32 Q12 ops).

programs() lists (name, program, image) on the hand programs' chip (tb/stimulus/hand.py's
CFG_HAND), each storing what it computed:
  swiglu_table    every entry k of the sigmoid table at f = 0, 511 and a random f, the
                  table's ends (-2^16 - 1 .. 2^16) and the int32 ends, u from small to
                  2^26 (a silu one off shows), then the same g with u = 1.0 (h = silu)
  swiglu_edges    h exactly at the int32 ends and one past (saturation), rounding ties of
                  s u / 2^12 both ways, g at 2^23 (the clamp's 2^24 one off shows), the
                  low pass of s u past 2^46, g whose silu a sigmoid one off moves, s u
                  one below a rounding step (2047 modulo 2^12)
  swiglu_overlap  dst over src or src2, ahead by 1 and 2, behind, in place
  swiglu_whole    the whole scratchpad in place (len 4096: the counter's top bit)
  rope_rows       LDX picks rows of rope.rope_table() (positions 0, 1, 2, 1000, 4097, 8191)
                  by a position word; 12 heads of 32 pairs rotated by each
  rope_edges      cos / sin at +-2^14, the 16-bit ends (both -2^15: x c = 2^46, the sum
                  2^47), upper bits that must be ignored; x at the int32 ends (saturation
                  both ways), rounding ties; pairs 1, 2, 31, 32
  rope_overlap    dst over src ahead by 1, 2, 3, behind, in place, over the cos/sin row
  rope_heads      heads 255 of 1 pair and 128 of 16 (the whole scratchpad in place: the
                  head counter's top bit)
and every DECODE fault of the two (shape 4, each range 2). programs.lm_programs() puts the
valid ones in the RTL mutation suite; tests/tb/test_swiglu_rope_cosim.py runs them all on
both simulators in both timing modes against the reference.
"""
import random

import numpy as np

from model import isa
from model.ops import rope, swiglu
from tb.stimulus.hand import CFG_HAND

Q = 1 << 12
I32 = (-(1 << 31), (1 << 31) - 1)


def B(op, **f):
    """A checked instruction of the hand programs' chip."""
    return isa.build(op, cfg=CFG_HAND, **f)


def R(op, **f):
    """An unchecked instruction (a fault on purpose)."""
    return isa.raw(op, **f)


def _swiglu_table(rng):
    g = []
    for k in range(256):
        base = -(1 << 16) + 512 * k
        g += [base, base + 511, base + rng.randrange(1, 511)]
    g += [(1 << 16) - 1, 1 << 16, (1 << 16) + 1, -(1 << 16), -(1 << 16) - 1, I32[0], I32[1], 0, 1, -1,
          1 << 23, -(1 << 23), 1 << 30, -(1 << 30)]
    n = len(g)                                              # 782
    u = [rng.choice([rng.randrange(-(1 << 26), 1 << 26), rng.randrange(-(1 << 16), 1 << 16),
                     rng.randrange(-Q, Q), 3 * Q]) for _ in range(n)]
    img = g + u + [Q] * n
    prog = [B("LD", dst=0, src=0, len=n), B("LD", dst=n, src=n, len=n),
            B("SWIGLU", dst=2 * n, src=0, len=n, src2=n), B("ST", src=2 * n, dst=0, len=n),
            B("LD", dst=n, src=2 * n, len=n),                               # u = 1.0: h = silu(g)
            B("SWIGLU", dst=2 * n, src=0, len=n, src2=n), B("ST", src=2 * n, dst=n, len=n), B("HALT")]
    return prog, img


def silu_edges(n=6):
    """Q12 inputs g whose silu moves when the interpolated sigmoid is one more or one less
    (its Q24 value's last bit decides their rounding): n from each end of each list."""
    g = np.arange(-(1 << 16), 1 << 16, dtype=np.int64)
    sig = swiglu.sig_q24(g)
    base = (g * sig + (1 << 23)) >> 24
    out = []
    for d in (1, -1):
        moved = g[((g * (sig + d) + (1 << 23)) >> 24) != base]
        out += moved[:n].tolist() + moved[-n:].tolist()
    return out


def _swiglu_edges(rng):
    big = 1 << 16                                            # s = g from here up
    pairs = [(I32[1], Q), (I32[1], Q + 1), (I32[1], -Q), (I32[1], -Q - 1), (1 << 19, -(1 << 24)),
             (1 << 19, -(1 << 24) - 1), (1 << 19, 1 << 24), ((1 << 19) + 1, (1 << 24) - 1),
             (big + 1, 2048), (big + 1, -2048), (big + 3, 2048), (big + 3, -2048), (big, 2047), (big, -2047),
             (big, 1), (big, -1), (I32[1], I32[1]), (I32[1], I32[0]), (I32[0], I32[1]), (I32[0], I32[0]),
             (1 << 23, Q), (1 << 23, -Q), (-(1 << 23), Q), ((1 << 24) + 5, Q), (-(1 << 24) - 5, -Q),
             (-(1 << 16) - 1, I32[1]), ((1 << 16) - 1, I32[1]), ((1 << 16) - 1, I32[0]),
             (I32[1], 0xFFFF), ((1 << 30) + 5, 0xFFFF), (1 << 30, 0x8000), (I32[1], -0x10001)]
    pairs += [(g, Q) for g in silu_edges()]                 # h = silu(g): its last bit shows
    # s u = 2047 modulo 2^12 (s = g from 2^16 up): one more in the product's low bits moves h
    pairs += [(g, (2047 * pow(g, -1, 1 << 12)) % (1 << 12) - k * (1 << 12)) for g in (65537, 100003, 1234567)
              for k in (0, 1)]
    pairs += [(rng.randrange(-(1 << 31), 1 << 31), rng.randrange(-(1 << 31), 1 << 31)) for _ in range(40)]
    pairs += [(rng.randrange(-20 * Q, 20 * Q), rng.randrange(-(1 << 28), 1 << 28)) for _ in range(100)]
    n = len(pairs)
    img = [g for g, _ in pairs] + [u for _, u in pairs]
    prog = [B("LD", dst=0, src=0, len=2 * n), B("SWIGLU", dst=2 * n, src=0, len=n, src2=n),
            B("ST", src=2 * n, dst=0, len=n),
            B("LD", dst=4096 - 3, src=0, len=3),                            # the scratchpad's top
            B("SWIGLU", dst=4095, src=4093, len=1, src2=4094), B("ST", src=4093, dst=n, len=3), B("HALT")]
    return prog, img


def _swiglu_overlap(rng):
    img = [rng.randrange(-20 * Q, 20 * Q) for _ in range(600)] + [rng.randrange(-(1 << 20), 1 << 20)
                                                                   for _ in range(600)]
    prog, out = [], 0
    for k, (which, shift) in enumerate((("src", 1), ("src", 2), ("src", -1), ("src", 0), ("src2", 1),
                                        ("src2", 2), ("src2", 0))):
        prog += [B("LD", dst=0, src=40 * k, len=64), B("LD", dst=100, src=600 + 40 * k, len=64)]
        dst = (0 if which == "src" else 100) + shift + (10 if shift < 0 else 0)
        src = 10 if shift < 0 else 0
        prog += [B("SWIGLU", dst=dst, src=src, len=48, src2=100), B("ST", src=0, dst=out, len=170)]
        out += 170
    prog += [B("SWIGLU", dst=300, src=300, len=20, src2=300), B("ST", src=300, dst=out, len=20), B("HALT")]
    return prog, img


def _swiglu_whole(rng):
    img = [rng.choice([rng.randrange(-20 * Q, 20 * Q), rng.randrange(-(1 << 31), 1 << 31)]) for _ in range(4096)]
    prog = [B("LD", dst=0, src=0, len=4096), B("SWIGLU", dst=0, src=0, len=4096, src2=0),
            B("ST", src=0, dst=0, len=4096), B("HALT")]
    return prog, img


POSITIONS = (0, 1, 2, 1000, 4097, 8191)


def _rope_rows(rng):
    at = 3400                                                 # a 6-row table, then the positions
    rows = [rope.rope_table()[p].tolist() for p in POSITIONS]
    x = [rng.choice([rng.randrange(-(1 << 24), 1 << 24), rng.randrange(-64 * Q, 64 * Q)]) for _ in range(768)]
    img = x + [0] * (at - 768) + [w for r in rows for w in r] + list(range(len(POSITIONS)))
    n = len(POSITIONS)
    prog = [B("LD", dst=0, src=0, len=768), B("LD", dst=4000, src=at + 64 * n, len=n)]
    for k in range(n):
        prog += [B("LDX", dst=3000, src=at, len=64, idx=4000 + k, rows=n),
                 B("ROPE", dst=1000, src=0, pairs=32, cs=3000, heads=6), B("ST", src=1000, dst=384 * k, len=384)]
    prog += [B("ROPE", dst=0, src=0, pairs=32, cs=3000, heads=12), B("ST", src=0, dst=384 * n, len=768), B("HALT")]
    return prog, img


def _rope_edges(rng):
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


def _rope_overlap(rng):
    img = [rng.randrange(-16384, 16385) for _ in range(16)] + [rng.randrange(-(1 << 22), 1 << 22) for _ in range(400)]
    prog, out = [], 0
    for k, dst in enumerate((101, 102, 103, 99, 100, 40, 44, 47, 30)):     # src 100, cos/sin at 40
        prog += [B("LD", dst=40, src=0, len=16), B("LD", dst=100, src=16 + 30 * k, len=48),
                 B("ROPE", dst=dst, src=100, pairs=8, cs=40, heads=3), B("ST", src=30, dst=out, len=130)]
        out += 130
    prog.append(B("HALT"))
    return prog, img


def _rope_heads(rng):
    img = [rng.randrange(-16384, 16385) for _ in range(32)] + [rng.randrange(-(1 << 24), 1 << 24)
                                                                for _ in range(4096 - 32)]
    prog = [B("LD", dst=0, src=0, len=4096), B("ROPE", dst=1000, src=100, pairs=1, cs=0, heads=255),
            B("ST", src=1000, dst=0, len=510), B("ROPE", dst=0, src=0, pairs=16, cs=10, heads=128),
            B("ST", src=0, dst=510, len=3586), B("HALT")]
    return prog, img


def programs():
    """(name, program, image) of the module docstring."""
    rng = random.Random(1819)
    H = B("HALT")
    out = []
    for name, make in (("swiglu_table", _swiglu_table), ("swiglu_edges", _swiglu_edges),
                       ("swiglu_overlap", _swiglu_overlap), ("swiglu_whole", _swiglu_whole),
                       ("rope_rows", _rope_rows), ("rope_edges", _rope_edges), ("rope_overlap", _rope_overlap),
                       ("rope_heads", _rope_heads)):
        prog, img = make(rng)
        out.append((name, prog, img))
    img = [1] * 64
    out += [("err4_swiglu_len0", [R("SWIGLU", dst=0, src=0, len=0, src2=0), H], img),
            ("err4_swiglu_beats_range", [R("SWIGLU", dst=65535, src=65535, len=0, src2=65535), H], img),
            ("err2_swiglu_src", [R("SWIGLU", dst=0, src=4090, len=7, src2=0), H], img),
            ("err2_swiglu_src2", [R("SWIGLU", dst=0, src=0, len=7, src2=4090), H], img),
            ("err2_swiglu_dst", [R("SWIGLU", dst=4090, src=0, len=7, src2=0), H], img),
            ("err2_swiglu_len_max", [R("SWIGLU", dst=0, src=0, len=8191, src2=0), H], img),
            ("err4_rope_pairs0", [R("ROPE", dst=0, src=0, pairs=0, cs=0, heads=1), H], img),
            ("err4_rope_pairs33", [R("ROPE", dst=0, src=0, pairs=33, cs=0, heads=1), H], img),
            ("err4_rope_heads0", [R("ROPE", dst=0, src=0, pairs=1, cs=0, heads=0), H], img),
            ("err4_rope_beats_range", [R("ROPE", dst=65535, src=65535, pairs=63, cs=65535, heads=0), H], img),
            ("err2_rope_src", [R("ROPE", dst=0, src=3969, pairs=32, cs=0, heads=2), H], img),
            ("err2_rope_cs", [R("ROPE", dst=0, src=0, pairs=32, cs=4033, heads=1), H], img),
            ("err2_rope_dst", [R("ROPE", dst=4033, src=0, pairs=32, cs=0, heads=1), H], img),
            ("err2_rope_heads", [R("ROPE", dst=0, src=0, pairs=32, cs=0, heads=65), H], img)]
    return out
