"""The random drawers of the co-simulation's programs: fields, images and one instruction each.

rand_ld, rand_st, rand_mm, rand_rq, rand_sm, rand_add, rand_norm, rand_argmax, rand_ldx and
rand_pack4 draw ONE valid instruction of their op (through the builder b, model.isa.build
on the chip's Config) with random fields: strides (including 0 and overlapping outputs),
tb, RQ mantissa / shift from realistic to extreme (rand_ms; relu 0 / 1), SM and NORM
lengths 1..64, overlapping RQ, ADD and NORM src / dst, PACK4 / UNPACK4 (dst near src
sometimes), addresses at both ends of both memories (past 2^16 on a chip with more
external words: build splits them into xhi and the 16-bit field). random_image draws an
external memory mixing int8-range and full 32-bit words. Why a module: the random
programs (randprog.py), the hazard programs (collide.py) and the tests draw from the
same distributions.
"""
import numpy as np

from model import isa
from model.ops import norm

def rng_of(seed_or_rng):
    """A numpy Generator: seed_or_rng itself, or a new one seeded with it."""
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng
    return np.random.default_rng(seed_or_rng)


def random_image(rng, ext, n=None):
    """ext words: int8-range values, full 32-bit words and zeros, mixed in runs."""
    n = ext if n is None else n
    img = np.zeros(n, dtype=np.int64)
    pos = 0
    while pos < n:
        run = int(rng.integers(1, 300))
        kind = rng.integers(0, 4)
        seg = slice(pos, min(n, pos + run))
        m = seg.stop - seg.start
        if kind == 0:
            img[seg] = rng.integers(-128, 128, size=m)
        elif kind == 1:
            img[seg] = rng.integers(-(1 << 31), 1 << 31, size=m)
        elif kind == 2:
            img[seg] = rng.choice([-128, 127, -1, 0, 1, -(1 << 31), (1 << 31) - 1], size=m)
        else:
            img[seg] = rng.integers(-8, 8, size=m)
        pos = seg.stop
    return img


def _addr(rng, span, size, small=1024):
    """A base address so that base .. base+span-1 fits in size words; often low, sometimes at the end."""
    hi = size - span
    if hi < 0:
        raise ValueError(f"span {span} does not fit {size} words")
    r = rng.random()
    if r < 0.08:
        return hi                               # touches the last word
    if r < 0.12:
        return 0
    if r < 0.75:
        return int(rng.integers(0, min(hi, small) + 1))
    return int(rng.integers(0, hi + 1))


def _len(rng, cap):
    r = rng.random()
    if r < 0.5:
        n = int(rng.integers(1, 17))
    elif r < 0.85:
        n = int(rng.integers(1, 129))
    elif r < 0.95:
        n = int(rng.integers(1, 513))
    else:
        n = 1
    return min(n, cap)


def rand_ld(rng, cfg, b):
    ext, SP = cfg.ext_words, cfg.sp_words
    n = _len(rng, min(ext, SP))
    return b("LD", dst=_addr(rng, n, SP), src=_addr(rng, n, ext), len=n)


def rand_st(rng, cfg, b, src=None, n=None):
    ext, SP = cfg.ext_words, cfg.sp_words
    n = _len(rng, min(ext, SP)) if n is None else min(n, ext)
    src = _addr(rng, n, SP) if src is None else src
    return b("ST", src=src, dst=_addr(rng, n, ext), len=n)


def _stride(rng, minimum):
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.2:
        return int(rng.integers(0, max(1, minimum)))    # overlapping rows
    if r < 0.85:
        return minimum + int(rng.integers(0, 8))
    return int(rng.integers(0, 4096 // 8))


def rand_mm(rng, cfg, b):
    SP = cfg.sp_words
    M, N = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    r = rng.random()
    K = int(rng.integers(1, 9)) if r < 0.5 else int(rng.integers(1, 65)) if r < 0.9 else int(rng.integers(1, 256))
    tb = int(rng.integers(0, 2))
    lda, ldb = _stride(rng, K), _stride(rng, K if tb else N)
    ldc = _stride(rng, N)
    for _ in range(20):
        a_span = (M - 1) * lda + K
        b_span = ((N - 1) * ldb + K) if tb else ((K - 1) * ldb + N)
        c_span = (M - 1) * ldc + N
        if max(a_span, b_span, c_span) <= SP:
            break
        lda, ldb, ldc = lda // 2, ldb // 2, ldc // 2
    return b("MM", dst=_addr(rng, c_span, SP), A=_addr(rng, a_span, SP), B=_addr(rng, b_span, SP),
             M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc)


def rand_ms(rng):
    """(m, s) for RQ: realistic mantissa/shift, or extremes of both fields."""
    r = rng.random()
    if r < 0.5:
        return int(rng.integers(1 << 14, 1 << 15)), int(rng.integers(8, 31))
    if r < 0.7:
        return int(rng.integers(0, 1 << 16)), int(rng.integers(0, 64))
    return (int(rng.choice([0, 1, 1 << 14, (1 << 15) - 1, 1 << 15, (1 << 16) - 1])),
            int(rng.choice([0, 1, 2, 15, 16, 31, 32, 47, 48, 62, 63])))


def rand_rq(rng, cfg, b):
    SP = cfg.sp_words
    n = _len(rng, 256)
    src = _addr(rng, n, SP)
    if rng.random() < 0.3:                  # overlapping src/dst, ahead or behind
        d = int(rng.integers(-n, n + 1))
        dst = min(max(src + d, 0), SP - n)
    else:
        dst = _addr(rng, n, SP)
    m, s = rand_ms(rng)
    return b("RQ", dst=dst, src=src, len=n, m=m, s=s, relu=int(rng.random() < 0.3))


def _overlapping(rng, src, n, SP):
    """A dst near src: ahead by 1..n-1 (streamed), in place, or behind."""
    d = int(rng.integers(-n, n + 1))
    return min(max(src + d, 0), SP - n)


def rand_add(rng, cfg, b):
    SP = cfg.sp_words
    n = _len(rng, 256)
    src, src2 = _addr(rng, n, SP), _addr(rng, n, SP)
    r = rng.random()
    if r < 0.2:
        dst = _overlapping(rng, src, n, SP)
    elif r < 0.3:
        dst = _overlapping(rng, src2, n, SP)
    elif r < 0.35:
        src2 = src                              # x + x
        dst = _addr(rng, n, SP)
    else:
        dst = _addr(rng, n, SP)
    return b("ADD", dst=dst, src=src, len=n, src2=src2)


def rand_norm(rng, cfg, b):
    SP = cfg.sp_words
    r = rng.random()
    n = int(rng.integers(1, norm.MAX_LEN + 1)) if r < 0.7 else int(rng.choice([1, 2, 32, 63, 64]))
    src = _addr(rng, n, SP)
    dst = _overlapping(rng, src, n, SP) if rng.random() < 0.25 else _addr(rng, n, SP)
    m, s = rand_norm_ms(rng)
    return b("NORM", dst=dst, src=src, len=n, m=m, s=s)


def rand_norm_ms(rng):
    """(m, s) for NORM: mostly the language model's range (results of random int8 inputs
    inside -128..127, where a wrong r shows), else rand_ms's."""
    if rng.random() < 0.6:
        return int(rng.integers(1 << 14, 1 << 15)), int(rng.integers(27, 34))
    return rand_ms(rng)


def rand_argmax(rng, cfg, b, dst=None, cap=512):
    SP = cfg.sp_words
    n = _len(rng, cap)
    src = _addr(rng, n, SP)
    dst = _addr(rng, 1, SP) if dst is None else dst
    return b("ARGMAX", dst=dst, src=src, len=n)


def rand_ldx(rng, cfg, b, idx, rows_min):
    """An LDX reading its index at idx from a table of at least rows_min rows (an index
    below rows_min is valid)."""
    ext, SP = cfg.ext_words, cfg.sp_words
    r = rng.random()
    n = int(rng.integers(1, 9)) if r < 0.5 else int(rng.integers(1, 65)) if r < 0.95 else 1
    rows = rows_min + int(rng.integers(0, 4)) if rng.random() < 0.7 else max(rows_min, ext // n // 2)
    rows = min(rows, ext)
    n = max(1, min(n, ext // rows, SP))
    src = _addr(rng, rows * n, ext)
    return b("LDX", dst=_addr(rng, n, SP), src=src, len=n, idx=idx, rows=rows)


def rand_sm(rng, cfg, b):
    SP = cfg.sp_words
    r = rng.random()
    n = int(rng.integers(1, 65)) if r < 0.7 else int(rng.choice([1, 2, 63, 64]))
    src = _addr(rng, n, SP)
    dst = src if rng.random() < 0.15 else _addr(rng, n, SP)
    return b("SM", dst=dst, src=src, len=n)


def rand_pack4(rng, cfg, b):
    """PACK4 (reads 2*len, writes len) or UNPACK4 (reads len, writes 2*len), dst sometimes
    over src (ahead, behind, in place: streamed pair by pair / element by element)."""
    SP = cfg.sp_words
    op = "PACK4" if rng.random() < 0.5 else "UNPACK4"
    n = _len(rng, SP // 2)
    rd, wr = (2 * n, n) if op == "PACK4" else (n, 2 * n)
    src = _addr(rng, rd, SP)
    if rng.random() < 0.25:
        dst = min(max(src + int(rng.integers(-wr, wr + 1)), 0), SP - wr)
    else:
        dst = _addr(rng, wr, SP)
    return b(op, dst=dst, src=src, len=n)
