"""RQ: requantize int32 words to int8, sp[dst+i] = requant(sp[src+i], m, s) (ReLU with relu).

requant(a, m, s) = clamp((a*m + 2^(s-1)) >> s, -128, 127) (model/quant.py); relu = 1 clamps
to 0..127 (the MLP's ReLU fused into its requant). The unit streams one element per
cycle, in increasing order: with dst ahead of src by less than len, later elements read
results already written.
"""
import numpy as np

from . import SP, Op, Rng, Shape
from .expr import Field

LEN = Field("len")


def requant_vec(a, m, s):
    """quant.requant over an int64 array (exact: |a*m| < 2^47)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return np.minimum(np.maximum(p >> s, -128), 127)


def requant_int(a, m, s):
    """quant.requant on one Python int (the element-by-element path)."""
    p = a * m + ((1 << (s - 1)) if s > 0 else 0)
    return max(-128, min(127, p >> s))


def execute(a, extra, ext, sp):
    d, s, n, m, sh, relu = a
    lo = 0 if relu else -128
    if 0 < d - s < n:        # dst overlaps ahead of src: the chip streams element by element
        for x in range(n):
            sp[d + x] = max(lo, requant_int(int(sp[s + x]), m, sh))
    else:
        y = requant_vec(sp[s:s + n], m, sh)
        sp[d:d + n] = np.maximum(y, 0) if relu else y


RQ = Op(
    name="RQ", code=4, unit="vec", module="ga2_vec_rq",
    summary="sp[dst+i] = requant(sp[src+i], m, s), clamped to 0..127 with relu",
    fields=(("dst", 16), ("src", 16), ("len", 13), ("m", 16), ("s", 6), ("relu", 1)),
    defaults={"relu": 0},
    shape=(Shape("len"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", LEN, wr=True)),
    busy=LEN + 1, sp_reads=LEN,
    execute=execute,
    stim={"len": 256, "dst": "near:src", "m": "ms", "weight": 2},
)
