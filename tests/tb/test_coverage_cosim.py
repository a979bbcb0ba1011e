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
    rng = np.random.default_rng(2424)
    pairs = [collide.collide_program(rng, CFG, with_sm=k % 2 == 1, with_lm=k >= 2) for k in range(4)]
    res = hw.run_programs(sim, pairs, cfg=CFG, keep=True)
    assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
    runs = sorted((hw.build(sim, cfg=CFG) / "runs").glob(f"{os.getpid()}-*"), key=os.path.getmtime)
    run_dir = runs[-1]
    union = set()
    for k, (prog, _) in enumerate(pairs):
        _, haz = coverage.read_cov(protocol.program_file(run_dir, k, "cov"))
        chip = {lb for lb, n in haz.items() if n > 0 and lb.split(":")[1].split("<-")[0] != lb.split("<-")[1]}
        model = {f"{kind}:{busy}<-{new}" for new, busy, kind in collide.hazard_kinds(prog, CFG)}
        assert chip == model, (k, sorted(chip ^ model))
        union |= chip
    assert len(union) >= 6                          # the programs do collide
    files = list((tmp_path / "cov").glob("*.yml"))
    assert len(files) == 1
    hits = coverage.load(files[0])
    assert {b for b, n in hits["ga2.hazard"].items() if n} == union
    assert hits["ga2.mode"]["overlap"] == len(pairs)
    shutil.rmtree(run_dir)


# the bins tb/stimulus/holes.py was written for (docs/coverage.md "Holes before and after")
HOLES = {"ga2.field.LD.len": "max", "ga2.field.RQ.len": "max", "ga2.field.ADD.len": "max",
         "ga2.field.ARGMAX.len": "max", "ga2.field.LDX.len": "max", "ga2.field.LDX.src": "max",
         "ga2.field.MM.dst": "max", "ga2.field.MM.A": "max", "ga2.field.MM.B": "max",
         "ga2.field.MM.lda": "max", "ga2.field.MM.ldc": "max"}


@pytest.mark.parametrize("mode", config.MODES)
def test_the_hole_programs_close_their_holes_on_the_chip(mode, tmp_path, monkeypatch):
    from tb.stimulus import holes
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    monkeypatch.setenv(coverage.ENV, str(tmp_path))
    for cfg, items in holes.hole_jobs(mode):
        res = hw.run_programs("verilator", items, cfg=cfg)
        assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
        # the fault programs fault, as meant; the cut ones are cut
        nf = len(holes.fault_programs(cfg))
        assert [r.error for r in res[:nf + 1]] == [False] + [True] * nf
        assert [r.host["aborted"] for r in res[nf + 1:]] == [True, False] * len(holes.cut_programs(cfg))
    coverage.merge(tmp_path, tmp_path / "m.yml")
    hits = coverage.load(tmp_path / "m.yml")
    assert [p for p, b in HOLES.items() if not hits[p][b]] == []
    assert [u for u in ("none", "dma", "mm", "vec") if not hits["ga2.restart"][f"{mode}:{u}"]] == []
