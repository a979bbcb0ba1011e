"""Serving the language model on the circuit (tools/serve/lm_run.py): a short dense
workload under a preempting and a reserving policy with chunked prefill, all steps of
both in ONE simulator process, the external memory carried from step to step: every step
judged against the reference chip by tb.hw (memory, trace, counters), its cycles equal
to the timing model, its external-bus record (the wrapper's monitor) inside the step's
allowed set, the final memory the served run's; every request's tokens equal to it
served alone. Verilator in both timing modes; Icarus, one step of a run, in the long set."""
import pytest

from tb import hw
from tools.lm import generate
from tools.serve import lm_run as L
from tools.serve import requests as rq


@pytest.fixture(scope="module")
def model():
    return generate.load_model("text")


def _runs(model, mode, n=3):
    reqs = rq.poisson(n, 60, seed=4, max_new=(4, 8))
    runs, probs = L.serve_all(model, reqs, 6, mode, [("preempt", "chunked"), ("reserve", "chunked")])
    assert probs == []
    return runs


@pytest.mark.parametrize("mode", ["inorder", "overlap"])
def test_lm_serving_on_verilator(model, mode):
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    runs = _runs(model, mode)
    cyc, probs, _ = L.on_chip("verilator", runs, mode)
    assert probs == []
    for run, c in zip(runs, cyc):
        assert c == [st.predicted for st in run.steps]


@pytest.mark.long
def test_lm_serving_on_icarus(model):
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    runs = _runs(model, "overlap", n=2)[:1]
    cyc, probs, _ = L.on_chip("icarus", runs, "overlap")
    assert probs == []
    assert cyc[0] == [st.predicted for st in runs[0].steps]
