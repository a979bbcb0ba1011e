"""ST: copy len words of the scratchpad to the external memory (the DMA unit)."""
from . import EXT, SP, XHI_W, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def execute(a, extra, ext, sp):
    """ext[xhi * 2^16 + dst ..) = sp[src ..), len words."""
    src, dst, n, xhi = a
    dst += xhi << 16
    ext[dst:dst + n] = sp[src:src + n]


ST = Op(
    name="ST", code=2, unit="dma", module="ga2_dma",
    summary="copy sp[src ..) to ext[xhi*65536 + dst ..), len words",
    fields=(("src", 16), ("dst", 16), ("len", 13), ("xhi", XHI_W)),
    defaults={"xhi": 0},
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(EXT, "dst", LEN, wr=True)),
    busy=LEN + 1, sp_reads=LEN, words=LEN,
    execute=execute,
    stim={"weight": 1.5},
)
