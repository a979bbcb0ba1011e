"""ADD: the residual add, sp[dst+i] = sat(x(sp[src+i]) + x(sp[src2+i])).

w = 0 (the default, the int8 add): x = s8 (a word's low byte, signed), sat = sat8
(-128..127). w = 1 (the wide residual stream, issue 37): x = the word as int32, sat =
sat32 (-2^31 .. 2^31 - 1): a sum past int32 saturates, never wraps.

Streamed element by element (element i read, then written, before element i + 1 is read):
with dst ahead of an operand by less than len, later elements see earlier results.
"""
import numpy as np

from ..quant import s8
from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def execute(a, extra, ext, sp):
    d, x, n, y, w = a
    lo, hi = (I32_MIN, I32_MAX) if w else (-128, 127)
    if 0 < d - x < n or 0 < d - y < n:      # streamed: later elements see earlier results
        for i in range(n):
            p, q = int(sp[x + i]), int(sp[y + i])
            sp[d + i] = max(lo, min(hi, p + q if w else s8(p) + s8(q)))
    elif w:                                 # the words are int32 (sp holds them sign-extended)
        sp[d:d + n] = np.clip(sp[x:x + n] + sp[y:y + n], lo, hi)
    else:
        sp[d:d + n] = np.clip(sp[x:x + n].astype(np.int8).astype(np.int64)
                              + sp[y:y + n].astype(np.int8), lo, hi)


ADD = Op(
    name="ADD", code=8, unit="vec", module="ga2_vec_add",
    summary="sp[dst+i] = sat8(s8(sp[src+i]) + s8(sp[src2+i])), w = 1: sat32 of the int32 words",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("src2", 16), ("w", 1)),
    defaults={"w": 0},
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "src2", LEN, rd=True),
            Rng(SP, "dst", LEN, wr=True)),
    busy=2 * LEN + 1, sp_reads=2 * LEN,
    execute=execute,
    stim={"len": 256, "dst": "near:src|src2", "src2": "same:src", "weight": 1},
)
