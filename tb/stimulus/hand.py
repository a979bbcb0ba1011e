"""Hand-written GA-2 programs: every op, edge shapes and every error code, and a long one.

hand_programs() lists (name, program, image) covering every op (LD/ST at both ends of
both memories, MM for every M x N x tb with random K and strides, overlapping and
aliasing MMs, RQ at every shift class and with overlapping src/dst, the requant edges,
SM at every length class with all-equal and extreme inputs; the language model's ops:
lm_programs(), with PACK4 / UNPACK4: pack4_programs()) and every error code with the instruction that raises it at
its edge (error 6, LDX's row index, included); the plain check (tb/plain_check.py) runs
each twice on one chip and its X check dumps them. bench_program() is a valid program
of about a million cycles (simulation speed). All for config.DEFAULT with EXT_HAND
external words.
"""
import random

from model import config, isa, quant
from model.ops import norm

EXT_HAND = 4096
CFG_HAND = config.DEFAULT.replace(ext_words=EXT_HAND)


def B(op, **f):
    """A checked instruction of the hand programs' chip."""
    return isa.build(op, cfg=CFG_HAND, **f)


def R(op, **f):
    """An unchecked instruction (a fault on purpose)."""
    return isa.raw(op, **f)


def hand_programs():
    """(name, program, image) covering every op, edge shapes and every error code."""
    rng = random.Random(7)
    img = [rng.randrange(-2**31, 2**31) if i % 3 == 0 else rng.randrange(-128, 128) for i in range(4096)]
    H = B("HALT")
    progs = []
    progs.append(("ld_st", [B("LD", dst=0, src=0, len=100), B("ST", src=0, dst=2000, len=100),
                            B("LD", dst=4000, src=4000, len=96), B("ST", src=4000, dst=1000, len=96),
                            B("LD", dst=5, src=7, len=1), B("ST", src=5, dst=3000, len=1), H], img))
    mm = [B("LD", dst=0, src=0, len=1200)]
    out = 2000
    for M in range(1, 5):
        for N in range(1, 5):
            for tb in (0, 1):
                K = rng.choice([1, 2, 3, 5, 8, 17])
                mm.append(B("MM", dst=out, A=rng.randrange(0, 200), B=rng.randrange(300, 600), M=M, K=K, N=N,
                            tb=tb, lda=rng.randrange(0, 40), ldb=rng.randrange(0, 40), ldc=N + rng.randrange(0, 3)))
                out += 4 * 7
    mm += [B("MM", dst=3000, A=0, B=700, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4),
           B("MM", dst=3100, A=100, B=200, M=4, K=4, N=4, tb=1, lda=4, ldb=4, ldc=1),   # overlapping rows
           B("MM", dst=3200, A=0, B=0, M=3, K=9, N=2, tb=0, lda=0, ldb=0, ldc=0),       # all alias
           B("MM", dst=4095, A=4095, B=4095, M=1, K=1, N=1, tb=1, lda=0, ldb=0, ldc=0),
           B("ST", src=2000, dst=0, len=2096), H]
    progs.append(("mm", mm, img))
    rq = [B("LD", dst=0, src=0, len=512)]
    for s in (0, 1, 7, 15, 16, 31, 40, 47, 62, 63):
        rq.append(B("RQ", dst=600 + 20 * s, src=rng.randrange(0, 400), len=rng.randrange(1, 20),
                    m=rng.randrange(0, 65536), s=s))
    rq += [B("RQ", dst=1, src=0, len=50, m=40000, s=14),       # dst overlaps ahead: streaming
           B("RQ", dst=100, src=103, len=50, m=30000, s=10),   # dst behind src
           B("RQ", dst=200, src=200, len=30, m=65535, s=3),    # in place
           B("RQ", dst=0, src=4000, len=96, m=12345, s=20),
           B("ST", src=0, dst=0, len=2000), H]
    progs.append(("rq", rq, img))
    edge = [-2**31, 2**31 - 1, -1, 0, 1, -128, 127, -129, 128, 2**30, -2**30, 12345678, -12345678]
    rqe = [B("LD", dst=0, src=0, len=len(edge))]
    out = 100
    for m_ in (0, 1, 16384, 32767, 65535):
        for s_ in (0, 1, 15, 16, 31, 32, 46, 47, 48, 62, 63):
            rqe.append(B("RQ", dst=out, src=0, len=len(edge), m=m_, s=s_))
            out += len(edge)
    rqe += [B("ST", src=100, dst=0, len=out - 100), H]
    progs.append(("rq_edges", rqe, edge))
    sm = [B("LD", dst=0, src=0, len=512)]
    for n, src in ((1, 0), (2, 3), (7, 10), (16, 40), (63, 100), (64, 200), (64, 300)):
        sm.append(B("SM", dst=1000 + 70 * (n % 13) + src, src=src, len=n))
    sm += [B("SM", dst=5, src=0, len=64),       # overlapping: reads all before writes
           B("ST", src=0, dst=0, len=2048), H]
    progs.append(("sm", sm, img))
    small = [rng.randrange(-128, 128) for _ in range(64)]
    sm_eq = [5] * 64                            # all equal
    sm_ext = [127, -128] * 32                   # extremes
    progs.append(("sm_edges", [B("LD", dst=0, src=0, len=64), B("SM", dst=100, src=0, len=64),
                               B("LD", dst=200, src=64, len=64), B("SM", dst=300, src=200, len=64),
                               B("LD", dst=400, src=128, len=64), B("SM", dst=500, src=400, len=64),
                               B("ST", src=0, dst=0, len=600), H], small + sm_eq + sm_ext))
    # errors
    ld = B("LD", dst=0, src=0, len=10)
    progs += [
        ("err1_opcode0", [ld, 0, H], img),
        ("err1_opcode15", [ld, B("ST", src=0, dst=100, len=10), 15, H], img),
        ("err1_fallthrough", [ld], img),
        ("err4_mm_M0", [ld, R("MM", dst=0, A=0, B=0, M=0, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_mm_N5", [ld, R("MM", dst=0, A=0, B=0, M=1, K=1, N=5, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_mm_K0", [ld, R("MM", dst=0, A=0, B=0, M=1, K=0, N=1, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_len0", [R("LD", dst=0, src=0, len=0), H], img),
        ("err4_st_len0", [R("ST", src=0, dst=0, len=0), H], img),
        ("err4_rq_len0", [R("RQ", dst=0, src=0, len=0, m=1, s=0), H], img),
        ("err4_sm65", [R("SM", dst=0, src=0, len=65), H], img),
        ("err4_beats_range", [R("SM", dst=65535, src=65535, len=0), H], img),
        ("err2_ld", [R("LD", dst=4000, src=0, len=97), H], img),
        ("err2_beats_ext", [R("LD", dst=4000, src=4090, len=97), H], img),
        ("err2_st", [ld, R("ST", src=65535, dst=0, len=1), H], img),
        ("err2_rq_dst", [R("RQ", dst=4095, src=0, len=2, m=1, s=0), H], img),
        ("err2_sm_src", [R("SM", dst=0, src=4064, len=33), H], img),
        ("err2_mm_A", [R("MM", dst=0, A=4000, B=0, M=4, K=4, N=4, tb=0, lda=40, ldb=0, ldc=0), H], img),
        ("err2_mm_B_tb0", [R("MM", dst=0, A=0, B=3000, M=1, K=255, N=4, tb=0, lda=0, ldb=5, ldc=0), H], img),
        ("err2_mm_B_tb1", [R("MM", dst=0, A=0, B=4000, M=1, K=100, N=1, tb=1, lda=0, ldb=4095, ldc=0), H], img),
        ("ok_mm_B_tb1_edge", [R("MM", dst=0, A=0, B=3996, M=1, K=100, N=1, tb=1, lda=0, ldb=4095, ldc=0),
                              B("ST", src=0, dst=0, len=4), H], img),
        ("err2_mm_dst", [R("MM", dst=4090, A=0, B=0, M=2, K=1, N=2, tb=0, lda=0, ldb=0, ldc=5), H], img),
        ("err3_ld", [R("LD", dst=0, src=4095, len=2), H], img),
        ("err3_st", [ld, R("ST", src=0, dst=4000, len=97), H], img),
        ("err3_st_hi", [ld, R("ST", src=0, dst=65535, len=8191), H], img),
        ("err5_pc", [B("LD", dst=i % 4000, src=i % 4000, len=1) for i in range(config.DEFAULT.imem_depth)], img),
        ("halt_only", [H], img),
    ]
    return progs + lm_programs()


def _norm_ms(x, ss, top):
    """NORM's (m, s) putting the largest |result| of the int8 values x near top."""

    return quant.mantissa_shift(top / (max(abs(e) for e in x) * norm.recip(ss)))


def lm_programs():
    """(name, program, image) for the language model's ops at their edges (docs/lm.md
    "Numerics"): ADD saturating both ways (low bytes of wide words), with dst overlapping
    src or src2 ahead, behind and in place, src = src2; ARGMAX with ties (the first
    wins), all negative, len 1, the int32 extremes, the maximum first and last; NORM with
    ss = 0 (zero low bytes under nonzero words), len 1 and 64, all -128 (ss = 2^20), ss =
    1 (r = 2^24), dst overlapping src, m and s at their ends; RQ with relu; LDX with good
    and bad row indices (error 6, in EXEC: the last row, rows itself, -1, 2^31, a second
    bad one, a later DECODE fault); every DECODE fault of the new ops at its edge."""
    rng = random.Random(11)
    H = B("HALT")
    progs = []
    # ADD: saturation both ways, low bytes of wide words, overlapping operands
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
    progs.append(("lm_add", add, img))
    # ARGMAX: ties, negatives, len 1, extremes
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
    progs.append(("lm_argmax", am, img))
    # NORM: ss = 0, len 1 and 64, all -128, ss = 1 (r = 2^24) and 4, overlap, m and s at
    # their ends. Each vector with an (m, s) that puts its largest result near 100 (where
    # a wrong r shows), one that puts 2^24 * m exactly on a rounding boundary for ss = 1
    # and 4 (r = 2^29 / q with q a power of two: r one less moves the result), and some
    # that saturate, zero or pass through; for ss = 2^20 (q = 2^15, the square root's last
    # step with trial 0 against 4 * 2^14 + 1) one where q one more moves the result.
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
    progs.append(("lm_norm", nm, img))
    # RQ with relu (and without, the same inputs)
    edge = [-2**31, 2**31 - 1, -1, 0, 1, -128, 127, -129, 128, 2**30, -2**30, 12345678, -12345678]
    rqr = [B("LD", dst=0, src=0, len=len(edge))]
    out = 100
    for m_ in (1, 16384, 65535):
        for s_ in (0, 1, 16, 31, 47, 63):
            for relu in (0, 1):
                rqr.append(B("RQ", dst=out, src=0, len=len(edge), m=m_, s=s_, relu=relu))
                out += len(edge)
    rqr += [B("RQ", dst=1, src=0, len=12, m=40000, s=14, relu=1), B("ST", src=0, dst=0, len=out), H]
    progs.append(("lm_rq_relu", rqr, edge))
    # LDX: a table of 50 rows of 10 at ext[1000..], row indices good and bad
    img = [rng.randrange(-128, 128) for _ in range(4096)]
    img[0:13] = [0, 49, 7, 50, 51, -1, -(1 << 31), 1 << 16, 3, 0, 49, 65535, 0]
    ld = B("LD", dst=0, src=0, len=13)

    def ldx(dst, idx, rows=50, n=10, src=1000):
        return B("LDX", dst=dst, src=src, len=n, idx=idx, rows=rows)
    good = [ld, ldx(100, 0), ldx(110, 1), ldx(120, 2), ldx(130, 8), ldx(0, 10),     # dst over the index
            B("LDX", dst=4095, src=4095, len=1, idx=12, rows=1),
            B("ARGMAX", dst=300, src=100, len=30), B("LDX", dst=301, src=1000, len=10, idx=300, rows=30),
            B("LDX", dst=400, src=4094, len=2, idx=12, rows=1), B("ST", src=0, dst=2000, len=512),
            B("ST", src=4095, dst=2600, len=1),
            B("LDX", dst=0, src=0, len=4096, idx=12, rows=1),     # the longest row (tok 0)
            B("ST", src=0, dst=0, len=2000), H]
    progs.append(("lm_ldx", good, img))
    progs += [
        ("err6_rows", [ld, ldx(100, 3), B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_rows1", [ld, ldx(100, 4), ldx(120, 1), B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_neg", [ld, ldx(100, 1), ldx(120, 5), ldx(140, 6), B("ST", src=90, dst=3000, len=60), H], img),
        ("err6_top", [ld, ldx(100, 7, rows=4096, n=1, src=0), ldx(120, 11, rows=4096, n=1, src=0),
                      B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_then_decode", [ld, ldx(100, 3), B("ST", src=90, dst=3000, len=20),
                              R("ADD", dst=4090, src=0, len=7, src2=0), H], img),
        ("err6_then_opcode", [ld, ldx(100, 3), ldx(100, 4), 13, H], img),
        ("err6_then_pc", [ld, ldx(100, 3)] + [B("LD", dst=i % 4000, src=i % 4000, len=1)
                                              for i in range(config.DEFAULT.imem_depth - 2)], img),
        ("err4_ldx_len0", [ld, R("LDX", dst=0, src=0, len=0, idx=0, rows=1), H], img),
        ("err4_ldx_rows0", [ld, R("LDX", dst=0, src=0, len=1, idx=0, rows=0), H], img),
        ("err4_ldx_beats_sp", [R("LDX", dst=4095, src=4095, len=2, idx=4096, rows=0), H], img),
        ("err2_ldx_idx", [R("LDX", dst=0, src=0, len=1, idx=4096, rows=1), H], img),
        ("err2_ldx_dst", [R("LDX", dst=4090, src=0, len=7, idx=0, rows=1), H], img),
        ("err2_ldx_beats_ext", [R("LDX", dst=4090, src=4000, len=7, idx=0, rows=100), H], img),
        ("err3_ldx_table", [R("LDX", dst=0, src=4000, len=10, idx=0, rows=10), H], img),
        ("err3_ldx_rows", [R("LDX", dst=0, src=0, len=2, idx=0, rows=2049), H], img),
        ("ok_ldx_table_edge", [R("LDX", dst=0, src=96, len=2, idx=0, rows=2000),
                               B("ST", src=0, dst=0, len=2), H], img),
        ("err4_add_len0", [R("ADD", dst=0, src=0, len=0, src2=0), H], img),
        ("err2_add_src", [R("ADD", dst=0, src=4090, len=7, src2=0), H], img),
        ("err2_add_src2", [R("ADD", dst=0, src=0, len=7, src2=4090), H], img),
        ("err2_add_dst", [R("ADD", dst=4090, src=0, len=7, src2=0), H], img),
        ("err4_argmax_len0", [R("ARGMAX", dst=0, src=0, len=0), H], img),
        ("err2_argmax_src", [R("ARGMAX", dst=0, src=4000, len=97), H], img),
        ("err2_argmax_dst", [R("ARGMAX", dst=4096, src=0, len=5), H], img),
        ("err4_norm_len0", [R("NORM", dst=0, src=0, len=0, m=1, s=1), H], img),
        ("err4_norm65", [R("NORM", dst=0, src=0, len=65, m=1, s=1), H], img),
        ("err4_norm_beats_range", [R("NORM", dst=65535, src=65535, len=4160, m=1, s=1), H], img),
        ("err2_norm_src", [R("NORM", dst=0, src=4033, len=64, m=1, s=1), H], img),
        ("err2_norm_dst", [R("NORM", dst=4095, src=0, len=2, m=1, s=1), H], img),
    ]
    return progs + pack4_programs() + qnt_programs()


def qnt_rows(rng):
    """QNT's edge rows (model/ops/qnt.py): all zero, len 1 at the int32 extremes (|-2^31|
    = 2^31), ties of x * qmax / amax at k + 1/2, rows whose scale rounds up to 2^16 (plain
    16-bit and int8; rms 16-bit and int8: [2^20, b, 0, 0]), amax just past 2^15, small
    integers, int8 and full int32 words, a residual-stream row in Q12 with one channel at
    23,800.0, every magnitude 2^0 .. 2^31, a lone spike among zeros; rows on which the
    constants' last bits show (found by search against a copy of the reference with each
    constant one off: KQ in each mode, plain mode's c = 2^31 + 1, the reciprocal's
    dividend, its + 1 as + 2 or + 0), 16-bit ties, an
    rms row whose mantissa quotient Qm has 19 bits (int8, Pt >= c: model/ops/qnt.py)."""
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
            [2146665678, 65676652, 63061854, 64700020]]


def qnt_programs():
    """(name, program, image) for QNT: every edge row (qnt_rows) in four modes (16-bit
    plain q = 12, int8 plain q = 0 and 31, 16-bit and int8 rms), a row of 1,536 (the FFN
    width) with an outlier in both modes, dst over src ahead by 1 and 5, in place, behind,
    the scale word over the source, the scratchpad's last word, 4,095 words in place (the
    counters' and pointers' top bits, a sum of squares past 2^73); its DECODE faults (len
    0, src past, dst + len + 1 past: the scale word's word)."""
    rng = random.Random(37)
    H = B("HALT")
    vecs = qnt_rows(rng)
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
            ("lm_qnt_whole", whole, huge),
            ("err4_qnt_len0", [R("QNT", dst=0, src=0, len=0, q=0, b16=0, rms=0), H], img),
            ("err2_qnt_src", [R("QNT", dst=0, src=4090, len=7, q=0, b16=0, rms=0), H], img),
            ("err2_qnt_dst", [R("QNT", dst=4089, src=0, len=7, q=0, b16=0, rms=0), H], img),
            ("ok_qnt_top", [R("QNT", dst=4088, src=0, len=7, q=12, b16=1, rms=1),
                            B("ST", src=4088, dst=0, len=8), H], img)]


# the 4-bit packing ops' edge inputs: every saturation boundary of PACK4 (int8 low bytes,
# upper bits that must be ignored) and every byte value for UNPACK4
PACK4_EDGES = [-128, -127, -9, -8, -7, -1, 0, 1, 6, 7, 8, 9, 127, 0x1FF, 0x108, 0xF7, -0x100 + 7,
               0x7FFFFFF8, -(1 << 31), 0x12345607]


def pack4_programs():
    """(name, program, image) for PACK4 / UNPACK4 on the hand programs' chip: both at
    their saturation and sign boundaries, every byte value unpacked, a round trip, dst
    over src ahead, behind and in place, the scratchpad's last words, and every DECODE
    fault of the two (len 0, src / dst past the scratchpad with the 2*len spans)."""
    rng = random.Random(11)
    H = B("HALT")
    img = list(PACK4_EDGES) + [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(44)]       # 64 words
    img += list(range(256)) + [0xFFFFFF00 - (1 << 32), 0x12345678, -1]                  # 259 words
    img += [rng.randrange(-128, 128) for _ in range(4096 - len(img))]
    edges = [B("LD", dst=0, src=0, len=64), B("PACK4", dst=200, src=0, len=32),
             B("UNPACK4", dst=300, src=200, len=32),                 # = sat4 of the inputs
             B("LD", dst=1000, src=64, len=259), B("UNPACK4", dst=1500, src=1000, len=259),
             B("PACK4", dst=2100, src=1500, len=259),                # packs them back
             B("PACK4", dst=4094, src=4090, len=2), B("UNPACK4", dst=4092, src=4094, len=2),
             B("ST", src=0, dst=0, len=2400), B("ST", src=4000, dst=2400, len=96), H]
    over = [B("LD", dst=0, src=400, len=600)]
    for k, shift in enumerate((-9, -4, -1, 0, 1, 2, 3, 7, 8, 9)):
        base = 20 + 40 * k
        over += [B("PACK4", dst=base + shift, src=base, len=8)]
    for k, shift in enumerate((-9, -4, -1, 0, 1, 2, 3, 7, 8, 9)):
        base = 500 + 40 * k
        over += [B("UNPACK4", dst=base + shift, src=base, len=8)]
    over += [B("ST", src=0, dst=0, len=1000), H]
    whole = [B("LD", dst=0, src=0, len=4096), B("PACK4", dst=0, src=0, len=2048),   # len = SP / 2
             B("ST", src=0, dst=0, len=2048), B("LD", dst=2048, src=0, len=2048),
             B("UNPACK4", dst=0, src=2048, len=2048), B("ST", src=0, dst=0, len=4096), H]
    return [("pack4_edges", edges, img), ("pack4_overlap", over, img), ("pack4_whole", whole, img),
            ("err4_pack4_len0", [R("PACK4", dst=0, src=0, len=0), H], img),
            ("err4_unpack4_len0", [R("UNPACK4", dst=0, src=0, len=0), H], img),
            ("err4_pack4_beats_range", [R("PACK4", dst=65535, src=65535, len=0), H], img),
            ("err2_pack4_src", [R("PACK4", dst=0, src=4096 - 8, len=5), H], img),     # 2*len past
            ("err2_pack4_dst", [R("PACK4", dst=4096 - 4, src=0, len=5), H], img),
            ("err2_unpack4_src", [R("UNPACK4", dst=0, src=4096 - 4, len=5), H], img),
            ("err2_unpack4_dst", [R("UNPACK4", dst=4096 - 8, src=0, len=5), H], img),  # 2*len past
            ("err2_unpack4_src_first", [R("UNPACK4", dst=5000, src=5000, len=1), H], img),
            ("ok_pack4_top", [R("PACK4", dst=4092, src=4088, len=4), R("UNPACK4", dst=4088, src=4092, len=4),
                              B("ST", src=4080, dst=0, len=16), H], img)]


def isaext_programs(cfg):
    """(name, program, image) for the wider external addresses and the long softmax, on a
    chip cfg with ext_words > 2^16 + 2^12 and sm_max_len 1024
    (tests/tb/test_xhi_pack4_long_softmax_cosim.py): LD / ST / LDX with xhi > 0, transfers
    crossing the 65,536-word boundary both ways, an LDX table across it, the top word of
    the memory, the external-range faults of the full address (xhi past the memory, a
    transfer one word past its end), and SM of 65, 256 and 1024 elements (all equal,
    extremes, random) stored back."""
    assert cfg.ext_words > (1 << 16) + 4096 and cfg.sm_max_len == 1024, cfg
    rng = random.Random(12)
    ext = cfg.ext_words

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    def x(op, addr, **f):            # unchecked, at the full external address addr
        return isa.raw(op, **f, **isa.ext_fields(op, addr))
    H = b("HALT")
    img = [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(ext)]
    img[70000] = 3                                              # an LDX row index
    xhi = [b("LD", dst=0, src=65531, len=12),                   # 65531 .. 65542: crosses 2^16
           b("LD", dst=20, src=70000, len=1),                   # xhi 1 (build splits it)
           isa.raw("LD", dst=30, src=100, len=30, xhi=1),
           x("ST", ext - 12, src=0, len=12),                    # the memory's last 12 words
           isa.raw("ST", src=30, dst=65520, len=30, xhi=0),     # 65520 .. 65549: crosses
           b("LDX", dst=100, src=65536 - 10, len=5, idx=20, rows=4),   # row 3: 65541 .., after the ST
           isa.raw("LDX", dst=110, src=5, len=7, idx=20, rows=4, xhi=1),
           b("ST", src=100, dst=(1 << 16) + 2000, len=17),
           b("LD", dst=200, src=ext - 1, len=1), b("ST", src=200, dst=65535, len=1), H]
    faults = [("err3_ld_xhi_top", [x("LD", ext - 1, dst=0, len=2), H]),
              ("err3_ld_xhi_past", [isa.raw("LD", dst=0, src=0, len=1, xhi=255), H]),
              ("err3_st_xhi", [x("ST", ext, src=0, len=1), H]),
              ("err3_ldx_xhi_table", [x("LDX", ext - 8, dst=0, len=4, idx=0, rows=3), H]),
              ("ok_ld_xhi_top", [x("LD", ext - 2, dst=0, len=2), b("ST", src=0, dst=0, len=2), H])]
    sm = [b("LD", dst=0, src=0, len=1024)]
    vals = [rng.randrange(-128, 128) for _ in range(1024)]
    sm_img = list(img)
    sm_img[0:1024] = vals
    sm_img[2000:2256] = [5] * 256                                # all equal
    sm_img[3000:3065] = [127, -128] * 32 + [127]                  # extremes
    sm += [b("SM", dst=1024, src=0, len=1024), b("ST", src=1024, dst=10000, len=1024),
           b("LD", dst=0, src=2000, len=256), b("SM", dst=300, src=0, len=256),
           b("ST", src=300, dst=12000, len=256),
           b("LD", dst=0, src=3000, len=65), b("SM", dst=100, src=0, len=65),
           b("ST", src=100, dst=13000, len=65),
           b("LD", dst=0, src=4000, len=65), b("SM", dst=200, src=0, len=65),
           b("ST", src=200, dst=14000, len=65), H]
    return [("xhi", xhi, img)] + [(n, p, img) for n, p in faults] + [("sm_long", sm, sm_img)]


def bench_program():
    """A long valid program (about 1M cycles): tiles of MM, RQ, SM and DMA in a loop."""
    prog = [B("LD", dst=0, src=0, len=2048)]
    while len(prog) < 1000:
        prog += [B("MM", dst=2048, A=0, B=256, M=4, K=64, N=4, tb=1, lda=64, ldb=64, ldc=4),
                 B("RQ", dst=2100, src=2048, len=16, m=20000, s=20),
                 B("SM", dst=2200, src=2100, len=16),
                 B("LD", dst=3000, src=1000, len=256),
                 B("ST", src=2200, dst=3000, len=16)]
    return prog[:1023] + [B("HALT")], list(range(-1000, 3096))


def ldx_wide_table_program(cfg):
    """(name, program, image): an LDX whose table's last word, xhi * 65536 + src + rows * len
    - 1, is at or past 2^29 (rows 65535, len 8191, the table at 73,828 on xhi = 1): the
    external-range fault of a 30-bit sum (the mutation survivor "ga2_decode.v:295 narrow
    ldx_xlast", which wraps it below the memory's end and lets the LDX run). It needs
    len 8191 words of scratchpad (sp_words >= 8192), which the mutation suite's 4,096-word
    chip does not have: tests/tb/test_xhi_pack4_long_softmax_cosim.py runs it on a
    16,384-word chip."""
    assert cfg.sp_words >= 8192 and cfg.ext_words > 82019, cfg
    base, n, rows = 73828, 8191, 65535
    assert base + rows * n - 1 >= 1 << 29 and base + rows * n - 1 - (1 << 29) < cfg.ext_words
    prog = [isa.raw("LDX", dst=0, len=n, idx=8191, rows=rows, **isa.ext_fields("LDX", base)),
            isa.build("HALT", cfg=cfg)]
    return "err3_ldx_table_past_2^29", prog, [0] * cfg.ext_words
