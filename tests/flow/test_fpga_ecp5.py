"""The ECP5 flow of `make fpga` (tools/flow/ecp5.py, fpga_paths.py) and the measured clock
every derived time uses (tools/flow/clock.py, tools/flow/fpga/measured.json).

No place and route runs here (one takes minutes: `make fpga`). The path analysis is checked
on a stored small design nextpnr-ecp5 routed (tests/flow/data/ecp5_requant/: ga2_requant
between two register stages on the LFE5U-85F; `python tests/flow/test_fpga_ecp5.py
--regen` makes it again): its worst path equals nextpnr's own critical path and Fmax, and
names the requantizer's module. The parsers of yosys's text are checked on yosys 0.70's
output. The clock tests: clock() is measured.json's Fmax, and every figure docs/fpga.md,
docs/lm.md and docs/measurements.md give of the builds and of tokens per second follows
from measured.json (a re-run of make fpga that changes a figure fails them until the docs
say the new one).
"""
import gzip
import json
import re
import shutil
import sys

import pytest

from tb import ROOT
from tools.flow import clock as C
from tools.flow import ecp5, fpga, fpga_paths

DATA = ROOT / "tests" / "flow" / "data" / "ecp5_requant"


def _data(name):
    return gzip.decompress((DATA / f"{name}.gz").read_bytes()).decode()


@pytest.fixture(scope="module")
def stored():
    report = json.loads(_data("report.json"))
    names = fpga_paths.Names(_data("design.json"))
    paths, loops = fpga_paths.worst_paths(_data("design.sdf"), 5, names.register_of)
    return report, paths, loops, names


def test_the_worst_path_is_nextpnrs_critical_path(stored):
    report, paths, loops, _ = stored
    assert loops == 0
    cp = fpga_paths.critical_path_ns(report)
    assert cp is not None and 1 < cp < 100
    assert paths[0]["ps"] / 1000 == pytest.approx(cp, abs=0.002)
    ach, target = fpga_paths.fmax(report)
    assert 1000 / cp == pytest.approx(ach, rel=1e-4) and target == 50
    # worst first, one path per register (here only y: a_q, m_q, s_q load from pins), each
    # traced from a clocked start to its end
    assert [p["ps"] for p in paths] == sorted((p["ps"] for p in paths), reverse=True)
    assert len({p["register"] for p in paths}) == len(paths) >= 1
    for p in paths:
        assert p["steps"][0][2] == "clk-to-q" and p["steps"][-1][0] == p["end"]
        assert sum(d for _, d, _ in p["steps"]) + p["setup_ps"] == pytest.approx(p["ps"])


def test_the_paths_name_the_requantizer(stored):
    """a_q / m_q / s_q -> ga2_requant's multiply, rounding, shift and clamp -> y: the
    registers by their RTL names, the requantizer's instance on the way."""
    _, paths, _, names = stored
    assert [p["register"] for p in paths] == ["y"]
    # the start register by the one name yosys kept for its output: a_q's is the port it feeds
    assert names.register_of(paths[0]["steps"][0][0][0]) in ("u_requant.a", "u_requant.m", "u_requant.s",
                                                              "a_q", "m_q", "s_q")
    crossed = fpga_paths.modules_of(paths[0]["steps"], names)
    assert "u_requant (ga2_requant)" in crossed, crossed


def test_sdf_parsing_takes_the_worst_corner():
    sdf = """(DELAYFILE (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE a\\[0\\]_ff)
      (DELAY (ABSOLUTE (IOPATH CLK Q (430:477:525) (430:477:525))))
      (TIMINGCHECK (SETUPHOLD (posedge DI) (posedge CLK) (0:0:0) (1:1:1))))
      (CELL (CELLTYPE "TRELLIS_COMB") (INSTANCE lut)
      (DELAY (ABSOLUTE (IOPATH A F (200:218:236) (200:218:240)))))
      (CELL (CELLTYPE "TRELLIS_FF") (INSTANCE b_ff)
      (DELAY (ABSOLUTE (IOPATH CLK Q (1:1:1) (1:1:1))))
      (TIMINGCHECK (SETUPHOLD (posedge DI) (posedge CLK) (10:20:30) (0:0:0))))
      (CELL (CELLTYPE "top") (INSTANCE ) (DELAY (ABSOLUTE
      (INTERCONNECT a\\[0\\]_ff/Q lut/A (100:100:1000) (100:100:900))
      (INTERCONNECT lut/F b_ff/DI (5:5:5) (5:5:5))))))"""
    paths, loops = fpga_paths.worst_paths(sdf, 5)
    assert loops == 0
    # 525 clock to Q + 1000 routing + 240 LUT + 5 routing + 30 setup
    assert [round(p["ps"]) for p in paths] == [1800]
    assert paths[0]["steps"][0][0] == ("a[0]_ff", "Q") and paths[0]["register"] == "b_ff"


def test_yosys_memory_dump_and_the_fit_rule():
    dump = ("  cell $mem_v2 \\u_chip.u_sp.mem\n    parameter \\MEMID \"\\\\u_chip.u_sp.mem\"\n"
            "    parameter \\WIDTH 32\n    parameter \\OFFSET 0\n    parameter \\SIZE 16384\n"
            "    parameter \\ABITS 14\n    parameter \\RD_PORTS 10\n    parameter \\WR_PORTS 3\n"
            "    connect \\RD_EN 10'1111111111\n  end\n"
            "  cell $mem_v2 $flatten\\u_chip.\\u_softmax.\\u_lut.$auto$proc_rom.cc:155:do_switch$6848\n"
            "    parameter \\WIDTH 16\n    parameter \\SIZE 256\n    parameter \\RD_PORTS 1\n"
            "    parameter \\WR_PORTS 0\n  end\n")
    mems = ecp5.parse_mems(dump)
    assert [(m["size"], m["width"], m["rd"], m["wr"]) for m in mems] == [(16384, 32, 10, 3), (256, 16, 1, 0)]
    rams, bits = ecp5.left_to_flip_flops(mems)
    assert [m["name"] for m in rams] == ["u_chip.u_sp.mem"] and bits == 16384 * 32 > ecp5.DEVICE["ffs"]


def test_yosys_070_stat():
    stat = "=== ga2_fpga ===\n\n    16082 cells\n      880   CCU2C\n        5   DP16KD\n     9190   LUT4\n" \
           "       29   MULT18X18D\n     2498   TRELLIS_FF\n"
    assert ecp5.parse_stat(stat) == {"cells": 16082, "CCU2C": 880, "DP16KD": 5, "LUT4": 9190,
                                     "MULT18X18D": 29, "TRELLIS_FF": 2498}


def test_the_builds_are_the_chips_they_name():
    from model import config
    from tools.lm.compiler.chips import CHIPS, LM_CHIP
    assert ecp5.BUILDS["inorder"]["EXT_WORDS"] == config.CH09.ext_words
    assert ecp5.BUILDS["overlap"]["OVERLAP"] == 1 and ecp5.BUILDS["inorder"]["OVERLAP"] == 0
    lm = ecp5.BUILDS["lm"]
    assert (lm["EXT_WORDS"], lm["IMEM_DEPTH"], lm["SP_WORDS"]) == (CHIPS[-1][0], CHIPS[-1][1], LM_CHIP.sp_words)
    assert max(c[0] for c in CHIPS) == lm["EXT_WORDS"]          # the largest the models use


# ---------------------------------------------------------------------- the measured clock
def test_clock_is_the_measured_fmax():
    m = C.measured()
    for mode in ("inorder", "overlap"):
        c = C.clock(mode)
        assert c.mhz == m[c.build]["fmax_mhz"] and m[c.build]["fits"]
        assert f"{c.mhz:g} MHz" in c.label and "ECP5" in c.label and c.build in c.label
        assert m[c.build]["params"]["OVERLAP"] == (mode == "overlap")
        lm = C.clock(mode, "lm")
        assert lm.build == "lm-sp16" and lm.mhz == m["lm-sp16"]["fmax_mhz"]
        assert m["lm-sp16"]["params"]["EXT_WORDS"] == ecp5.BUILDS["lm"]["EXT_WORDS"]
    assert "no in-order one" in C.clock("inorder", "lm").label
    with pytest.raises(ValueError, match="mode"):
        C.clock("fast")
    with pytest.raises(ValueError, match="chip"):
        C.clock("overlap", "gpu")


def _n(text):
    return int(text.replace(",", ""))


def test_docs_fpga_states_the_measured_figures():
    """docs/fpga.md's table of builds: each row's figures are measured.json's."""
    doc = (ROOT / "docs" / "fpga.md").read_text()
    m = C.measured()
    for name, e in m.items():
        row = re.search(rf"^\| `{re.escape(name)}` \|(.*)$", doc, re.M)
        assert row, f"docs/fpga.md has no row for build {name}"
        cells = [c.strip() for c in row.group(1).split("|")]
        if not e["fits"]:
            assert "does not fit" in row.group(1)
            continue
        u = e["utilisation"]
        got = [cells[i] for i in range(1, 6)]
        want = [f"{u['luts'][0]:,}", f"{u['ffs'][0]:,}", f"{u['dsps'][0]}", f"{u['brams'][0]}",
                f"**{e['fmax_mhz']:.2f} MHz**"]
        assert got == want, (name, got, want)


def test_docs_fpga_states_the_calibration():
    """docs/fpga.md's ceiling of the requantizer's loop is the ECP5 calibration's figures
    (tools/flow/fpga/cal_requant.json, written by `python -m tools.flow.fpga --calibrate`)."""
    doc = (ROOT / "docs" / "fpga.md").read_text()
    cal = json.loads(fpga.CAL_MEASURED.read_text())
    assert cal["device"].startswith("LFE5U-85F-6")
    m = re.search(r"routes at \*\*([\d.]+) MHz\*\* \(([\d.]+) ns:\s+([\d,]+) LUT4, (\d+) CCU2C, (\d+) MULT18X18D;"
                  r" `python -m tools.flow.fpga --calibrate`, (\S+),\s+seed (\d+)\)", doc)
    assert m, "docs/fpga.md: the calibration sentence"
    c = cal["cells"]
    assert (float(m.group(1)), float(m.group(2))) == (cal["fmax_mhz"], round(cal["critical_path_ns"], 2))
    assert (_n(m.group(3)), int(m.group(4)), int(m.group(5))) == (c["LUT4"], c["CCU2C"], c["MULT18X18D"])
    assert (m.group(6), int(m.group(7))) == (cal["date"], cal["seed"])


def test_docs_tokens_per_second_follow_from_the_clock():
    """docs/lm.md's derived tokens per second: B x the language models' measured clock / the
    step's cycles in its own table (and docs/measurements.md says the same)."""
    lm = (ROOT / "docs" / "lm.md").read_text()
    meas = (ROOT / "docs" / "measurements.md").read_text()
    m = re.search(r"Derived at (\S+) MHz, the measured Fmax of the ECP5 build lm-sp16[^:]*:\s+([\d,]+) tokens per"
                  r"\s+second at\s+B = 1, ([\d,]+) at B = 16 \(T = 8, overlap\)", lm)
    assert m, "docs/lm.md: the derived tokens per second sentence"
    mhz = C.clock("overlap", "lm").mhz
    assert float(m.group(1)) == mhz

    def cycles(B):
        row = re.search(rf"^\| 8 \| {B} \| overlap \| ([\d,]+) \|", lm, re.M)
        return _n(row.group(1))
    for B, got in ((1, m.group(2)), (16, m.group(3))):
        assert _n(got) == round(B * mhz * 1e6 / cycles(B)), (B, got)
    assert f"{m.group(2)} at B = 1, {m.group(3)} at B = 16" in meas
    assert f"{mhz:g} MHz" in meas
    for text in (lm, meas):
        assert "23.5 MHz" not in text and "assumed 100 MHz" not in text


def regen():
    """Route ga2_fpga_requant on the ECP5 and store what the tests read (about a minute)."""
    b = ROOT / "build" / "fpga" / "ecp5-fixture-requant"
    if b.exists():
        shutil.rmtree(b)
    b.mkdir(parents=True)
    ecp5.synthesize(b, {}, top="ga2_fpga_requant",
                    files=[ROOT / "rtl" / "ga2_requant.v", ROOT / "tools" / "flow" / "fpga" / "ga2_fpga_requant.v"])
    ecp5.place_and_route(b, seed=1, freq=50)
    DATA.mkdir(parents=True, exist_ok=True)
    for name in ("report.json", "design.sdf", "design.json"):
        (DATA / f"{name}.gz").write_bytes(gzip.compress((b / name).read_bytes(), mtime=0))
    print(f"wrote {DATA.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--regen"]:
        regen()
    else:
        print("python tests/flow/test_fpga_ecp5.py --regen   (route the stored design again)")
