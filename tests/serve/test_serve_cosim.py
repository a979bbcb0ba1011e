"""Serving on the circuit (tools/serve.py): the short workload (workloads/short.csv, 5
requests, 3 slots, a 6-block pool) under both schedulers, ALL steps in one simulator
process per simulator with the external memory carried from step to step: every program
equal to the reference, every token of every request equal to it decoded alone, the bus
inside each step's block tables, the totals equal to the timing model. And the chip's own
bus monitor catching a builder that reads a block past its table (answers unchanged)."""
import pytest

from model import serving
from tools import ROOT
from tools import serve as srv
from tools.sim import hw


@pytest.fixture(scope="module")
def short():
    return serving.load_workload(ROOT / "workloads" / "short.csv")[1]


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
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


def test_chip_bus_monitor_catches_a_read_past_the_table(short):
    sim = "verilator" if "verilator" in hw.available_sims() else "icarus"
    out = srv.serve(short[:3], 3, 4, 6, sims=(sim,), name="mutant", bug="read_next_block")
    probs = out["sims"][sim]["problems"]
    assert not out["ok"]
    bus = [p for p in probs if "(chip bus)" in p]
    assert bus and all("outside the step's allowed set" in p for p in bus)
    # the answers stay right: the chip equals the (equally broken) reference, every token
    # equals the request alone; only the monitor sees the stray reads
    assert all("(chip bus)" in p for p in probs)
