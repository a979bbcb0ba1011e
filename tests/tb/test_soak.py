"""The soak's local process pool judges each program against the reference, and a local
two-worker Dask cluster gives the same chunk results (the distributed route changes where
work runs, never the verdict; -m long)."""
import pytest

from model import config
from tb import hw, soak


def _local():
    return soak.soak("icarus", 4, seed=3, cfg=config.DEFAULT, chunk=2, jobs=2, progress=False)


def test_the_local_pool_judges_each_program():
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    local = _local()
    assert [r[0] for r in local] == [0, 1] and sum(r[1] for r in local) == 4
    assert all(r[2] == r[1] and r[4] == -1 for r in local)       # every program equal to the reference
    assert sum(r[3] for r in local) > 0


@pytest.mark.long   # a local Dask cluster's start-up: 5 s
def test_local_pool_and_dask_cluster_agree():
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    local = _local()
    dask = soak.soak("icarus", 4, seed=3, cfg=config.DEFAULT, chunk=2, scheduler="local:2",
                     progress=False)
    assert local == dask
    assert [r[0] for r in local] == [0, 1] and sum(r[1] for r in local) == 4
    assert all(r[2] == r[1] and r[4] == -1 for r in local)       # every program equal to the reference
    assert sum(r[3] for r in local) > 0


def test_soak_refuses_bad_arguments(capsys):
    for argv in (["--seed", "-2"], ["--n", "0"], ["--ext-words", "70000"], ["--ext-words", "8k"]):
        with pytest.raises(SystemExit) as e:
            soak.main(argv)
        assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--seed: -2 must be >= 0" in err and "--ext-words: 70000 outside 1..65536" in err
    assert "'8k' is not an integer" in err and len(err.strip().splitlines()) == 4
    with pytest.raises(ValueError, match="seed must be >= 0"):
        soak.soak("icarus", 1, seed=-1, progress=False)
    with pytest.raises(ValueError, match="n must be >= 1"):
        soak.soak("icarus", 0, progress=False)
