"""RQC's reference (model/ops/rqc.py) against its definition in exact rational arithmetic:
sat32(floor(acc * value(rs) * value(cs) * 2^q + 1/2)) with value() model/wide.py's
scale-word value (a Fraction), element by element in row order when dst overlaps a
source."""
import math
from fractions import Fraction

import numpy as np

from model import config, isa
from model.machine import Machine
from model.ops import rqc
from model.quant import w32
from model.wide import sc_value, sc_word


def _want(acc, rs, cs, q):
    x = Fraction(w32(acc)) * sc_value(rs) * sc_value(cs) * 2 ** q
    return max(-(1 << 31), min((1 << 31) - 1, math.floor(x + Fraction(1, 2))))


def _words(rng, n):
    """Scale words: valid ones near the useful exponents, extremes, any 32-bit word."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.4:
            out.append(sc_word(int(rng.integers(1 << 15, 1 << 16)), int(rng.integers(-40, 20))))
        elif r < 0.55:
            out.append(sc_word(int(rng.choice([0, 1 << 15, (1 << 16) - 1])), int(rng.choice([-128, -1, 0, 127]))))
        else:
            out.append(int(rng.integers(0, 1 << 32)))
    return out


def _accs(rng, n):
    pool = [0, 1, -1, (1 << 31) - 1, -(1 << 31), 1 << 30, -(1 << 30)]
    return [int(rng.choice(pool)) if rng.random() < 0.2 else int(rng.integers(-(1 << 31), 1 << 31))
            for _ in range(n)]


def test_one_element_equals_the_rational_definition():
    rng = np.random.default_rng(1)
    acc, rs, cs = _accs(rng, 4000), _words(rng, 4000), _words(rng, 4000)
    qs = rng.integers(0, 32, size=4000)
    for a, r, c, q in zip(acc, rs, cs, qs):
        assert rqc.rqc_int(a, r, c, int(q)) == _want(a, r, c, int(q)), (a, hex(r), hex(c), q)


def test_every_shift_at_its_edges():
    """sh from -40 to 70 (the left shifts, the clamps at 63 / 64, rounding ties) with the
    largest products and the smallest."""
    rng = np.random.default_rng(2)
    for sh in range(-40, 71):
        for _ in range(30):
            er = int(rng.integers(-60, 60))
            q = int(rng.integers(0, 32))
            ec = 30 - q - er - sh
            if not -128 <= ec <= 127:
                continue
            mr, mc = (int(rng.choice([1 << 15, (1 << 16) - 1, int(rng.integers(1, 1 << 16))])) for _ in range(2))
            for a in (0, 1, -1, 2, -2, 3, -3, (1 << 31) - 1, -(1 << 31), int(rng.integers(-(1 << 31), 1 << 31))):
                rs, cs = mr | ((er & 0xFF) << 16), mc | ((ec & 0xFF) << 16)
                assert rqc.rqc_int(a, rs, cs, q) == _want(a, rs, cs, q), (a, sh, mr, mc)


def test_rows_equal_elements():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 20))
        acc = np.array(_accs(rng, m * n), dtype=np.int64).reshape(m, n)
        rs, cs, q = _words(rng, m), _words(rng, n), int(rng.integers(0, 32))
        got = rqc.rqc_rows(acc, rs, cs, q)
        want = [[_want(acc[i, j], rs[i], cs[j], q) for j in range(n)] for i in range(m)]
        assert got.tolist() == want


def _run(fields, sp):
    cfg = config.DEFAULT
    prog = [isa.build("RQC", cfg=cfg, **fields), isa.build("HALT")]
    mach = Machine(cfg)
    mach.sp[:] = sp
    return mach.run(prog, np.zeros(cfg.ext_words, dtype=np.int64)).sp


def _by_definition(f, sp):
    """The op one element at a time, in order, from the rational definition."""
    sp = [int(x) for x in sp]
    for i in range(f["M"]):
        rs = sp[f["rsc"] + i * f["rstride"]]
        for j in range(f["N"]):
            a, cs = sp[f["src"] + i * f["ld"] + j], sp[f["csc"] + j]
            sp[f["dst"] + i * f["N"] + j] = _want(a, rs, cs, f["q"])
    return sp


def test_the_machine_runs_it_row_by_row_in_place_and_apart():
    rng = np.random.default_rng(4)
    size = config.DEFAULT.sp_words
    kinds = {"apart": 0, "overlap": 0}
    for t in range(150):
        m, n = int(rng.integers(1, 5)), int(rng.integers(1, 12))
        ld, rstride = int(rng.integers(0, n + 3)), int(rng.integers(0, 4))
        src, rsc, csc = 100, 40, 70
        dst = 300 if t % 2 else int(rng.integers(30, 120))      # apart, or over the sources
        f = dict(dst=dst, src=src, M=m, N=n, ld=ld, rsc=rsc, rstride=rstride, csc=csc, q=int(rng.integers(0, 32)))
        sp = np.zeros(size, dtype=np.int64)
        sp[:512] = [w32(x) for x in _words(rng, 512)]
        sp[src:src + 60] = _accs(rng, 60)
        kinds["apart" if dst >= 300 else "overlap"] += 1
        assert _run(f, sp).tolist() == _by_definition(f, sp), f
    assert min(kinds.values()) > 50


def test_defaults_and_record():
    ins = isa.build("RQC", dst=0, src=0, M=1, N=1, ld=0, rsc=0, rstride=0, csc=0)
    assert ins.fields()["q"] == 12
    # the busy cycles and the read count are the unit's (rtl/ga2_rqc.v): a row-scale read,
    # three cycles an element (two reads), one last write
    from model import timing
    for m, n in ((1, 1), (2, 3), (7, 100)):
        w = isa.build("RQC", dst=0, src=0, M=m, N=n, ld=n, rsc=0, rstride=0, csc=0)
        assert timing.busy_cycles(w, config.DEFAULT) == m * (3 * n + 1) + 1
