"""ARGMAX's directed programs (tb/stimulus/ops/__init__.py lists the hooks): ties (the
first wins), all negative, len 1, the int32 extremes, the maximum first and last, its
faults and decode edges, its one-word edges, the colliding and region drawers."""
from model import isa

OPS = ("ARGMAX",)
LM_STREAM = 1            # its place in the language-model hand programs' random stream
COLLIDE = "lm"
EDGE_GROUP = 1
REGION_WEIGHT = 1


def lm_programs(B, R, rng):
    H = B("HALT")
    vecs = [[5], [-7], [3, 3], [1, 9, 9, 2], [-5, -3, -3, -9], [-(1 << 31)] * 4,
            [-(1 << 31), -(1 << 31) + 1], [(1 << 31) - 1, (1 << 31) - 1, 0], [0, -1, (1 << 31) - 1],
            [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(100)], [rng.randrange(-3, 3) for _ in range(64)],
            [-1] * 30 + [0], [2] + [1] * 40]
    img, am, pos = [], [], 0
    for v in vecs:
        img += v
    am.append(B("LD", dst=0, src=0, len=len(img)))
    for k, v in enumerate(vecs):
        am.append(B("ARGMAX", dst=1000 + k, src=pos, len=len(v)))
        pos += len(v)
    am += [B("ARGMAX", dst=4095, src=0, len=4096), B("ARGMAX", dst=0, src=1, len=4),   # dst in src's past
           B("ST", src=1000, dst=0, len=len(vecs)), B("ST", src=4095, dst=100, len=1),
           B("ST", src=0, dst=101, len=1), H]
    return [("lm_argmax", am, img)]


def lm_faults(B, R, H, img):
    return [("err4_argmax_len0", [R("ARGMAX", dst=0, src=0, len=0), H], img),
            ("err2_argmax_src", [R("ARGMAX", dst=0, src=4000, len=97), H], img),
            ("err2_argmax_dst", [R("ARGMAX", dst=4096, src=0, len=5), H], img)]


def edges_n(v, x, n, SP, EXT):
    v("ARGMAX", dst=SP - 1, src=SP - n, len=n)
    v("ARGMAX", dst=SP - n - 1, src=SP - n, len=n)
    x(f"ARGMAX src {n}", "ARGMAX", dst=0, src=SP - n + 1, len=n)


def edges(v, x, SP, EXT, T):
    x("ARGMAX dst", "ARGMAX", dst=SP, src=0, len=1)
    x("ARGMAX dst top", "ARGMAX", dst=0xFFFF, src=0, len=1)
    x("ARGMAX len 0", "ARGMAX", len=0, dst=5, src=5)
    for n in (1, 20):
        x(f"ARGMAX src wrap {n}", "ARGMAX", dst=0, src=T - n // 2 - 1, len=n)


def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    from tb.stimulus.collide import _near
    return isa.build("ARGMAX", cfg=cfg, dst=_near(rng, 1, target if side == "w" else None, window), src=src, len=n)


def edge_producers(b, at):
    return [("ARGMAX", b("ARGMAX", dst=at + 48, src=at, len=40))]


def edge_consumers(b, op, word, side, at):
    o1 = at + 121
    if side == "r":
        return [b("ARGMAX", dst=o1, src=word, len=1)]
    return [b("ARGMAX", dst=word, src=o1, len=2)]


def hole_faults(r, top, far):
    return [("ARGMAX len max", r("ARGMAX", dst=0, src=0, len=top))]


def region(rng, cfg, op, addr, data, R, prog):
    n = rng.randrange(1, 100)
    prog.append(isa.build("ARGMAX", cfg=cfg, dst=addr(1), src=addr(n), len=n))
