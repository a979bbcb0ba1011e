"""NORM: integer RMSNorm of int8 values, sp[dst+i] = requant(x_i * r, m, s) with
r = floor(2^29 / isqrt(sum x^2 * 2^10)) (zeros when every x is 0; docs/lm.md "Numerics").

Two passes: the sum of squares (every element read before any write), the integer square
root and the reciprocal between them (TAIL cycles), then the scaling, streamed like the requant (rq.py)
(element i read, then written): with dst ahead of src it reads results already written.
"""
import math

import numpy as np

from ..quant import s8
from . import SP, Op, Rng, Shape
from .expr import Field
from .rq import requant_int, requant_vec

LEN = Field("len")
MAX_LEN = 64        # ss * 2^10 <= 2^30 keeps the square root in 16 bits
# cycles between the two passes (each len + 1): the integer square root, one bit a cycle
# (16), then the reciprocal 2^29 / q on a 30-bit serial divider (load, 30 steps, result: 32)
TAIL = 48


def recip(ss):
    """The reciprocal of a sum of squares ss >= 1: floor(2^29 / isqrt(ss * 2^10))."""
    return (1 << 29) // math.isqrt(ss << 10)


def norm_vec(x, m, s):
    """NORM of int8 values x (int64 array): requant(x * recip(sum x^2), m, s); zeros when
    every x is 0."""
    ss = int(np.dot(x, x))
    if ss == 0:
        return np.zeros_like(x)
    return requant_vec(x * recip(ss), m, s)


def execute(a, extra, ext, sp):
    d, src, n, m, sh = a
    x = sp[src:src + n].astype(np.int8).astype(np.int64)
    ss = int(np.dot(x, x))
    if 0 < d - src < n:      # the second pass streams: it reads results already written
        r = recip(ss) if ss else 0
        for i in range(n):
            sp[d + i] = requant_int(s8(sp[src + i]) * r, m, sh) if ss else 0
    else:
        sp[d:d + n] = norm_vec(x, m, sh)


NORM = Op(
    name="NORM", code=10, unit="vec", module="ga2_norm",
    summary="sp[dst ..) = requant(x * recip(sum x^2), m, s) of the int8 x = sp[src ..): RMSNorm",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("m", 16), ("s", 6)),
    shape=(Shape("len", 1, MAX_LEN, who="the norm unit"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", LEN, wr=True)),
    busy=2 * (LEN + 1) + TAIL, sp_reads=2 * LEN,
    execute=execute,
    stim={"dst": "near:src", "m": "normms", "weight": 1},
)
