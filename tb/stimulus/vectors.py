"""Unit test vectors of the GA-2 units, with their expected values.

requant_vectors (a, m, s, y: y from model.quant.requant), divu_vectors (dividend,
divisor, q, r: Python integer division) and perf_vectors (ga2_perf's inputs per cycle
and the counts after the edge, by plain counting). With their defaults they are the RTL
mutation bench's vectors (tb/mutation/rtl/suite.py writes them for tb/hdl/mut_rtl_tb.v),
which the cocotb unit tests (tb/drivers/units_job.py) run as well, so the bench checks
nothing the pytest suite does not.
"""
import random

from model import ops
from model.quant import requant
from tb.stimulus.suitecfg import RANDOM_SEED

N_RQ_VEC = 560     # requant vectors
N_DV_VEC = 120     # divu vectors
N_PF_VEC = 400     # ga2_perf cycles
T = {u: i for i, u in enumerate(ops.UNITS)}    # the busy vector's bits (GA2_T_<UNIT>)
PF_CW = 5          # the narrow ga2_perf the benches build: every counter bit wraps within the vectors


def requant_vectors(n=None, seed=RANDOM_SEED):
    """(a, m, s, y) for requant: edges, int32 results of MMs, full-range words; n
    vectors (default N_RQ_VEC)."""
    n = N_RQ_VEC if n is None else n
    rng = random.Random(seed)
    out = []
    edges_a = [0, 1, -1, 127, -128, 2**31 - 1, -2**31, 65535, -65536, 1 << 20, -(1 << 20)]
    edges_m = [0, 1, 1 << 14, (1 << 15) - 1, 1 << 15, 65535]
    for a in edges_a:
        for m in edges_m:
            out.append((a, m, rng.choice([0, 1, 14, 15, 30, 47, 62, 63])))
    while len(out) < n:
        kind = rng.random()
        if kind < 0.4:
            a = rng.randint(-2**20, 2**20)
        elif kind < 0.7:
            a = rng.randint(-2**31, 2**31 - 1)
        else:
            a = rng.randint(-3000, 3000)
        m = rng.choice([rng.randint(1 << 14, (1 << 15) - 1), rng.randint(0, 65535)])
        s = rng.randint(0, 63)
        out.append((a, m, s))
    out = out[:n - 290]
    # targeted: results exactly at the saturation edges (127, 128, -128, -129), s = 1 with
    # odd products (the rounding term), and the largest products at s = 45..50
    for target in (126, 127, 128, 129, -127, -128, -129, -130):
        for _ in range(8):
            s = rng.randint(1, 20)
            m = rng.randint(1 << 14, (1 << 15) - 1)
            a = (target << s) // m + rng.randint(-1, 1)
            if -2**31 <= a < 2**31:
                out.append((a, m, s))
    for _ in range(24):        # small odd products: (p + 1) >> 1 differs from p >> 1, no clamp
        out.append((rng.randrange(-15, 16, 2), rng.randrange(1, 16, 2), 1))
    for s in list(range(0, 3)) + list(range(44, 52)):  # the widest sums, unshifted and at s >= 48
        for a in (2**31 - 1, -2**31, 2**31 - 12345, -2**31 + 777):
            for m in (65535, 65534, 1 << 15):
                out.append((a, m, s))
    # the rounding term 2^(s-1) at s = 32..47 (its shift amount s-1 needs all 6 bits):
    # products just above and below a half, a*m = 2^(s-1) +- 2^15, both signs
    for s in range(32, 48):
        for d in (1, -1):
            for sign in (1, -1):
                a = sign * ((1 << (s - 16)) + d)
                if -2**31 <= a < 2**31:
                    out.append((a, 1 << 15, s))
    assert len(out) <= n, len(out)
    return [(a, m, s, requant(a, m, s)) for a, m, s in out]


def perf_vectors(n=None, seed=RANDOM_SEED, cw=PF_CW):
    """Per cycle (rst, clear, running, busy[2:0], retire[3:0], fetch, expected after the
    edge: cycles, mm, dma, vec, instret, fetch, retire_cycle, all mod 2^cw) for ga2_perf
    #(.CW(cw)), the expected counts by plain counting (docs/isa.md: clear and reset zero
    all six and win; cycles counts running, mm/dma/vec their busy bit, instret the set
    retire bits, fetch its input; retire_cycle = cycles + 1); n cycles (default N_PF_VEC).
    busy's bits are the timing units' GA2_T_<UNIT> (model/ops UNITS order)."""
    n = N_PF_VEC if n is None else n
    rng = random.Random(seed + 2)
    mask = (1 << cw) - 1
    c = [0] * 6
    out = []
    for k in range(n):
        rst = int(k < 2 or rng.random() < 0.01)
        clear = int(rng.random() < 0.02)
        running = int(rng.random() < 0.85)
        busy = rng.randrange(8)
        retire = rng.randrange(16) if rng.random() < 0.5 else 0
        fetch = int(rng.random() < 0.5)
        if rst or clear:
            c = [0] * 6
        else:
            c = [c[0] + running, c[1] + (busy >> T["mm"] & 1), c[2] + (busy >> T["dma"] & 1),
                 c[3] + (busy >> T["vec"] & 1), c[4] + bin(retire).count("1"), c[5] + fetch]
            c = [v & mask for v in c]
        out.append((rst, clear, running, busy, retire, fetch, *c, (c[0] + 1) & mask))
    return out


def divu_vectors(n=None, seed=RANDOM_SEED):
    """(dividend, divisor, q, r): the softmax's divisions (e*65536 / S) and 32-bit edges;
    n vectors (default N_DV_VEC)."""
    n = N_DV_VEC if n is None else n
    rng = random.Random(seed + 1)
    top = 2**32 - 1
    out = [(0, 1), (top, 1), (top, top), (1, top), (top, 2), (1 << 31, 3), (65535 << 16, 65535),
           (65535 << 16, 64 * 65535), (12345, 12346), (12346, 12345), (top, 1 << 31), ((1 << 31) - 1, 1 << 31)]
    while len(out) < n:
        kind = rng.random()
        if kind < 0.5:
            e = rng.randint(0, 65535)
            s = rng.randint(max(1, e), 64 * 65535)
            out.append((e << 16, s))
        elif kind < 0.8:
            out.append((rng.randint(0, top), rng.randint(1, top)))
        else:
            b = rng.randint(1, 1 << rng.randint(1, 31))
            out.append((rng.randint(0, top), b))
    return [(a, b, a // b, a % b) for a, b in out[:n]]
