"""LD: copy len words of the external memory to the scratchpad (the DMA unit)."""
from . import EXT, SP, XHI_W, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def execute(a, extra, ext, sp):
    """sp[dst ..) = ext[xhi * 2^16 + src ..), len words."""
    dst, src, n, xhi = a
    src += xhi << 16
    sp[dst:dst + n] = ext[src:src + n]


LD = Op(
    name="LD", code=1, unit="dma", module="ga2_dma",
    summary="copy ext[xhi*65536 + src ..) to sp[dst ..), len words",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("xhi", XHI_W)),
    defaults={"xhi": 0},
    shape=(Shape("len"),),
    ranges=(Rng(SP, "dst", LEN, wr=True), Rng(EXT, "src", LEN, rd=True)),
    busy=LEN + 1, sp_reads=0, words=LEN,
    execute=execute,
    stim={"weight": 2},
)
