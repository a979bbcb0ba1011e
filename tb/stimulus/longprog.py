"""Long straight-line programs: past the old 16-bit pc (65,535 instructions) and up to the
21-bit one's 2,097,151 (model/config.py PC_W).

Why: a pc, an error_pc or a retire pc cut to 16 bits shows only in a program longer than
65,535 instructions, and `ga2 run` / `ga2 cycles` must take a program of 150,000 as they
take a short one. The programs are cheap to simulate (about 6 cycles an instruction) and
every block's result lands in its own external word, so a block run twice, skipped or run
out of order changes the memory as well as the trace.

    long_program(n, cfg)     (words, image): n instructions, blocks of LD, LD, MM (1 x 1 x
                             1: the product of the two words loaded), ST, then HALT last
    faulting(n, cfg)         (words, image): the same with an illegal word (0: opcode 0)
                             in place of the HALT: error 1 at pc n - 1
"""
import random

import numpy as np

from model import config, isa

BLOCK = 4          # LD, LD, MM, ST


def long_program(n, cfg=None, seed=37):
    """(instruction words, external image) of an n-instruction program on cfg (its
    instruction memory sized by the caller: cfg.for_program(n)); n - 1 instructions of
    blocks (the last block cut short when n - 1 is not a multiple of BLOCK), then HALT.
    Block j loads ext[3j mod H] and ext[(5j + 1) mod H] (H = half the external memory),
    multiplies them and stores the product at ext[H + j mod H]."""
    cfg = config.resolve(cfg)
    if not 1 <= n <= config.IMEM_MAX:
        raise ValueError(f"n must be 1..{config.IMEM_MAX}, got {n}")
    half = cfg.ext_words // 2
    if half < 1 or cfg.sp_words < 8:
        raise ValueError(f"a long program needs at least 2 external and 8 scratchpad words, "
                         f"got {cfg.ext_words} and {cfg.sp_words}")
    span = cfg.sp_words - cfg.sp_words % 4
    memo = {}

    def word(op, **f):
        key = (op, tuple(sorted(f.items())))
        w = memo.get(key)
        if w is None:
            w = memo[key] = isa.encode(isa.build(op, cfg=cfg, **f))
        return w

    body = []
    for j in range((n - 1 + BLOCK - 1) // BLOCK):
        x = (4 * j) % span
        a, b = (3 * j) % half, (5 * j + 1) % half
        body += [word("LD", dst=x, src=a, len=1), word("LD", dst=x + 1, src=b, len=1),
                 word("MM", dst=x + 2, A=x, B=x + 1, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0),
                 word("ST", src=x + 2, dst=half + j % half, len=1)]
    words = body[:n - 1] + [isa.encode(isa.build("HALT"))]
    rng = random.Random(seed)
    image = np.array([rng.randint(-128, 127) for _ in range(cfg.ext_words)], dtype=np.int64)
    return words, image


def faulting(n, cfg=None, seed=37):
    """long_program(n) with its last word (the HALT) an illegal one: error 1 at pc n - 1."""
    words, image = long_program(n, cfg, seed)
    return words[:-1] + [0], image
