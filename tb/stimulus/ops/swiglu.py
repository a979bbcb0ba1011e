"""SWIGLU's directed programs (tb/stimulus/ops/__init__.py lists the hooks): its hand
programs at its edges (the real model's int32 Q12 op), each storing what it computed --
  swiglu_table    every entry k of the sigmoid table at f = 0, 511 and a random f, the
                  table's ends (-2^16 - 1 .. 2^16) and the int32 ends, u from small to
                  2^26 (a silu one off shows), then the same g with u = 1.0 (h = silu)
  swiglu_edges    h exactly at the int32 ends and one past (saturation), rounding ties of
                  s u / 2^12 both ways, g at 2^23 (the clamp's 2^24 one off shows), the
                  low pass of s u past 2^46, g whose silu a sigmoid one off moves, s u
                  one below a rounding step (2047 modulo 2^12)
  swiglu_overlap  dst over src or src2, ahead by 1 and 2, behind, in place
  swiglu_whole    the whole scratchpad in place (len 4096: the counter's top bit)
-- and every DECODE fault (shape 4, each range 2); its self-contained program and its
resets; the colliding programs' drawer and one-word edges (src, src2 and dst)."""
import random

import numpy as np

from model.ops import swiglu as record
from tb.stimulus import resets, shared_hooks
from tb.stimulus.suitecfg import RANDOM_SEED

OPS = ("SWIGLU",)
# the instructions of self_contained_program() the reset programs cut in and around
# (tb/stimulus/resets.py): the self-contained program cut by rst in the middle of SWIGLU
# and around its start, each followed by the same program run in full.
RESET_CUTS = (1, 2)
LM_STREAM = 7            # its place in the language-model hand programs (its own random stream)
COLLIDE = "lm"

Q = 1 << 12
I32 = (-(1 << 31), (1 << 31) - 1)


# ------------------------------------------------------------------ hand programs
def _table(B, rng):
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


def _silu_edges(n=6):
    """Q12 inputs g whose silu moves when the interpolated sigmoid is one more or one less
    (its Q24 value's last bit decides their rounding): n from each end of each list."""
    g = np.arange(-(1 << 16), 1 << 16, dtype=np.int64)
    sig = record.sig_q24(g)
    base = (g * sig + (1 << 23)) >> 24
    out = []
    for d in (1, -1):
        moved = g[((g * (sig + d) + (1 << 23)) >> 24) != base]
        out += moved[:n].tolist() + moved[-n:].tolist()
    return out


def _edges(B, rng):
    big = 1 << 16                                            # s = g from here up
    pairs = [(I32[1], Q), (I32[1], Q + 1), (I32[1], -Q), (I32[1], -Q - 1), (1 << 19, -(1 << 24)),
             (1 << 19, -(1 << 24) - 1), (1 << 19, 1 << 24), ((1 << 19) + 1, (1 << 24) - 1),
             (big + 1, 2048), (big + 1, -2048), (big + 3, 2048), (big + 3, -2048), (big, 2047), (big, -2047),
             (big, 1), (big, -1), (I32[1], I32[1]), (I32[1], I32[0]), (I32[0], I32[1]), (I32[0], I32[0]),
             (1 << 23, Q), (1 << 23, -Q), (-(1 << 23), Q), ((1 << 24) + 5, Q), (-(1 << 24) - 5, -Q),
             (-(1 << 16) - 1, I32[1]), ((1 << 16) - 1, I32[1]), ((1 << 16) - 1, I32[0]),
             (I32[1], 0xFFFF), ((1 << 30) + 5, 0xFFFF), (1 << 30, 0x8000), (I32[1], -0x10001)]
    pairs += [(g, Q) for g in _silu_edges()]                # h = silu(g): its last bit shows
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


def _overlap(B, rng):
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


def _whole(B, rng):
    img = [rng.choice([rng.randrange(-20 * Q, 20 * Q), rng.randrange(-(1 << 31), 1 << 31)]) for _ in range(4096)]
    prog = [B("LD", dst=0, src=0, len=4096), B("SWIGLU", dst=0, src=0, len=4096, src2=0),
            B("ST", src=0, dst=0, len=4096), B("HALT")]
    return prog, img


def lm_programs(B, R, rng):
    """(name, program, image) of the module docstring on the hand programs' chip, then
    its DECODE faults."""
    rng = random.Random(1819)                      # its own stream
    H = B("HALT")
    out = [(name, *make(B, rng)) for name, make in (("swiglu_table", _table), ("swiglu_edges", _edges),
                                                    ("swiglu_overlap", _overlap), ("swiglu_whole", _whole))]
    img = [1] * 64
    return out + [("err4_swiglu_len0", [R("SWIGLU", dst=0, src=0, len=0, src2=0), H], img),
                  ("err4_swiglu_beats_range", [R("SWIGLU", dst=65535, src=65535, len=0, src2=65535), H], img),
                  ("err2_swiglu_src", [R("SWIGLU", dst=0, src=4090, len=7, src2=0), H], img),
                  ("err2_swiglu_src2", [R("SWIGLU", dst=0, src=0, len=7, src2=4090), H], img),
                  ("err2_swiglu_dst", [R("SWIGLU", dst=4090, src=0, len=7, src2=0), H], img),
                  ("err2_swiglu_len_max", [R("SWIGLU", dst=0, src=0, len=8191, src2=0), H], img)]


# ------------------------------------------------------------------ the mutation suites
def self_contained_program():
    """(prog, image): SWIGLU reading only scratchpad words the program wrote itself: LD,
    SWIGLU, ST."""
    rng = np.random.default_rng(RANDOM_SEED + 100)
    img = rng.integers(-20 << 12, 20 << 12, size=64)
    return resets.program(("SWIGLU", dict(dst=100, src=0, len=32, src2=16)),
                          ("ST", dict(src=100, dst=1000, len=32))), img



# ------------------------------------------------------------------ colliding programs
# the drawer aims src or src2; the one-word edges read src and src2 (tb/stimulus/shared_hooks.py)
collide_make, edge_producers, edge_consumers = shared_hooks.two_operand("SWIGLU")
