"""Random GA-2 programs BUILT TO COLLIDE, for the overlap timing mode (docs/isa.md
"Timing modes").

collide_program(rng, cfg) draws a valid program whose instructions mostly aim one of
their scratchpad ranges at a range of a recent instruction of ANOTHER unit, in one of the
three hazard kinds: RAW (it reads what that one writes), WAR (it writes what that one
reads), WAW (both write); the rest go to a far region, free to run alongside. Long
instructions (LD / ST / RQ of 24..88 words, MM with K up to 255) sit next to short ones
(1..8 words, K 1..4), so a unit is often still busy when the next instruction decodes.
All scratchpad traffic stays inside two windows (NEAR, FAR), which the program stores to
the top of the external memory before its HALT (dump_program()), so comparing ext
compares the scratchpad too. With fault=True the program ends, after one or two long
instructions still in flight, with an instruction DECODE refuses (opcode, shape,
scratchpad or external range); run dump_program() after it to see the scratchpad.

hazard_kinds(prog, cfg) says which (new unit, busy unit, kind) conflicts the program
really has at DECODE time under the overlap schedule (model/timing.py), from
model/func.py's ranges: the tests use it to show every kind happens for every unit pair.

SM is drawn only with with_sm=True (the vector unit is RQ alone otherwise), the language
model's operations (LDX on the dma; ADD, ARGMAX, NORM, PACK4, UNPACK4, SWIGLU, ROPE on the vector
unit) only with
with_lm=True: an ARGMAX writes the row index IDX_WORD first (below LDX_ROWS), which most
LDXs read, so their rows are really copied; an LDX aimed at a colliding word reads
whatever is there (error 6 when it is not a row index: same cycles, nothing written).
lm_edge_programs(cfg) are edge_programs' one-word edges for every pair with a new op.
"""
import numpy as np

from model import config, func, isa, timing
from tb.stimulus.randops import rand_ms, random_image

NEAR = (0, 96)           # the colliding window: sp[0:96]
FAR = (2048, 2144)       # instructions meant to run alongside: sp[2048:2144]
DUMP = 256               # ext words the dump uses at the top of ext (both windows)
UNITS = ("dma", "mm", "vec")
KINDS = ("RAW", "WAR", "WAW")
IDX_WORD = 1024          # with_lm: the row index the LDXs read (outside both windows)
LDX_ROWS = 88            # with_lm: the LDX tables' rows (> every ARGMAX index: len <= 88)
# which ops read / write the scratchpad
_READS = {"ST", "MM", "RQ", "SM", "LDX", "ADD", "ARGMAX", "NORM", "PACK4", "UNPACK4", "SWIGLU", "ROPE"}
_WRITES = {"LD", "MM", "RQ", "SM", "LDX", "ADD", "ARGMAX", "NORM", "PACK4", "UNPACK4", "SWIGLU", "ROPE"}


def _rng(seed_or_rng):
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng
    return np.random.default_rng(seed_or_rng)


def _ranges(ins, which):
    """[(first, last)] of the sp ranges ins reads (which='r') or writes ('w')."""
    rs = func.reads(ins) if which == "r" else func.writes(ins)
    return [(r.first, r.last) for r in rs if r.space == func.SP]


def _meet(xs, ys):
    return any(a0 <= b1 and b0 <= a1 for a0, a1 in xs for b0, b1 in ys)


def _clip(base, span, lo, hi):
    """base moved so base .. base+span-1 lies in [lo, hi)."""
    return int(min(max(base, lo), hi - span))


def _near(rng, span, target=None, window=NEAR):
    """A base address in window for span words; with target (first, last) a base whose
    range overlaps the target by at least one word (head, tail or inside)."""
    lo, hi = window
    if target is None:
        return int(rng.integers(lo, hi - span + 1))
    t0, t1 = target
    base = int(rng.integers(t0 - span + 1, t1 + 1))
    return _clip(base, span, lo, hi)


def _len(rng, long_):
    return int(rng.integers(24, 89)) if long_ else int(rng.integers(1, 9))


def _ext(rng, cfg, n):
    """An ext base for n words below the dump area."""
    return int(rng.integers(0, cfg.ext_words - DUMP - n + 1))


def _mm(rng, cfg, long_, aim=None, window=NEAR):
    """An MM; aim = (operand 'A' | 'B' | 'dst', target range) places that operand's hull."""
    M, N = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    K = int(rng.integers(64, 256)) if long_ else int(rng.integers(1, 5))
    tb = int(rng.integers(0, 2))
    lda = K + int(rng.integers(0, 3))
    ldb = (K if tb else N) + int(rng.integers(0, 3))
    ldc = N + int(rng.integers(0, 3)) if rng.random() < 0.8 else int(rng.integers(0, N + 1))
    a_span = (M - 1) * lda + K
    b_span = ((N - 1) * ldb + K) if tb else ((K - 1) * ldb + N)
    c_span = (M - 1) * ldc + N
    lo, hi = window
    # spans must fit the window: shrink the long operand's shape if not
    while max(a_span, b_span, c_span) > hi - lo:
        K = max(1, K // 2)
        lda = K
        ldb = K if tb else N
        a_span = (M - 1) * lda + K
        b_span = ((N - 1) * ldb + K) if tb else ((K - 1) * ldb + N)
    base = {"A": _near(rng, a_span, window=window), "B": _near(rng, b_span, window=window),
            "dst": _near(rng, c_span, window=window)}
    if aim is not None:
        op_, target = aim
        span = {"A": a_span, "B": b_span, "dst": c_span}[op_]
        base[op_] = _near(rng, span, target, window)
    return isa.build("MM", cfg=cfg, dst=base["dst"], A=base["A"], B=base["B"], M=M, K=K, N=N,
                     tb=tb, lda=lda, ldb=ldb, ldc=ldc)


def _make(rng, cfg, op, long_, side=None, target=None, window=NEAR):
    """An instruction of op; side 'r' / 'w' with target (first, last): aim its read /
    write range there."""
    def b(o, **f):
        return isa.build(o, cfg=cfg, **f)
    if op == "MM":
        aim = None
        if side == "w":
            aim = ("dst", target)
        elif side == "r":
            aim = (("A", "B")[int(rng.integers(0, 2))], target)
        return _mm(rng, cfg, long_, aim, window)
    if op in ("SM", "NORM"):
        n = int(rng.integers(1, 65))
    else:
        n = _len(rng, long_)
    src = _near(rng, n, target if side == "r" else None, window)
    dst = _near(rng, n, target if side == "w" else None, window)
    if op == "LDX":
        n = min(n, 40)
        idx = _near(rng, 1, target, window) if side == "r" else IDX_WORD
        dst = _near(rng, n, target if side == "w" else None, window)
        return b("LDX", dst=dst, src=_ext(rng, cfg, LDX_ROWS * n), len=n, idx=idx, rows=LDX_ROWS)
    if op == "ADD":
        src2 = _near(rng, n, None, window)
        if side == "r" and rng.random() < 0.5:           # aim src2 instead of src
            src, src2 = src2, src
        if side is None and rng.random() < 0.2:          # dst overlapping src
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        return b("ADD", dst=dst, src=src, len=n, src2=src2)
    if op == "ARGMAX":
        return b("ARGMAX", dst=_near(rng, 1, target if side == "w" else None, window), src=src, len=n)
    if op == "NORM":
        if side is None and rng.random() < 0.2:
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        m, s = rand_ms(rng)
        return b("NORM", dst=dst, src=src, len=n, m=m, s=s)
    if op == "SWIGLU":                   # two reads as ADD's
        src2 = _near(rng, n, None, window)
        if side == "r" and rng.random() < 0.5:
            src, src2 = src2, src
        if side is None and rng.random() < 0.2:
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        return b("SWIGLU", dst=dst, src=src, len=n, src2=src2)
    if op == "ROPE":                     # heads x 2 pairs words, the cos/sin row 2 pairs (its second read)
        pairs = int(rng.integers(1, 13)) if long_ else int(rng.integers(1, 3))
        heads = int(rng.integers(1, 5)) if long_ else int(rng.integers(1, 3))
        n = 2 * pairs * heads
        at_cs = side == "r" and rng.random() < 0.5
        src = _near(rng, n, target if side == "r" and not at_cs else None, window)
        cs = _near(rng, 2 * pairs, target if at_cs else None, window)
        dst = src if side is None and rng.random() < 0.2 else _near(rng, n, target if side == "w" else None, window)
        return b("ROPE", dst=dst, src=src, pairs=pairs, cs=cs, heads=heads)
    if op in ("PACK4", "UNPACK4"):       # read and write spans differ: 2*len and len
        n = min(n, 40)
        rd, wr = (2 * n, n) if op == "PACK4" else (n, 2 * n)
        src = _near(rng, rd, target if side == "r" else None, window)
        dst = _near(rng, wr, target if side == "w" else None, window)
        return b(op, dst=dst, src=src, len=n)
    if op == "LD":
        return b("LD", dst=dst, src=_ext(rng, cfg, n), len=n)
    if op == "ST":
        return b("ST", src=src, dst=_ext(rng, cfg, n), len=n)
    if op == "RQ":
        if side is None and rng.random() < 0.2:          # src/dst overlapping, either way
            dst = _clip(src + int(rng.integers(-n, n + 1)), n, *window)
        m, s = rand_ms(rng)
        return b("RQ", dst=dst, src=src, len=n, m=m, s=s)
    return b("SM", dst=dst, src=src, len=n)


def _ops(op_unit, unit, side):
    """The ops of `unit` that have a range on `side` ('r' / 'w')."""
    have = _READS if side == "r" else _WRITES
    return [op for op, u in op_unit.items() if u == unit and op in have]


def collide_program(seed_or_rng, cfg=None, n_instr=None, with_sm=False, fault=False, with_lm=False):
    """(prog, image): a valid program of about n_instr instructions built to collide,
    ending with HALT (or, fault True or an error code 1..4, with a faulting instruction
    after long ones)."""
    rng = _rng(seed_or_rng)
    cfg = config.resolve(cfg)
    assert cfg.sp_words >= FAR[1] and cfg.ext_words >= 4 * DUMP, cfg
    op_unit = {"LD": "dma", "ST": "dma", "MM": "mm", "RQ": "vec"}
    if with_sm:
        op_unit["SM"] = "vec"
    if with_lm:
        op_unit.update({"LDX": "dma", "ADD": "vec", "ARGMAX": "vec", "NORM": "vec", "PACK4": "vec",
                        "UNPACK4": "vec", "SWIGLU": "vec", "ROPE": "vec"})
    ops = list(op_unit)
    n_instr = int(rng.integers(6, 18)) if n_instr is None else n_instr
    # data first: the near window from ext (itself a long LD the next ones collide with)
    prog = [isa.build("LD", cfg=cfg, dst=NEAR[0], src=_ext(rng, cfg, NEAR[1] - NEAR[0]),
                      len=NEAR[1] - NEAR[0])]
    if with_lm:                        # the row index of the LDXs, from the near window
        prog.append(isa.build("ARGMAX", cfg=cfg, dst=IDX_WORD, src=NEAR[0], len=LDX_ROWS))
    while len(prog) < n_instr:
        long_ = rng.random() < 0.3
        r = rng.random()
        if r < 0.7:
            # aim at a recent instruction of another unit, in a hazard kind both can have
            recent = prog[-3:]
            old = recent[int(rng.integers(0, len(recent)))]
            ou = timing.UNIT[old.op]
            kinds = []
            for kind in KINDS:
                new_side = "r" if kind == "RAW" else "w"
                old_side = "r" if kind == "WAR" else "w"
                targets = _ranges(old, old_side)
                for u in UNITS:
                    if u != ou and targets and _ops(op_unit, u, new_side):
                        kinds.append((kind, u, new_side, targets))
            if not kinds:
                continue
            kind, u, side, targets = kinds[int(rng.integers(0, len(kinds)))]
            cands = _ops(op_unit, u, side)
            op = cands[int(rng.integers(0, len(cands)))]
            target = targets[int(rng.integers(0, len(targets)))]
            prog.append(_make(rng, cfg, op, long_, side, target))
        elif r < 0.85:
            op = ops[int(rng.integers(0, len(ops)))]
            prog.append(_make(rng, cfg, op, long_, window=FAR))
        else:
            op = ops[int(rng.integers(0, len(ops)))]
            prog.append(_make(rng, cfg, op, long_))
    if fault:
        prog += _fault_tail(rng, cfg, None if fault is True else int(fault))
    else:
        prog += dump_program(cfg)          # the windows to ext, then HALT
    return prog, random_image(rng, cfg.ext_words)


def _fault_tail(rng, cfg, code=None):
    """One or two long instructions still running, then one DECODE refuses (code: 1..4,
    None a random one)."""
    tail = [_mm(rng, cfg, True, window=FAR)]
    if rng.random() < 0.5:
        n = NEAR[1] - NEAR[0]
        tail.append(isa.build("LD", cfg=cfg, dst=NEAR[0], src=_ext(rng, cfg, n), len=n))
    k = int(rng.integers(0, 4)) if code is None else {1: 0, 4: 1, 2: 2, 3: 3}[code]
    SP = cfg.sp_words
    if k == 0:
        tail.append(int(rng.choice(isa.ILLEGAL_OPCODES)) | (int(rng.integers(1, 1 << 40)) << 4))  # opcode
    elif k == 1:
        tail.append(isa.raw("RQ", dst=NEAR[0], src=FAR[0], len=0, m=1, s=1))            # shape
    elif k == 2:
        tail.append(isa.raw("LD", dst=SP - 4, src=0, len=16))                             # sp range
    else:
        tail.append(isa.raw("ST", src=FAR[0], dst=cfg.ext_words - 4, len=16))             # ext range
    return tail


def dump_program(cfg=None):
    """A valid program storing both windows to the top DUMP words of ext."""
    cfg = config.resolve(cfg)
    top = cfg.ext_words - DUMP
    n0, n1 = NEAR[1] - NEAR[0], FAR[1] - FAR[0]
    return [isa.build("ST", cfg=cfg, src=NEAR[0], dst=top, len=n0),
            isa.build("ST", cfg=cfg, src=FAR[0], dst=top + n0, len=n1),
            isa.build("HALT", cfg=cfg)]


def hazard_kinds(prog, cfg, by_op=False):
    """{(new unit, busy unit, kind)}: the hazards prog has at DECODE under the overlap
    schedule: a unit busy in the decode cycle of a later instruction of another unit
    whose ranges meet in that kind (each one stalls that instruction). by_op=True:
    {(new unit, busy unit, kind, new op, busy op)}."""
    cfg = config.resolve(cfg).replace(mode="overlap")
    s = timing.schedule(prog, cfg)
    words = isa.as_words(prog)
    evs = sorted((e for e in s.events if e.unit is not None), key=lambda e: e.pc)
    ins = {e.pc: isa.decoded(words[e.pc])[0] for e in evs}
    out = set()
    prev_issue = 0
    for e in evs:
        decode = prev_issue + 2
        prev_issue = e.issue
        new = ins[e.pc]
        for o in evs:
            if o.pc >= e.pc or o.unit == e.unit or not (o.start <= decode <= o.end):
                continue
            old = ins[o.pc]
            ops = (new.op, old.op) if by_op else ()
            if _meet(_ranges(new, "r"), _ranges(old, "w")):
                out.add((e.unit, o.unit, "RAW") + ops)
            if _meet(_ranges(new, "w"), _ranges(old, "r")):
                out.add((e.unit, o.unit, "WAR") + ops)
            if _meet(_ranges(new, "w"), _ranges(old, "w")):
                out.add((e.unit, o.unit, "WAW") + ops)
    return out


def all_kinds():
    """Every (new unit, busy unit, kind) the chip can have: 3 x 2 pairs x 3 kinds."""
    return {(a, b, k) for a in UNITS for b in UNITS if a != b for k in KINDS}


# ------------------------------------------------------------------ one-word edges
_EDGE_BASE = 256            # the edge programs' regions: sp[256:256 + 128 * 28]
_EDGE_STRIDE = 128
_EDGE_REGIONS = 28


def _edge_producers(cfg, at):
    """Long instructions of every op with their ranges placed at `at`: [(op, ins, {side:
    [(first, last)]})] (side "r" read, "w" write)."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    out = [("LD", b("LD", dst=at, src=0, len=40)),
           ("ST", b("ST", src=at, dst=0, len=40)),
           ("MM A", b("MM", dst=at + 48, A=at, B=at + 40, M=1, K=40, N=2, tb=0, lda=0, ldb=2, ldc=0)),
           ("MM B", b("MM", dst=at + 48, A=at + 44, B=at, M=1, K=20, N=2, tb=1, lda=0, ldb=20, ldc=0)),
           ("MM B tb=0", b("MM", dst=at + 48, A=at + 44, B=at, M=1, K=20, N=2, tb=0, lda=0, ldb=2, ldc=0)),
           ("MM C", b("MM", dst=at, A=at + 8, B=at + 24, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4)),
           ("RQ", b("RQ", dst=at + 24, src=at, len=24, m=20000, s=14)),
           ("SM", b("SM", dst=at + 24, src=at, len=24))]
    return out


def edge_programs(cfg=None):
    """[(label, prog, image)]: for every long instruction (each op, each of its scratchpad
    ranges) and every instruction of another unit that can meet it in a hazard kind, a
    pair whose ranges share exactly ONE word: the long one's LAST word (a hull one word
    short lets the pair run together) or its FIRST word; and pairs that touch the word
    just AFTER its last or just BEFORE its first, which must NOT wait (a hull one word
    too long makes them wait, and the retire trace shows it). Each pair sits in its own
    region, stored to the external memory after it, so an early read, an early write or
    a lost last write shows in ext. One program per long op."""
    cfg = config.resolve(cfg)
    rng = np.random.default_rng(4242)
    img = rng.integers(-128, 128, size=cfg.ext_words)
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    progs = []
    for k, (label, _) in enumerate(_edge_producers(cfg, 0)):
        prog, n = [], 0
        for edge in ("last", "first", "after", "before"):
            for side_p in ("r", "w"):
                for cons_op in ("LD", "ST", "MM", "RQ", "SM"):
                    at = _EDGE_BASE + _EDGE_STRIDE * (n % _EDGE_REGIONS)
                    op_p, prod = _edge_producers(cfg, at + 2)[k]
                    if timing.UNIT[cons_op] == timing.UNIT[prod.op]:
                        continue
                    ranges = [(r.first, r.last) for r in
                              (func.reads(prod) if side_p == "r" else func.writes(prod)) if r.space == func.SP]
                    if not ranges:
                        continue
                    if label.startswith("MM") and side_p == "r":     # the range the label names
                        ranges = ranges[:1] if label == "MM A" else ranges[1:] if label.startswith("MM B") else []
                    if label == "MM C" and side_p == "r":
                        ranges = []
                    for (lo, hi), side_c in ((r, s) for r in ranges for s in (("w",) if side_p == "r" else ("r", "w"))):
                        at = _EDGE_BASE + _EDGE_STRIDE * (n % _EDGE_REGIONS)
                        op_p, prod = _edge_producers(cfg, at + 2)[k]
                        rr = (func.reads(prod) if side_p == "r" else func.writes(prod))
                        lo, hi = [(r.first, r.last) for r in rr if r.space == func.SP][
                            1 if (label.startswith("MM B") and side_p == "r") else 0]
                        word = {"last": hi, "first": lo, "after": hi + 1, "before": lo - 1}[edge]
                        cons = _edge_consumer(b, cons_op, word, side_c, at, cfg)
                        if cons is None:
                            continue
                        # load the region first so every word has a known value, then the pair
                        prog += [b("LD", dst=at, src=int(rng.integers(0, cfg.ext_words - _EDGE_STRIDE)),
                                   len=_EDGE_STRIDE), prod, cons,
                                 b("ST", src=at, dst=cfg.ext_words - 2 * DUMP
                                   - _EDGE_STRIDE * (n % _EDGE_REGIONS + 1), len=_EDGE_STRIDE)]
                        n += 1
        progs.append((f"edges {label}", prog + [b("HALT")], img))
    return progs


def _edge_consumer(b, op, word, side, at, cfg):
    """A short instruction of op that reads (side "r") or writes ("w") the word `word`
    and otherwise touches only words at the end of the pair's region, past every long
    instruction's hull; None when op cannot."""
    hi = at + _EDGE_STRIDE
    if op == "LD":
        return b("LD", dst=word, src=7, len=1) if side == "w" else None
    if op == "ST":
        return b("ST", src=word, dst=9, len=1) if side == "r" else None
    if op == "MM":
        other = at + 124
        if side == "r":
            return b("MM", dst=other, A=word, B=other, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)
        return b("MM", dst=word, A=other, B=other, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)
    if op == "RQ":
        other = at + 125
        if side == "r":
            return b("RQ", dst=other, src=word, len=1, m=30000, s=9)
        return b("RQ", dst=word, src=other, len=1, m=30000, s=9)
    if op == "SM":
        other = at + 126
        if side == "r":
            return b("SM", dst=other, src=word, len=1)
        return b("SM", dst=word, src=other, len=1)
    assert word < hi
    return None


# ------------------------------------------------------------------ one-word edges, new ops
_LM_OPS = ("LDX", "ADD", "ARGMAX", "NORM", "PACK4", "UNPACK4", "SWIGLU", "ROPE")
_LM_EDGE_WORDS = 76         # the words of a region lm_edge_programs loads and stores


def _lm_edge_producers(cfg, at):
    """The language model's long instructions, their ranges at `at` (as _edge_producers):
    [(label, ins)]. The LDX reads its index at at + 60, which an ARGMAX of the eight
    words at at + 64 writes first (lm_edge_programs), so its row is really copied."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    return [("LDX", b("LDX", dst=at, src=0, len=40, idx=at + 60, rows=8)),
            ("ADD", b("ADD", dst=at + 48, src=at, len=24, src2=at + 24)),
            ("ARGMAX", b("ARGMAX", dst=at + 48, src=at, len=40)),
            ("NORM", b("NORM", dst=at + 24, src=at, len=24, m=20000, s=19)),
            ("PACK4", b("PACK4", dst=at + 48, src=at, len=12)),        # reads 24, writes 12
            ("UNPACK4", b("UNPACK4", dst=at + 24, src=at, len=12)),    # reads 12, writes 24
            ("SWIGLU", b("SWIGLU", dst=at + 48, src=at, len=24, src2=at + 24)),
            ("ROPE", b("ROPE", dst=at + 40, src=at, pairs=4, cs=at + 32, heads=4))]   # 32, 8, 32 words


def _lm_edge_consumers(b, op, word, side, at):
    """[short instructions of op] reading (side "r") or writing ("w") the word `word`, their
    other words at the end of the pair's region (at + 120 ..): ADD reads it as src and as
    src2."""
    o1, o2 = at + 121, at + 122
    if op == "LDX":                      # rows 128: the index, region data, may be out of range
        if side == "r":
            return [b("LDX", dst=o1, src=0, len=1, idx=word, rows=128)]
        return [b("LDX", dst=word, src=0, len=1, idx=o1, rows=128)]
    if op == "ADD":
        if side == "r":
            return [b("ADD", dst=o1, src=word, len=1, src2=o2), b("ADD", dst=o1, src=o2, len=1, src2=word)]
        return [b("ADD", dst=word, src=o1, len=1, src2=o2)]
    if op == "ARGMAX":
        if side == "r":
            return [b("ARGMAX", dst=o1, src=word, len=1)]
        return [b("ARGMAX", dst=word, src=o1, len=2)]
    if op == "NORM":
        if side == "r":
            return [b("NORM", dst=o1, src=word, len=1, m=30000, s=20)]
        return [b("NORM", dst=word, src=o1, len=1, m=30000, s=20)]
    if op == "SWIGLU":
        if side == "r":
            return [b("SWIGLU", dst=o1, src=word, len=1, src2=o2), b("SWIGLU", dst=o1, src=o2, len=1, src2=word)]
        return [b("SWIGLU", dst=word, src=o1, len=1, src2=o2)]
    if op == "ROPE":                     # two words from `word` (a pair, or the cos/sin row's)
        if side == "r":
            return [b("ROPE", dst=o1, src=word, pairs=1, cs=o2 + 1, heads=1),
                    b("ROPE", dst=o1, src=o2 + 1, pairs=1, cs=word, heads=1)]
        return [b("ROPE", dst=word, src=o1, pairs=1, cs=o2 + 1, heads=1)]
    if op in ("PACK4", "UNPACK4"):       # one word exactly: UNPACK4 len 1 reads it, PACK4 len 1 writes it
        if side == "r":
            return [b("UNPACK4", dst=o1, src=word, len=1)]
        return [b("PACK4", dst=word, src=o1, len=1)]
    cons = _edge_consumer(b, op, word, side, at, cfg=None)
    return [] if cons is None else [cons]


def lm_edge_programs(cfg=None):
    """[(label, prog, image)]: edge_programs' pairs (a long instruction and a short one of
    another unit sharing exactly the long one's first or last scratchpad word, or touching
    the word just past either end) with the new ops: each of LDX, ADD, ARGMAX, NORM, PACK4,
    UNPACK4, SWIGLU, ROPE as the
    long one against LD, ST, MM and RQ (a reader and a writer of every other unit), and as
    the short one against a long LD, MM (its dst) and RQ (one of every unit): the new ops'
    hulls (LDX's index word and row, ADD's and SWIGLU's src, src2 and dst, ARGMAX's one
    word, NORM's, ROPE's src, cos/sin row and dst),
    both in DECODE and in flight. One program per long op. The region is loaded and
    stored in its first 76 words (every long instruction's hull; the short ones' other
    words lie past them)."""
    cfg = config.resolve(cfg)
    rng = np.random.default_rng(4343)
    img = rng.integers(-128, 128, size=cfg.ext_words)
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    def producers(at):
        return _edge_producers(cfg, at) + _lm_edge_producers(cfg, at)

    progs = []
    for k, (label, prod0) in enumerate(producers(0)):
        if label not in _LM_OPS + ("LD", "MM C", "RQ"):
            continue
        nr = len([r for r in func.reads(prod0) if r.space == func.SP])
        nw = len([r for r in func.writes(prod0) if r.space == func.SP])
        sel = {"r": list(range(nr)), "w": list(range(nw))}
        if label.startswith("MM"):          # the range the label names (MM C: its dst only)
            sel["r"] = [0] if label == "MM A" else [1] if label.startswith("MM B") else []
        cases = [(edge, side_p, j, cons_op, side_c)
                 for edge in ("last", "first", "after", "before") for side_p in ("r", "w")
                 for j in sel[side_p] for cons_op in (("LD", "ST", "MM", "RQ") if label in _LM_OPS else _LM_OPS)
                 if timing.UNIT[cons_op] != timing.UNIT[prod0.op]
                 for side_c in (("w",) if side_p == "r" else ("r", "w"))]
        prog, n = [], 0
        for edge, side_p, j, cons_op, side_c in cases:
            for v in range(2):
                at = _EDGE_BASE + _EDGE_STRIDE * (n % _EDGE_REGIONS)
                prod = producers(at + 2)[k][1]
                rr = [r for r in (func.reads(prod) if side_p == "r" else func.writes(prod)) if r.space == func.SP]
                word = {"last": rr[j].last, "first": rr[j].first, "after": rr[j].last + 1,
                        "before": rr[j].first - 1}[edge]
                cons = _lm_edge_consumers(b, cons_op, word, side_c, at)
                if v >= len(cons):
                    break
                # load the region first so every word has a known value, then the pair
                prog.append(b("LD", dst=at, src=int(rng.integers(0, cfg.ext_words - _EDGE_STRIDE)),
                              len=_LM_EDGE_WORDS))
                if label == "LDX":               # its row index (< 8), from the region's words
                    prog.append(b("ARGMAX", dst=at + 62, src=at + 66, len=8))
                prog += [prod, cons[v],
                         b("ST", src=at, dst=cfg.ext_words - 2 * DUMP - _EDGE_STRIDE * (n % _EDGE_REGIONS + 1),
                           len=_LM_EDGE_WORDS)]
                n += 1
        progs.append((f"lm edges {label}", prog + [b("HALT")], img))
    return progs
