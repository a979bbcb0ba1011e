"""SM: softmax of int8 scores as Q16 probabilities (model/softmax_gold.py's softmax_fixed).

mx = max(x); e_i = LUT[mx - x_i] with LUT[d] = floor(65535 exp(-d/16) + 0.5); S = sum e_i;
p_i = floor(e_i * 65536 / S). The unit reads every input before it writes. In-order mode:
the max pass, the exp-and-sum pass (len + 1 each), then a serial divide of sm_div_cycles
per element; overlap mode (the fast softmax, rtl/ga2_softmax.v FAST = 1): the two passes,
one reciprocal divide of FAST_TAIL cycles, then one element per cycle.
"""
import numpy as np

from ..softmax_gold import LUT, Q16
from . import SP, Op, Rng, Shape
from .expr import Field, Param

LEN = Field("len")
# the fast softmax's cycles after the two passes, beyond one per element (overlap mode):
# load the divider with 2^32 - 1 and the sum (1), its 32 steps and result cycle (33)
FAST_TAIL = 34
_LUT = np.array(LUT, dtype=np.int64)


def execute(a, extra, ext, sp):
    dst, src, n = a
    x = sp[src:src + n].astype(np.int8).astype(np.int64)
    e = _LUT[x.max() - x]
    sp[dst:dst + n] = e * Q16 // e.sum()


SM = Op(
    name="SM", code=5, unit="vec", module="ga2_softmax",
    summary="sp[dst ..) = softmax_fixed(s8 of sp[src .. src+len)) as Q16 probabilities",
    fields=(("dst", 16), ("src", 16), ("len", 13)),
    shape=(Shape("len", 1, Param("sm_max_len"), who="the softmax unit"),),
    ranges=(Rng(SP, "src", LEN, rd=True), Rng(SP, "dst", LEN, wr=True)),
    busy={"inorder": 2 * (LEN + 1) + Param("sm_div_cycles") * LEN,
          "overlap": 2 * (LEN + 1) + FAST_TAIL + LEN},
    sp_reads=2 * LEN,
    params={"FAST": "OVERLAP", "SM_MAX_LEN": "SM_MAX_LEN"},
    execute=execute,
    stim={"dst": "same:src", "weight": 1.2},
)
