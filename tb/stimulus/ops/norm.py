"""NORM's directed programs (tb/stimulus/ops/__init__.py lists the hooks): ss = 0, len 1
and 64, all -128, ss = 1 and 4, dst over src, m and s at their ends, its faults and decode
edges (len 64 / 65 / 4096 + 64), its one-word edges, the colliding and region drawers."""
from model import isa, quant
from model.ops import norm
from tb.stimulus import shared_hooks

OPS = ("NORM",)
LM_STREAM = 2            # its place in the language-model hand programs' random stream
COLLIDE = "lm"
COLLIDE_LEN = 64         # its length in a colliding program: 1..64
EDGE_GROUP = 1
REGION_WEIGHT = 1


def _norm_ms(x, ss, top):
    """(m, s) putting the largest |result| of the int8 values x near top."""
    return quant.mantissa_shift(top / (max(abs(e) for e in x) * norm.recip(ss)))


def lm_programs(B, R, rng):
    """ss = 0, len 1 and 64, all -128, ss = 1 (r = 2^24) and 4, overlap, m and s at their
    ends. Each vector with an (m, s) that puts its largest result near 100 (where a wrong r
    shows), one that puts 2^24 * m exactly on a rounding boundary for ss = 1 and 4 (r =
    2^29 / q with q a power of two: r one less moves the result), and some that saturate,
    zero or pass through; for ss = 2^20 (q = 2^15, the square root's last step with trial
    0 against 4 * 2^14 + 1) one where q one more moves the result."""
    H = B("HALT")
    vecs = [[0] * 8, [256, -256, 0, 512], [1], [-1], [-128], [127], [-128] * 64, [127] * 64,
            [1] + [0] * 31, [2] + [0] * 7, [-1, 1, 1, 1], [rng.randrange(-128, 128) for _ in range(32)],
            [rng.randrange(-128, 128) for _ in range(64)], [rng.randrange(-4, 5) for _ in range(17)],
            [3, -2, 1], [0x1234_5680 + rng.randrange(0, 256) for _ in range(20)], [-128] * 32 + [127] * 32,
            [rng.choice([-128, 127]) for _ in range(48)], [rng.randrange(-128, 128) for _ in range(7)]]
    img, nm, pos = [], [], 0
    for v in vecs:
        img += v
    nm.append(B("LD", dst=0, src=0, len=len(img)))
    out = 1000
    for k, v in enumerate(vecs):
        x = [quant.s8(w) for w in v]
        ss = sum(e * e for e in x)
        fitted = [_norm_ms(x, ss, 100), _norm_ms(x, ss, 60)] if ss else [(30000, 31)]
        edges = [(101, 25), (77, 24)] if ss in (1, 4) else [(16513, 29)] if ss == 1 << 20 else []
        rest = [(20000, 19), (0, 10), (65535, 63), (1, 0)] if k in (4, 6, 12) else []
        for m, s in fitted + edges + rest:
            nm.append(B("NORM", dst=out, src=pos, len=len(v), m=m, s=s))
            out += len(v)
        pos += len(v)
    nm.append(B("ST", src=1000, dst=0, len=out - 1000))
    base = pos - sum(len(v) for v in vecs[-7:-4])      # 64 random words, then more
    ms = _norm_ms([quant.s8(w) for w in img[base:base + 64]],
                  sum(quant.s8(w) ** 2 for w in img[base:base + 64]), 100)
    for dst in (501, 520, 500, 499):                  # dst ahead by 1 and 20, in place, behind
        nm += [B("LD", dst=500, src=base, len=64),
               B("NORM", dst=dst, src=500, len=64, m=ms[0], s=ms[1]), B("ST", src=499, dst=out, len=90)]
        out += 90
    nm += [B("NORM", dst=4032, src=4032, len=64, m=ms[0], s=ms[1] + 1), B("ST", src=4032, dst=out, len=64), H]
    return [("lm_norm", nm, img)]


def lm_faults(B, R, H, img):
    return [("err4_norm_len0", [R("NORM", dst=0, src=0, len=0, m=1, s=1), H], img),
            ("err4_norm65", [R("NORM", dst=0, src=0, len=65, m=1, s=1), H], img),
            ("err4_norm_beats_range", [R("NORM", dst=65535, src=65535, len=4160, m=1, s=1), H], img),
            ("err2_norm_src", [R("NORM", dst=0, src=4033, len=64, m=1, s=1), H], img),
            ("err2_norm_dst", [R("NORM", dst=4095, src=0, len=2, m=1, s=1), H], img)]


def edges(v, x, SP, EXT, T):
    x("NORM len 0", "NORM", len=0, dst=5, src=5, m=1, s=1)
    v("NORM", dst=0, src=100, len=64, m=1, s=1)
    x("NORM len 65", "NORM", dst=0, src=100, len=65, m=1, s=1)
    x("NORM len 8191", "NORM", dst=0, src=100, len=8191, m=1, s=1)
    for n in (4096 + 10, 4096 + 64, 128 + 5):     # a shape check on a truncated length passes them
        x(f"NORM len {n}", "NORM", dst=0, src=100, len=n, m=1, s=1)
    for n in (1, 20):                             # range sums just past 2^16
        x(f"NORM src wrap {n}", "NORM", dst=0, src=T - n // 2 - 1, len=n, m=1, s=0)
        x(f"NORM dst wrap {n}", "NORM", dst=T - n // 2 - 1, src=0, len=n, m=1, s=0)
    x("NORM len + sp", "NORM", dst=SP - 1, src=SP - 1, len=100, m=1, s=1)


# the colliding programs' drawer and one-word edges, the n-word edges (tb/stimulus/shared_hooks.py)
collide_make, edge_producers, edge_consumers, edges_n = shared_hooks.requant("NORM", 19, 20, 121)


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, norm.MAX_LEN + 1)
    src = addr(n)
    dst = rng.choice([addr(n), max(0, src + rng.randrange(-3, 4))])
    prog.append(isa.build("NORM", cfg=cfg, dst=dst, src=src, len=n,
                          m=rng.choice([rng.randrange(1 << 14, 1 << 15), rng.randrange(0, 1 << 16)]),
                          s=rng.choice([rng.randrange(0, 64), rng.randrange(14, 30)])))
