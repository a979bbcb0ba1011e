"""Serving on the circuit (tools/serve/run.py): the short workload (tools/serve/workloads/short.csv, 5
requests, 3 slots, a 6-block pool) under both schedulers, ALL steps in one simulator
process per simulator with the external memory carried from step to step: every program
equal to the reference, every token of every request equal to it decoded alone, the bus
inside each step's block tables, the totals equal to the timing model. And the chip's own
bus monitor catching a builder that reads a block past its table (answers unchanged)."""
import pytest

from tb import ROOT, hw
from tools.serve import engine as serving
from tools.serve import mutants as mut_serve
from tools.serve import paged, workload
from tools.serve import run as srv


@pytest.fixture(scope="module")
def short():
    return workload.load_workload(ROOT / "tools" / "serve" / "workloads" / "short.csv")[1]


# Icarus's run is -m long (a twin of Verilator's; Icarus's carried memory and bus record are
# test_keep_ext_carries_memory_and_the_bus_record's, in make test)
@pytest.mark.parametrize("sim", [pytest.param("icarus", marks=pytest.mark.long), "verilator"])
def test_short_workload_on_the_circuit(sim, short):
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")
    out = srv.serve(short, 3, 4, 6, sims=(sim,), name="short")
    assert out["sims"][sim]["problems"] == [] and out["model_problems"] == []
    assert out["ok"]
    for pol in serving.POLICIES:
        sc = out["schedulers"][pol]
        assert sc["measured"][sim]["total_cycles"] == sc["predicted"]["total_cycles"]
        assert sc["measured"][sim]["steps"] == len(sc["step_cycles"][sim]) > 0
    assert out["schedulers"]["continuous"]["measured"][sim]["total_cycles"] < \
        out["schedulers"]["static"]["measured"][sim]["total_cycles"]
    assert out["sims"][sim]["programs"] == sum(out["schedulers"][p]["measured"][sim]["steps"]
                                               for p in serving.POLICIES)


def test_chip_bus_monitor_catches_a_read_past_the_table(short, mutated_module, monkeypatch):
    """The broken builder is tools/serve/mutants.py's mutant, applied to a copy of paged.py
    whose step_program the run uses for this test only."""
    sim = "verilator" if "verilator" in hw.available_sims() else "icarus"
    broken = mutated_module(mut_serve.mutant(
        "each gather reads one block past its last one (a freed or another request's block)"))
    monkeypatch.setattr(paged, "step_program", broken.step_program)
    out = srv.serve(short[:3], 3, 4, 6, sims=(sim,), name="mutant")
    probs = out["sims"][sim]["problems"]
    assert not out["ok"]
    bus = [p for p in probs if "(chip bus)" in p]
    assert bus and all("outside the step's allowed set" in p for p in bus)
    # the answers stay right: the chip equals the (equally broken) reference, every token
    # equals the request alone; only the monitor sees the stray reads
    assert all("(chip bus)" in p for p in probs)


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_keep_ext_carries_memory_and_the_bus_record(sim):
    """run.py's KEEP_EXT: a program without pK_ext.hex sees what the previous one left (on
    the chip and on the reference); the wrapper's bus record lists each LD/ST burst."""
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")
    import numpy as np

    from model import config, isa
    from tb.judge import KEEP_EXT
    from tb.sim import run as simrun
    from tools.serve import paged
    cfg = config.CH09
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    p1 = [b("LD", dst=0, src=10, len=8), b("ST", src=0, dst=200, len=8), b("LD", dst=20, src=18, len=4),
          b("HALT")]
    p2 = [b("LD", dst=0, src=200, len=8), b("ST", src=0, dst=300, len=8), b("HALT")]
    res = simrun.run_programs(sim, [(p1, np.arange(100)), (p2, KEEP_EXT)], cfg=cfg)
    assert all(r.ok for r in res), [r.mismatch for r in res]
    assert list(res[1].ext[300:308]) == list(range(10, 18))
    assert res[0].host["bus"] == [("r", 10, 17), ("w", 200, 207), ("r", 18, 21)] == paged.accesses(p1)
    assert res[1].host["bus"] == paged.accesses(p2)


def test_serve_cli_model_only_and_bad_input(tmp_path, capsys):
    assert srv.main(["--workload", "short", "--model-only", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "serve_short.json").exists() and (tmp_path / "serve_short_pool.png").exists()
    assert "MODEL ONLY" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("id,tokens,arrival\nok,3,0\nx,0,1\n")
    assert srv.main(["--workload", str(bad), "--model-only", "--out", str(tmp_path)]) == 2
    assert "request 'x': zero tokens" in capsys.readouterr().err
