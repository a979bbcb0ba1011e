"""Seeded random VALID GA-2 programs for co-simulation: random_program, random_programs, with_acc.

random_program(rng, cfg) draws a program (model.isa.build checks every instruction, and
every table lookup reads a row index below its rows) that uses every op whose record
gives it a share (Op.stim "weight") through the drawers of randops.py; after an op that
writes one word (an index: the language model's decode, the token, then its embedding
row) it often looks that index up (rand_lookup); and it stores results back to the external
memory so the comparison sees them. The draws from a seed are the contract: the same seed
gives the same program (the soak, the shrinker and the tests name programs by seed).
"""
import numpy as np

from model import config, func, isa, ops
from tb.stimulus.randops import _addr, rand_ld, rand_lookup, rand_mm, rand_op, rand_st, random_image, rng_of

# the ops a program draws with finer control than their records' ranges (randops.py)
_DRAW = {"LD": rand_ld, "ST": rand_st, "MM": rand_mm}


def _span(ins):
    """(first, words) of the scratchpad region an instruction writes (None when none)."""
    w = [r for r in func.writes(ins) if r.space == func.SP]
    return (w[0].first, w[0].last - w[0].first + 1) if w else None


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
    weights = {name: r.stim["weight"] for name, r in ops.TABLE.items() if r.stim.get("weight")}
    names, p = list(weights), np.array(list(weights.values()), dtype=float)
    p = p / p.sum()
    while len(prog) < n_instr:
        op = names[int(rng.choice(len(names), p=p))]
        index_of = ops.TABLE[op].stim.get("index_of")
        look = bool(index_of) and rng.random() < 0.7
        if index_of:          # an index its table can hold: below the external memory's size
            top = min(ops.TABLE[op].stim.get(index_of, ext), ext)
            fixed = {index_of: int(rng.integers(1, top + 1))}
            if look:          # the op with its added fields at their defaults (an index result)
                fixed.update(ops.TABLE[op].defaults)
            ins = rand_op(rng, cfg, b, op, **fixed)
        else:
            ins = _DRAW[op](rng, cfg, b) if op in _DRAW else rand_op(rng, cfg, b, op)
        if look:
            # its one-word result is an index below that field: its table row, looked up
            # on chip (the token's embedding row)
            prog.append(ins)
            ins = rand_lookup(rng, cfg, b, _span(ins)[0], ins.fields()[index_of])
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
