"""The mutation suite's programs at the decoder's and the units' edges: error 6 (a row
index found bad in EXEC) and its follow-ups, every decode check at its limit, wrapping
ranges, and the longest transfers (tb/stimulus/programs.py puts them into the suites).
Every op but LD, ST and MM brings its own from its module in tb/stimulus/ops/ (hooks
edges_n, edges, long_programs)."""
import random

import numpy as np

from tb.stimulus import ops
from tb.stimulus.suitecfg import CFG, EXT, RANDOM_SEED


def index_error_programs(seed=RANDOM_SEED):
    """[(label, prog, image)]: error 6 (a row index not below rows, found in EXEC): each
    kind of badprog.bad_program's (a lone bad lookup, a good one after it, a second bad
    one, a later DECODE fault) and hand.py's err6_ programs (rows itself, -1, 2^31, 2^16,
    a later illegal opcode), each followed by its follow-up (the error clears at the next
    start)."""
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
    LD, ST and MM here: len 0 / 1, M and N 0 / 4 / 5..7, K 0 / 1; the last word touched =
    size - 1 (valid) or size (fault) for every address field, MM with random shapes and
    strides for A, B (tb 0 and 1) and dst; priorities 4 > 2 > 3; the illegal opcodes
    (isa.ILLEGAL_OPCODES: 0, 13..15) and sub-opcodes (isa.ILLEGAL_XOPS: 21..31); xhi > 0
    (this chip's external memory is below 2^16: every xhi > 0 faults; xhi's top bit alone)
    and the full address sums just past 2^29 (xhi = 8191, the
    top page: a 29-bit sum without its carry would wrap to 0). Every other op's from its module: edges_n(v, x, n,
    SP, EXT) at n = 1, 7, 64, then edges(v, x, SP, EXT, T) (its shape limits, each range
    sum just past 2^16, its own sums, priorities and largest sizes); the valid ones of a
    module's EDGE_GROUP are chained n by n (group 0 with LD's and ST's, before MM's); then
    end_faults: every range of every other op at its memory's end and one word past it."""
    from model import isa
    rng = random.Random(seed + 7)
    SP = CFG.sp_words
    T = 1 << 16
    valid, bad = [], []

    def v(op, **f):
        valid.append(isa.build(op, cfg=CFG, **f))

    def x(label, op, **f):
        ins = isa.raw(op, **f)
        assert isa.check(ins, CFG) is not None, (label, ins)
        bad.append((label, [ins]))

    groups = {}
    for m in ops.modules():
        if hasattr(m, "edges_n") or hasattr(m, "edges"):
            groups.setdefault(m.EDGE_GROUP, []).append(m)

    def group(mods, first=None):
        for n in (1, 7, 64):
            if first:
                first(n)
            for m in mods:
                if hasattr(m, "edges_n"):
                    m.edges_n(v, x, n, SP, EXT)
        for m in mods:
            if hasattr(m, "edges"):
                m.edges(v, x, SP, EXT, T)

    def dma(n):
        v("LD", dst=SP - n, src=EXT - n, len=n)
        v("ST", src=SP - n, dst=EXT - n, len=n)
        x(f"LD dst {n}", "LD", dst=SP - n + 1, src=0, len=n)
        x(f"LD src {n}", "LD", dst=0, src=EXT - n + 1, len=n)
        x(f"ST src {n}", "ST", src=SP - n + 1, dst=0, len=n)
        x(f"ST dst {n}", "ST", src=0, dst=EXT - n + 1, len=n)
    group(groups.pop(0, []), dma)
    x("LD len 0", "LD", len=0, dst=5, src=5)
    x("ST len 0", "ST", len=0, src=5, dst=5)
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
    # the depth's khi (KE = K + 256 khi): A's and B's ranges (tb 0 and 1) ending at the last
    # word (valid) and one word past it (fault), so each range's 256 * khi term is exact
    for khi, K, M, N in ((1, 0, 2, 3), (2, 37, 3, 2), (7, 255, 1, 1)):
        KE = K + 256 * khi
        for tb in (0, 1):
            lda, ldb = 3, (5 if tb else 2)
            a_ext = (M - 1) * lda + KE
            b_ext = (N - 1) * ldb + KE if tb else (KE - 1) * ldb + N
            base = dict(dst=0, A=0, B=0, M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=N, khi=khi)
            for fld, ext_ in (("A", a_ext), ("B", b_ext)):
                v("MM", **dict(base, **{fld: SP - ext_}))
                x(f"MM {fld} khi={khi} tb={tb}", "MM", **dict(base, **{fld: SP - ext_ + 1}))
    # each range sum just past 2^16 with every other field in range: a sum without its
    # carry into bit 16 would look valid (the wrap programs may fault on two fields)
    for n in (1, 20):
        x(f"LD dst wrap {n}", "LD", dst=T - n // 2 - 1, src=0, len=n)
        x(f"LD src wrap {n}", "LD", dst=0, src=T - n // 2 - 1, len=n)
        x(f"ST src wrap {n}", "ST", src=T - n // 2 - 1, dst=0, len=n)
        x(f"ST dst wrap {n}", "ST", src=0, dst=T - n // 2 - 1, len=n)
    mmw = dict(dst=100, A=200, B=300, M=2, K=8, N=2, tb=0, lda=8, ldb=2, ldc=2)
    for fld in ("A", "B", "dst"):
        for tb in (0, 1):
            x(f"MM {fld} wrap tb={tb}", "MM", **dict(mmw, tb=tb, ldb=8 if tb else 2, **{fld: T - 5}))
    # priorities: shape over scratchpad over external
    x("LD len 0 + sp", "LD", dst=SP - 1, src=EXT - 1, len=0)
    x("LD sp + ext", "LD", dst=SP - 3, src=EXT - 3, len=5)
    x("ST sp + ext", "ST", src=SP - 3, dst=EXT - 3, len=5)
    x("MM M=0 + sp", "MM", **dict(mm, M=0, dst=SP - 1))
    for code in isa.ILLEGAL_OPCODES:       # every illegal opcode: 13..15 alias legal ones
        bad.append((f"opcode {code}", [code | (0x1234 << 4)]))   # if a bit is dropped
    for code in isa.ILLEGAL_XOPS:          # every unused sub-opcode: 24..28 alias 16..20
        bad.append((f"opcode {code}", [isa.opcode_word(code) | (0x1234 << 8)]))   # if xop's top bit is dropped
    for g in sorted(groups):
        group(groups[g])
    ends_valid, ends_bad = end_faults(CFG)       # every other op's every range at its end
    valid += ends_valid
    bad += ends_bad
    # xhi: the full external address xhi * 2^16 + src / dst (this chip: < 2^16 words)
    top = (1 << isa.XHI_W) - 1                    # xhi's top page
    for xhi in (1, 128, 255, 256, 1 << (isa.XHI_W - 1), top):
        x(f"LD xhi {xhi}", "LD", dst=0, src=0, len=1, xhi=xhi)
        x(f"ST xhi {xhi}", "ST", src=0, dst=0, len=1, xhi=xhi)
    for n in (1, 2, 20):                          # the sum just past 2^29: wraps to 0.. in 29 bits
        x(f"LD xhi wrap {n}", "LD", dst=0, src=T - n // 2 - 1, len=n, xhi=top)
        x(f"ST xhi wrap {n}", "ST", src=0, dst=T - n // 2 - 1, len=n, xhi=top)
    # valid boundary instructions in programs of at most 40, each storing the scratchpad end
    out = []
    for k in range(0, len(valid), 40):
        prog = valid[k:k + 40] + [isa.build("ST", cfg=CFG, src=SP - 64, dst=0, len=64), isa.build("HALT", cfg=CFG)]
        out.append((f"boundary valid {k // 40}", prog, None))
    for label, prog in bad:
        out.append((f"fault {label}", prog, None, 0, 1))
    return out


def alone_programs():
    """[(label, prog, None, 0, 1)]: alone_faults and top_bit_faults on the suite's chip,
    each a light program (its one faulting instruction; error, code, pc and counters
    compared)."""
    return [(f"fault {label}", prog, None, 0, 1) for label, prog in alone_faults(CFG) + top_bit_faults(CFG)]


def alone_faults(cfg):
    """[(label, [instruction])]: from a valid instruction of every op but LD, ST and MM (its
    edge producers, tb/stimulus/collide.py, or one randops.rand_op draws), each bound of each shape field broken alone
    (fault 4), and each scratchpad range moved alone to end one word past the memory (fault
    2), the other fields kept: the decoder ORs its checks, and a check that needs another
    to fail with it (an OR read as AND) passes every program that breaks several at once;
    and each shape field at its top bit alone (a range past the memory's end when that
    alone would run)."""
    from model import isa
    from model.ops import TABLE
    from model.ops.expr import compile_py
    from tb.stimulus import collide
    from tb.stimulus.randops import rand_op
    out = []
    valid = collide.edge_producers(cfg)
    rng = np.random.default_rng(RANDOM_SEED)
    valid += [(op, rand_op(rng, cfg, lambda o, **f: isa.build(o, cfg=cfg, **f), op))     # an op without
              for op in TABLE if op not in {ins.op for _, ins in valid} | {"HALT"}]       # edge producers
    for label, ins in valid:
        if ins.op in ("LD", "ST", "MM"):
            continue
        r = TABLE[ins.op]
        idx, width = r.index, r.widths
        cases = []                                  # (field, value, the fault code, what)
        for sh in r.shape:
            cases.append((sh.field, compile_py(sh.lo, idx)(ins.args, cfg) - 1, 4, f"{sh.field} below {sh.lo}"))
            if sh.hi is not None:
                cases.append((sh.field, compile_py(sh.hi, idx)(ins.args, cfg) + 1, 4, f"{sh.field} above {sh.hi}"))
        for j, rng in enumerate(r.sp_ranges()):
            extent = compile_py(rng.extent, idx)(ins.args, cfg)
            cases.append((rng.base, cfg.sp_words - extent + 1, 2, f"range {j} ({rng.base}) past the scratchpad"))
        for name, val, code, what in cases:
            if not 0 <= val < 1 << width[name]:
                continue
            args = list(ins.args)
            args[idx[name]] = val
            bad = isa.Instr(ins.op, tuple(args))
            if (isa.check(bad, cfg) or (None,))[0] == code:
                out.append((f"{label} {what} alone", [bad]))
        # each shape field at its top bit alone (2^(w-1)), a range moved to the memory's last
        # word when it would run: a shape compare that drops the field's top bit sees 0
        # (fault 4 where the chip faults 2, or runs)
        for sh in r.shape:
            args = list(ins.args)
            args[idx[sh.field]] = 1 << (width[sh.field] - 1)
            first = r.sp_ranges()[0].base if r.sp_ranges() else None
            if not isa.check(isa.Instr(ins.op, tuple(args)), cfg) and first is not None:
                args[idx[first]] = cfg.sp_words - 1
            bad = isa.Instr(ins.op, tuple(args))
            if isa.check(bad, cfg) and label == ins.op:
                out.append((f"{label} {sh.field} at its top bit alone", [bad]))
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
    """The longest transfers the fields allow, so every counter and length bit is used,
    each op's from its module (hook long_programs) on one random image: LD and ST of the
    whole scratchpad (len = SP_WORDS: the length field's top bit), MM with K = 255 and
    the largest strides, each unit's longest op; results stored."""
    from model import isa
    rng = np.random.default_rng(seed + 13)
    SP = CFG.sp_words
    img = rng.integers(-128, 128, size=EXT)
    img[:16] = rng.integers(-2**31, 2**31, size=16)

    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    return ops.call("long_programs", b, img, SP, EXT)


def top_bit_faults(cfg):
    """[(label, [instruction])]: for each scratchpad range of each op, an instruction
    whose span (the range's extent) and one whose end (first word + extent) lies in [2^t,
    2^t + size] for t the top bit of that wire in the decoder (model/decoder_gen.range_widths, size
    the range's memory: SP or EXT words), its shape valid and its
    other ranges inside the memories: the chip faults it (code 2 or 3); a
    decoder that drops that top bit (a sum one bit narrow, its carry lost) sees the range
    inside the memory and runs it. Found from the records alone: fields drawn at random,
    then one field of the extent moved by bisection (each extent grows with each of its
    fields) to the smallest value that reaches the target."""
    from model import decoder_gen
    from model.ops import ADDR_W, EXT, SP, TABLE
    from model.ops.expr import compile_py, fields_of
    rng = np.random.default_rng(RANDOM_SEED + 2)
    out = []
    for op, r in TABLE.items():
        if not r.ranges:
            continue
        idx, width = r.index, r.widths
        ext = [compile_py(g.extent, idx) for g in r.ranges]
        for j, ((ws, we), g) in enumerate(zip(decoder_gen.range_widths(r), r.ranges)):
            base_max = (1 << width[g.base]) - 1
            if g.space == EXT and "xhi" in width:
                base_max += ((1 << width["xhi"]) - 1) << ADDR_W
            for what, t in (("span", ws - 1), ("end", we - 1)):
                lo = (1 << t) if what == "span" else max(0, (1 << t) - base_max)
                size = cfg.sp_words if g.space == SP else cfg.ext_words
                ins = _reach(r, j, ext, lo, (1 << t) + size, what, t, fields_of(g.extent), rng, cfg, size)
                if ins is not None:
                    out.append((f"{op} {g.base} {what} at 2^{t}", [ins]))
    return out


def end_faults(cfg, skip=("LD", "ST", "MM")):
    """([instruction], [(label, [instruction])]): for each range of each op not in skip
    (on the suite's chip LD, ST and MM have their own above), an instruction whose range
    ends at its memory's last word,
    valid, and its twin one word further, which faults (code 2, or 3 for an external
    range): a range check that counts one word too many faults the first, one that counts
    one too few runs the second. A one-word range at the last of 2^16 words (a table index
    on the sp64k chip) has no twin: its base field has no bit for the word past it. Found
    from the records alone: the other fields small and drawn at random (short busy times),
    every other range at its memory's start."""
    from model import isa
    from model.ops import ADDR_W, EXT, SP, TABLE
    from model.ops.expr import compile_py
    rng = np.random.default_rng(RANDOM_SEED + 3)
    valid, bad = [], []
    for op, r in TABLE.items():
        if not r.ranges or op in skip:
            continue
        idx, width = r.index, r.widths
        ext = [compile_py(g.extent, idx) for g in r.ranges]
        bases = {g.base for g in r.ranges}
        for j, g in enumerate(r.ranges):
            size = cfg.sp_words if g.space == SP else cfg.ext_words
            alone = None                                # valid at the end, its twin not encodable
            for _ in range(400):
                a = [0 if n in bases or n == "xhi" else int(rng.integers(0, min(9, 1 << width[n])))
                     for n, _ in r.fields]
                e = ext[j](a, cfg)
                if not 0 < e <= size:
                    continue
                first = size - e
                if g.space == EXT and "xhi" in idx:
                    a[idx["xhi"]] = min(first >> ADDR_W, (1 << width["xhi"]) - 1)
                    first -= a[idx["xhi"]] << ADDR_W
                if first >= 1 << width[g.base]:
                    continue
                a[idx[g.base]] = first
                ins = isa.Instr(r.name, tuple(a))
                if isa.check(ins, cfg) is not None:
                    continue
                if first + 1 >= 1 << width[g.base]:     # its base has no bit for the twin
                    alone = alone or ins
                    continue
                a[idx[g.base]] = first + 1
                twin = isa.Instr(r.name, tuple(a))
                code = isa.ERR_SP_RANGE if g.space == SP else isa.ERR_EXT_RANGE
                if (isa.check(twin, cfg) or (None,))[0] != code:
                    continue
                valid.append(ins)
                bad.append((f"{op} range {j} ({g.base}) end + 1", [twin]))
                break
            else:
                if alone is not None:
                    valid.append(alone)
    return valid, bad


def _reach(r, j, ext, lo, hi, what, t, movable, rng, cfg, size):
    """An instruction of record r whose range j (in a memory of `size` words) has extent in
    [lo, hi) (what "span") or end in [2^t, hi) (what "end"), shape valid, every other range inside its memory, the
    chip's verdict its range fault (2, or 3 for an external range); None when 400 draws
    find none."""
    from model import isa
    from model.ops import ADDR_W, EXT, SP
    idx, width = r.index, r.widths
    names = [n for n, _ in r.fields]
    bases = {g.base for g in r.ranges}
    for _ in range(400):
        # the other fields small or anywhere (every range but j must fit its memory)
        a = [0 if n in bases else int((0, 1, rng.integers(0, 1 << width[n]))[rng.integers(0, 3)])
             for n in names]
        for n in rng.permutation(movable):
            if n not in idx:
                continue
            k = idx[n]
            top = (1 << width[n]) - 1
            if ext[j](a, cfg) >= lo:
                break
            a[k] = top
            if ext[j](a, cfg) < lo:
                continue
            bot = 0
            while bot < top:                        # the smallest value reaching lo
                mid = (bot + top) // 2
                a[k] = mid
                if ext[j](a, cfg) >= lo:
                    top = mid
                else:
                    bot = mid + 1
            a[k] = top
            break
        e = ext[j](a, cfg)
        if not lo <= e < hi:
            continue
        g = r.ranges[j]
        for h in r.ranges:
            a[idx[h.base]] = 0
        if "xhi" in idx:
            a[idx["xhi"]] = 0
        # span: the end one past the memory's last word (at least), so that the span less
        # 2^t ends inside it; end: exactly 2^t, or one past the memory when that is 2^t
        # itself (or the extent itself, past both); an external range's first word takes
        # xhi * 2^16 above its base field
        first = max(0, size + 1 - e) if what == "span" else max(0, max(1 << t, size + 1) - e)
        if g.space == EXT and "xhi" in idx:
            a[idx["xhi"]] = min(first >> ADDR_W, (1 << width["xhi"]) - 1)
            first -= a[idx["xhi"]] << ADDR_W
        a[idx[g.base]] = first
        if first >= 1 << width[g.base] or (what == "span" and first + e - (1 << t) > size):
            continue
        if any(a[idx[h.base]] + ext[k](a, cfg) > (cfg.sp_words if h.space == SP else cfg.ext_words)
               for k, h in enumerate(r.ranges) if k != j):
            continue
        ins = isa.Instr(r.name, tuple(a))
        code = isa.ERR_SP_RANGE if g.space == SP else isa.ERR_EXT_RANGE
        if (isa.check(ins, cfg) or (None,))[0] == code:         # shape faults (4) come first
            return ins
    return None

