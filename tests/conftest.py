"""Shared pytest set-up for the co-simulation tests: the simulators and a build fixture.

Each simulator is built once per parameter set (tb.sim.build.build is idempotent and
file-locked, so pytest-xdist workers share one build instead of racing).
"""
import pytest

SIMS = ("icarus", "verilator")


@pytest.fixture(scope="session")
def built():
    """built(sim, cfg=None) -> build dir, building on first use."""
    from tb import hw
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
