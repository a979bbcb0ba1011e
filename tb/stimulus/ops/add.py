"""ADD's directed programs (tb/stimulus/ops/__init__.py lists the hooks): saturation both
ways (low bytes of wide words), dst over src or src2 ahead, behind and in place, src =
src2, the int32 add (w = 1, issue 37: lm_add_wide), its faults and decode edges, its
one-word edges, the colliding and region drawers."""
import random

from model import isa
from tb.stimulus import shared_hooks

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1

OPS = ("ADD",)
LM_STREAM = 0            # its place in the language-model hand programs' random stream
COLLIDE = "lm"
EDGE_GROUP = 1
REGION_WEIGHT = 1


def lm_programs(B, R, rng):
    H = B("HALT")
    a = [127, 127, 100, -128, -128, -100, 1, -1, 0, 0x1FF, -0x100, 0x7F80, 64, -64, 127, -128]
    c = [1, 127, 100, -1, -128, -100, -1, 1, 0, 0x101, 0x180, 0x7F80, 64, -65, -128, 127]
    img = a + c + [rng.randrange(-128, 128) for _ in range(200)]
    add = [B("LD", dst=0, src=0, len=len(img)), B("ADD", dst=300, src=0, len=16, src2=16)]
    for k, (dst, src, src2) in enumerate(((33, 32, 100), (100, 32, 98), (50, 50, 130), (140, 140, 140),
                                          (159, 160, 60), (70, 170, 170), (201, 200, 205))):
        add += [B("LD", dst=32, src=32, len=len(img) - 32),
                B("ADD", dst=dst, src=src, len=30, src2=src2),
                B("ST", src=0, dst=400 + 256 * k, len=240)]
    add += [B("ADD", dst=4095, src=4095, len=1, src2=0), B("ST", src=300, dst=3000, len=16),
            B("ST", src=4095, dst=3100, len=1), H]
    # its own seed: the shared stream's later draws unchanged
    return [("lm_add", add, img), ("lm_add_wide", *_add_wide(B, random.Random(3701)))]


def _add_wide(B, rng):
    """(program, image): ADD with w = 1 (issue 37, the int32 residual stream): sums exactly
    at and one past both ends of int32 (saturated, never wrapped), carries through every
    byte, words whose low bytes alone would saturate (no int8 clamp), random int32 words;
    dst over src or src2 ahead, behind and in place, src = src2; w = 1 and w = 0 in turn on
    the same words, the scratchpad's last word, the longest add (4,096 in place)."""
    H = B("HALT")
    a = [I32_MAX, I32_MAX - 1, I32_MAX, I32_MIN, I32_MIN + 1, I32_MIN, I32_MAX, 1 << 30, -(1 << 30), 0xFFFF,
         0xFF, -1, 0x7F, -0x80, 0x7FFF_FFFE, 0x4000_0000, 0x00FF_FFFF, -0x0100_0000, 100, 0]
    c = [1, 1, I32_MAX, -1, -1, I32_MIN, I32_MIN, 1 << 30, -(1 << 30) - 1, 1, 1, -1, 1, -1, 2, 0x3FFF_FFFF,
         1, -1, -100, 0]
    img = a + c + [rng.randrange(I32_MIN, I32_MAX + 1) if k % 4 else rng.choice([I32_MIN, I32_MAX, -1, 0])
                   for k in range(460)]
    n = len(a)
    prog = [B("LD", dst=0, src=0, len=len(img)), B("ADD", dst=500, src=0, len=n, src2=n, w=1),
            B("ADD", dst=520, src=0, len=n, src2=n), B("ADD", dst=540, src=0, len=n, src2=n, w=1),
            B("ST", src=500, dst=0, len=3 * n)]
    for k, (dst, src, src2) in enumerate(((41, 40, 140), (140, 40, 138), (60, 60, 200), (200, 200, 200),
                                          (199, 200, 100), (90, 250, 250), (301, 300, 305))):
        prog += [B("LD", dst=40, src=40, len=len(img) - 40),
                 B("ADD", dst=dst, src=src, len=60, src2=src2, w=1),
                 B("ST", src=0, dst=100 + 480 * k, len=480)]
    prog += [B("LD", dst=4095, src=0, len=1), B("ADD", dst=4095, src=4095, len=1, src2=4095, w=1),
             B("ST", src=4095, dst=3600, len=1),
             B("LD", dst=0, src=0, len=len(img)), B("LD", dst=len(img), src=0, len=len(img)),
             B("ADD", dst=0, src=0, len=4096, src2=0, w=1), B("ST", src=0, dst=3700, len=396), H]
    return prog, img


def lm_faults(B, R, H, img):
    return [("err4_add_len0", [R("ADD", dst=0, src=0, len=0, src2=0), H], img),
            ("err2_add_src", [R("ADD", dst=0, src=4090, len=7, src2=0), H], img),
            ("err2_add_src2", [R("ADD", dst=0, src=0, len=7, src2=4090), H], img),
            ("err2_add_dst", [R("ADD", dst=4090, src=0, len=7, src2=0), H], img)]


def edges_n(v, x, n, SP, EXT):
    v("ADD", dst=SP - n, src=SP - 2 * n, len=n, src2=SP - 3 * n)
    v("ADD", dst=SP - 3 * n, src=SP - n, len=n, src2=SP - 2 * n)
    v("ADD", dst=SP - 2 * n, src=SP - 3 * n, len=n, src2=SP - n)
    x(f"ADD src {n}", "ADD", dst=0, src=SP - n + 1, len=n, src2=0)
    x(f"ADD src2 {n}", "ADD", dst=0, src=0, len=n, src2=SP - n + 1)
    x(f"ADD dst {n}", "ADD", dst=SP - n + 1, src=0, len=n, src2=0)


def edges(v, x, SP, EXT, T):
    x("ADD len 0", "ADD", len=0, dst=5, src=5, src2=5)
    for n in (1, 20):
        x(f"ADD src wrap {n}", "ADD", dst=0, src=T - n // 2 - 1, len=n, src2=0)
        x(f"ADD src2 wrap {n}", "ADD", dst=0, src=0, len=n, src2=T - n // 2 - 1)
        x(f"ADD dst wrap {n}", "ADD", dst=T - n // 2 - 1, src=0, len=n, src2=0)
    for n in (1, 64):                             # issue 37: over int32 at the scratchpad's end
        v("ADD", dst=SP - n, src=SP - 2 * n, len=n, src2=SP - 3 * n, w=1)
    x("ADD w len 0", "ADD", dst=5, src=5, len=0, src2=5, w=1)


# the colliding programs' drawer and one-word edges: src and src2 (tb/stimulus/shared_hooks.py)
collide_make, edge_producers, edge_consumers = shared_hooks.two_operand("ADD")


def hole_faults(r, top, far):
    return [("ADD len max", r("ADD", dst=0, src=0, len=top, src2=0))]


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, 80)
    src = addr(n)
    dst = rng.choice([addr(n), max(0, src + rng.randrange(-3, 4))])
    prog.append(isa.build("ADD", cfg=cfg, dst=dst, src=src, len=n, src2=rng.choice([addr(n), src])))
