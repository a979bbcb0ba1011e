"""Shared pytest set-up for the co-simulation tests: the simulators and a build fixture.

Each simulator is built once per parameter set (tools.sim.build.build is idempotent and
file-locked, so pytest-xdist workers share one build instead of racing).
"""
import pytest

SIMS = ("icarus", "verilator")


@pytest.fixture(scope="session")
def built():
    """built(sim, cfg=None) -> build dir, building on first use."""
    from tools.sim import hw
    cache = {}

    def get(sim, cfg=None):
        key = (sim, cfg)
        if key not in cache:
            cache[key] = hw.build(sim, cfg=cfg)
        return cache[key]
    return get


@pytest.fixture(params=SIMS)
def sim(request, built):
    """Each co-simulation test runs once per simulator, after its build."""
    built(request.param)
    return request.param


def softmax_has_fast():
    """True once rtl/softmax.v has the fast softmax (parameter FAST, wired to OVERLAP)."""
    from tools import ROOT
    import re
    return re.search(r"\bparameter\s+FAST\b", (ROOT / "rtl" / "softmax.v").read_text()) is not None


@pytest.fixture
def softmax_today(monkeypatch):
    """The reference's SM timing as the chip's softmax has it today, in both modes.

    model/timing.sm_busy gives the overlap mode the FAST softmax's cycles (rtl/softmax.v
    FAST, another branch). Until that RTL exists the chip's SM takes the in-order cycles
    (2*(len+1) + 34*len) in both modes, so overlap-mode programs with SM are compared
    against a reference with that one rule changed: everything else (hazards, issue,
    retire slots, counters, memory) is held to the model as it is. Once FAST exists this
    fixture changes nothing. The timing caches are cleared before and after."""
    from model import timing
    if not softmax_has_fast():
        monkeypatch.setattr(timing, "sm_busy",
                            lambda n, cfg: 2 * (n + 1) + cfg.sm_div_cycles * n)
    timing._COST.clear()
    timing._SCHED.clear()
    yield
    timing._COST.clear()
    timing._SCHED.clear()
