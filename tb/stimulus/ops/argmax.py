"""ARGMAX's directed programs (tb/stimulus/ops/__init__.py lists the hooks): ties (the
first wins), all negative, len 1, the int32 extremes, the maximum first and last, across
tiles with a running (index, max) pair (base, acc, pair; issue 37: lm_argmax_tiles,
lm_argmax_long), its faults and decode edges (the pair's two words at the scratchpad's
end), its one-word edges, the colliding and region drawers."""
import random

from model import isa

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1

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
    # their own seeds: the shared stream's later draws unchanged
    return [("lm_argmax", am, img), ("lm_argmax_tiles", *_argmax_tiles(B, random.Random(3702))),
            ("lm_argmax_long", *_argmax_long(B, random.Random(3703)))]


def _argmax_tiles(B, rng):
    """(program, image): ARGMAX across tiles (base, pair, acc; issue 37): a 600-word vector
    in tiles of 1, 7, 64 and 200 words (the first tile pair = 1, the others acc = 1) with
    the maximum in a later tile, at a tile's first and last word, tied across tiles (the
    earlier stays) and within one; all equal to the smallest int32 (the first index); bases
    whose index passes 2^16 (17-bit index words); a running pair loaded with high bits
    above the index's 17, with the largest and smallest int32 maxima; acc with pair = 0,
    pair without acc, dst inside the tile (read before written), the scratchpad's last
    two words; every pair stored."""
    H = B("HALT")
    vec = [rng.randrange(-1000, 1000) for _ in range(600)]
    vec[333] = vec[470] = 5000             # a tie across tiles of 64 and 200 (333 wins)
    vec[100] = vec[101] = 4000
    vec2 = [rng.randrange(I32_MIN, I32_MAX) for _ in range(600)]
    vec2[450] = I32_MAX                    # in a tile whose base is 65,535 or 65,300: index > 2^16
    vec3 = [I32_MIN] * 64
    pairs = [0x5_0003, 77, -1, I32_MAX, (1 << 17) + 9, I32_MIN, 0x7FFF_FFFF, -5000, 12, 5000]
    img = vec + vec2 + vec3 + pairs
    P0 = len(vec) + len(vec2) + len(vec3)
    prog = [B("LD", dst=0, src=0, len=len(img))]
    out = 1400

    def tiles(src, n, tile, dst, base0=0):
        k = []
        for j, b0 in enumerate(range(0, n, tile)):
            m = min(tile, n - b0)
            k.append(B("ARGMAX", dst=dst, src=src + b0, len=m, base=min(base0 + b0, 65535), acc=int(j > 0),
                       pair=1))
        return k
    for tile in (1, 7, 64, 200, 600):
        prog += tiles(0, 600 if tile > 1 else 40, tile, out)
        prog += tiles(600, 600 if tile > 1 else 40, tile, out + 2, base0=65300)   # indices past 2^16
        out += 4
    prog += tiles(1200, 64, 16, out)                            # all the smallest int32
    prog += tiles(1200, 64, 16, out + 2, base0=65535)
    out += 4
    for j in range(5):                                          # loaded pairs, high index bits
        prog.append(B("ARGMAX", dst=P0 + 2 * j, src=7 * j, len=30, base=1000 * j, acc=1, pair=j % 2))
    prog += [B("ARGMAX", dst=out, src=100, len=40, base=3, pair=1),           # pair without acc
             B("ARGMAX", dst=out + 2, src=0, len=5, base=65535),               # index alone, 17 bits
             B("ARGMAX", dst=98, src=90, len=20, base=7, acc=1),              # dst in the tile
             B("ARGMAX", dst=4094, src=0, len=600, acc=1, pair=1),
             B("ARGMAX", dst=1300, src=0, len=600, pair=1),
             B("ST", src=0, dst=0, len=1600), B("ST", src=4094, dst=1600, len=2), H]
    return prog, img


def _argmax_long(B, rng):
    """(program, image): ARGMAX over the whole scratchpad (len 4,096: the length's top
    bit) with pair and acc, the maximum in the last word (the last compare feeds the
    maximum written a cycle later), a base whose last index is 69,630 (bit 16), running
    pairs inside the tile (read before written) that the last word beats."""
    H = B("HALT")
    img = [rng.randrange(-1000, 1000) for _ in range(4096)]
    img[4095] = 5000
    img[30], img[31] = -(1 << 20) + 3, 4999       # an index word with high bits set
    prog = [B("LD", dst=0, src=0, len=4096)]
    for k, f in enumerate((dict(dst=10, pair=1), dict(dst=20, base=65535, acc=1), dict(dst=30, base=7, acc=1, pair=1))):
        prog += [B("ARGMAX", src=0, len=4096, **f), B("ST", src=f["dst"], dst=4000 + 2 * k, len=2),
                 B("LD", dst=f["dst"], src=f["dst"], len=2)]          # the tile as it was
    return prog + [H], img


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
    # issue 37: the running pair (pair or acc: dst and dst + 1) at the scratchpad's end
    for n in (1, 64):
        v("ARGMAX", dst=SP - 2, src=SP - n, len=n, base=0xFFFF, pair=1)
        v("ARGMAX", dst=SP - 2, src=SP - n - 2, len=n, base=n, acc=1)
    for f in (dict(pair=1), dict(acc=1), dict(acc=1, pair=1)):
        name = " ".join(f)
        x(f"ARGMAX dst {name}", "ARGMAX", dst=SP - 1, src=0, len=1, **f)
        x(f"ARGMAX dst wrap {name}", "ARGMAX", dst=0xFFFF, src=0, len=1, **f)     # dst + 2 past 2^16


def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    from tb.stimulus.collide import _near
    return isa.build("ARGMAX", cfg=cfg, dst=_near(rng, 1, target if side == "w" else None, window), src=src, len=n)


def edge_producers(b, at):
    # acc and pair widen the write hull to dst + 1 (acc also reads it): their last words too
    return [("ARGMAX", b("ARGMAX", dst=at + 48, src=at, len=40)),
            ("ARGMAX acc", b("ARGMAX", dst=at + 48, src=at, len=40, acc=1)),
            ("ARGMAX pair", b("ARGMAX", dst=at + 48, src=at, len=40, pair=1))]


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
