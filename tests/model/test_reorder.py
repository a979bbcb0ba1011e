"""Checks of model/reorder.py: the overlap mode's program order is the same program.

The oracle does not use the scheduler's code: which pairs of instructions must keep
their order is found by intersecting sets of word addresses (func's hulls expanded word
by word), and "the same program" is checked by running both orders on the reference
Machine from the same garbage scratchpad and external image.
"""
import random

import numpy as np
import pytest

from model import batch, config, func, isa, reorder
from model.machine import Machine

OVL = config.DEFAULT.replace(mode="overlap")


def words_touched(ins):
    def expand(ranges):
        return {(r.space, a) for r in ranges for a in range(r.first, r.last + 1)}
    return expand(func.reads(ins)), expand(func.writes(ins))


def random_valid_program(rng, n, acc=False):
    span = 128
    out = []
    for _ in range(n):
        op = rng.choice(["LD", "ST", "MM", "MM", "RQ", "SM"])
        def a():
            return rng.randrange(span)
        ln = rng.choice([1, 4, 16, 33])
        if op == "LD":
            f = dict(dst=a(), src=rng.randrange(200), len=ln)
        elif op == "ST":
            f = dict(src=a(), dst=rng.randrange(200), len=ln)
        elif op == "MM":
            f = dict(dst=a(), A=a(), B=a(), M=rng.randint(1, 4), K=rng.choice([1, 4, 16]),
                     N=rng.randint(1, 4), tb=rng.randint(0, 1), lda=rng.randint(0, 16),
                     ldb=rng.randint(0, 16), ldc=rng.randint(0, 8))
            if acc:
                f["acc"] = rng.randint(0, 1)
        elif op == "RQ":
            f = dict(dst=a(), src=a(), len=ln, m=rng.randint(1, 5000), s=rng.randint(0, 24))
        else:
            f = dict(dst=a(), src=a(), len=rng.randint(1, 32))
        out.append(isa.build(op, cfg=OVL, **f))
    return out + [isa.build("HALT")]


# the language model's ops (docs/lm.md): LDX's index words sit here, where no random
# instruction writes (their writes end below word 161), holding rows 0..3 of its table
IDX = 300


def with_new_ops(rng, prog):
    """prog with LDX, ADD, ARGMAX and NORM instructions mixed in: up to three read ranges
    (ADD two scratchpad ones, LDX its index word and its table in the external memory)."""
    out = []
    for ins in prog[:-1]:
        out.append(ins)
        if rng.random() < 0.4:
            op = rng.choice(["LDX", "ADD", "ARGMAX", "NORM"])
            def a():
                return rng.randrange(128)
            ln = rng.choice([1, 4, 16, 33])
            if op == "LDX":
                f = dict(dst=a(), src=rng.randrange(100), len=ln, idx=IDX + rng.randrange(4), rows=4)
            elif op == "ADD":
                f = dict(dst=a(), src=a(), src2=a(), len=ln)
            elif op == "ARGMAX":
                f = dict(dst=a(), src=a(), len=ln)
            else:
                f = dict(dst=a(), src=a(), len=min(ln, 16), m=rng.randint(1, 5000), s=rng.randint(0, 24))
            out.append(isa.build(op, cfg=OVL, **f))
    return out + [prog[-1]]


def check_same_program(prog, seed):
    """reorder(prog) keeps every pair touching a common word in order and computes the same
    external memory and scratchpad from the same garbage."""
    new = reorder.reorder(prog, OVL)
    assert sorted(map(id, new)) == sorted(map(id, prog)) and new[-1] is prog[-1]
    pos = {id(p): k for k, p in enumerate(new)}
    touched = [words_touched(p) for p in prog]
    for i in range(len(prog) - 1):
        for j in range(i):
            (ri, wi), (rj, wj) = touched[i], touched[j]
            if wi & rj or wi & wj or ri & wj:
                assert pos[id(prog[j])] < pos[id(prog[i])], (j, i)
    ext = np.random.default_rng(seed).integers(-128, 128, OVL.ext_words)
    sp = batch.garbage_sp(seed, OVL)
    sp[IDX:IDX + 4] = range(4)
    outs = []
    for p in (prog, new):
        m = Machine(OVL)
        m.sp[:] = sp
        r = m.run(p, ext)
        outs.append((r.ext.tolist(), m.sp.tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("seed, acc", [(s, False) for s in range(4)] + [(s, True) for s in range(4, 6)])
def test_reorder_keeps_dependences_and_results(seed, acc):
    rng = random.Random(f"reorder {seed}")
    for _ in range(25):
        check_same_program(random_valid_program(rng, rng.randint(1, 40), acc), seed)


@pytest.mark.parametrize("seed", range(2))
def test_reorder_keeps_dependences_of_ldx_add_argmax_norm(seed):
    rng = random.Random(f"reorder new ops {seed}")
    ops = set()
    for _ in range(25):
        prog = with_new_ops(rng, random_valid_program(rng, rng.randint(1, 30), True))
        ops |= {p.op for p in prog}
        check_same_program(prog, seed)
    assert {"LDX", "ADD", "ARGMAX", "NORM"} <= ops


def test_reorder_refuses_bad_programs():
    ld = isa.build("LD", dst=0, src=0, len=4)
    with pytest.raises(ValueError, match="HALT"):
        reorder.reorder([ld], OVL)
    with pytest.raises(ValueError, match="HALT"):
        reorder.reorder([isa.build("HALT"), ld, isa.build("HALT")], OVL)
    with pytest.raises(ValueError, match="refused"):
        reorder.reorder([isa.raw("LD", dst=OVL.sp_words, src=0, len=4), isa.build("HALT")], OVL)


def test_reorder_moves_a_load_ahead_of_independent_compute():
    # the load of the next operand goes before the product that does not need it
    mm = isa.build("MM", dst=500, A=0, B=100, M=4, K=16, N=4, tb=0, lda=16, ldb=4, ldc=4)
    ld1 = isa.build("LD", dst=0, src=0, len=200)
    ld2 = isa.build("LD", dst=1000, src=0, len=300)
    prog = [ld1, mm, ld2, isa.build("HALT")]
    assert reorder.reorder(prog, OVL)[:3] == [ld1, ld2, mm]
