"""The mutation suite's programs at the decoder's and the units' edges: error 6 (LDX row
index) and its follow-ups, every decode check at its limit, wrapping ranges, and the
longest transfers (tb/stimulus/programs.py puts them into the suites)."""
import random

import numpy as np

from tb.stimulus.suitecfg import CFG, EXT, RANDOM_SEED


def index_error_programs(seed=RANDOM_SEED):
    """[(label, prog, image)]: error 6 (an LDX row index not below rows, found in EXEC):
    each kind of badprog.bad_program's (a lone bad LDX, a good one after it, a second bad
    one, a later DECODE fault) and hand.py's (rows itself, -1, 2^31, 2^16, a later illegal
    opcode, running past the instruction memory), each followed by its follow-up (the
    error clears at the next start)."""
    from tb.stimulus import badprog, hand
    out = []
    rng = np.random.default_rng(seed + 61)
    for k in range(4):
        bad = badprog.bad_program(rng, 6, cfg=CFG)
        out.append((f"error 6 ({k})", bad.prog, bad.image))
        fprog, fimg = badprog.follow_up(bad, cfg=CFG)
        out.append((f"after error 6 ({k})", fprog, fimg))
    for name, prog, img in hand.lm_programs():
        if name.startswith("err6_") and name != "err6_then_pc":
            out.append((name, prog, img))
    return out


def boundary_programs(seed=RANDOM_SEED):
    """The decode checks at their edges: per check, instructions exactly at the limit
    (valid; chained in full programs that store what they wrote) and one past it (a
    light program each: one faulting instruction, error/code/pc and counters compared).
    Shapes: len 0 / 1, SM len 64 / 65, M and N 0 / 4 / 5..7, K 0 / 1; ranges: the last
    word touched = size - 1 (valid) or size (fault) for every address field, MM with
    random shapes and strides for A, B (tb 0 and 1) and dst; priorities 4 > 2 > 3; the
    illegal opcodes (isa.ILLEGAL_OPCODES: 0, 13..15); the new ops' fields (LDX dst, idx,
    its table src + rows*len, rows 0; ADD src, src2, dst; ARGMAX src and its one-word dst
    (two words with pair or acc);
    NORM src, dst, len 64 / 65 / 4096 + 64) the same way, with their sums just past 2^16
    and LDX's table sum past 2^28; PACK4 / UNPACK4 with their 2*len spans (PACK4 src,
    UNPACK4 dst) and len spans at the end, past it and past 2^16; LD / ST / LDX with xhi > 0
    (this chip's external memory is below 2^16: every xhi > 0 faults), their full address
    sums just past 2^24 (xhi = 255, a 24-bit sum without its carry would wrap to 0)."""
    from model import isa
    rng = random.Random(seed + 7)
    SP = CFG.sp_words
    valid, bad = [], []

    def v(op, **f):
        valid.append(isa.build(op, cfg=CFG, **f))

    def x(label, op, **f):
        ins = isa.raw(op, **f)
        assert isa.check(ins, CFG) is not None, (label, ins)
        bad.append((label, [ins]))

    for n in (1, 7, 64):
        v("LD", dst=SP - n, src=EXT - n, len=n)
        v("ST", src=SP - n, dst=EXT - n, len=n)
        x(f"LD dst {n}", "LD", dst=SP - n + 1, src=0, len=n)
        x(f"LD src {n}", "LD", dst=0, src=EXT - n + 1, len=n)
        x(f"ST src {n}", "ST", src=SP - n + 1, dst=0, len=n)
        x(f"ST dst {n}", "ST", src=0, dst=EXT - n + 1, len=n)
        v("RQ", dst=SP - n, src=SP - 2 * n, len=n, m=20000, s=14)
        v("RQ", dst=SP - 2 * n, src=SP - n, len=n, m=20000, s=14)
        v("SM", dst=SP - 2 * n, src=SP - n, len=n)
        x(f"RQ src {n}", "RQ", dst=0, src=SP - n + 1, len=n, m=1, s=0)
        x(f"RQ dst {n}", "RQ", dst=SP - n + 1, src=0, len=n, m=1, s=0)
        v("SM", dst=SP - n, src=SP - 2 * n, len=n)
        x(f"SM src {n}", "SM", dst=0, src=SP - n + 1, len=n)
        x(f"SM dst {n}", "SM", dst=SP - n + 1, src=0, len=n)
    for op in ("LD", "ST", "RQ", "SM"):
        f = {"LD": dict(dst=5, src=5), "ST": dict(src=5, dst=5), "RQ": dict(dst=5, src=5, m=1, s=1),
             "SM": dict(dst=5, src=5)}[op]
        x(f"{op} len 0", op, len=0, **f)
    x("SM len 65", "SM", dst=0, src=100, len=65)
    x("SM len 8191", "SM", dst=0, src=100, len=8191)
    mm = dict(dst=3000, A=100, B=200, M=2, K=3, N=2, tb=0, lda=3, ldb=2, ldc=2)
    for name, vals in (("M", (0, 5, 6, 7)), ("N", (0, 5, 6, 7)), ("K", (0,))):
        for val in vals:
            x(f"MM {name}={val}", "MM", **dict(mm, **{name: val}))
    for M in (1, 4):
        for N in (1, 4):
            v("MM", **dict(mm, M=M, N=N, K=1))
    # MM ranges: random shapes and strides, last word exactly SP-1 (valid) and SP (fault)
    for _ in range(6):
        M, N, K = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 40)
        lda, ldb, ldc = rng.randint(0, 60), rng.randint(0, 60), rng.randint(0, 60)
        for tb in (0, 1):
            a_span = (M - 1) * lda + K - 1
            b_span = (N - 1) * ldb + K - 1 if tb else (K - 1) * ldb + N - 1
            d_span = (M - 1) * ldc + N - 1
            base = dict(dst=2000, A=10, B=400, M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc)
            for fld, span in (("A", a_span), ("B", b_span), ("dst", d_span)):
                v("MM", **dict(base, **{fld: SP - 1 - span}))
                x(f"MM {fld} tb={tb}", "MM", **dict(base, **{fld: SP - span}))
    # the K-1 and (K-1)*ldb terms of MM B's range at their top bits: K >= 129 exactly at
    # the end (valid) and one past it (fault), and a product just past 2^19 (a fault that
    # a range sum without the product's bit 19 would accept)
    for K, ldb, N, tb in ((129, 31, 4, 0), (200, 20, 2, 0), (255, 16, 1, 0), (255, 1000, 4, 1)):
        span = (N - 1) * ldb + K - 1 if tb else (K - 1) * ldb + N - 1
        base = dict(dst=2000, A=10, B=0, M=1, K=K, N=N, tb=tb, lda=0, ldb=ldb, ldc=0)
        v("MM", **dict(base, B=SP - 1 - span))
        x(f"MM B K={K} tb={tb}", "MM", **dict(base, B=SP - span))
    x("MM B product 2^19", "MM", dst=2000, A=10, B=0, M=1, K=255, N=1, tb=0, lda=0, ldb=2065, ldc=0)
    v("MM", dst=2000, A=10, B=400, M=2, K=128, N=3, tb=0, lda=130, ldb=3, ldc=3)   # K's top bit alone
    # each range sum just past 2^16 with every other field in range: a sum without its
    # carry into bit 16 would look valid (the wrap programs may fault on two fields)
    T = 1 << 16
    for n in (1, 20):
        x(f"LD dst wrap {n}", "LD", dst=T - n // 2 - 1, src=0, len=n)
        x(f"LD src wrap {n}", "LD", dst=0, src=T - n // 2 - 1, len=n)
        x(f"ST src wrap {n}", "ST", src=T - n // 2 - 1, dst=0, len=n)
        x(f"ST dst wrap {n}", "ST", src=0, dst=T - n // 2 - 1, len=n)
        x(f"RQ src wrap {n}", "RQ", dst=0, src=T - n // 2 - 1, len=n, m=1, s=0)
        x(f"RQ dst wrap {n}", "RQ", dst=T - n // 2 - 1, src=0, len=n, m=1, s=0)
        x(f"SM src wrap {n}", "SM", dst=0, src=T - n // 2 - 1, len=n)
        x(f"SM dst wrap {n}", "SM", dst=T - n // 2 - 1, src=0, len=n)
    mmw = dict(dst=100, A=200, B=300, M=2, K=8, N=2, tb=0, lda=8, ldb=2, ldc=2)
    for fld in ("A", "B", "dst"):
        for tb in (0, 1):
            x(f"MM {fld} wrap tb={tb}", "MM", **dict(mmw, tb=tb, ldb=8 if tb else 2, **{fld: T - 5}))
    # SM lengths whose low 12 bits are a valid length: a shape check on a truncated length
    # would pass them to the range check (a different fault code)
    for n in (4096 + 10, 4096 + 64):
        x(f"SM len {n}", "SM", dst=0, src=100, len=n)
    # priorities: shape over scratchpad over external
    x("LD len 0 + sp", "LD", dst=SP - 1, src=EXT - 1, len=0)
    x("LD sp + ext", "LD", dst=SP - 3, src=EXT - 3, len=5)
    x("ST sp + ext", "ST", src=SP - 3, dst=EXT - 3, len=5)
    x("MM M=0 + sp", "MM", **dict(mm, M=0, dst=SP - 1))
    for code in isa.ILLEGAL_OPCODES:       # every illegal opcode: 13..15 alias legal ones
        bad.append((f"opcode {code}", [code | (0x1234 << 4)]))   # if a bit is dropped
    # the language model's ops: at their limits (valid) and one past (faults)
    for n in (1, 7, 64):
        v("LDX", dst=SP - n, src=EXT - 3 * n, len=n, idx=SP - 1, rows=3)
        v("ADD", dst=SP - n, src=SP - 2 * n, len=n, src2=SP - 3 * n)
        v("ADD", dst=SP - 3 * n, src=SP - n, len=n, src2=SP - 2 * n)
        v("ADD", dst=SP - 2 * n, src=SP - 3 * n, len=n, src2=SP - n)
        v("ARGMAX", dst=SP - 1, src=SP - n, len=n)
        v("ARGMAX", dst=SP - n - 1, src=SP - n, len=n)
        v("NORM", dst=SP - n, src=SP - 2 * n, len=n, m=20000, s=14)
        v("NORM", dst=SP - 2 * n, src=SP - n, len=n, m=20000, s=14)
        x(f"LDX dst {n}", "LDX", dst=SP - n + 1, src=0, len=n, idx=0, rows=1)
        x(f"LDX table {n}", "LDX", dst=0, src=EXT - 3 * n + 1, len=n, idx=0, rows=3)
        x(f"ADD src {n}", "ADD", dst=0, src=SP - n + 1, len=n, src2=0)
        x(f"ADD src2 {n}", "ADD", dst=0, src=0, len=n, src2=SP - n + 1)
        x(f"ADD dst {n}", "ADD", dst=SP - n + 1, src=0, len=n, src2=0)
        x(f"ARGMAX src {n}", "ARGMAX", dst=0, src=SP - n + 1, len=n)
        x(f"NORM src {n}", "NORM", dst=0, src=SP - n + 1, len=n, m=1, s=0)
        x(f"NORM dst {n}", "NORM", dst=SP - n + 1, src=0, len=n, m=1, s=0)
    x("LDX idx", "LDX", dst=0, src=0, len=1, idx=SP, rows=1)
    x("LDX idx top", "LDX", dst=0, src=0, len=1, idx=0xFFFF, rows=1)
    x("ARGMAX dst", "ARGMAX", dst=SP, src=0, len=1)
    x("ARGMAX dst top", "ARGMAX", dst=0xFFFF, src=0, len=1)
    # issue 37: ARGMAX's pair (pair or acc: dst and dst + 1), ADD over int32
    for n in (1, 64):
        v("ARGMAX", dst=SP - 2, src=SP - n, len=n, base=0xFFFF, pair=1)
        v("ARGMAX", dst=SP - 2, src=SP - n - 2, len=n, base=n, acc=1)
        v("ADD", dst=SP - n, src=SP - 2 * n, len=n, src2=SP - 3 * n, w=1)
    for f in (dict(pair=1), dict(acc=1), dict(acc=1, pair=1)):
        name = " ".join(f)
        x(f"ARGMAX dst {name}", "ARGMAX", dst=SP - 1, src=0, len=1, **f)
        x(f"ARGMAX dst wrap {name}", "ARGMAX", dst=0xFFFF, src=0, len=1, **f)     # dst + 2 past 2^16
    x("ADD w len 0", "ADD", dst=5, src=5, len=0, src2=5, w=1)
    v("LDX", dst=0, src=0, len=2, idx=0, rows=EXT // 2)             # the table is the whole memory
    x("LDX rows past", "LDX", dst=0, src=0, len=2, idx=0, rows=EXT // 2 + 1)
    for op in ("LDX", "ADD", "ARGMAX", "NORM"):
        f = {"LDX": dict(dst=5, src=5, idx=5, rows=1), "ADD": dict(dst=5, src=5, src2=5),
             "ARGMAX": dict(dst=5, src=5), "NORM": dict(dst=5, src=5, m=1, s=1)}[op]
        x(f"{op} len 0", op, len=0, **f)
    x("LDX rows 0", "LDX", dst=5, src=5, len=3, idx=5, rows=0)
    x("LDX rows 2^15", "LDX", dst=0, src=0, len=1, idx=0, rows=1 << 15)   # ext, not shape
    v("NORM", dst=0, src=100, len=64, m=1, s=1)
    x("NORM len 65", "NORM", dst=0, src=100, len=65, m=1, s=1)
    x("NORM len 8191", "NORM", dst=0, src=100, len=8191, m=1, s=1)
    for n in (4096 + 10, 4096 + 64, 128 + 5):     # a shape check on a truncated length passes them
        x(f"NORM len {n}", "NORM", dst=0, src=100, len=n, m=1, s=1)
    for n in (1, 20):                             # range sums just past 2^16
        x(f"LDX dst wrap {n}", "LDX", dst=T - n // 2 - 1, src=0, len=n, idx=0, rows=1)
        x(f"ADD src wrap {n}", "ADD", dst=0, src=T - n // 2 - 1, len=n, src2=0)
        x(f"ADD src2 wrap {n}", "ADD", dst=0, src=0, len=n, src2=T - n // 2 - 1)
        x(f"ADD dst wrap {n}", "ADD", dst=T - n // 2 - 1, src=0, len=n, src2=0)
        x(f"ARGMAX src wrap {n}", "ARGMAX", dst=0, src=T - n // 2 - 1, len=n)
        x(f"NORM src wrap {n}", "NORM", dst=0, src=T - n // 2 - 1, len=n, m=1, s=0)
        x(f"NORM dst wrap {n}", "NORM", dst=T - n // 2 - 1, src=0, len=n, m=1, s=0)
    # LDX's table sum past 2^16, 2^20, 2^24 and 2^28 (its top bit), wrapping inside ext
    for rows, n, src in ((T // 16 + 1, 16, 0), ((1 << 20) // 256 + 1, 256, 0), ((1 << 24) // 4096, 4096, 5),
                         (65535, 4096, 4097), (65535, 4096, 4100 + EXT // 2)):
        x(f"LDX table wrap {rows}x{n}", "LDX", dst=0, src=src, len=n, idx=0, rows=rows)
    # priorities: shape over scratchpad over external
    x("LDX rows 0 + sp + ext", "LDX", dst=SP - 1, src=EXT - 1, len=4, idx=SP, rows=0)
    x("LDX sp + ext", "LDX", dst=SP - 3, src=EXT - 3, len=5, idx=0, rows=7)
    x("LDX idx + ext", "LDX", dst=0, src=EXT - 3, len=5, idx=SP + 3, rows=7)
    x("NORM len + sp", "NORM", dst=SP - 1, src=SP - 1, len=100, m=1, s=1)
    # the 4-bit packing ops: PACK4 reads 2*len and writes len, UNPACK4 the other way round
    for n in (1, 7, 64):
        v("PACK4", dst=SP - 3 * n, src=SP - 2 * n, len=n)
        v("PACK4", dst=SP - n, src=SP - 3 * n, len=n)
        v("UNPACK4", dst=SP - 3 * n, src=SP - n, len=n)
        v("UNPACK4", dst=SP - 2 * n, src=SP - 3 * n, len=n)
        x(f"PACK4 src {n}", "PACK4", dst=0, src=SP - 2 * n + 1, len=n)
        x(f"PACK4 dst {n}", "PACK4", dst=SP - n + 1, src=0, len=n)
        x(f"UNPACK4 src {n}", "UNPACK4", dst=0, src=SP - n + 1, len=n)
        x(f"UNPACK4 dst {n}", "UNPACK4", dst=SP - 2 * n + 1, src=0, len=n)
    v("PACK4", dst=0, src=0, len=SP // 2)        # the whole scratchpad: len's top bit
    v("UNPACK4", dst=0, src=SP // 2, len=SP // 2)
    for op in ("PACK4", "UNPACK4"):
        x(f"{op} len 0", op, dst=5, src=5, len=0)
        x(f"{op} len 0 + sp", op, dst=SP - 1, src=SP - 1, len=0)
    for n in (1, 20):                             # range sums just past 2^16 (2*len too)
        x(f"PACK4 src wrap {n}", "PACK4", dst=0, src=T - n - 1, len=n)
        x(f"PACK4 dst wrap {n}", "PACK4", dst=T - n // 2 - 1, src=0, len=n)
        x(f"UNPACK4 src wrap {n}", "UNPACK4", dst=0, src=T - n // 2 - 1, len=n)
        x(f"UNPACK4 dst wrap {n}", "UNPACK4", dst=T - n - 1, src=0, len=n)
    x("PACK4 len 4096", "PACK4", dst=0, src=0, len=4096)        # 2*len = 8192: past, and bit 13
    # xhi: the full external address xhi * 2^16 + src / dst (this chip: < 2^16 words)
    for xhi in (1, 128, 255):
        x(f"LD xhi {xhi}", "LD", dst=0, src=0, len=1, xhi=xhi)
        x(f"ST xhi {xhi}", "ST", src=0, dst=0, len=1, xhi=xhi)
        x(f"LDX xhi {xhi}", "LDX", dst=0, src=0, len=1, idx=0, rows=1, xhi=xhi)
    for n in (1, 2, 20):                          # the sum just past 2^24: wraps to 0.. in 24 bits
        x(f"LD xhi wrap {n}", "LD", dst=0, src=T - n // 2 - 1, len=n, xhi=255)
        x(f"ST xhi wrap {n}", "ST", src=0, dst=T - n // 2 - 1, len=n, xhi=255)
        x(f"LDX xhi wrap {n}", "LDX", dst=0, src=T - n // 2 - 1, len=n, idx=0, rows=1, xhi=255)
    x("LDX xhi table wrap", "LDX", dst=0, src=0, len=4096, idx=0, rows=4097, xhi=255)
    # valid boundary instructions in programs of at most 40, each storing the scratchpad end
    out = []
    for k in range(0, len(valid), 40):
        prog = valid[k:k + 40] + [isa.build("ST", cfg=CFG, src=SP - 64, dst=0, len=64), isa.build("HALT", cfg=CFG)]
        out.append((f"boundary valid {k // 40}", prog, None))
    for label, prog in bad:
        out.append((f"fault {label}", prog, None, 0, 1))
    return out


def wrap_programs(seed=RANDOM_SEED):
    """One bad program per field-sum kind whose sum reaches past the width the decoder's
    range arithmetic needs (tb/stimulus/badprog.wrap_bad_program: past 2^16, 2^20 for MM
    B), each followed by its follow-up: a range check on a truncated sum would accept it."""
    from tb.stimulus import badprog
    out = []
    for k, bad in enumerate(badprog.wrap_bad_programs(seed + 31, cfg=CFG)):
        out.append((f"wrap {k} code {bad.code}", bad.prog, bad.image))
        fprog, fimg = badprog.follow_up(bad, cfg=CFG)
        out.append((f"after wrap {k}", fprog, fimg))
    return out


def long_programs(seed=RANDOM_SEED):
    """The longest transfers the fields allow, so every counter and length bit is used:
    LD and ST of the whole scratchpad (len = SP_WORDS: the length field's top bit), RQ of
    the whole scratchpad in place and shifted by one, MM with K = 255 (the largest K) and
    the largest strides, SM of 64 elements at the scratchpad's end; results stored."""
    from model import isa
    rng = np.random.default_rng(seed + 13)
    SP = CFG.sp_words
    img = rng.integers(-128, 128, size=EXT)
    img[:16] = rng.integers(-2**31, 2**31, size=16)
    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    prog = [b("LD", dst=0, src=EXT - SP, len=SP),
            b("RQ", dst=0, src=0, len=SP, m=(1 << 16) - 1, s=9),
            b("ST", src=0, dst=0, len=SP),
            b("LD", dst=0, src=EXT - SP, len=SP),
            # K = 255 accumulating into words above 2048 (the old-C read's cycle and address
            # at their top bits), tb = 1 with a column step past 2048, K = 255, strides with
            # bit 11 set, SM of 64 at the end: all on random data, each result stored
            # before the shifted RQ below rewrites the whole scratchpad
            b("MM", dst=3000, A=0, B=1100, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4, acc=1),
            b("MM", dst=2100, A=10, B=50, M=4, K=10, N=4, tb=1, lda=10, ldb=1000, ldc=4),
            b("MM", dst=SP - 16, A=0, B=1100, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4),
            b("MM", dst=1000, A=0, B=100, M=2, K=200, N=2, tb=1, lda=3800, ldb=3000, ldc=2500),
            b("MM", dst=3200, A=5, B=0, M=2, K=2, N=4, tb=0, lda=2049, ldb=4000, ldc=1),
            b("SM", dst=SP - 64 - 80, src=SP - 64, len=64),
            b("ST", src=3000, dst=100, len=16),
            b("ST", src=2100, dst=200, len=16),
            b("ST", src=SP - 16, dst=300, len=16),
            b("ST", src=1000, dst=400, len=2),
            b("ST", src=3500, dst=410, len=2),
            b("ST", src=3200, dst=500, len=5),
            b("ST", src=SP - 64 - 80, dst=600, len=64),
            b("RQ", dst=1, src=0, len=SP - 1, m=1 << 15, s=16),
            b("ST", src=0, dst=SP, len=SP),
            b("HALT")]
    # the new ops at their longest: ADD of the whole scratchpad in place (2 * 4096 + 1
    # cycles) and onto itself shifted, ARGMAX of the whole scratchpad (an index with bit 11
    # set), LDX of a 4096-word row at the top of ext, NORM of 64 at the end
    lm = [b("LD", dst=0, src=EXT - SP, len=SP),
          b("ARGMAX", dst=100, src=0, len=SP),             # 3000
          b("ARGMAX", dst=101, src=2999, len=2),           # 1
          b("LDX", dst=102, src=0, len=2, idx=100, rows=EXT // 2),
          b("ST", src=100, dst=0, len=4),
          b("LDX", dst=0, src=0, len=SP, idx=101, rows=EXT // SP),   # the top half of ext
          b("ADD", dst=0, src=0, len=SP, src2=0),
          b("ST", src=4, dst=4, len=SP - 4),             # up to the last element's word
          b("ADD", dst=1, src=0, len=SP - 1, src2=1),      # dst over src2: each sum sees the last
          b("NORM", dst=SP - 64, src=SP - 64, len=64, m=30000, s=20),
          b("ST", src=0, dst=SP, len=SP),
          b("HALT")]
    img_lm = img.copy()
    img_lm[EXT - SP:EXT - SP + 3000] = np.minimum(img_lm[EXT - SP:EXT - SP + 3000], 126)
    img_lm[EXT - SP + 3000] = 127                        # the first maximum, at an index past 2048
    img_lm[EXT - SP + 3001] = 127
    return [("long transfers", prog, img), ("long lm", lm, img_lm)]
