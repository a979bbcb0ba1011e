"""The coverage monitor reads the chip: in the overlap mode the hazard kinds and unit pairs
the wrapper's +cov monitor (tb/hdl/ga2_tb.v) saw the chip stall on, program by program,
are exactly those the timing model says the program has (tb/stimulus/collide.py
hazard_kinds, from model/timing.py's schedule and model/func.py's ranges: an independent
reference); and hw.run with GA2_COVERAGE writes a coverage file whose hazard bins are
their union."""
import os
import shutil

import numpy as np
import pytest

from model import config
from tb import coverage, hw, protocol
from tb.stimulus import collide

CFG = config.DEFAULT.replace(mode="overlap")


@pytest.mark.parametrize("sim", ["verilator", pytest.param("icarus", marks=pytest.mark.long)])
def test_hazard_monitor_matches_the_timing_model(sim, tmp_path, monkeypatch):
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")
    monkeypatch.setenv(coverage.ENV, str(tmp_path / "cov"))
    from tb.stimulus.ops import pack4
    rng = np.random.default_rng(2424)
    pairs = [collide.collide_program(rng, CFG, with_sm=k % 2 == 1, with_lm=k >= 2) for k in range(4)]
    pairs += [(prog, [0] * 64) for _, prog in pack4.hole_programs(CFG)]
    res = hw.run_programs(sim, pairs, cfg=CFG, keep=True)
    assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
    runs = sorted((hw.build(sim, cfg=CFG) / "runs").glob(f"{os.getpid()}-*"), key=os.path.getmtime)
    run_dir = runs[-1]
    union, union_pk = set(), set()
    for k, (prog, _) in enumerate(pairs):
        _, (haz, hpk) = coverage.read_cov(protocol.program_file(run_dir, k, "cov"), pack4=True)
        chip = {lb for lb, n in haz.items() if n > 0 and lb.split(":")[1].split("<-")[0] != lb.split("<-")[1]}
        kinds = collide.hazard_kinds(prog, CFG, by_op=True)
        model = {f"{kind}:{busy}<-{new}" for new, busy, kind, _, _ in kinds}
        assert chip == model, (k, sorted(chip ^ model))
        # the pack4 unit's own: PACK4 / UNPACK4 the decoding or the busy instruction
        chip_pk = {lb for lb, n in hpk.items() if n > 0}
        model_pk = ({f"{kind}:{busy}<-pack4" for new, busy, kind, nop, _ in kinds
                     if nop in ("PACK4", "UNPACK4") and busy != "vec"}
                    | {f"{kind}:pack4<-{new}" for new, busy, kind, _, bop in kinds
                       if bop in ("PACK4", "UNPACK4") and new != "vec"})
        assert chip_pk == model_pk, (k, sorted(chip_pk ^ model_pk))
        union |= chip
        union_pk |= chip_pk
    assert len(union) >= 6                          # the programs do collide
    assert len(union_pk) == 12                      # every kind, pack4 with dma and mm both ways
    files = list((tmp_path / "cov").glob("*.yml"))
    assert len(files) == 1
    hits = coverage.load(files[0])
    assert {b for b, n in hits["ga2.hazard"].items() if n} == union
    assert {b for b, n in hits["ga2.hazard.pack4"].items() if n} == union_pk
    assert hits["ga2.mode"]["overlap"] == len(pairs)
    shutil.rmtree(run_dir)


# the bins tb/stimulus/holes.py was written for (docs/coverage.md "Holes before and after"):
# the first report's
HOLES = {"ga2.field.LD.len": "max", "ga2.field.RQ.len": "max", "ga2.field.ADD.len": "max",
         "ga2.field.ARGMAX.len": "max", "ga2.field.LDX.len": "max", "ga2.field.LDX.src": "max",
         "ga2.field.MM.dst": "max", "ga2.field.MM.A": "max", "ga2.field.MM.B": "max",
         "ga2.field.MM.lda": "max", "ga2.field.MM.ldc": "max"}
# the second's on config.DEFAULT: every field bin but xhi's page above 0 (WIDE's), every
# illegal opcode, every softmax class of sm_max_len 64, restart with each unit busy (the
# pack4 unit too); in the overlap mode the pack4 unit's hazard bins
NEED_WIDE = {("ga2.field.LD.xhi", "cap"), ("ga2.field.ST.xhi", "cap"), ("ga2.field.LDX.xhi", "cap")}


def _hits_of(tmp_path):
    coverage.merge(tmp_path, tmp_path / "m.yml")
    return coverage.load(tmp_path / "m.yml")


@pytest.mark.parametrize("mode", [pytest.param("inorder", marks=pytest.mark.long), "overlap"])
def test_the_hole_programs_close_their_holes_on_the_chip(mode, tmp_path, monkeypatch):
    from tb.stimulus import holes
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    monkeypatch.setenv(coverage.ENV, str(tmp_path))
    (cfg, items), = holes.hole_jobs(mode)
    cfg2, items2 = holes.hole2_jobs(mode)[0]
    assert cfg == cfg2 == config.DEFAULT.replace(mode=mode)
    res = hw.run_programs("verilator", items + items2, cfg=cfg)
    assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
    # the fault programs fault, as meant; the cut ones are cut
    nf, nc = len(holes.fault_programs(cfg)), len(holes.cut_programs(cfg))
    assert [r.error for r in res[:nf + 1]] == [False] + [True] * nf
    assert [r.host["aborted"] for r in res[nf + 1:nf + 1 + 2 * nc + 2]] == [True, False] * (nc + 1)
    hits = _hits_of(tmp_path)
    assert [p for p, b in HOLES.items() if not hits[p][b]] == []
    bins = coverage.point_bins(cfg)
    want = [(p, b) for p, bs in bins.items() for b in bs
            if (p.startswith("ga2.field.") and (p, b) not in NEED_WIDE)
            or p in ("ga2.op", "ga2.sm_len") and b.split(":")[0] in (b, mode)
            or p == "ga2.restart" and b.startswith(mode + ":")
            or p == "ga2.hazard.pack4" and mode == "overlap"]
    assert [f"{p}[{b}]" for p, b in want if not hits.get(p, {}).get(b)] == []


# two 2^17-word builds (those of tests/tb/test_xhi_pack4_long_softmax_cosim.py)
@pytest.mark.long
@pytest.mark.parametrize("mode", config.MODES)
def test_the_wide_chips_hole_programs_close_theirs(mode, tmp_path, monkeypatch):
    """WIDE (2^17 external words, sm_max_len 1024): xhi at its top page (1), valid, and the
    softmax classes up to 1024."""
    from tb.stimulus import holes
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    monkeypatch.setenv(coverage.ENV, str(tmp_path))
    cfg, items = holes.hole2_jobs(mode)[1]
    assert (cfg.ext_words, cfg.sm_max_len) == (1 << 17, 1024)
    res = hw.run_programs("verilator", items, cfg=cfg)
    assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
    hits = _hits_of(tmp_path)
    assert [p for p, b in NEED_WIDE if not hits[p][b]] == []
    assert [b for b in coverage.point_bins()["ga2.sm_len.max1024"]
            if b.startswith(mode + ":") and not hits["ga2.sm_len.max1024"][b]] == []
