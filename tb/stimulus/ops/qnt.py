"""QNT's directed programs (tb/stimulus/ops/__init__.py lists the hooks): its hand programs
at its edges (edge rows in five modes, a 1,536-word row, dst over src, 4,095 words in
place), its DECODE faults, and the colliding programs' drawer and one-word edges (its write
hull ends on the scale word, dst + len)."""
import random

from model import isa

OPS = ("QNT",)
LM_STREAM = 9            # its place in the language-model hand programs (its own random stream)


def _rows(rng):
    """QNT's edge rows (model/ops/qnt.py): all zero, len 1 at the int32 extremes (|-2^31|
    = 2^31), ties of x * qmax / amax at k + 1/2, rows whose scale rounds up to 2^16 (plain
    16-bit and int8; rms 16-bit and int8: [2^20, b, 0, 0]), amax just past 2^15, small
    integers, int8 and full int32 words, a residual-stream row in Q12 with one channel at
    23,800.0, every magnitude 2^0 .. 2^31, a lone spike among zeros; rows on which the
    constants' last bits show (found by search against a copy of the reference with each
    constant one off: KQ in each mode, plain mode's c = 2^31 + 1, the reciprocal's
    dividend, its + 1 as + 2 or + 0), 16-bit ties, an
    rms row whose mantissa quotient Qm has 19 bits (int8, Pt >= c: model/ops/qnt.py), and
    an rms row whose sum of squares lies in [2^12, 2^13) (4,422: the first normalisation
    step's shift by 64 is exact only below 2^12; found by search against the step's
    threshold one off), a 16-bit row with max |x| in [2^14, 2^15) (amax's shift by 16
    after its first by 1: one bit short, the reciprocal passes 2^32), and an int8 row whose
    Qm has 19 bits and its rounding bit (bit 2) set (2,147,482,624: the largest rows'
    round half up); three 16-bit rms rows whose mean of squares meets the second
    normalisation's thresholds 68, 72 and 74 (one bit lower leaves it 2 bits short, c half
    as large and one odd bit off: the scale's last bit moves), and one whose square root's
    last step has a difference at or past 2^32 (its sign is bit 33, not 32); each found by
    search against an emulation of the RTL's steps with that constant one off
    (tb/mutation/rtl/qnt_emu.py; tests/tb/test_qnt_emu.py checks each)."""
    q12 = [round(rng.gauss(0, 68) * 4096) for _ in range(64)]
    q12[17] = -23800 * 4096
    return [[0] * 8, [1], [-1], [-(1 << 31)], [(1 << 31) - 1],
            [-(1 << 31), (1 << 31) - 1, 0, 1, -1, 12345, -98765],
            [254, 1, -1, 3, -3, 127, -127, 253, -2], [32767 * 65536 - 1, 5, -7], [127 * (1 << 24) - 1, 1],
            [1 << 20, 8200, 0, 0], [1 << 20, 131850, 0, 0], [(1 << 15) + 1, 1, -(1 << 14) - 1, 3],
            [rng.randrange(-3, 4) for _ in range(17)], [rng.randrange(-128, 128) for _ in range(32)],
            [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(24)], q12,
            [rng.choice([-1, 1]) * rng.randrange(1 << k, 1 << (k + 1)) for k in range(31)] + [-(1 << 31)],
            [0] * 20 + [77777] + [0] * 10, [65534, 1, -1, 3, -3, 65533],
            [1137686623], [1881694126], [1632476288], [2106046081], [1172223043],
            [1723077322, 1010668891], [1212654080, 776396123], [2037779204, 819028582], [2079939881, 386565899],
            [586866923, 77596391, -77596391], [1616453121, 22569271, -22569271], [261907, 72053, -72053],
            [1416918843, 1145898034, -1145898034], [1757907, 325282, -325282], [545006595, 92264896, -92264896],
            [4301345, 118541, -118541], [1422896011, 1394886247, -1394886247],
            [2146665678, 65676652, 63061854, 64700020],
            [-22, -5, -12, -27, -17, -21, -16, -32, -3, -4, -10, 12, 20, 19],
            [20000, -7, 12345, 3], [2147482624],
            [625414975, -12141] + [0] * 142, [10391, -661590580] + [0] * 7, [162730] + [0] * 35,
            [-974529, 9622216]]


def lm_programs(B, R, rng):
    """(name, program, image) for QNT: every edge row (_rows) in five modes (16-bit
    plain q = 12, int8 plain q = 0 and 31, 16-bit and int8 rms), a row of 1,536 (the FFN
    width) with an outlier in both modes, dst over src ahead by 1 and 5, in place, behind,
    the scale word over the source, the scratchpad's last word, 4,095 words in place (the
    counters' and pointers' top bits, a sum of squares past 2^73)."""
    rng = random.Random(37)                        # its own stream (written after the others)
    H = B("HALT")
    vecs = _rows(rng)
    img, pos, at = [], [], 0
    for v in vecs:
        img += v
        pos.append(at)
        at += len(v)
    rows = [B("LD", dst=0, src=0, len=len(img))]
    out = 600
    for v, p in zip(vecs, pos):
        for q, b16, rms in ((12, 1, 0), (0, 0, 0), (31, 0, 0), (0, 1, 1), (5, 0, 1)):
            rows.append(B("QNT", dst=out, src=p, len=len(v), q=q, b16=b16, rms=rms))
            out += len(v) + 1
    rows += [B("ST", src=600, dst=0, len=out - 600), H]
    # 1,536 residual-stream words, Q12, one outlier channel
    big = [round(rng.gauss(0, 68) * 4096) for _ in range(1536)]
    big[700] = 23800 * 4096
    long_ = [B("LD", dst=0, src=0, len=1536), B("QNT", dst=1536, src=0, len=1536, q=12, b16=1, rms=0),
             B("ST", src=1536, dst=0, len=1537), B("QNT", dst=0, src=0, len=1536, q=12, b16=0, rms=1),
             B("ST", src=0, dst=1537, len=1537), H]
    over = []
    for k, (shift, b16, rms) in enumerate(((1, 1, 0), (5, 0, 1), (0, 1, 1), (-3, 0, 0), (-13, 1, 0), (2, 1, 1))):
        base = 100 + 64 * k
        over += [B("LD", dst=base, src=1000 + 20 * k, len=12),
                 B("QNT", dst=base + shift, src=base, len=12, q=12, b16=b16, rms=rms)]
    over += [B("LD", dst=4090, src=40, len=6), B("QNT", dst=4089, src=4090, len=6, q=0, b16=1, rms=1),
             B("ST", src=0, dst=0, len=600), B("ST", src=4080, dst=600, len=16), H]
    img2 = [rng.randrange(-2 ** 31, 2 ** 31) if i % 4 else rng.randrange(-3000, 3000) for i in range(4096)]
    # the first two streamed rows small: the q already written exceed their amax when read back
    img2[1000:1040] = [rng.randrange(-3000, 3000) for _ in range(40)]
    huge = [rng.choice([-1, 1]) * rng.randrange(3 << 29, 1 << 31) for _ in range(4095)]
    whole = [B("LD", dst=0, src=0, len=4095), B("QNT", dst=0, src=0, len=4095, q=12, b16=1, rms=1),
             B("ST", src=0, dst=0, len=4096), H]
    return [("lm_qnt_rows", rows, img), ("lm_qnt_long", long_, big), ("lm_qnt_overlap", over, img2),
            ("lm_qnt_whole", whole, huge)]


def lm_faults(B, R, H, img):
    """QNT's DECODE faults: len 0, src past the scratchpad, dst + len + 1 past it (the
    scale word's word), and the last valid dst."""
    return [("err4_qnt_len0", [R("QNT", dst=0, src=0, len=0, q=0, b16=0, rms=0), H], img),
            ("err2_qnt_src", [R("QNT", dst=0, src=4090, len=7, q=0, b16=0, rms=0), H], img),
            ("err2_qnt_dst", [R("QNT", dst=4089, src=0, len=7, q=0, b16=0, rms=0), H], img),
            ("ok_qnt_top", [R("QNT", dst=4088, src=0, len=7, q=12, b16=1, rms=1),
                            B("ST", src=4088, dst=0, len=8), H], img)]


# ------------------------------------------------------------------ colliding programs
COLLIDE = "lm"


def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    """Plain or rms, 16-bit or int8; dst's n + 1 words (the scale word last) inside the
    window, so a colliding write can be the scale word alone."""
    from tb.stimulus.collide import _clip
    return isa.build("QNT", cfg=cfg, dst=_clip(dst, n + 1, *window), src=src, len=n,
                     q=int(rng.integers(0, 32)), b16=int(rng.integers(0, 2)), rms=int(rng.integers(0, 2)))


def edge_producers(b, at):
    """Reads at..+23, writes at+25..+49 (the scale word at+49)."""
    return [("QNT", b("QNT", dst=at + 25, src=at, len=24, q=12, b16=1, rms=0))]


def edge_consumers(b, op, word, side, at):
    """Reads the word; writes it as q (dst = word: the scale word past it) and as the scale
    word (dst = word - 1): one of the two shares exactly one word with a range ending or
    starting there."""
    if side == "r":
        return [b("QNT", dst=at + 121, src=word, len=1, q=12, b16=1, rms=0)]
    return [b("QNT", dst=word, src=at + 121, len=1, q=12, b16=1, rms=0),
            b("QNT", dst=word - 1, src=at + 121, len=1, q=12, b16=1, rms=0)]
