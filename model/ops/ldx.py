"""LDX: an embedding row chosen on chip: the index word sp[idx] picks row `index` of a table
of `rows` rows of len words at xhi * 2^16 + src in the external memory (the DMA unit).

It reads the index word, forms the row's address, then loads len words (busy len + EXTRA
+ 1). An index not below rows writes nothing: the chip's error 6, found in EXEC from data;
the program runs on to its end with unchanged timing and the chip reports the first such
LDX at done (docs/isa.md "Errors").
"""
from . import ERR_INDEX, EXT, SP, XHI_W, Op, Rng, Shape
from .expr import Field

LEN, ROWS = Field("len"), Field("rows")
EXTRA = 2           # read the index word (1), form the row's address (1), then an LD


def execute(a, extra, ext, sp):
    dst, src, n, idx, rows, xhi = a
    tok = int(sp[idx]) & 0xFFFFFFFF                     # the index word, unsigned
    if tok >= rows:
        return True
    src += xhi << 16
    sp[dst:dst + n] = ext[src + tok * n:src + tok * n + n]
    return None


LDX = Op(
    name="LDX", code=7, unit="dma", module="ga2_dma",
    summary="sp[dst ..) = row sp[idx] of the table ext[xhi*65536 + src ..) of rows x len words",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("idx", 16), ("rows", 16), ("xhi", XHI_W)),
    defaults={"xhi": 0},
    shape=(Shape("len"), Shape("rows")),
    ranges=(Rng(SP, "idx", 1, rd=True), Rng(SP, "dst", LEN, wr=True),
            Rng(EXT, "src", ROWS * LEN, rd=True)),
    busy=LEN + EXTRA + 1, sp_reads=1, words=LEN, data_faults=(ERR_INDEX,),
    execute=execute,
)
