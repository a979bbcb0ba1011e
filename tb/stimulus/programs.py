"""The chip programs of the RTL mutation suite (tb/mutation/rtl/suite.py writes them for
tb/hdl/mut_rtl_tb.v; tests/tb/test_bench_suite.py runs the same lists through
cocotb on both simulators).

suite_programs() is the in-order suite (config.CH09), overlap_programs() the overlap one
(config.CH09_OVERLAP); entries are (label, prog, image), (label, prog, image, abort_at)
for a cut by reset, and (label, prog, None, 0, 1) for a light fault program that keeps the
external memory. Each group says in its docstring which checks or bits it is there for.
"""
import functools
import random
from pathlib import Path

import numpy as np

from model import config

CFG = config.CH09               # chapter 9's chip (8192 external words); all programs share it
CFG_OVERLAP = config.CH09_OVERLAP   # the same chip in the overlap timing mode (second suite)
EXT = CFG.ext_words
N_COLLIDING = 10                # overlap suite: random programs built to collide
N_RANDOM_FIRST = 4              # random programs before the error programs
N_RANDOM_LATE = 8               # random programs after them
RANDOM_SEED = 20240


CH09_FILE = Path(__file__).resolve().parent / "named" / "ch09.npz"


def chapter9_programs(cfg=CFG):
    """[(label, prog, image)]: chapter 9's B = 1..4 at token 16 and the ragged batch, for
    cfg's timing mode, read from named/ch09.npz (written by tools/ch09/stimulus.py from the
    chapter's builder; tests/tools/ch09 fails when it is stale)."""
    from model import isa
    with np.load(CH09_FILE) as f:
        progs = f["overlap" if cfg.mode == "overlap" else "inorder"]
        return [(str(label), [isa.decode(int(w, 16)) for w in row if w], np.asarray(img, dtype=np.int64))
                for label, row, img in zip(f["labels"], progs, f["images"])]


def acc_programs(rng, cfg, n=3):
    """[(label, prog, image)]: MM with acc = 1 (dst += A x B): n random programs with
    half their products accumulating (progen.with_acc), and a crafted one whose output
    rows overlap (ldc < N: each result adds onto the word an earlier result of the same
    product just wrote, which the matrix unit reads back through the scratchpad's
    write-first path)."""
    from model import isa
    from tb.stimulus import progen
    out = []
    for k in range(n):
        prog, img = progen.random_program(rng, cfg=cfg)
        out.append((f"acc random {k}", progen.with_acc(prog, rng), img))
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    img = rng.integers(-128, 128, size=256)
    prog = [b("LD", dst=0, src=0, len=200)]
    for ldc, N, tb in ((1, 4, 0), (2, 4, 1), (3, 4, 0), (1, 2, 1), (0, 3, 0), (2, 1, 0)):
        prog.append(b("MM", dst=300 + 40 * ldc + 8 * N, A=0, B=64, M=4, K=6, N=N, tb=tb,
                      lda=6, ldb=6 if tb else N, ldc=ldc, acc=1))
    prog += [b("ST", src=300, dst=600, len=200), b("HALT")]
    out.append(("acc overlapping rows", prog, img))
    return out


def overlap_programs(quick=False):
    """[(label, prog, image)] of the overlap suite (run on the OVERLAP=1 build): programs
    built to collide across units (every hazard kind, long next to short), faults behind
    work in flight on every unit, the one-word edges of every hull (collide.edge_programs),
    accumulating products, the in-order suite's random and crafted programs, the chapter-9
    programs in the overlap order, and resets while several units are busy. quick=True
    (the CI harness) leaves out the edge and chapter-9 programs, which the co-simulation
    tests run on both simulators anyway."""
    from model import isa, timing
    from tb.stimulus import collide, progen
    rng = np.random.default_rng(RANDOM_SEED + 7)
    cfg = CFG_OVERLAP
    progs = [(f"colliding {k}", *collide.collide_program(rng, cfg, with_sm=k % 2 == 1))
             for k in range(N_COLLIDING)]

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    img = rng.integers(-128, 128, size=256)
    busy = [b("LD", dst=0, src=0, len=200),
            b("MM", dst=300, A=400, B=420, M=4, K=60, N=4, tb=1, lda=60, ldb=60, ldc=4),
            b("SM", dst=500, src=520, len=64)]
    for code in (1, 2, 3, 4):                     # a fault behind three busy units
        bad = progen.bad_program(RANDOM_SEED + 40 + code, code, cfg=cfg)
        fault = bad.prog[bad.pc]
        progs.append((f"overlap error {code}", busy + [fault, b("ST", src=0, dst=0, len=8), b("HALT")], img))
        progs.append((f"after overlap error {code}", busy + [b("ST", src=0, dst=1000, len=600), b("HALT")], img))
    bad = progen.bad_program(RANDOM_SEED + 45, isa.ERR_PC, cfg=cfg)   # past the end, units busy
    progs.append(("overlap error 5", bad.prog, bad.image))
    # error 6 found while other units run: alone (HALT waits for them), before a DECODE
    # fault that waits for them too, twice (the first pc stays)
    img6 = img.copy()
    img6[250:253] = [300, 1 << 20, 5]
    ld6 = b("LD", dst=700, src=250, len=3)
    bad6 = b("LDX", dst=800, src=1000, len=16, idx=700, rows=300)
    good6 = b("LDX", dst=820, src=1000, len=16, idx=702, rows=300)
    for k, tail in enumerate(([bad6, b("HALT")], [bad6] + busy + [b("HALT")],
                              [bad6] + busy + [isa.raw("SM", dst=0, src=0, len=65), b("HALT")],
                              [good6, bad6, good6, isa.raw("LDX", dst=0, src=0, len=1, idx=702, rows=0)],
                              [bad6, b("LDX", dst=840, src=1000, len=16, idx=701, rows=300), b("HALT")])):
        progs.append((f"overlap error 6 ({k})", [ld6] + busy + tail, img6))
        progs.append((f"after overlap error 6 ({k})", busy + [b("ST", src=700, dst=1000, len=200), b("HALT")], img6))
    for k in range(4):
        progs.append((f"colliding lm {k}", *collide.collide_program(rng, cfg, with_sm=k % 2 == 1, with_lm=True)))
    for k in range(3):
        prog, im = progen.random_program(rng, cfg=cfg)
        progs.append((f"random overlap {k}", prog, im))
    if not quick:
        progs.extend(collide.edge_programs(cfg))     # one-word overlaps at every hull's ends
        progs.extend(collide.lm_edge_programs(cfg))  # the same with the new ops
    progs.extend((f"{label} overlap", progen.with_acc(prog, rng), im)
                 for label, prog, im in (("colliding acc", *collide.collide_program(rng, cfg, with_sm=True)),))
    progs.extend(acc_programs(rng, cfg, n=1))
    # a read 2048 words from a write in the same cycle (LD writing sp[k] while RQ reads
    # sp[k + 2048]): the scratchpad's write-first compare must use every address bit
    for src in (2048, 2049, 2050):
        progs.append((f"alias read {src}", [b("LD", dst=2040, src=0, len=30), b("LD", dst=0, src=0, len=200),
                                            b("RQ", dst=3000, src=src, len=100, m=20000, s=10),
                                            b("ST", src=3000, dst=4000, len=100), b("HALT")], img))
    progs.extend((f"{label} overlap", prog, im) for label, prog, im in crafted_programs())
    if not quick:
        progs.extend((f"{label} overlap", prog, im) for label, prog, im in chapter9_programs(cfg))
        progs.extend((f"{label} overlap", prog, im) for label, prog, im in long_programs())
    # self-contained (both windows loaded first), so an aborted run's leftovers cannot matter
    prog, im = collide.collide_program(np.random.default_rng(RANDOM_SEED + 8), cfg, n_instr=20, with_sm=True)
    far = collide.FAR[1] - collide.FAR[0]
    prog = [b("LD", dst=collide.FAR[0], src=0, len=far)] + prog
    sched = timing.schedule(prog, cfg)
    for ev in sched.events[2:6]:                  # cut while the next ones are in flight
        at = ev.issue + 1
        progs.append((f"reset overlap at {at}", prog, im, at))
        progs.append((f"after reset overlap at {at}", prog, im))
    return progs


def suite_programs(quick=False):
    """[(label, prog, image)] in suite order: cheap and broad first, chapter 9 last.
    quick=True (the CI harness test) leaves out the wrap, longest-transfer and chapter-9
    programs, which tests/tb/test_bench_suite.py runs on both simulators anyway."""
    from tb.stimulus import progen
    rng = np.random.default_rng(RANDOM_SEED)
    progs = []
    for k in range(N_RANDOM_FIRST):
        prog, img = progen.random_program(rng, cfg=CFG)
        progs.append((f"random {k}", prog, img))
    for code in (1, 4, 2, 3, 5, 6):
        bad = progen.bad_program(RANDOM_SEED + code, code, cfg=CFG)
        progs.append((f"error {code}", bad.prog, bad.image))
        fprog, fimg = progen.follow_up(bad, cfg=CFG)
        progs.append((f"after error {code}", fprog, fimg))
    progs.extend(index_error_programs())
    progs.extend(crafted_programs())
    progs.extend(lm_programs())
    progs.extend(boundary_programs())
    if not quick:
        progs.extend(wrap_programs())
        progs.extend(long_programs())
    for k in range(N_RANDOM_LATE):
        prog, img = progen.random_program(rng, cfg=CFG)
        progs.append((f"random {N_RANDOM_FIRST + k}", prog, img))
    progs.extend(acc_programs(rng, CFG))
    if not quick:
        progs.extend(chapter9_programs())
    progs.extend(reset_programs())
    return progs


def lm_programs():
    """[(label, prog, image)]: tb/stimulus/hand.py's programs of the language model's ops
    that run to HALT (ADD, ARGMAX, NORM, RQ relu and LDX at their edges; PACK4 / UNPACK4:
    hand.pack4_programs()), on this chip."""
    from tb.stimulus import hand
    return [(f"crafted {name}", prog, img) for name, prog, img in hand.lm_programs()
            if name.startswith(("lm_", "pack4_", "ok_pack4"))]


def index_error_programs(seed=RANDOM_SEED):
    """[(label, prog, image)]: error 6 (an LDX row index not below rows, found in EXEC):
    each kind of progen.bad_program's (a lone bad LDX, a good one after it, a second bad
    one, a later DECODE fault) and hand.py's (rows itself, -1, 2^31, 2^16, a later illegal
    opcode, running past the instruction memory), each followed by its follow-up (the
    error clears at the next start)."""
    from tb.stimulus import hand, progen
    out = []
    rng = np.random.default_rng(seed + 61)
    for k in range(4):
        bad = progen.bad_program(rng, 6, cfg=CFG)
        out.append((f"error 6 ({k})", bad.prog, bad.image))
        fprog, fimg = progen.follow_up(bad, cfg=CFG)
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
    its table src + rows*len, rows 0; ADD src, src2, dst; ARGMAX src and its one-word dst;
    NORM src, dst, len 64 / 65 / 4096 + 64) the same way, with their sums just past 2^16
    and LDX's table sum past 2^28; PACK4 / UNPACK4 with their 2*len spans (PACK4 src,
    UNPACK4 dst) and len spans at the end, past it and past 2^16; LD / ST / LDX with xhi > 0
    (this chip's external memory is below 2^16: every xhi > 0 faults), their full address
    sums just past 2^24 (xhi = 255, a 24-bit sum without its carry would wrap to 0)."""
    from model import config, isa
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
    range arithmetic needs (tb/stimulus/progen.wrap_bad_program: past 2^16, 2^20 for MM
    B), each followed by its follow-up: a range check on a truncated sum would accept it."""
    from tb.stimulus import progen
    out = []
    for k, bad in enumerate(progen.wrap_bad_programs(seed + 31, cfg=CFG)):
        out.append((f"wrap {k} code {bad.code}", bad.prog, bad.image))
        fprog, fimg = progen.follow_up(bad, cfg=CFG)
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
    b = lambda op, **f: isa.build(op, cfg=CFG, **f)  # noqa: E731
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


def _softmax_q16(x):
    """softmax_fixed of int8 values, recomputed here from the spec's formula."""
    import math
    mx = max(x)
    e = [int(math.floor(65535 * math.exp(-(mx - v) / 16) + 0.5)) for v in x]
    S = sum(e)
    return e, S


def crafted_programs(seed=RANDOM_SEED):
    """Data that random programs rarely produce, each result stored at once:
    SM inputs whose max is exactly one above the running max (ascending runs), all
    negative, all -128, len 1 and 64, and vectors chosen so that floor(e*65536/S) moves
    when the dividend gains 1 or the sum loses 1; RQ with dst = src + 1 and src + 2 (the
    scratchpad's write-first bypass, docs/isa.md). The search for those vectors takes
    about 1.7 CPU s; it is made once per process and seed (the in-order and the overlap
    suites both hold these programs), each caller getting its own copy."""
    import copy
    return copy.deepcopy(_crafted_programs(seed))


@functools.lru_cache(maxsize=None)
def _crafted_programs(seed):
    from model import isa
    rng = random.Random(seed + 11)
    vecs = [[5], [-128], [127], list(range(0, 16)), list(range(-20, -4)), [10, 11], [3, 4, 5, 6],
            [-100, -90, -95, -120], [-128] * 5, [-128, -127, -128], [50, 20, 49], [-1, -2], [7] * 64, [-128] * 64,
            [rng.randint(-8, 8) for _ in range(64)], [rng.randint(-128, 127) for _ in range(64)]]
    found = {"dividend": 0, "sum": 0}
    while min(found.values()) < 2:
        x = [rng.randint(-60, 60) for _ in range(rng.randint(2, 6))]
        e, S = _softmax_q16(x)
        hit = False
        if found["dividend"] < 2 and any((v * 65536 + 1) // S != (v * 65536) // S for v in e):
            found["dividend"] += 1
            hit = True
        if found["sum"] < 2 and any((v * 65536) // (S - 1) != (v * 65536) // S for v in e):
            found["sum"] += 1
            hit = True
        if hit:
            vecs.append(x)
    img, prog, pos, out = [], [], 0, 100

    def b(op, **f):
        prog.append(isa.build(op, cfg=CFG, **f))

    for x in vecs:
        img += x
    b("LD", dst=0, src=0, len=len(img))
    for x in vecs:
        b("SM", dst=2000, src=pos, len=len(x))
        b("ST", src=2000, dst=4000 + pos, len=len(x))
        pos += len(x)
    rq_in = [rng.randint(-100, 100) for _ in range(24)]
    img_rq = len(img)
    img += rq_in
    for k, off in enumerate((1, 2, 3)):
        base = 2500 + 100 * k
        b("LD", dst=base, src=img_rq, len=24)
        b("RQ", dst=base + off, src=base, len=20, m=20000, s=14)
        b("ST", src=base, dst=6000 + 40 * k, len=24 + off)
    b("HALT")
    return [("crafted SM/RQ", prog, img)]


def self_contained_program():
    """(prog, image): LD, MM, RQ, SM, ST that reads only scratchpad words it wrote itself,
    so its results do not depend on what an aborted program left in the scratchpad."""
    from model import config, isa
    rng = np.random.default_rng(RANDOM_SEED + 99)
    img = rng.integers(-128, 128, size=64)

    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)

    prog = [b("LD", dst=0, src=0, len=64),
            b("MM", dst=100, A=0, B=16, M=4, K=8, N=4, tb=0, lda=8, ldb=4, ldc=4),
            b("RQ", dst=200, src=100, len=16, m=20000, s=12),
            b("MM", dst=120, A=4, B=32, M=3, K=5, N=2, tb=1, lda=9, ldb=6, ldc=2),
            b("SM", dst=300, src=200, len=6),
            b("ST", src=100, dst=1000, len=26),
            b("ST", src=200, dst=1100, len=16),
            b("ST", src=300, dst=1200, len=6),
            b("HALT")]
    return prog, img


def self_contained_lm_program():
    """(prog, image): the language model's ops reading only scratchpad words the program
    wrote itself: LD, NORM, ADD, ARGMAX, LDX of the row it names, RQ relu, ST."""
    from model import isa
    rng = np.random.default_rng(RANDOM_SEED + 98)
    img = rng.integers(-128, 128, size=400)

    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)

    prog = [b("LD", dst=0, src=0, len=64),
            b("NORM", dst=100, src=0, len=40, m=25000, s=19),
            b("ADD", dst=200, src=100, len=40, src2=10),
            b("ARGMAX", dst=300, src=200, len=40),
            b("LDX", dst=310, src=0, len=8, idx=300, rows=40),
            b("RQ", dst=330, src=0, len=20, m=20000, s=9, relu=1),
            b("ST", src=100, dst=1000, len=260),
            b("HALT")]
    return prog, img


def self_contained_pack4_program():
    """(prog, image): PACK4 and UNPACK4 reading only scratchpad words the program wrote
    itself: LD, PACK4, UNPACK4 of its result, ST."""
    from model import isa
    rng = np.random.default_rng(RANDOM_SEED + 99)
    img = rng.integers(-128, 128, size=64)

    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)

    prog = [b("LD", dst=0, src=0, len=64),
            b("PACK4", dst=100, src=0, len=32),
            b("UNPACK4", dst=200, src=100, len=32),
            b("ST", src=100, dst=1000, len=164),
            b("HALT")]
    return prog, img


def reset_programs():
    """Reset while busy: the self-contained programs cut by rst in the middle of each
    unit (LD, MM, RQ, SM's divide phase; LDX, ADD, ARGMAX, NORM's divide; PACK4,
    UNPACK4), and around each unit's start, each followed by the same program run in
    full. Entries are (label, prog, image, abort_at)."""
    from model import timing
    prog, img = self_contained_program()
    out = []
    for ev in timing.schedule(prog, CFG).events[:5]:
        busy = ev.end - ev.start + 1
        at = ev.issue + (busy * 3) // 4          # three quarters into the unit's busy time
        out.append((f"reset in {ev.op}", prog, img, at))
        out.append((f"after reset in {ev.op}", prog, img))
    # reset around the cycle a unit is started (its DECODE): a reset must win over the
    # start, or the unit runs after the reset (LD, MM, RQ, SM)
    for ev in timing.schedule(prog, CFG).events[:5:1]:
        if ev.op == "MM" and ev.pc > 1:
            continue
        for at in (ev.issue - 1, ev.issue):         # the cut's reset edge ends cycle at + 1
            out.append((f"reset at the start of {ev.op} ({at})", prog, img, at))
            out.append((f"after reset at the start of {ev.op} ({at})", prog, img))
    prog, img = self_contained_lm_program()
    for ev in timing.schedule(prog, CFG).events[1:5]:     # NORM, ADD, ARGMAX, LDX
        busy = ev.end - ev.start + 1
        for at in (ev.issue + (busy * 3) // 4, ev.issue - 1, ev.issue):
            out.append((f"reset in {ev.op} ({at})", prog, img, at))
            out.append((f"after reset in {ev.op} ({at})", prog, img))
    prog, img = self_contained_pack4_program()
    for ev in timing.schedule(prog, CFG).events[1:3]:     # PACK4, UNPACK4
        busy = ev.end - ev.start + 1
        for at in (ev.issue + (busy * 3) // 4, ev.issue - 1, ev.issue):
            out.append((f"reset in {ev.op} ({at})", prog, img, at))
            out.append((f"after reset in {ev.op} ({at})", prog, img))
    return out


def bench_items(entries):
    """[(label, hw Item)] for the bench's entries, in the same order (tests/tb/test_bench_suite.py
    runs them so; tb/coverage_run.py too): (label, prog, image) -> Item(prog, image) (image
    None: an all-zero external memory, as the bench clears it); (label, prog, image,
    abort_at) -> the same cut by rst after abort_at cycles; (label, prog, None, 0, 1), a
    light fault program, -> Item(prog, KEEP_EXT): the external memory stays as the previous
    program left it."""
    from tb.sim.run import DEFAULT_GAP, KEEP_EXT, Item
    out = []
    for e in entries:
        if len(e) not in (3, 4, 5):
            raise ValueError(f"bench entry of {len(e)} fields: {e[0]!r}")
        label, prog, img = e[:3]
        abort_at = int(e[3]) if len(e) > 3 else 0
        light = bool(e[4]) if len(e) > 4 else False
        if light:
            # build_suite writes no ext/exp files for a light program: its image is unused
            if img is not None or abort_at:
                raise ValueError(f"{label}: a light entry with an image or a cut")
            img = KEEP_EXT
        out.append((label, Item(prog, img, None, DEFAULT_GAP, abort_at)))
    return out
