"""SMW's directed programs (tb/stimulus/ops/__init__.py lists the hooks): its hand programs
at its edges (score rows of the compiler's measured range, the cut, ties, rounding a hair
below a half, the int32 extremes, dst over src, the whole scratchpad in place, every DECODE
fault), and the colliding programs' drawer and one-word edges."""
import random

from model import isa

OPS = ("SMW",)
LM_STREAM = 10           # its place in the language-model hand programs (its own random stream)


def lm_programs(B, R, rng):
    """(name, program, image) for SMW on the hand programs' chip: score rows of the
    compiler's measured range (int32, log2 units in Q8: -25,900 .. 7,400) at lengths 1,
    2, 17 and 1,024, a key 70 below the maximum (p = 0), ties, keys at the cut (d = 4095,
    4096), keys whose e * 2^15 + floor(S/2) is S - 1 (p a hair below a half: e = 1
    beside the maximum's 2^16, S = 65537; and 0, -4067, -3881), the int32 extremes (d
    wraps past 2^31), dst over src ahead by 1, 2 and 7 (pass 3 reads the probabilities
    already written), in place and behind, the
    scratchpad's last words, the whole scratchpad in place (len 4096, twice), and every DECODE
    fault (len 0, src / dst past the scratchpad, len 0 before a range past it)."""
    rng = random.Random(13)                        # its own stream (written after the others)
    H = B("HALT")
    img = [rng.randrange(-25900, 7401) for _ in range(1024)]                     # 0..1023
    img += [5000, 5000 - 25853, 4000, -20000]                                     # 1024: 70 below
    img += [0, -4095, -4096, -4097, -4095, 0, -3585, -3585]                       # 1028: the cut
    img += [-(1 << 31), (1 << 31) - 1, 0, (1 << 31) - 1, -1, -(1 << 31)]           # 1036: extremes
    img += [-7] * 16 + [rng.randrange(-300, 301) for _ in range(26)]              # 1042: ties, narrow
    img += [7400, 7400 - 3841, 0, -4067, -3881]                                  # 1084: a hair below a half
    img += [rng.randrange(-128, 128) for _ in range(4096 - len(img))]
    rows = [B("LD", dst=0, src=0, len=1089)]
    for k, (src, n) in enumerate(((0, 1), (1, 2), (3, 17), (1024, 4), (1028, 8), (1036, 6), (1042, 16),
                                  (1042, 42), (1084, 2), (1086, 3))):
        rows.append(B("SMW", dst=2000 + 64 * k, src=src, len=n))
    rows += [B("ST", src=2000, dst=0, len=640), H]
    long = [B("LD", dst=0, src=0, len=1024), B("SMW", dst=3000, src=0, len=1024), B("ST", src=3000, dst=0, len=1024), H]
    over = [B("LD", dst=0, src=1028, len=56)]
    for k, shift in enumerate((-3, -1, 0, 1, 2, 7)):
        base = 100 + 30 * k
        over += [B("LD", dst=base, src=1028 + 4 * k, len=12), B("SMW", dst=base + shift, src=base, len=12)]
    over += [B("LD", dst=4084, src=1042, len=12), B("SMW", dst=4088, src=4084, len=8),
             B("ST", src=0, dst=0, len=300), B("ST", src=4080, dst=300, len=16), H]
    # the whole scratchpad in place, every score equal: len = 4096 (the counters' top bit)
    # and S = 4096 * 2^16 = 2^28 (the sum's top bit): every p = 2^15 / 4096 = 8; then the
    # same words with the last one 3008, the maximum, the last word read (p = 14,982, the
    # others 4)
    whole = [B("LD", dst=0, src=0, len=4095), B("LD", dst=4095, src=0, len=1), B("SMW", dst=0, src=0, len=4096),
             B("LD", dst=4095, src=4095, len=1), B("SMW", dst=0, src=0, len=4096), B("ST", src=0, dst=0, len=4096),
             H]
    return [("smw_rows", rows, img), ("smw_overlap", over, img), ("smw_long", long, img),
            ("smw_whole", whole, [0] * 4095 + [3008]),
            ("err4_smw_len0", [R("SMW", dst=0, src=0, len=0), H], img),
            ("err4_smw_beats_range", [R("SMW", dst=65535, src=65535, len=0), H], img),
            ("err2_smw_src", [R("SMW", dst=0, src=4000, len=97), H], img),
            ("err2_smw_dst", [R("SMW", dst=4000, src=0, len=97), H], img),
            ("err2_smw_len_max", [R("SMW", dst=0, src=0, len=8191), H], img)]


# ------------------------------------------------------------------ colliding programs
COLLIDE = "lm"
COLLIDE_LEN = 40         # its length in a colliding program: 1..40 (19 cycles an element)


def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    return isa.build("SMW", cfg=cfg, dst=dst, src=src, len=n)


def edge_producers(b, at):
    """Reads at..+15 (three passes), writes at+25..+40 (19 cycles an element: 16 of them)."""
    return [("SMW", b("SMW", dst=at + 25, src=at, len=16))]


def edge_consumers(b, op, word, side, at):
    if side == "r":
        return [b("SMW", dst=at + 121, src=word, len=1)]
    return [b("SMW", dst=word, src=at + 121, len=1)]
