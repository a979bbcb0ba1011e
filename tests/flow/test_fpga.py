"""The iCE40 flow of `make fpga` (tools/flow/fpga.py) and the measured clock the docs use.

The flow test synthesises one processing element (ga2_pe: an 8 x 8 multiply and a 32-bit
accumulator) with synth_ice40 and places and routes it with nextpnr-ice40 on the HX1K:
a few seconds, and the same functions `make fpga` runs on the whole chip. Skipped, with
the reason, where nextpnr-ice40 is not installed (`make fpga` installs it; `make test`'s
set-up does not). The clock tests need no tool: tools/flow/fpga.py's CLOCK_MHZ follows
from the two measurements docs/fpga.md records, docs/fpga.md states it, and every derived
tokens-per-second figure in docs/lm.md names it.
"""
import re
import shutil

import pytest

from tools import ROOT
from tools.flow import fpga

needs_pnr = pytest.mark.skipif(shutil.which("nextpnr-ice40") is None or shutil.which("yosys") is None,
                               reason="nextpnr-ice40 not installed (make fpga installs it)")


@needs_pnr
def test_flow_places_and_routes_one_pe(tmp_path):
    use, ltp, _ = fpga.synthesize("hx1k", {}, tmp_path, top="ga2_pe", files=[ROOT / "rtl" / "ga2_pe.v"])
    # an 8 x 8 signed multiply and a 32-bit accumulate: LUTs and carries, 48 registers
    # (a_out 8, b_out 8, acc 32), no RAM, no DSP on the HX1K
    assert use["ffs"] == 48, use
    assert 40 < use["luts"] < 1280 and use["carries"] >= 31 and use["rams"] == 0 and use["dsps"] == 0, use
    assert ltp and ltp > 4
    ok, rep, log, _ = fpga.run_nextpnr("hx1k", tmp_path, seed=1, freq=12)
    assert ok, log
    lcs = rep["utilization"]["ICESTORM_LC"]
    assert lcs["available"] == 1280 and use["luts"] <= lcs["used"] <= 1280
    (clk,) = [v for k, v in rep["fmax"].items() if "clk" in k]
    assert 10 < clk["achieved"] < 500          # MHz: an iCE40 LUT plus routing is ns, not ps or us


def test_the_clock_follows_from_its_two_measurements():
    """CLOCK_MHZ is the chip's longer sta path (the overlap build's) times the calibration's
    routed/sta ratio, rounded down to 0.1 MHz; the figures are docs/fpga.md's (18,386 and
    16,872 ps; 13,300 ps and 32.56 MHz)."""
    assert fpga.STA_CHIP_PS == {"inorder": 16872, "overlap": 18386}
    assert (fpga.CAL_STA_PS, fpga.CAL_ROUTED_MHZ) == (13300, 32.56)
    ns = 18.386 * (1000 / 32.56) / 13.3
    assert fpga.CLOCK_MHZ <= 1000 / ns < fpga.CLOCK_MHZ + 0.1
    assert "estimated" in fpga.CLOCK_SOURCE and "docs/fpga.md" in fpga.CLOCK_SOURCE


def test_docs_use_the_clock():
    doc = (ROOT / "docs" / "fpga.md").read_text()
    assert f"**{fpga.CLOCK_MHZ:g} MHz**" in doc, "docs/fpga.md must state tools/flow/fpga.py's CLOCK_MHZ"
    for figure in ("16,872 ps", "18,386 ps", "13,300 ps", "32.56 MHz", "15,179", "17,487"):
        assert figure in doc, figure
    lm = (ROOT / "docs" / "lm.md").read_text()
    assert "assumed 100 MHz" not in lm
    for m in re.finditer(r"tokens per second", lm):
        near = lm[max(0, m.start() - 300):m.end() + 300]
        assert f"{fpga.CLOCK_MHZ:g} MHz" in near, near
