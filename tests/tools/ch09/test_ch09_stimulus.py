"""tb/stimulus/named/ch09.npz, chapter 9's programs as verification reads them, is not stale:
it equals what model/batch.py builds now (in both timing modes), read back through
tb.stimulus.programs.chapter9_programs."""
from model import config
from tb.stimulus.programs import chapter9_programs
from tools.ch09 import stimulus


def test_the_frozen_programs_equal_the_builders():
    assert stimulus.stale() == ""
    for cfg in (config.CH09, config.CH09_OVERLAP):
        built, frozen = stimulus.programs(cfg), chapter9_programs(cfg)
        assert [b[0] for b in built] == [f[0] for f in frozen]
        for (label, p, img), (_, q, img2) in zip(built, frozen):
            assert list(p) == list(q), label
            assert (img == img2).all(), label
    assert len(chapter9_programs(config.CH09)) == 5


def test_check_exits_1_on_a_stale_file(tmp_path, monkeypatch, capsys):
    import numpy as np
    f = tmp_path / "ch09.npz"
    a = stimulus.arrays()
    a["images"][0, 0] += 1
    np.savez_compressed(f, **a)
    assert "images differs" in stimulus.stale(f)
    assert stimulus.stale(tmp_path / "none.npz").endswith("is missing")
