"""SWIGLU and ROPE on the chip, on Icarus and Verilator, in both timing modes.

Their hand programs (tb/stimulus/ops/swiglu.py and rope.py: every sigmoid table entry,
saturation and rounding edges, overlapping operands, the whole scratchpad, ROPE rows of
real positions picked by LDX, many heads, every DECODE fault of the two) run with the other
language-model ops' in tests/tb/test_lm_cosim.py (the judge, the schedule, the overlap
mode's memory). Here: each op's busy cycles, read from the chip's vec counter, are the
formulas of docs/isa.md typed in here (SWIGLU 6 len + 1, ROPE 6 pairs heads + 1); ROPE's
rows of positions 0, 1, 2, 1000, 4097 and 8191 as the chip computed them (rope_rows, also
judged here) are held to the float reference's rotation (tools/smollm2/float_ref.py)
within the stated bound. In the overlap mode, programs built to collide with the two (and
their one-word hull edges) equal the reference.
"""
import numpy as np
import pytest
from cosim_runs import run_checked

from model import config, isa
from model.machine import GA2Error, Machine
from tb import hw
from tb.judge import reference
from tb.stimulus import collide, hand
from tb.stimulus.ops import rope
from tools.smollm2 import float_ref

CFGS = {"inorder": config.CH09, "overlap": config.CH09_OVERLAP}
BUSY = {"SWIGLU": lambda f: 6 * f["len"] + 1, "ROPE": lambda f: 6 * f["pairs"] * f["heads"] + 1}
SHAPES = {"SWIGLU": [dict(len=n) for n in (1, 2, 17, 100)],
          "ROPE": [dict(pairs=p, heads=h) for p, h in ((1, 1), (2, 1), (32, 1), (5, 3), (32, 12))]}


def _one(op, f, cfg):
    def b(o, **kw):
        return isa.build(o, cfg=cfg, **kw)
    base = {"SWIGLU": dict(dst=200, src=300, src2=500), "ROPE": dict(dst=1200, src=300, cs=100)}[op]
    return [b(op, **base, **f), b("HALT")]


# Verilator in make test; Icarus in make test-long
@pytest.mark.parametrize("sim,mode", [pytest.param("icarus", m, marks=pytest.mark.long) for m in ("inorder", "overlap")]
                         + [("verilator", "inorder"), ("verilator", "overlap")], indirect=["sim"])
def test_rope_rows_and_cycles(sim, mode):
    cfg = CFGS[mode]
    progs = [c for c in rope.lm_programs(hand.B, hand.R, None) if c[0] == "rope_rows"]
    timed = [(op, f, _one(op, f, cfg)) for op in BUSY for f in SHAPES[op]]
    checked, timed_res = run_checked(sim, progs, timed, cfg)
    inorder = Machine(CFGS["inorder"])
    for _name, prog, img, r, where in checked:
        assert not r.error, where
        if mode == "overlap":
            ref_io = reference(inorder, prog, img)
            assert np.array_equal(np.asarray(r.ext), np.asarray(ref_io.ext)), f"{where}: memory"
            assert isinstance(ref_io, GA2Error) == r.error, where
        _rows_near_float(np.asarray(r.ext), img, where)
    for (op, f, _prog), r in zip(timed, timed_res):
        assert r.ok and r.counters.vec == BUSY[op](f), f"{op} {f} ({sim}, {mode}): vec {r.counters.vec}, {r.mismatch}"
        assert r.counters.cycles == r.counters.vec + (4 if mode == "inorder" else 3), (op, f, mode)


def _rows_near_float(ext, img, where):
    """rope_rows' first stores (6 heads of 32 pairs at each position) against the float
    rotation: |y - 2^12 rope(x / 2^12)| <= (|x0| + |x1|) 2^-15 + 1/2 words."""
    x = np.asarray(img[:384], dtype=np.int64)
    for k, pos in enumerate(rope.POSITIONS):
        ang = pos * 100000.0 ** (-np.arange(0, 64, 2) / 64)
        want = float_ref.rope(x.reshape(1, 6, 64).astype(np.float64), np.cos(ang)[None, :],
                              np.sin(ang)[None, :]).reshape(-1)
        y = ext[384 * k:384 * k + 384].astype(np.int64)
        bound = np.repeat(np.abs(x[0::2]) + np.abs(x[1::2]), 2) * 2.0 ** -15 + 0.5 + 1e-6
        assert np.all(np.abs(y - want) <= bound), f"{where}: position {pos}"


@pytest.mark.parametrize("sim", [pytest.param("icarus", marks=pytest.mark.long), "verilator"], indirect=True)
def test_hazards_with_swiglu_and_rope(sim):
    """Overlap mode: programs built to collide with SWIGLU and ROPE in the mix (every hazard
    kind; ROPE's second read range, its cos/sin row, aimed at too) and their one-word hull
    edges (tb/stimulus/collide.py lm_edge_programs: each op's every range against a reader
    and a writer of the other units): equal to the reference and to the in-order memory."""
    cfg = CFGS["overlap"]
    rng = np.random.default_rng(1819)
    pairs = [(p, i) for label, p, i in collide.lm_edge_programs(cfg) if label in ("lm edges SWIGLU", "lm edges ROPE")]
    pairs += [collide.collide_program(rng, cfg, with_lm=True) for _ in range(12)]
    ops = [sum(getattr(w, "op", None) == op for p, _ in pairs for w in p) for op in ("SWIGLU", "ROPE")]
    assert min(ops) >= 20, ops
    res = hw.run_programs(sim, pairs, cfg=cfg)
    inorder = Machine(CFGS["inorder"])
    for k, ((prog, img), r) in enumerate(zip(pairs, res)):
        assert r.ok, f"program {k} ({sim}): {r.mismatch}"
        ref_io = reference(inorder, prog, img)
        assert np.array_equal(np.asarray(r.ext), np.asarray(ref_io.ext)), k
