"""UNPACK4: the 4-bit KV cache read back (the pack4 unit, with PACK4).

Words 2i and 2i+1 = the sign-extended 4-bit values of bits 3..0 and 7..4 of sp[src+i].
Element by element: it reads word i, then writes 2i and 2i+1, so with dst over src a later
read sees a word already written (the scratchpad is write-first).
"""
import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def unpack4_vec(w):
    """UNPACK4 of words w (int64 array of n): 2n sign-extended 4-bit values."""
    out = np.empty(2 * len(w), dtype=np.int64)
    out[0::2] = ((w & 0xF) ^ 8) - 8
    out[1::2] = (((w >> 4) & 0xF) ^ 8) - 8
    return out


def execute(a, extra, ext, sp):
    d, s, n = a
    if d < s + n and s < d + 2 * n:     # overlapping: element by element, write-first
        for i in range(n):
            sp[d + 2 * i:d + 2 * i + 2] = unpack4_vec(sp[s + i:s + i + 1])
    else:
        sp[d:d + 2 * n] = unpack4_vec(sp[s:s + n])


UNPACK4 = Op(
    name="UNPACK4", code=12, unit="vec", module="ga2_pack4",
    summary="sp[dst+2i], sp[dst+2i+1] = the sign-extended 4-bit values of bits 3..0, 7..4 of sp[src+i]",
    fields=(("dst", 16), ("src", 16), ("len", 13)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", 2 * LEN, wr=True)),
    busy=2 * LEN + 1, sp_reads=LEN,
    execute=execute,
    stim={"len": 2048, "dst": "near:src", "weight": 0.5},
)
