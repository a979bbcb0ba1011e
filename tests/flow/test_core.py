"""The FuseSoC cores (rtl/ga2.core, tb/hdl/tb_plain.core) are generated, current, and pass
FuseSoC itself: core-info, the lint target clean in both timing modes, and the sim target
running a real program (docs/examples/tiled_matmul.s) equal to the reference.

FuseSoC is a pinned requirement (requirements.txt), so nothing here is skipped. Each FuseSoC
call is about a second (Icarus and verilator --lint-only; the Verilator sim target, ~10 s
of C++ compile, is `make core`'s, not CI's).
"""
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml

from model import config, isa
from model.machine import Machine
from tb import ROOT, protocol
from tb.hw import rtl_files
from tb.sim.files import copy_rtl
from tools.flow import core
from tools.ga2 import read_image, read_program


def run_tool(*args):
    return subprocess.run([sys.executable, "-m", "tools.flow.core", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def load(path):
    text = path.read_text()
    assert text.startswith("CAPI=2:\n")
    return yaml.safe_load(text)


def files(fileset):
    """[(name, attributes)] of a parsed fileset."""
    return [next(iter(f.items())) if isinstance(f, dict) else (f, {}) for f in fileset["files"]]


def rtl_copy(tmp_path):
    """A copy of rtl/ (the Verilog, the headers, ga2.f and ga2.core)."""
    return copy_rtl(tmp_path, suffixes=(".v", ".vh", ".f", ".core"))


# ------------------------------------------------------------------ generated and current
def test_committed_cores_are_up_to_date():
    r = run_tool("--check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("up to date") == 3, r.stdout


def test_core_is_the_filelist_in_its_order():
    c = load(core.CORE)
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert c["name"] == f"ga2:ip:ga2:{version}"
    fs = files(c["filesets"]["rtl"])
    srcs = [n for n, a in fs if not a.get("is_include_file")]
    assert srcs == [p.name for p in rtl_files()]
    assert {n for n, a in fs if a.get("is_include_file")} == {p.name for p in (ROOT / "rtl").glob("*.vh")}
    assert c["filesets"]["tb_plain"]["depend"] == [f"=ga2:tb:tb_plain:{version}"]
    t = c["targets"]
    assert set(t) == {"default", "lint", "sim", "sim_verilator"}
    assert t["default"] == {"description": t["default"]["description"], "filesets": ["rtl"], "toplevel": "ga2_top"}
    assert t["lint"]["flow_options"] == {"tool": "verilator", "verilator_options": ["-Wall"]}
    assert t["sim"]["toplevel"] == "tb_plain" and t["sim"]["flow_options"]["tool"] == "icarus"
    for k in ("EXT_WORDS", "SP_WORDS", "IMEM_DEPTH", "OVERLAP"):
        assert c["parameters"][k]["paramtype"] == "vlogparam" and "default" not in c["parameters"][k]
        assert k in t["lint"]["parameters"] and k in t["sim"]["parameters"]
    tb = load(core.TB_CORE)
    assert tb["name"] == f"ga2:tb:tb_plain:{version}"
    assert [n for n, _ in files(tb["filesets"]["bench"])] == \
        ["ga2_harness_inst.vh", "ga2_harness.v", "tb_plain.v", "tb_plain_halt.hex"]
    halt = core.HALT_HEX.read_text().split()
    assert len(halt) == config.DEFAULT.imem_depth and int(halt[0], 16) == isa.as_words([isa.build("HALT")])[0]
    assert set(halt[1:]) == {"0" * 32}


@pytest.mark.long   # make test keeps the staleness check of the committed core (test_committed_cores_are_up_to_date)
def test_a_renamed_file_makes_the_core_stale_and_regenerating_follows_it(tmp_path):
    """A module is renamed (ga2_dma.v -> ga2_dmx.v): the core follows ga2.f on regeneration,
    the check catches the stale one, and FuseSoC lints the regenerated core clean."""
    rtl = rtl_copy(tmp_path)
    (rtl / "ga2_dmx.v").write_text((rtl / "ga2_dma.v").read_text().replace("module ga2_dma #(", "module ga2_dmx #("))
    (rtl / "ga2_dma.v").unlink()
    top = (rtl / "ga2_top.v").read_text()
    assert top.count("  ga2_dma #(") == 1
    (rtl / "ga2_top.v").write_text(top.replace("  ga2_dma #(", "  ga2_dmx #("))
    f = (rtl / "ga2.f").read_text()
    (rtl / "ga2.f").write_text(re.sub(r"^ga2_dma\.v$", "ga2_dmx.v", f, flags=re.M))
    r = run_tool("--check", "--rtl-dir", str(rtl))
    assert r.returncode == 1 and "ga2.core is stale" in r.stdout, r.stdout + r.stderr
    assert run_tool("--rtl-dir", str(rtl)).returncode == 0
    assert run_tool("--check", "--rtl-dir", str(rtl)).returncode == 0
    srcs = [n for n, a in files(load(rtl / "ga2.core")["filesets"]["rtl"]) if not a.get("is_include_file")]
    assert srcs == [p.name for p in rtl_files(rtl)] and "ga2_dmx.v" in srcs and "ga2_dma.v" not in srcs
    ok, out, _ = core.fusesoc(["run", "--target=lint", core.NAME], tmp_path / "build", roots=(rtl,))
    assert ok, out


# ------------------------------------------------------------------ FuseSoC itself
def test_fusesoc_core_info_validates_the_cores(tmp_path):
    ok, out, _ = core.fusesoc(["core-info", core.NAME], tmp_path)
    assert ok, out
    assert "Name:        ga2:ip:ga2:" in out
    for target in ("default", "lint", "sim", "sim_verilator"):
        assert re.search(rf"^{target}\s+:", out, re.M), out
    ok, out, _ = core.fusesoc(["core-info", core.TB_NAME], tmp_path)
    assert ok, out
    # an unknown key is an error of FuseSoC's schema: core-info does check
    bad = rtl_copy(tmp_path)
    (bad / "ga2.core").write_text((bad / "ga2.core").read_text().replace("\nfilesets:", "\nfilesetz:"))
    ok, out, _ = core.fusesoc(["core-info", core.NAME], tmp_path / "b", roots=(bad,))
    assert not ok and "filesetz" in out


def test_fusesoc_lint_is_clean_in_both_timing_modes(tmp_path):
    for extra in ([], ["--OVERLAP=1"]):
        ok, out, _ = core.fusesoc(["run", "--target=lint", core.NAME] + extra, tmp_path)
        assert ok, out
    vc = (tmp_path / f"ga2_ip_ga2_{core.version()}" / "lint").glob("*.vc")
    text = next(vc).read_text()
    assert "--lint-only" in text and "-Wall" in text and "-GOVERLAP=1" in text
    assert text.count(".v\n") == len(rtl_files())


def test_fusesoc_lint_fails_on_a_warning(tmp_path):
    """Not vacuous: a width mismatch in a copy of the RTL fails the lint target (a name
    with 'unused' in it would not do: Verilator's -unused-regexp exempts it)."""
    rtl = rtl_copy(tmp_path)
    perf = rtl / "ga2_perf.v"
    perf.write_text(perf.read_text().replace("endmodule", "  wire [3:0] planted = 8'd0;\nendmodule", 1))
    ok, out, _ = core.fusesoc(["run", "--target=lint", core.NAME], tmp_path / "build", roots=(rtl,))
    # Verilator 5.048 names it WIDTHTRUNC (5.006: WIDTH)
    assert not ok and re.search(r"%Warning-WIDTH\w*: src/ga2_ip_ga2_\S*ga2_perf\.v", out), out


def test_fusesoc_sim_runs_halt_and_a_tiled_matmul_equal_to_the_reference(tmp_path):
    ok, out, _ = core.fusesoc(["run", "--target=sim", core.NAME], tmp_path / "build")
    assert ok, out
    assert [(r["done"], r["error"], r["instret"], r["xz"]) for r in core.result(out)] == [(1, 0, 1, 0)], out
    ex = ROOT / "docs" / "examples"
    for overlap in (0, 1):
        cfg = config.DEFAULT.replace(mode="overlap" if overlap else "inorder")
        words = isa.as_words(read_program(ex / "tiled_matmul.s", cfg))
        image = read_image(ex / "tiled_matmul_ext.txt", cfg)
        ref = Machine(cfg).run(words, image)
        d = tmp_path / f"run{overlap}"
        d.mkdir()
        protocol.write_imem(d / "imem.hex", words, cfg.imem_depth)
        protocol.write_mem32(d / "ext_in.hex", image)
        ok, out, _ = core.fusesoc(["run", "--target=sim", core.NAME, f"--OVERLAP={overlap}",
                                   f"--imem={d / 'imem.hex'}", f"--ext_in={d / 'ext_in.hex'}",
                                   f"--ext_out={d / 'ext_out.hex'}"], tmp_path / "build")
        assert ok, out
        [r] = core.result(out)
        c = ref.counters
        assert (r["done"], r["error"], r["timeout"], r["imem_oob"], r["ext_rd_oob"], r["ext_wr_oob"],
                r["xz"]) == (1, 0, 0, 0, 0, 0, 0), out
        assert tuple(r[k] for k in isa.Counters._fields) == tuple(c), (overlap, out)
        ext, xz = protocol.parse_mem32((d / "ext_out.hex").read_text(), cfg.ext_words, "ext_out.hex")
        assert xz == [] and np.array_equal(ext, np.asarray(ref.ext, dtype=np.int64)), overlap
        assert r["mm"] > 0 and np.any(ext[256:320] != 0)


SOC_TOP = """module soc_top (input wire clk, input wire rst, input wire start, output wire done,
  output wire [20:0] imem_addr, output wire imem_en, input wire [127:0] imem_rdata,
  output wire [28:0] ext_addr, output wire ext_en, output wire ext_we, output wire [31:0] ext_wdata,
  input wire [31:0] ext_rdata);
  ga2_top #(.EXT_WORDS(2048), .OVERLAP(1)) u_ga2 (.clk(clk), .rst(rst), .start(start), .done(done),
    .error(), .error_code(), .error_pc(), .cnt_cycles(), .cnt_mm(), .cnt_dma(), .cnt_vec(), .cnt_instret(),
    .cnt_fetch(), .imem_addr(imem_addr), .imem_en(imem_en), .imem_rdata(imem_rdata), .ext_addr(ext_addr),
    .ext_en(ext_en), .ext_we(ext_we), .ext_wdata(ext_wdata), .ext_rdata(ext_rdata), .retire(), .retire_pc(),
    .retire_cycle());
endmodule
"""
SOC_CORE = """CAPI=2:
name: someone:soc:soc:0.1.0
filesets:
  rtl:
    file_type: verilogSource
    files: [soc_top.v]
    depend: [">=ga2:ip:ga2:0.20.0"]
targets:
  lint:
    filesets: [rtl]
    toplevel: soc_top
    flow: lint
    flow_options: {tool: verilator}
"""


@pytest.mark.long   # make test keeps FuseSoC's lint and sim targets of this core
def test_another_core_pulls_ga2_into_its_soc(tmp_path):
    """What the core is for: a SoC's core that depends on ga2:ip:ga2 (only rtl/ as a cores
    root: the chip needs no bench) gets the chip's files and its headers; its top, with
    ga2_top inside, lints."""
    soc = tmp_path / "soc"
    soc.mkdir()
    (soc / "soc_top.v").write_text(SOC_TOP)
    (soc / "soc.core").write_text(SOC_CORE)
    ok, out, _ = core.fusesoc(["run", "--target=lint", "someone:soc:soc"], tmp_path / "build",
                              roots=(soc, core.RTL))
    assert ok, out
    vc = next((tmp_path / "build" / "someone_soc_soc_0.1.0" / "lint").glob("*.vc")).read_text()
    assert vc.count(".v\n") == len(rtl_files()) + 1 and "+incdir+src/ga2_ip_ga2_" in vc
