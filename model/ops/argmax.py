"""ARGMAX: sp[dst] = the index of the largest of the int32 words sp[src .. src+len) (the first
of equal maxima). It reads every input before it writes its one word."""
import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def execute(a, extra, ext, sp):
    dst, src, n = a
    sp[dst] = int(np.argmax(sp[src:src + n]))          # the first of equal maxima


ARGMAX = Op(
    name="ARGMAX", code=9, unit="vec", module="ga2_argmax",
    summary="sp[dst] = index of the largest int32 of sp[src .. src+len), the first of ties",
    fields=(("dst", 16), ("src", 16), ("len", 13)),
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", 1, wr=True)),
    busy=LEN + 1, sp_reads=LEN,
    execute=execute,
    stim={"len": 512, "weight": 1, "index_of": "len"},
)
