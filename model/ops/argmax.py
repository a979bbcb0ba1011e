"""ARGMAX: sp[dst] = base + the index of the largest of the int32 words sp[src .. src+len)
(the first of equal maxima), also across the tiles of a long vector (issue 37: SmolLM2's
49,152 logits in tiles) through a running (index, max) pair.

Fields beyond dst, src, len (all 0 by default: the one-tile ARGMAX, unchanged):
  base  the index of the tile's first word: the index written is base + i.
  pair  write the pair: sp[dst] = the index, sp[dst+1] = the maximum (int32).
  acc   read the running pair (sp[dst] the index, sp[dst+1] the maximum) before the scan
        and start from it; the pair is then written back (acc implies pair).
The running best is replaced only by a strictly greater word, so the first of equal maxima
wins within a tile and, with the tiles in increasing order of base, across tiles: a later
tile's equal maximum never replaces the running one. A long vector's argmax is therefore
one ARGMAX per tile and no set-up: the first tile with pair = 1, the others with acc = 1,
each with its base; the token index is sp[dst], the word LDX reads as its index.

The index word is IDX_W = 17 bits wide (base + i <= 65,535 + 8,190 < 2^17), written
zero-extended; acc reads the running index as its word's low IDX_W bits. The unit reads
the pair (acc: busy cycles 0 and 1), then the tile, then writes the index and (pair or
acc) the maximum: every read comes before the first write.
"""
import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Cond, Field

LEN, ACC, PAIR = Field("len"), Field("acc"), Field("pair")
BASE_W, LEN_W = 16, 13
IDX_W = BASE_W + 1               # the index word's width: base + (len - 1) < 2^16 + 2^13 <= 2^17
assert LEN_W <= BASE_W


def execute(a, extra, ext, sp):
    dst, src, n, base, acc, pair = a
    i = int(np.argmax(sp[src:src + n]))               # the first of equal maxima
    best, idx = int(sp[src + i]), base + i
    if acc:                                            # the running pair wins ties
        run_idx, run_max = int(sp[dst]) & ((1 << IDX_W) - 1), int(sp[dst + 1])
        if not best > run_max:
            best, idx = run_max, run_idx
    sp[dst] = idx
    if acc or pair:
        sp[dst + 1] = best


ARGMAX = Op(
    name="ARGMAX", code=9, unit="vec", module="ga2_argmax",
    summary="sp[dst] = base + index of the largest int32 of sp[src .. src+len), the first of ties; "
            "pair: sp[dst+1] = the maximum; acc: from the running pair at sp[dst], sp[dst+1]",
    fields=(("dst", 16), ("src", 16), ("len", LEN_W), ("base", BASE_W), ("acc", 1), ("pair", 1)),
    defaults={"base": 0, "acc": 0, "pair": 0},
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", 2 * ACC, rd="acc"),
            Rng(SP, "dst", Cond("acc", 2, 1 + PAIR), wr=True)),
    busy=LEN + 1 + Cond("acc", 3, PAIR), sp_reads=LEN + 2 * ACC,
    execute=execute,
    stim={"len": 512, "weight": 1, "index_of": "len"},
)
