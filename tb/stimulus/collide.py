"""Random GA-2 programs BUILT TO COLLIDE, for the overlap timing mode (docs/isa.md
"Timing modes").

collide_program(rng, cfg) draws a valid program whose instructions mostly aim one of
their scratchpad ranges at a range of a recent instruction of ANOTHER unit, in one of the
three hazard kinds: RAW (it reads what that one writes), WAR (it writes what that one
reads), WAW (both write); the rest go to a far region, free to run alongside. Long
instructions (LD / ST / vector ops of 24..88 words, MM with K up to 255) sit next to short ones
(1..8 words, K 1..4), so a unit is often still busy when the next instruction decodes.
All scratchpad traffic stays inside two windows (NEAR, FAR), which the program stores to
the top of the external memory before its HALT (dump_program()), so comparing ext
compares the scratchpad too. With fault=True the program ends, after one or two long
instructions still in flight, with an instruction DECODE refuses (opcode, shape,
scratchpad or external range); run dump_program() after it to see the scratchpad.

hazard_kinds(prog, cfg) says which (new unit, busy unit, kind) conflicts the program
really has at DECODE time under the overlap schedule (model/timing.py), from
model/func.py's ranges: the tests use it to show every kind happens for every unit pair.

Which ops a program draws: LD, ST, MM and the ops whose module in tb/stimulus/ops/ says
COLLIDE = "base"; with with_sm=True also those of COLLIDE "sm"; with with_lm=True those of
"lm" (the language model's; a module's collide_prelude runs first: the lookup's row
index, so most lookups really copy a row; a lookup aimed at a colliding word reads
whatever is there, error 6 when it is not a row index: same cycles, nothing written).
Each op's instruction comes from its module's collide_make. lm_edge_programs(cfg) are
edge_programs' one-word edges for every pair with a language-model op.
"""
import numpy as np

from model import config, func, isa, timing
from model import ops as records
from tb.stimulus import ops
from tb.stimulus.randops import random_image

NEAR = (0, 96)           # the colliding window: sp[0:96]
FAR = (2048, 2144)       # instructions meant to run alongside: sp[2048:2144]
DUMP = 256               # ext words the dump uses at the top of ext (both windows)
UNITS = ("dma", "mm", "vec")
KINDS = ("RAW", "WAR", "WAW")
# which ops read / write the scratchpad (their records' ranges)
_READS = {n for n, r in records.TABLE.items() if any(g.space == records.SP and g.rd for g in r.ranges)}
_WRITES = {n for n, r in records.TABLE.items() if any(g.space == records.SP and g.wr for g in r.ranges)}


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
    mod = ops.owner(op)
    cap = getattr(mod, "COLLIDE_LEN", None)
    n = int(rng.integers(1, cap + 1)) if cap else _len(rng, long_)
    src = _near(rng, n, target if side == "r" else None, window)
    dst = _near(rng, n, target if side == "w" else None, window)
    if mod is not None:
        return mod.collide_make(rng, cfg, op, n, src, dst, long_, side, target, window)
    if op == "LD":
        return b("LD", dst=dst, src=_ext(rng, cfg, n), len=n)
    return b("ST", src=src, dst=_ext(rng, cfg, n), len=n)


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
    kinds = {"base"} | ({"sm"} if with_sm else set()) | ({"lm"} if with_lm else set())
    op_unit = {}
    for name in records.TABLE:                   # in opcode order
        mod = ops.owner(name)
        if name in ("LD", "ST", "MM") or (mod is not None and getattr(mod, "COLLIDE", None) in kinds):
            op_unit[name] = timing.UNIT[name]
    names = list(op_unit)
    n_instr = int(rng.integers(6, 18)) if n_instr is None else n_instr
    # data first: the near window from ext (itself a long LD the next ones collide with)
    prog = [isa.build("LD", cfg=cfg, dst=NEAR[0], src=_ext(rng, cfg, NEAR[1] - NEAR[0]),
                      len=NEAR[1] - NEAR[0])]
    for mod in ops.modules():          # e.g. the lookups' row index, from the near window
        if getattr(mod, "COLLIDE", None) in kinds and hasattr(mod, "collide_prelude"):
            prog += mod.collide_prelude(lambda o, **f: isa.build(o, cfg=cfg, **f), NEAR[0])
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
            op = names[int(rng.integers(0, len(names)))]
            prog.append(_make(rng, cfg, op, long_, window=FAR))
        else:
            op = names[int(rng.integers(0, len(names)))]
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
        tail.append(ops.hooks("fault_shape")[0](NEAR[0], FAR[0]))                          # shape
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
            pair = (new.op, old.op) if by_op else ()
            if _meet(_ranges(new, "r"), _ranges(old, "w")):
                out.add((e.unit, o.unit, "RAW") + pair)
            if _meet(_ranges(new, "w"), _ranges(old, "r")):
                out.add((e.unit, o.unit, "WAR") + pair)
            if _meet(_ranges(new, "w"), _ranges(old, "w")):
                out.add((e.unit, o.unit, "WAW") + pair)
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
    [(first, last)]})] (side "r" read, "w" write). A free word lies between each two ranges
    of one instruction, so the word just past a range's end touches no other range of it."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    out = [("LD", b("LD", dst=at, src=0, len=40)),
           ("ST", b("ST", src=at, dst=0, len=40)),
           ("MM A", b("MM", dst=at + 82, A=at, B=at + 41, M=1, K=40, N=1, tb=1, lda=0, ldb=40, ldc=0)),
           ("MM B", b("MM", dst=at + 65, A=at + 44, B=at, M=1, K=20, N=2, tb=1, lda=0, ldb=20, ldc=0)),
           ("MM B tb=0", b("MM", dst=at + 65, A=at + 44, B=at, M=1, K=20, N=2, tb=0, lda=0, ldb=2, ldc=0)),
           ("MM C", b("MM", dst=at, A=at + 17, B=at + 34, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4))]
    return out + [p for m in _classic() for p in m.edge_producers(b, at)]


def _classic():
    """The op modules of edge_programs (COLLIDE "base" and "sm"), lm_edge_programs' the rest."""
    return [m for m in ops.modules() if getattr(m, "COLLIDE", None) in ("base", "sm") and hasattr(m, "edge_producers")]


def _lm():
    return [m for m in ops.modules() if getattr(m, "COLLIDE", None) == "lm" and hasattr(m, "edge_producers")]


def top_base(cfg):
    """The first region's address that puts the one-word edge programs' regions at the top
    of cfg's scratchpad (the sp64k suite's: every address bit of their hulls set)."""
    return cfg.sp_words - _EDGE_BASE - _EDGE_STRIDE * _EDGE_REGIONS


def edge_programs(cfg=None, base=_EDGE_BASE):
    """[(label, prog, image)]: for every long instruction (each op, each of its scratchpad
    ranges) and every instruction of another unit that can meet it in a hazard kind, a
    pair whose ranges share exactly ONE word: the long one's LAST word (a hull one word
    short lets the pair run together) or its FIRST word; and pairs that touch the word
    just AFTER its last or just BEFORE its first, which must NOT wait (a hull one word
    too long makes them wait, and the retire trace shows it). Each pair sits in its own
    region, stored to the external memory after it, so an early read, an early write or
    a lost last write shows in ext. One program per long op. base: the first region's
    scratchpad address (top_base(cfg) for the regions at the top of the scratchpad)."""
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
                for cons_op in ("LD", "ST", "MM") + tuple(op for m in _classic() for op in m.OPS):
                    at = base + _EDGE_STRIDE * (n % _EDGE_REGIONS)
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
                        at = base + _EDGE_STRIDE * (n % _EDGE_REGIONS)
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
    instruction's hull (an op module's edge_consumers); None when op cannot."""
    if op == "LD":
        return b("LD", dst=word, src=7, len=1) if side == "w" else None
    if op == "ST":
        return b("ST", src=word, dst=9, len=1) if side == "r" else None
    if op == "MM":
        other = at + 124
        if side == "r":
            return b("MM", dst=other, A=word, B=other, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)
        return b("MM", dst=word, A=other, B=other, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)
    cons = ops.owner(op).edge_consumers(b, op, word, side, at)
    return cons[0] if cons else None


# ------------------------------------------------------------------ one-word edges, new ops
_LM_EDGE_WORDS = 76         # the words of a region lm_edge_programs loads and stores


def _lm_edge_producers(cfg, at):
    """The language model's long instructions, their ranges at `at` (as _edge_producers):
    [(label, ins)] (each op module's edge_producers; its edge_prelude runs before it)."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    return [p for m in _lm() for p in m.edge_producers(b, at)]


def edge_producers(cfg, at=0):
    """[(label, ins)]: every long instruction of the one-word edge programs (edge_programs'
    and lm_edge_programs'), its ranges placed at `at`."""
    return _edge_producers(cfg, at) + _lm_edge_producers(cfg, at)


def _lm_edge_consumers(b, op, word, side, at):
    """[short instructions of op] reading (side "r") or writing ("w") the word `word`, their
    other words at the end of the pair's region (at + 120 ..)."""
    mod = ops.owner(op)
    if mod is not None:
        return mod.edge_consumers(b, op, word, side, at)
    cons = _edge_consumer(b, op, word, side, at, cfg=None)
    return [] if cons is None else [cons]


def lm_edge_programs(cfg=None, base=_EDGE_BASE):
    """[(label, prog, image)]: edge_programs' pairs (a long instruction and a short one of
    another unit sharing exactly the long one's first or last scratchpad word, or touching
    the word just past either end) with the language model's ops (COLLIDE "lm"): each as
    the long one against LD, ST, MM and the "base" ops (a reader and a writer of every
    other unit), and as the short one against a long LD, MM (its dst) and the "base" ops'
    (one of every unit): their hulls, both in DECODE and in flight. One program per long
    op. The region is loaded and stored in its first 76 words (every long instruction's
    hull; the short ones' other words lie past them). base: as edge_programs'."""
    cfg = config.resolve(cfg)
    rng = np.random.default_rng(4343)
    img = rng.integers(-128, 128, size=cfg.ext_words)
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    lm_ops = tuple(op for m in _lm() for op in m.OPS)
    base_mods = [m for m in ops.modules() if getattr(m, "COLLIDE", None) == "base"]
    base_ops = tuple(op for m in base_mods for op in m.OPS)
    lm_labels = tuple(label for label, _ in _lm_edge_producers(cfg, 0))
    short = {label for m in base_mods for label, _ in m.edge_producers(b, 0)}
    progs = []
    for k, (label, prod0) in enumerate(edge_producers(cfg, 0)):
        if label not in lm_labels + ("LD", "MM C") + tuple(short):
            continue
        nr = len([r for r in func.reads(prod0) if r.space == func.SP])
        nw = len([r for r in func.writes(prod0) if r.space == func.SP])
        sel = {"r": list(range(nr)), "w": list(range(nw))}
        if label.startswith("MM"):          # the range the label names (MM C: its dst only)
            sel["r"] = [0] if label == "MM A" else [1] if label.startswith("MM B") else []
        cases = [(edge, side_p, j, cons_op, side_c)
                 for edge in ("last", "first", "after", "before") for side_p in ("r", "w")
                 for j in sel[side_p] for cons_op in (("LD", "ST", "MM") + base_ops if label in lm_labels else lm_ops)
                 if timing.UNIT[cons_op] != timing.UNIT[prod0.op]
                 for side_c in (("w",) if side_p == "r" else ("r", "w"))]
        prog, n = [], 0
        for edge, side_p, j, cons_op, side_c in cases:
            for v in range(3):             # every consumer variant (an op may read the word three ways)
                at = base + _EDGE_STRIDE * (n % _EDGE_REGIONS)
                prod = edge_producers(cfg, at + 2)[k][1]
                rr = [r for r in (func.reads(prod) if side_p == "r" else func.writes(prod)) if r.space == func.SP]
                word = {"last": rr[j].last, "first": rr[j].first, "after": rr[j].last + 1,
                        "before": rr[j].first - 1}[edge]
                cons = _lm_edge_consumers(b, cons_op, word, side_c, at)
                if v >= len(cons):
                    break
                # load the region first so every word has a known value, then the pair
                prog.append(b("LD", dst=at, src=int(rng.integers(0, cfg.ext_words - _EDGE_STRIDE)),
                              len=_LM_EDGE_WORDS))
                mod = ops.owner(prod.op)
                if label in lm_labels and hasattr(mod, "edge_prelude"):   # e.g. a lookup's row index
                    prog += mod.edge_prelude(b, at)
                prog += [prod, cons[v],
                         b("ST", src=at, dst=cfg.ext_words - 2 * DUMP - _EDGE_STRIDE * (n % _EDGE_REGIONS + 1),
                           len=_LM_EDGE_WORDS)]
                n += 1
        progs.append((f"lm edges {label}", prog + [b("HALT")], img))
    return progs
