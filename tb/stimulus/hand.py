"""Hand-written GA-2 programs: every op, edge shapes and every error code, and a long one.

hand_programs() lists (name, program, image) covering every op (LD/ST at both ends of
both memories, MM for every M x N x tb with random K and strides, overlapping and
aliasing MMs; every other op's programs at its edges from its module in
tb/stimulus/ops/, hook hand_programs; the language model's ops: lm_programs(), hook
lm_programs) and every error code with the instruction that raises it at its edge
(error 6, the row index found in EXEC, included); the plain check (tb/plain_check.py)
runs each twice on one chip and its X check dumps them. bench_program() is a valid
program of about a million cycles (simulation speed). All for config.DEFAULT with
EXT_HAND external words.
"""
import random

from model import config, isa
from tb.stimulus import ops

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
    progs += ops.call("hand_programs", B, R, rng, img)
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
        ("err2_ld", [R("LD", dst=4000, src=0, len=97), H], img),
        ("err2_beats_ext", [R("LD", dst=4000, src=4090, len=97), H], img),
        ("err2_st", [ld, R("ST", src=65535, dst=0, len=1), H], img),
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
    progs += ops.call("hand_faults", B, R, ld, H, img)
    return progs + lm_programs()


def lm_programs():
    """(name, program, image) for the language model's ops at their edges (docs/lm.md
    "Numerics"), each op's from its module (hook lm_programs, then its faults, hook
    lm_faults, on the same image). The modules draw from one random stream in the order
    of their LM_STREAM, the order they were written in (a module may keep its own)."""
    rng = random.Random(11)
    H = B("HALT")
    progs = []
    for m in sorted((m for m in ops.modules() if hasattr(m, "lm_programs")), key=lambda m: m.LM_STREAM):
        got = m.lm_programs(B, R, rng)
        progs += got
        if hasattr(m, "lm_faults"):
            progs += m.lm_faults(B, R, H, got[0][2])
    return progs


def isaext_programs(cfg):
    """(name, program, image) for the wider external addresses and the long softmax, on a
    chip cfg with ext_words > 2^16 + 2^12 and sm_max_len 1024
    (tests/tb/test_xhi_pack4_long_softmax_cosim.py): the external-range faults of the full
    address (xhi past the memory, a transfer one word past its end), then each op's
    (hook isaext: transfers crossing the 65,536-word boundary both ways, the top word of
    the memory, a lookup table across it; the long softmax)."""
    assert cfg.ext_words > (1 << 16) + 4096 and cfg.sm_max_len == 1024, cfg
    rng = random.Random(12)
    ext = cfg.ext_words

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    def x(op, addr, **f):            # unchecked, at the full external address addr
        return isa.raw(op, **f, **isa.ext_fields(op, addr))
    H = b("HALT")
    img = [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(ext)]
    faults = [("err3_ld_xhi_top", [x("LD", ext - 1, dst=0, len=2), H]),
              ("err3_ld_xhi_past", [isa.raw("LD", dst=0, src=0, len=1, xhi=255), H]),
              ("err3_st_xhi", [x("ST", ext, src=0, len=1), H]),
              ("ok_ld_xhi_top", [x("LD", ext - 2, dst=0, len=2), b("ST", src=0, dst=0, len=2), H])]
    return [(n, p, img) for n, p in faults] + ops.call("isaext", cfg, b, x, img, rng)


def bench_program():
    """A long valid program (about 1M cycles): tiles of MM, the vector ops' (hook bench)
    and DMA in a loop."""
    prog = [B("LD", dst=0, src=0, len=2048)]
    while len(prog) < 1000:
        prog += ([B("MM", dst=2048, A=0, B=256, M=4, K=64, N=4, tb=1, lda=64, ldb=64, ldc=4)]
                 + ops.call("bench", B)
                 + [B("LD", dst=3000, src=1000, len=256), B("ST", src=2200, dst=3000, len=16)])
    return prog[:1023] + [B("HALT")], list(range(-1000, 3096))
