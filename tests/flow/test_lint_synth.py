"""The RTL is lint-clean under verilator -Wall and synthesizes with yosys.

Runs the same tools as `make lint` and `make synth`; synthesis must report a top with
flip-flops and the scratchpad kept as a memory, so an empty or failed run cannot pass.
"""
import re
import subprocess
import sys

from tb import ROOT


def run(tool):
    return subprocess.run([sys.executable, "-m", f"tools.flow.{tool[:-3]}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_lint_clean():
    r = run("lint.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_synthesis_succeeds_and_reports_per_module():
    r = run("synth.py")
    assert r.returncode == 0, r.stdout + r.stderr
    text = (ROOT / "out" / "synth.txt").read_text()
    m = re.search(r"total \(ga2_top, all instances\): (\d+) cells, (\d+) flip-flops", text)
    assert m, text
    cells, ffs = int(m.group(1)), int(m.group(2))
    assert cells > 1000 and ffs > 500
    for module in ("ga2_top", "ga2_mm_ctrl", "ga2_systolic", "ga2_pe", "ga2_requant", "ga2_softmax", "ga2_divu",
                   "ga2_dma"):
        assert re.search(rf"^{module}\s+\d+\s+\d+\s+\d+", text, re.M), module
    assert "ga2_sram.mem: 4096 x 32 bits" in text
