"""A pytest plugin that writes each test's CPU seconds: what make test's time is made of.

    python -m pytest -p tools.bench.cpu_per_test -n 2 -m "not long" tests

Each worker appends "seconds<TAB>node id" lines to out/cpu_per_test-<worker>.tsv: the CPU
time of the test (set-up, call and tear-down) in the worker itself and in every child
process it waited for (simulators, commands), from os.times(). A session fixture's cost
lands on the first test that uses it. Wall times mislead on a shared machine (a test
waiting for a core looks slow); CPU seconds add up to what two cores must do.
"""
import os
from pathlib import Path

import pytest

_OUT = []


def _cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _OUT:
        out = Path(__file__).resolve().parents[2] / "out"
        out.mkdir(exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _OUT.append(open(out / f"cpu_per_test-{worker}.tsv", "a"))
    t0 = _cpu()
    yield
    _OUT[0].write(f"{_cpu() - t0:.3f}\t{item.nodeid}\n")
    _OUT[0].flush()
