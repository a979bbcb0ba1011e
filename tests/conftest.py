"""Shared pytest set-up for the co-simulation tests: the simulators and a build fixture,
and the order of the suite on pytest-xdist workers.

Each simulator is built once per parameter set (tb.sim.build.build is idempotent and
file-locked, so pytest-xdist workers share one build instead of racing).

On two or more xdist workers (make test) the suite is laid out so no core idles:
- the Verilator builds the collected tests need are made first, at the first test of
  each worker, split between the workers (PREBUILDS, longest first, dealt round-robin),
  so no worker waits on another's build lock and no build starts late;
- the tests that take longest run first and the many short ones fill in at the end
  (SLOW_FIRST), one test at a time to the worker that is almost out of work, in that
  order (pytest_xdist_make_scheduler, for -n's default --dist load);
- a module whose module-scoped fixture is expensive goes to one worker whole (GROUPS),
  so its fixture is set up once. (xdist's own --dist loadgroup cannot do this here:
  it renames item._nodeid, which pytest 9 no longer reads.)
The order changes when a test runs, never what it checks.

With --calibration=RUNS (make test passes 3) the run ends with one more line, after pytest's
count: the time of a fixed CPU workload (tools/bench/calibrate.py) on this machine just
after the tests, and the tests' wall time in units of it, so runs on different machines
compare.
"""
import os
import time

import pytest

SIMS = ("icarus", "verilator")

# the tests that take longest (CPU seconds, measured from a clean build), first: a prefix
# of a node id; the rest keep their collection order after these
SLOW_FIRST = (
    "tests/tb/test_mut_rtl.py",                 # its harness fixture: both bench suites
    "tests/tools/ch09/test_mut_ch09.py",        # a local two-worker Dask cluster
    "tests/tb/test_shrink_cosim.py",
    "tests/tb/test_bench_suite.py::test_bench_programs_on_the_circuit",
    "tests/tb/test_soak.py::test_local_pool_and_dask_cluster_agree",
    "tests/tools/prefix/test_prefix.py::test_on_chip",
    "tests/flow/test_lint_synth.py",
    "tests/tb/test_overlap_cosim.py",
    "tests/tb/test_cosim.py::test_random_programs",
    "tests/tools/serve/test_serve_cosim.py",
    "tests/tb/test_units_cosim.py",
    "tests/tb/test_errors_cosim.py",
    "tests/tb/test_decode_cosim.py",
    "tests/tb/test_host_contract.py",
    "tests/tools/ch09/test_ch09_cosim.py",
    "tests/tb/test_long_program_cosim.py::test_past_the_16_bit_pc_on_verilator",
    "tests/tb",
    "tests/tools",
)

# modules whose module-scoped fixture is worth setting up once: one xdist group each
GROUPS = ("tests/tb/test_mut_rtl.py", "tests/tools/ch09/test_mut_ch09.py",
          "tests/flow/test_bad_input.py")        # its fixture runs the whole table of bad inputs
# tests that share one simulator run per simulator (the node id up to the simulator's
# name): one xdist group per simulator, so the run is made once and the two simulators'
# groups can go to different workers
SIM_GROUPS = ("tests/tb/test_units_cosim.py::test_unit[",)


def _prebuilds(items):
    """[(name, build)] of the Verilator builds the collected items use, longest first."""
    from model import config
    from tb import hw
    mods = {}
    for it in items:
        mod = getattr(it, "module", None)
        if mod is not None:
            mods.setdefault(it.nodeid.split("::")[0], mod)
    out = []
    def uses(prefix):
        return any(it.nodeid.startswith(prefix) for it in items)
    if uses("tests/tb/test_units_cosim.py::test_unit[verilator"):
        out.append(("verilator units", lambda m=mods["tests/tb/test_units_cosim.py"]: m._build_units("verilator")))
    if uses("tests/tb/test_decode_cosim.py::test_decode[verilator"):
        out.append(("verilator decode", lambda m=mods["tests/tb/test_decode_cosim.py"]: m._build_decode("verilator")))
    if any("verilator" in it.nodeid for it in items):
        out += [(f"verilator {c.name}", lambda c=c: hw.build("verilator", cfg=c))
                for c in (config.CH09_OVERLAP, config.CH09, config.DEFAULT)]
    long_test = "tests/tb/test_long_program_cosim.py::test_past_the_16_bit_pc_on_verilator"
    if any(it.nodeid == long_test for it in items):
        cfg = config.DEFAULT.for_program(mods[long_test.split("::")[0]].N)   # 2^17 instruction words
        out.append((f"verilator {cfg.name}", lambda c=cfg: hw.build("verilator", cfg=c)))
    return out


def pytest_addoption(parser):
    parser.addoption("--calibration", nargs="?", const=3, default=0, type=int, metavar="RUNS",
                     help="end with the time of a fixed CPU workload on this machine, the best of RUNS "
                          "(default 3; tools/bench/calibrate.py)")


def pytest_configure(config):
    config._ga2_t0 = time.perf_counter()


def pytest_unconfigure(config):
    """After pytest's last line (its count): the calibration line, on the controller only."""
    runs = config.getoption("--calibration", default=0)
    if hasattr(config, "workerinput") or not runs or runs < 1:
        return
    from tools.bench import calibrate
    elapsed = time.perf_counter() - config._ga2_t0
    try:
        cpu = calibrate.cpu_seconds()          # before the workload's own
        best, times = calibrate.measure(runs)
        text = calibrate.line(best, times, tests_seconds=elapsed, cpu_seconds=cpu)
    except RuntimeError as e:              # the workload was changed: say so, time nothing
        text = f"calibration: not measured: {e}"
    tr = config.pluginmanager.getplugin("terminalreporter")
    if tr is not None:
        tr.write_line(text)
    else:
        print(text)


def pytest_collection_modifyitems(session, config, items):
    def rank(it):
        for k, prefix in enumerate(SLOW_FIRST):
            if it.nodeid.startswith(prefix):
                return k
        return len(SLOW_FIRST)
    items.sort(key=rank)                  # stable: each module keeps its own order


def pytest_xdist_make_scheduler(config, log):
    """For --dist load (what -n sets): xdist's load-scope scheduler with a scope per test,
    except one per GROUPS module and one per simulator of a SIM_GROUPS test. It hands a worker the next scope when
    the worker has at most two tests left; the groups go first (it orders scopes by size, stably)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class _Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return scope_of(nodeid)
    return _Scheduling(config, log)


def scope_of(nodeid):
    """The scheduling scope of a test: its GROUPS module, its SIM_GROUPS test and simulator
    (the simulator is the id's last part: test_unit[test_softmax-icarus] is in
    test_unit[icarus), or the test itself."""
    for g in SIM_GROUPS:
        if nodeid.startswith(g):
            return g + nodeid[len(g):].rstrip("]").rsplit("-", 1)[-1]
    return next((g for g in GROUPS if nodeid.startswith(g + "::")), nodeid)


@pytest.fixture(scope="session", autouse=True)
def _prebuild(request):
    """This worker's share of the Verilator builds, before its first test (xdist only)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    n = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or n < 2:
        return
    from tb.sim.build import available_sims
    if "verilator" not in available_sims():
        return
    k = int(worker[2:])
    for _, make in _prebuilds(request.session.items)[k::n]:
        make()


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
