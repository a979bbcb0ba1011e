"""ADD: the residual add, sp[dst+i] = sat8(s8(sp[src+i]) + s8(sp[src2+i])).

Streamed element by element (element i read, then written, before element i + 1 is read):
with dst ahead of an operand by less than len, later elements see earlier results.
"""
import numpy as np

from ..quant import s8
from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def execute(a, extra, ext, sp):
    d, x, n, y = a
    if 0 < d - x < n or 0 < d - y < n:      # streamed: later elements see earlier results
        for i in range(n):
            sp[d + i] = max(-128, min(127, s8(sp[x + i]) + s8(sp[y + i])))
    else:
        sp[d:d + n] = np.clip(sp[x:x + n].astype(np.int8).astype(np.int64)
                              + sp[y:y + n].astype(np.int8), -128, 127)


ADD = Op(
    name="ADD", code=8, unit="vec", module="ga2_vec_add",
    summary="sp[dst+i] = sat8(s8(sp[src+i]) + s8(sp[src2+i])): the residual add",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("src2", 16)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "src2", LEN, rd=True),
            Rng(SP, "dst", LEN, wr=True)),
    busy=2 * LEN + 1, sp_reads=2 * LEN,
    execute=execute,
    stim={"len": 256, "dst": "near:src|src2", "src2": "same:src", "weight": 1},
)
