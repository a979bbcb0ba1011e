"""Seeded random VALID GA-2 programs for co-simulation: random_program, random_programs, with_acc.

random_program(rng, cfg) draws a program (model.isa.build checks every instruction, and
every LDX reads a row index below its rows) that uses every op through the drawers of
randops.py, an ARGMAX before each LDX whose index it writes (the language model's decode:
the token, then its embedding row), and stores results back to the external memory so the
comparison sees them. The draws from a seed are the contract: the same seed gives the
same program (the soak, the shrinker and the tests name programs by seed).
"""
import numpy as np

from model import config, isa
from tb.stimulus.randops import (
    _addr,
    rand_add,
    rand_argmax,
    rand_ld,
    rand_ldx,
    rand_mm,
    rand_norm,
    rand_pack4,
    rand_rq,
    rand_sm,
    rand_st,
    random_image,
    rng_of,
)


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
    rng = rng_of(seed_or_rng)
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
    rng = rng_of(seed_or_rng)
    out = []
    for ins in prog:
        if isinstance(ins, isa.Instr) and ins.op == "MM" and rng.random() < p:
            ins = isa.raw("MM", **{**ins.fields(), "acc": 1})
        out.append(ins)
    return out


def random_programs(seed, n, cfg=None):
    """n (prog, image) pairs from one seed."""
    rng = rng_of(seed)
    return [random_program(rng, cfg) for _ in range(n)]
