"""Seeded BAD GA-2 programs: each does some writes and then faults with a chosen code.

bad_program(rng, code, cfg) builds a program that faults with the given code (1..5); it
returns a BadProgram with the expected fault pc and the external and scratchpad ranges the
faulting instruction would have written (which must be unchanged), plus follow_up(), a
valid program that stores that scratchpad range. Code 6 (ERR_INDEX, found in EXEC) is a
lookup whose index word is not below its rows (the hook bad_data of its op's module in
tb/stimulus/ops/): the program runs on to its HALT (or to a later DECODE fault), pc the
first such lookup's. The other ops' faults come from their modules too (bad_prefix,
bad_sp, bad_shape, bad_len0). Illegal opcodes (error 1) are model/isa.py's
ILLEGAL_OPCODES. wrap_bad_program(rng, kind) faults with a range whose field sum is past
2^W (WRAP_KINDS), where a W-bit check would wrap back into the memory. Chips of at most
2^16 external words.
"""
from collections import namedtuple

import numpy as np

from model import config, isa
from model import ops as records
from tb.stimulus import ops
from tb.stimulus.randops import random_image, rng_of

BadProgram = namedtuple("BadProgram", "prog image code pc ext_range sp_range")


# ------------------------------------------------------------------ bad programs
def _prefix(rng, ext, b):
    """A few valid instructions that write both memories (so a fault has history)."""
    n = min(32, ext)
    return [b("LD", dst=64, src=0, len=n)] + ops.call("bad_prefix", b, n) + [b("ST", src=128, dst=0, len=n)]


def bad_program(seed_or_rng, code, cfg=None):
    """A BadProgram faulting with `code` (1..6) after some writes (code 6: the hook
    bad_data, the program going on after it)."""
    rng = rng_of(seed_or_rng)
    cfg = config.resolve(cfg)
    ext, SP = cfg.ext_words, cfg.sp_words

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)

    image = random_image(rng, ext)
    prog = _prefix(rng, ext, b)
    ext_range, sp_range = None, None
    if code == isa.ERR_INDEX:
        pc, sp_range = ops.hooks("bad_data")[0](rng, b, ext, SP, image, prog)
        prog += [b("LD", dst=600, src=0, len=1), b("HALT")]
        return BadProgram(prog, image, code, pc, ext_range, sp_range)
    if code == isa.ERR_OPCODE:
        bad = int(rng.choice(isa.ILLEGAL_OPCODES))
        word = bad | (int(rng.integers(1, 1 << 60)) << 4)      # stray field bits too
        # what an LD at this slot would have written
        sp_range = (200, 16)
        prog += [word]
    elif code == isa.ERR_SP_RANGE:
        vec = ops.hooks("bad_sp")
        kind = rng.integers(0, 3 + len(vec))
        if kind == 0:
            n = 20
            prog.append(isa.raw("LD", dst=SP - 10, src=0, len=n))
            sp_range = (SP - 10, 10)
        elif kind == 1:
            n = min(20, ext)
            prog.append(isa.raw("ST", src=SP - 5, dst=40 % max(1, ext - n), len=n))
            ext_range = (40 % max(1, ext - n), n)
        elif kind < 2 + len(vec):
            ins, sp_range = vec[kind - 2](SP)
            prog.append(ins)
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
            prog.append(isa.raw("LD", dst=300, src=max(0, ext - 4), len=16))
            sp_range = (300, 16)
    elif code == isa.ERR_SHAPE:
        # MM's M and K, each op's field past its limit, ST's len 0, each op's len 0
        shapes, zeros = ops.hooks("bad_shape"), ops.hooks("bad_len0")
        kind = rng.integers(0, 3 + len(shapes) + len(zeros))
        if kind == 0:
            prog.append(isa.raw("MM", dst=400, A=64, B=64, M=int(rng.choice([0, 5, 7])), K=4, N=2, tb=0,
                                lda=4, ldb=4, ldc=4))
            sp_range = (400, 16)
        elif kind == 1:
            prog.append(isa.raw("MM", dst=400, A=64, B=64, M=2, K=0, N=2, tb=1, lda=4, ldb=4, ldc=4))
            sp_range = (400, 8)
        elif kind < 2 + len(shapes):
            ins, sp_range = shapes[kind - 2](rng)
            prog.append(ins)
        elif kind == 2 + len(shapes):
            prog.append(isa.raw("ST", src=64, dst=100, len=0))
            ext_range = (100, 8)
        else:
            ins, sp_range = zeros[kind - 3 - len(shapes)](rng)
            prog.append(ins)
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
    ext = cfg.ext_words
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
# must be the range error all the same (the decoder's sums at their own widths, docs/rtl.md;
# each sum's top bit: tb/stimulus/edges.py top_bit_faults).
# The vector ops' kinds come from their modules (hook wrap_kinds): their ranges before
# MM's, their shapes (a length past its limit, dst + len wrapping as well) after.
_OWN = [k for f in ops.hooks("wrap_kinds") for k in f()]
WRAP_KINDS = (
    ("LD", "dst", 16), ("LD", "src", 16), ("ST", "src", 16), ("ST", "dst", 16),
    *[k for k in _OWN if k[1] != "len"],
    ("MM", "A", 16), ("MM", "B", 16), ("MM", "B", 20), ("MM", "dst", 16),
    *[k for k in _OWN if k[1] == "len"],
)


def _len_cap(op, cfg):
    """op's largest len: its record's shape limit, else the field's 13 bits."""
    rec = records.TABLE[op]
    for k, sh in enumerate(rec.shape):
        if sh.field == "len" and sh.hi is not None:
            return records.VIEWS[op]["shape_hi"][k](None, cfg)
    return (1 << 13) - 1


def wrap_bad_program(seed_or_rng, kind, cfg=None):
    """A BadProgram whose faulting instruction (after _prefix's writes) has a field sum
    past 2^W (kind: one of WRAP_KINDS); sp_range / ext_range: the words a W-bit wrapped
    instruction would have written inside the memories."""
    rng = rng_of(seed_or_rng)
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
    if op != "MM" and field != "len":
        cap = _len_cap(op, cfg)
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
        else:                                     # a vector op: src and dst in the scratchpad
            other = ri(0, SP - n) if n <= SP and ri(0, 1) else ri(0, 0xFFFF)
            f = dict(src=base, dst=other) if field == "src" else dict(src=other, dst=base)
            mod = ops.owner(op)
            if hasattr(mod, "wrap_fields"):
                f.update(mod.wrap_fields(ri))
            sp_range = (0, w) if field == "dst" else ((other, n) if other + n <= SP else None)
        ins = isa.raw(op, len=n, **f)
    elif field == "len":                          # len > its limit, dst + len past 2^16
        n = ri(_len_cap(op, cfg) + 1, (1 << 13) - 1)
        ins = isa.raw(op, dst=top - ri(1, n - 1), src=ri(0, 0xFFFF), len=n)
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
    rng = rng_of(seed)
    return [wrap_bad_program(rng, kind, cfg) for kind in WRAP_KINDS]


# ------------------------------------------------------------------ region programs
