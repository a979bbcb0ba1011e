"""PACK4: two 4-bit values a word, for the 4-bit KV cache (the pack4 unit, with UNPACK4).

Word i = (sat4(x[2i]) & 0xF) | (sat4(x[2i+1]) & 0xF) << 4 (0..255) for the int8 values x
of sp[src .. src+2len), sat4 saturating to -8..7. Pair by pair: it reads x[2i], x[2i+1],
then writes word i, so with dst over src a later read sees a word already written (the
scratchpad is write-first).
"""
import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def sat4(x):
    """Saturate int64 values to the signed 4-bit range -8..7."""
    return np.clip(x, -8, 7)


def pack4_vec(x):
    """PACK4 of int8 values x (int64 array of even length 2n): n words."""
    q = sat4(x) & 0xF
    return q[0::2] | (q[1::2] << 4)


def execute(a, extra, ext, sp):
    d, s, n = a
    if d < s + 2 * n and s < d + n:     # overlapping: pair by pair, write-first
        for i in range(n):
            sp[d + i] = int(pack4_vec(sp[s + 2 * i:s + 2 * i + 2].astype(np.int8).astype(np.int64))[0])
    else:
        sp[d:d + n] = pack4_vec(sp[s:s + 2 * n].astype(np.int8).astype(np.int64))


PACK4 = Op(
    name="PACK4", code=11, unit="vec", module="ga2_pack4",
    summary="sp[dst+i] = sat4(x[2i]) | sat4(x[2i+1]) << 4 of the int8 x = sp[src .. src+2len)",
    fields=(("dst", 16), ("src", 16), ("len", 13)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", 2 * LEN, rd=True), Rng(SP, "dst", LEN, wr=True)),
    busy=2 * LEN + 1, sp_reads=2 * LEN,
    execute=execute,
    stim={"len": 2048, "dst": "near:src", "weight": 0.5},
)
