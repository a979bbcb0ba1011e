"""The RTL is lint-clean under verilator -Wall and synthesizes with yosys.

Runs the same tools as `make lint` and `make synth`; synthesis must report a top with
flip-flops and the scratchpad kept as a memory, so an empty or failed run cannot pass.
make test runs yosys's coarse (word-level) synthesis with `check -assert` (`synth.py
--coarse`, about 5 CPU-s); the gate-level run of `make synth` (35 to 45 CPU-s) is -m long.
"""
import re
import subprocess
import sys

import pytest

from tb import ROOT

MODULES = ("ga2_top", "ga2_mm_ctrl", "ga2_systolic", "ga2_pe", "ga2_requant", "ga2_softmax", "ga2_divu", "ga2_dma")


def run(tool, *args):
    return subprocess.run([sys.executable, "-m", f"tools.flow.{tool[:-3]}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _check_report(text, min_cells):
    m = re.search(r"total \(ga2_top, all instances\): (\d+) cells, (\d+) flip-flops", text)
    assert m, text
    cells, ffs = int(m.group(1)), int(m.group(2))
    assert cells > min_cells and ffs > 500
    for module in MODULES:
        assert re.search(rf"^{module}\s+\d+\s+\d+\s+\d+", text, re.M), module
    assert "ga2_sram.mem: 4096 x 32 bits" in text


def test_lint_clean():
    r = run("lint.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_coarse_synthesis_is_check_clean_and_reports_per_module():
    """The word-level synthesis: yosys elaborates and infers every module and memory, and its
    check (no multiple drivers, undriven wires, logic loops) is clean."""
    r = run("synth.py", "--coarse")
    assert r.returncode == 0, r.stdout + r.stderr
    _check_report((ROOT / "out" / "synth_coarse.txt").read_text(), 1000)


@pytest.mark.long
def test_synthesis_succeeds_and_reports_per_module():
    r = run("synth.py")
    assert r.returncode == 0, r.stdout + r.stderr
    _check_report((ROOT / "out" / "synth.txt").read_text(), 10000)
