"""The shrinker on a deliberately broken chip: a random program that shows the bug is cut
down to a few instructions that still fail on the broken chip, pass on the good one, and
replay from the saved text."""

import numpy as np
import pytest

from model import config
from model.asm import assemble_file
from tb import hw, shrink
from tb.sim.files import copy_rtl
from tb.stimulus import randprog


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """An RTL copy whose DMA flips bit 0 of a stored word whose bit 3 is set, built on Icarus."""
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    d = tmp_path_factory.mktemp("broken")
    rtl = copy_rtl(d, ("ga2_dma.v", r"assign ext_wdata\s*=\s*sp_rd_data;",
                       "assign ext_wdata = sp_rd_data ^ {31'd0, sp_rd_data[3]};"))
    return {"rtl_dir": rtl, "build_dir": d / "build"}


@pytest.mark.long
def test_shrink_finds_a_minimal_reproducer_on_a_broken_chip(broken, tmp_path):
    cfg = config.DEFAULT
    fails = shrink.chip_oracle("icarus", cfg, **broken)
    rng = np.random.default_rng(12)
    cands = [randprog.random_program(rng, cfg, n_instr=10) for _ in range(6)]
    verdicts = fails(cands)
    assert any(verdicts), "no random program shows the broken store"
    prog, image = cands[verdicts.index(True)]
    small, img = shrink.shrink(prog, image, fails, cfg)
    assert len(small) <= 4 and len(small) < len(prog)
    assert "ST" in [i.op for i in small] and small[-1].op == "HALT"
    # the reproducer: fails on the broken chip, runs clean on the good one, replays from text
    path = tmp_path / "repro.s"
    cmd = shrink.save(small, img, path, note="store flips bit 0")
    assert assemble_file(path) == small and "./ga2 run" in cmd
    assert fails([(small, img)]) == [True]
    assert shrink.chip_oracle("icarus", cfg)([(small, img)]) == [False]
