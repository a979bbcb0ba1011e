"""Seeded random GA-2 programs for co-simulation: valid ones, and bad ones per error code.

random_program(rng, cfg) draws a VALID program (model.isa.build checks every
instruction, and every LDX reads a row index below its rows) that uses every op with
random fields: strides (including 0 and overlapping outputs), tb, RQ mantissa/shift from
realistic to extreme (relu 0 / 1), SM and NORM lengths 1..64, overlapping RQ, ADD and
NORM src/dst, an ARGMAX before each LDX whose index it writes (the language model's
decode: the token, then its embedding row), PACK4 / UNPACK4 (the 4-bit KV cache; dst
near src sometimes), addresses at both ends of both memories (past 2^16 on a chip with
more external words: build splits them into xhi and the 16-bit field);
results are stored back to the external memory so the comparison sees them. Images mix
int8-range and full 32-bit words.

bad_program(rng, code, cfg) builds a program that does some writes and then faults
with the given code (1..5); it returns a BadProgram with the expected fault pc and the
external and scratchpad ranges the faulting instruction would have written (which must
be unchanged), plus follow_up(), a valid program that stores that scratchpad range.
Code 6 (ERR_INDEX, found in EXEC) is an LDX whose index word is not below its rows: the
program runs on to its HALT (or to a later DECODE fault), pc the first such LDX's.
Illegal opcodes (error 1) are model/isa.py's ILLEGAL_OPCODES.

region_program(rng, ext_words, bad) draws a program crowded into a small scratchpad
region, valid or with one bad instruction anywhere (the plain check's random programs;
region_cases(seed, n) its list).
"""
import random
from collections import namedtuple

import numpy as np

from model import config, isa

BadProgram = namedtuple("BadProgram", "prog image code pc ext_range sp_range")


def _rng(seed_or_rng):
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
    n = int(rng.integers(1, isa.NORM_MAX_LEN + 1)) if r < 0.7 else int(rng.choice([1, 2, 32, 63, 64]))
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


def _span(ins):
    """(first, words) of the scratchpad region an instruction writes (None for ST/HALT)."""
    if ins.op in ("LD", "RQ", "SM", "LDX", "ADD", "NORM", "PACK4"):
        return ins.dst, ins.len
    if ins.op == "UNPACK4":
        return ins.dst, 2 * ins.len
    if ins.op == "ARGMAX":
        return ins.dst, 1
    if ins.op == "MM":
        return ins.dst, (ins.M - 1) * ins.ldc + ins.N
    return None


def random_program(seed_or_rng, cfg=None, n_instr=None):
    """(prog, image): a valid random program of about n_instr instructions plus HALT."""
    rng = _rng(seed_or_rng)
    cfg = config.resolve(cfg)
    ext, SP = cfg.ext_words, cfg.sp_words

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    n_instr = int(rng.integers(3, 16)) if n_instr is None else n_instr
    prog = []
    # usually start with a load so that computations see the image's data
    if rng.random() < 0.8:
        n = min(int(rng.integers(16, 300)), ext, SP)
        prog.append(b("LD", dst=_addr(rng, n, SP, small=256), src=_addr(rng, n, ext), len=n))
    weights = {"LD": 2, "ST": 1.5, "MM": 2.5, "RQ": 2, "SM": 1.2, "ADD": 1, "NORM": 1, "ARGMAX": 1,
               "PACK4": 1}
    ops, p = list(weights), np.array(list(weights.values()))
    p = p / p.sum()
    while len(prog) < n_instr:
        op = ops[int(rng.choice(len(ops), p=p))]
        if op == "LD":
            ins = rand_ld(rng, cfg, b)
        elif op == "ST":
            ins = rand_st(rng, cfg, b)
        elif op == "MM":
            ins = rand_mm(rng, cfg, b)
        elif op == "RQ":
            ins = rand_rq(rng, cfg, b)
        elif op == "ADD":
            ins = rand_add(rng, cfg, b)
        elif op == "NORM":
            ins = rand_norm(rng, cfg, b)
        elif op == "PACK4":
            ins = rand_pack4(rng, cfg, b)
        elif op == "ARGMAX":
            ins = rand_argmax(rng, cfg, b, cap=min(512, ext))
            if rng.random() < 0.7:            # the token's embedding row: an LDX of its index
                prog.append(ins)
                ins = rand_ldx(rng, cfg, b, ins.dst, ins.len)
        else:
            ins = rand_sm(rng, cfg, b)
        prog.append(ins)
        span = _span(ins)
        if ins.op != "LD" and span and rng.random() < 0.8:
            first, words = span
            prog.append(rand_st(rng, cfg, b, src=first, n=min(words, ext)))
    prog.append(b("HALT"))
    img = random_image(rng, ext)
    return prog, img


def with_acc(prog, seed_or_rng, p=0.5):
    """prog with each MM's acc set to 1 with probability p (dst += A x B; model/isa.py),
    from its own rng so that the programs of a seed are otherwise unchanged. Setting acc
    keeps an instruction valid: its ranges are the same hulls."""
    rng = _rng(seed_or_rng)
    out = []
    for ins in prog:
        if isinstance(ins, isa.Instr) and ins.op == "MM" and rng.random() < p:
            ins = isa.raw("MM", **{**ins.fields(), "acc": 1})
        out.append(ins)
    return out


def random_programs(seed, n, cfg=None):
    """n (prog, image) pairs from one seed."""
    rng = _rng(seed)
    return [random_program(rng, cfg) for _ in range(n)]


# ------------------------------------------------------------------ bad programs
def _prefix(rng, ext, b):
    """A few valid instructions that write both memories (so a fault has history)."""
    n = min(32, ext)
    return [b("LD", dst=64, src=0, len=n),
            b("RQ", dst=128, src=64, len=n, m=20000, s=14),
            b("ST", src=128, dst=0, len=n)]


def bad_program(seed_or_rng, code, cfg=None):
    """A BadProgram faulting with `code` (1..6) after some writes. Code 6: the LDX at pc
    reads an index word not below its rows (rows + k, rows itself, a negative word: above
    every rows as unsigned); after it the program goes on (sometimes a good LDX, a second
    bad one, then HALT or a DECODE fault, which keeps code 6 and the first bad pc)."""
    rng = _rng(seed_or_rng)
    cfg = config.resolve(cfg)
    ext, SP = cfg.ext_words, cfg.sp_words

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    image = random_image(rng, ext)
    prog = _prefix(rng, ext, b)
    ext_range, sp_range = None, None
    if code == isa.ERR_INDEX:
        kind = int(rng.integers(0, 4))
        rows = int(rng.choice([1, 2, 10, 96, min(ext, 65535)]))
        n = int(rng.integers(1, 17))
        n = max(1, min(n, ext // rows))
        src = int(rng.integers(0, ext - rows * n + 1))
        tok = int(rng.choice([rows, rows + 1, rows + int(rng.integers(0, 1000)), -1, -(1 << 31),
                              (1 << 16) + rows % 7]))
        image[20] = tok                              # the index word: _prefix loads it to sp[84]
        image[21] = int(rng.integers(0, rows))       # a good one, to sp[85]
        prog.append(b("LDX", dst=200, src=src, len=n, idx=84, rows=rows))
        sp_range = (200, n)
        pc = len(prog) - 1
        if kind >= 1:                                # a good LDX after it: the chip runs on
            prog.append(b("LDX", dst=300, src=src, len=n, idx=85, rows=rows))
            prog.append(b("ST", src=300, dst=min(500, ext - n), len=n))
        if kind >= 2:                                # a second bad one: the first one's pc stays
            prog.append(b("LDX", dst=400, src=src, len=n, idx=84, rows=rows))
        if kind == 3:                                # a later DECODE fault keeps code 6 and pc
            prog.append(isa.raw("RQ", dst=SP - 2, src=64, len=8, m=1, s=1))
        prog += [b("LD", dst=600, src=0, len=1), b("HALT")]
        return BadProgram(prog, image, code, pc, ext_range, sp_range)
    if code == isa.ERR_OPCODE:
        bad = int(rng.choice(isa.ILLEGAL_OPCODES))
        word = bad | (int(rng.integers(1, 1 << 60)) << 4)      # stray field bits too
        # what an LD at this slot would have written
        sp_range = (200, 16)
        prog += [word]
    elif code == isa.ERR_SP_RANGE:
        kind = rng.integers(0, 4)
        if kind == 0:
            n = 20
            prog.append(isa.raw("LD", dst=SP - 10, src=0, len=n)); sp_range = (SP - 10, 10)
        elif kind == 1:
            n = min(20, ext)
            prog.append(isa.raw("ST", src=SP - 5, dst=40 % max(1, ext - n), len=n))
            ext_range = (40 % max(1, ext - n), n)
        elif kind == 2:
            prog.append(isa.raw("RQ", dst=SP - 3, src=64, len=8, m=20000, s=10)); sp_range = (SP - 3, 3)
        else:
            prog.append(isa.raw("MM", dst=SP - 2, A=64, B=64, M=2, K=4, N=2, tb=0, lda=4, ldb=4, ldc=2))
            sp_range = (SP - 2, 2)
    elif code == isa.ERR_EXT_RANGE:
        if rng.random() < 0.5:
            n = 16
            dst = max(0, ext - 8)
            prog.append(isa.raw("ST", src=128, dst=dst, len=n))
            ext_range = (dst, ext - dst)
        else:
            prog.append(isa.raw("LD", dst=300, src=max(0, ext - 4), len=16)); sp_range = (300, 16)
    elif code == isa.ERR_SHAPE:
        kind = rng.integers(0, 5)
        if kind == 0:
            prog.append(isa.raw("MM", dst=400, A=64, B=64, M=int(rng.choice([0, 5, 7])), K=4, N=2, tb=0,
                                lda=4, ldb=4, ldc=4))
            sp_range = (400, 16)
        elif kind == 1:
            prog.append(isa.raw("MM", dst=400, A=64, B=64, M=2, K=0, N=2, tb=1, lda=4, ldb=4, ldc=4))
            sp_range = (400, 8)
        elif kind == 2:
            prog.append(isa.raw("SM", dst=400, src=64, len=int(rng.choice([65, 100, 8191]))))
            sp_range = (400, 64)
        elif kind == 3:
            prog.append(isa.raw("ST", src=64, dst=100, len=0)); ext_range = (100, 8)
        else:
            prog.append(isa.raw("RQ", dst=400, src=64, len=0, m=1, s=1)); sp_range = (400, 8)
    elif code == isa.ERR_PC:
        # fill the whole instruction memory with valid instructions, no HALT
        filler = [b("LD", dst=500, src=0, len=1), b("ST", src=64, dst=min(200, ext - 1), len=1)]
        while len(prog) < cfg.imem_depth:
            prog.append(filler[len(prog) % 2])
        return BadProgram(prog, image, code, cfg.imem_depth, None, None)
    else:
        raise ValueError(f"bad_program: code must be 1..6, got {code!r}")
    pc = len(prog) - 1
    prog += [b("LD", dst=600, src=0, len=1), b("HALT")]         # never reached
    return BadProgram(prog, image, code, pc, ext_range, sp_range)


def follow_up(bad, cfg=None):
    """A valid program that stores the bad instruction's scratchpad range to ext[0..)."""
    cfg = config.resolve(cfg)
    ext, SP = cfg.ext_words, cfg.sp_words
    prog = []
    if bad.sp_range:
        first, n = bad.sp_range
        n = min(n, ext)
        prog.append(isa.build("ST", cfg=cfg, src=first, dst=0, len=n))
    prog.append(isa.build("MM", cfg=cfg, dst=1000, A=64, B=80, M=4, K=8, N=4, tb=1, lda=8, ldb=8, ldc=4))
    prog.append(isa.build("ST", cfg=cfg, src=1000, dst=min(100, ext - 16), len=16))
    prog.append(isa.build("HALT", cfg=cfg))
    return prog, np.zeros(min(ext, 16), dtype=np.int64)


# ------------------------------------------------------------------ bad programs past the widths
# Each kind: (op, the operand whose range is out, the width its sum would wrap at). The
# bad instruction's last word (field sum) lies in [2^W, 2^W + size) for W = 16 (or 20 for
# MM B with tb = 0, whose (K-1)*ldb term alone reaches ~2^20), so a range check computed
# in W bits would see it wrap back INTO the memory and let the instruction run; the fault
# must be the range error all the same (the decoder computes 32 bits, docs/isa.md).
WRAP_KINDS = (
    ("LD", "dst", 16), ("LD", "src", 16), ("ST", "src", 16), ("ST", "dst", 16),
    ("RQ", "src", 16), ("RQ", "dst", 16), ("SM", "src", 16), ("SM", "dst", 16),
    ("MM", "A", 16), ("MM", "B", 16), ("MM", "B", 20), ("MM", "dst", 16),
    ("SM", "len", 16),      # shape (len > 64) first, with dst + len wrapping as well
)


def wrap_bad_program(seed_or_rng, kind, cfg=None):
    """A BadProgram whose faulting instruction (after _prefix's writes) has a field sum
    past 2^W (kind: one of WRAP_KINDS); sp_range / ext_range: the words a W-bit wrapped
    instruction would have written inside the memories."""
    rng = _rng(seed_or_rng)
    cfg = config.resolve(cfg)
    ext, SP = cfg.ext_words, cfg.sp_words
    op, field, width = kind
    top = 1 << width

    def b(op_, **f):
        return isa.build(op_, cfg=cfg, **f)

    def ri(lo, hi):                          # inclusive
        return int(rng.integers(lo, hi + 1))

    image = random_image(rng, ext)
    prog = _prefix(rng, ext, b)
    sp_range = ext_range = None
    code = isa.ERR_SP_RANGE
    if op in ("LD", "ST", "RQ", "SM") and field != "len":
        cap = cfg.sm_max_len if op == "SM" else (1 << 13) - 1
        # base = 2^16 - d, len = d + w: the sum is 2^16 + w, wrapped w (1..)
        ext_side = (op, field) in (("LD", "src"), ("ST", "dst"))
        if ext_side:      # the scratchpad side must fit: len <= SP
            d = ri(1, min(cap - 1, 4095, SP - 1))
            w = ri(1, min(cap - d, ext - 1, SP - d))
        else:
            d = ri(1, min(cap - 1, 4095))
            w = ri(1, min(cap - d, SP - 1))
        n, base = d + w, top - d
        code = isa.ERR_EXT_RANGE if ext_side else isa.ERR_SP_RANGE
        other = ri(0, max(0, min(SP, ext) - n)) if ext_side else ri(0, 0xFFFF)
        if op == "LD":
            f = dict(dst=base, src=other) if field == "dst" else dict(dst=other, src=base)
            sp_range = (0, w) if field == "dst" else (other, n)
        elif op == "ST":
            f = dict(src=base, dst=other) if field == "src" else dict(src=other, dst=base)
            ext_range = None           # a wrapped write would land in ext[0:w], the prefix's
        elif op == "RQ":
            other = ri(0, SP - n) if n <= SP and ri(0, 1) else ri(0, 0xFFFF)
            f = dict(src=base, dst=other) if field == "src" else dict(src=other, dst=base)
            f.update(m=ri(1, 0xFFFF), s=ri(0, 40))
            sp_range = (0, w) if field == "dst" else ((other, n) if other + n <= SP else None)
        else:
            other = ri(0, SP - n) if n <= SP and ri(0, 1) else ri(0, 0xFFFF)
            f = dict(src=base, dst=other) if field == "src" else dict(src=other, dst=base)
            sp_range = (0, w) if field == "dst" else ((other, n) if other + n <= SP else None)
        ins = isa.raw(op, len=n, **f)
    elif op == "SM":                              # len > sm_max_len, dst + len past 2^16
        n = ri(cfg.sm_max_len + 1, (1 << 13) - 1)
        ins = isa.raw("SM", dst=top - ri(1, n - 1), src=ri(0, 0xFFFF), len=n)
        code = isa.ERR_SHAPE
    else:                                         # MM
        tb = 0 if width == 20 else ri(0, 1)
        while True:
            M, N = ri(1, 4), ri(1, 4)
            K, lda, ldb, ldc = ri(1, 255), ri(0, 4095), ri(0, 4095), ri(0, 4095)
            if width == 20:
                K, ldb = ri(240, 255), ri(4000, 4095)
            spans = {"A": (M - 1) * lda + K - 1,
                     "B": (N - 1) * ldb + K - 1 if tb else (K - 1) * ldb + N - 1,
                     "dst": (M - 1) * ldc + N - 1}
            span = spans[field]
            w = ri(0, min(SP - 1, span))           # base + span = 2^W + w, base <= 0xFFFF
            base = top + w - span                 # base + span = 2^W + w
            if 0 <= base <= 0xFFFF and all(v < SP for k, v in spans.items() if k != field):
                break
        f = {k: (base if k == field else ri(0, SP - 1 - spans[k])) for k in ("A", "B", "dst")}
        ins = isa.raw("MM", M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc, **f)
        if field == "dst":
            sp_range = (0, w + 1)                 # the wrapped tail of the output
    prog.append(ins)
    pc = len(prog) - 1
    s = timing_fault(prog, cfg)
    assert s == (code, pc), (kind, s, ins)
    prog += [b("LD", dst=600, src=0, len=1), b("HALT")]         # never reached
    return BadProgram(prog, image, code, pc, ext_range, sp_range)


def timing_fault(prog, cfg):
    """The static (code, pc) fault of prog (model/timing.py), None if it has none."""
    from model import timing
    return timing.schedule(prog, cfg).fault


def wrap_bad_programs(seed, cfg=None):
    """One wrap_bad_program per kind of WRAP_KINDS, from one seed."""
    rng = _rng(seed)
    return [wrap_bad_program(rng, kind, cfg) for kind in WRAP_KINDS]


# ------------------------------------------------------------------ region programs
# The plain check's random programs (tb/plain_check.py --random): from a random.Random,
# their accesses crowded into a small region so that instructions overlap often, a few
# with one bad instruction anywhere (not only at the end, as bad_program's).
def region_program(rng, ext_words, bad=None):
    """(prog, image): a random valid program on config.DEFAULT with ext_words external
    words whose scratchpad accesses stay in a region of R = 64, 256, 1024 or 4096 words
    (rng: a random.Random); with bad = 0..5, one bad instruction of kind bad % 6 (0 an
    illegal opcode, 1 an MM shape, 2 an LD/ST external range, 3 an RQ, 4 an SM, 5 an MM
    with random fields) at a random place. It ends in an ST of the region to
    ext[ext_words - R ..] (when R < ext_words) and HALT."""
    cfg = config.DEFAULT.replace(ext_words=ext_words)
    R_ = rng.choice([64, 256, 1024, 4096])
    data = ext_words - R_ if ext_words > R_ else ext_words
    img = [rng.choice([rng.randrange(-128, 128), rng.randrange(-2**31, 2**31)]) for _ in range(data)]
    prog = []

    def addr(n):
        return rng.randrange(0, max(1, R_ - n + 1))

    for _ in range(rng.randrange(1, 14)):
        op = rng.choice(["LD", "LD", "ST", "MM", "MM", "MM", "RQ", "RQ", "SM", "ADD", "NORM", "ARGMAX", "LDX",
                         "PACK4", "UNPACK4"])
        try:
            if op in ("LD", "ST"):
                n = rng.choice([1, 2, rng.randrange(1, 64), rng.randrange(1, min(R_, data) + 1)])
                spa, exa = addr(n), rng.randrange(0, data - n + 1)
                f = dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)
                prog.append(isa.build(op, cfg=cfg, len=n, **f))
            elif op == "MM":
                M, N = rng.randrange(1, 5), rng.randrange(1, 5)
                K = rng.choice([1, 2, rng.randrange(1, 20), rng.randrange(1, 256)])
                lda, ldb = rng.choice([0, 1, K, rng.randrange(0, 64)]), rng.choice([0, 1, N, K, rng.randrange(0, 64)])
                ldc = rng.choice([0, 1, N, rng.randrange(0, 16)])
                prog.append(isa.build("MM", cfg=cfg, dst=addr(64), A=addr(K + 3 * lda), B=addr(K * max(ldb, 1) + 4),
                                      M=M, K=K, N=N, tb=rng.randrange(2), lda=lda, ldb=ldb, ldc=ldc))
            elif op == "RQ":
                n = rng.randrange(1, 80)
                src = addr(n)
                dst = rng.choice([addr(n), src + rng.randrange(-3, 4)])
                prog.append(isa.build("RQ", cfg=cfg, dst=max(0, dst), src=src, len=n,
                                      m=rng.choice([rng.randrange(1 << 14, 1 << 15), rng.randrange(0, 1 << 16)]),
                                      s=rng.choice([0, rng.randrange(0, 64), rng.randrange(8, 24)])))
            elif op == "ADD":
                n = rng.randrange(1, 80)
                src = addr(n)
                dst = rng.choice([addr(n), max(0, src + rng.randrange(-3, 4))])
                prog.append(isa.build("ADD", cfg=cfg, dst=dst, src=src, len=n, src2=rng.choice([addr(n), src])))
            elif op == "NORM":
                n = rng.randrange(1, isa.NORM_MAX_LEN + 1)
                src = addr(n)
                dst = rng.choice([addr(n), max(0, src + rng.randrange(-3, 4))])
                prog.append(isa.build("NORM", cfg=cfg, dst=dst, src=src, len=n,
                                      m=rng.choice([rng.randrange(1 << 14, 1 << 15), rng.randrange(0, 1 << 16)]),
                                      s=rng.choice([rng.randrange(0, 64), rng.randrange(14, 30)])))
            elif op == "ARGMAX":
                n = rng.randrange(1, 100)
                prog.append(isa.build("ARGMAX", cfg=cfg, dst=addr(1), src=addr(n), len=n))
            elif op in ("PACK4", "UNPACK4"):
                n = rng.randrange(1, 60)
                rd, wr = (2 * n, n) if op == "PACK4" else (n, 2 * n)
                src = addr(rd)
                dst = rng.choice([addr(wr), max(0, src + rng.randrange(-3, 4))])
                prog.append(isa.build(op, cfg=cfg, dst=dst, src=src, len=n))
            elif op == "LDX":                       # its index word: an ARGMAX's, or any (error 6 likely)
                n, rows = rng.randrange(1, 33), rng.choice([1, 7, 100, 128, 256])
                idx = addr(1)
                if rng.random() < 0.7:
                    prog.append(isa.build("ARGMAX", cfg=cfg, dst=idx, src=addr(rows), len=min(rows, R_)))
                prog.append(isa.build("LDX", cfg=cfg, dst=addr(n), src=rng.randrange(0, data - rows * n + 1),
                                      len=n, idx=idx, rows=rows))
            else:
                n = rng.randrange(1, 65)
                prog.append(isa.build("SM", cfg=cfg, dst=addr(n), src=addr(n), len=n))
        except ValueError:
            continue
    if bad is not None:
        kind = bad % 6
        if kind == 0:
            w = rng.choice(isa.ILLEGAL_OPCODES) | (rng.getrandbits(100) << 4)
        elif kind == 1:
            w = isa.raw("MM", dst=0, A=0, B=0, M=rng.choice([0, 5, 7]), K=rng.randrange(0, 3), N=rng.randrange(0, 8),
                  tb=0, lda=0, ldb=0, ldc=0)
        elif kind == 2:
            op, n = rng.choice(["LD", "ST"]), rng.randrange(1, 100)          # external range
            spa, exa = rng.randrange(0, 4096 - n), rng.randrange(ext_words - n + 1, 65536 - n)
            w = isa.raw(op, len=n, **(dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)))
        elif kind == 3:
            w = isa.raw("RQ", dst=rng.randrange(3900, 65536), src=rng.randrange(0, 4096), len=rng.randrange(0, 300), m=1, s=1)
        elif kind == 4:
            w = isa.raw("SM", dst=rng.randrange(0, 4096), src=rng.randrange(3900, 4096), len=rng.randrange(0, 100))
        else:
            w = isa.raw("MM", dst=rng.randrange(0, 4096), A=rng.randrange(0, 4096), B=rng.randrange(0, 4096), M=rng.randrange(1, 5),
                  K=rng.randrange(1, 256), N=rng.randrange(1, 5), tb=rng.randrange(2), lda=rng.randrange(0, 4096),
                  ldb=rng.randrange(0, 4096), ldc=rng.randrange(0, 4096))
        prog.insert(rng.randrange(0, len(prog) + 1), w)
    if ext_words > R_:
        prog.append(isa.build("ST", cfg=cfg, src=0, dst=ext_words - R_, len=R_))
    prog.append(isa.build("HALT"))
    return prog, img


def region_cases(seed, n, ext_words=8192):
    """[(name, prog, image, bad)]: n region programs from one seed; every third (k % 3 ==
    2) has a bad instruction of kind k // 3 (bad None for the others)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        bad = k // 3 if k % 3 == 2 else None
        prog, img = region_program(rng, ext_words, bad=bad)
        out.append((f"random{k}", prog, img, bad))
    return out
