"""The iCE40 flow of `make fpga` (tools/flow/fpga.py) and the FPGA top, ga2_fpga.v.

The flow test synthesises one processing element (ga2_pe: an 8 x 8 multiply and a 32-bit
accumulator) with synth_ice40 and places and routes it with nextpnr-ice40 on the HX1K:
a few seconds, and the same functions `make fpga` runs on the whole chip. Skipped, with
the reason, where nextpnr-ice40 is not installed (`make fpga` installs it; `make test`'s
set-up does not). The FPGA top itself (ga2_fpga.v) runs a tile program on Icarus through
its host port like the reference (about 1 s). The ECP5 flow and the measured clock:
tests/flow/test_fpga_ecp5.py.
"""
import shutil

import pytest

from tb import ROOT
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


BENCH = """
`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1, start = 0, we = 0, imem = 0;
  reg [1:0] lane = 0;
  reg [15:0] addr = 0;
  reg [31:0] wdata = 0;
  reg [3:0] rsel = 0;
  wire [31:0] rdata;
  wire done, error;
  reg [127:0] prog [0:PROG_N-1];
  reg [31:0] ext [0:EXT_N-1];
  integer i, l, n;
  always #5 clk = ~clk;
  ga2_fpga #(.SP_WORDS(256)) dut (.clk(clk), .rst(rst), .start(start), .host_we(we),
    .host_imem(imem), .host_lane(lane), .host_addr(addr), .host_wdata(wdata),
    .host_rsel(rsel), .host_rdata(rdata), .done(done), .error(error));
  task put(input is_imem, input [1:0] ln, input [15:0] a, input [31:0] d);
    begin
      @(negedge clk); we = 1; imem = is_imem; lane = ln; addr = a; wdata = d;
      @(negedge clk); we = 0;
    end
  endtask
  task get(input [3:0] sel, input [15:0] a);
    begin
      @(negedge clk); rsel = sel; addr = a;
      repeat (3) @(negedge clk);
    end
  endtask
  initial begin
    $readmemh("prog.hex", prog);
    $readmemh("ext.hex", ext);
    repeat (4) @(negedge clk); rst = 0;
    for (i = 0; i < PROG_N; i = i + 1)
      for (l = 0; l < 4; l = l + 1) put(1, l, i, prog[i][32*l +: 32]);
    for (i = 0; i < EXT_N; i = i + 1) put(0, 0, i, ext[i]);
    @(negedge clk); start = 1; @(negedge clk); start = 0;
    n = 0;
    while (!done && n < 100000) begin @(negedge clk); n = n + 1; end
    for (i = 1; i <= 5; i = i + 1) begin get(i, 0); $display("CNT %0d %0d", i, rdata); end
    get(11, 0); $display("CNT 6 %0d", rdata);          // the fetch counter
    for (i = 0; i < EXT_N; i = i + 1) begin get(0, i); $display("EXT %0d %0d", i, $signed(rdata)); end
    $display("ERR %0d", error);
    $finish;
  end
endmodule
"""


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
def test_fpga_top_runs_a_program_like_the_reference(tmp_path):
    """ga2_fpga (the top `make fpga` synthesises) loads a program and its data through the
    host port, runs it, and reads back the counters and the memory the reference predicts."""
    import subprocess

    import numpy as np

    from model import asm, config, hostio
    from model.machine import Machine
    from tb.hw import rtl_files
    cfg = config.Config(sp_words=256, ext_words=256, imem_depth=256)
    prog = asm.assemble("LD dst=0 src=0 len=32\nMM dst=64 A=0 B=16 M=4 K=4 N=4 tb=0 lda=4 ldb=4 ldc=4\n"
                        "ST src=64 dst=100 len=16\nHALT\n", cfg)
    words = hostio.program_words(prog, cfg)
    img = np.zeros(cfg.ext_words, dtype=np.int64)
    img[:32] = np.arange(-16, 16)
    ref = Machine(cfg).run(prog, img)
    (tmp_path / "prog.hex").write_text("".join(f"{int(w):032x}\n" for w in words))
    (tmp_path / "ext.hex").write_text("".join(f"{int(v) & 0xffffffff:08x}\n" for v in img[:128]))
    (tmp_path / "tb.v").write_text(BENCH.replace("PROG_N", str(len(words))).replace("EXT_N", "128"))
    srcs = [str(p) for p in rtl_files()] + [str(fpga.WRAPPER), str(tmp_path / "tb.v")]
    subprocess.run(["iverilog", "-g2012", f"-I{ROOT / 'rtl'}", "-s", "tb", "-o", str(tmp_path / "a.vvp")] + srcs,
                   check=True, capture_output=True, cwd=tmp_path)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "a.vvp")], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600).stdout
    cnt = {int(a): int(b) for a, b in (ln.split()[1:] for ln in out.splitlines() if ln.startswith("CNT"))}
    ext = {int(a): int(b) for a, b in (ln.split()[1:] for ln in out.splitlines() if ln.startswith("EXT"))}
    assert "ERR 0" in out, out[-2000:]
    assert [cnt[i] for i in range(1, 7)] == list(ref.counters), (cnt, ref.counters)
    assert [ext[i] for i in range(128)] == [int(v) for v in ref.ext[:128]]
    assert any(ext[i] for i in range(100, 116))          # the product was stored, not zeros


def test_packed_use_reads_nextpnrs_refusal():
    """What `make fpga` reports of a design nextpnr cannot place (its log, as 0.4 writes it)."""
    log = ("Info: Device utilisation:\n"
           "Info: \t         ICESTORM_LC: 16042/ 7680   208%\n"
           "Info: \t        ICESTORM_RAM:    10/   32    31%\n"
           "ERROR: Unable to place cell 'u_pe.prod_LC', no BELs remaining to implement cell type 'ICESTORM_LC'\n")
    assert fpga.packed_use(log) == {
        "ICESTORM_LC": (16042, 7680, "no BELs remaining to implement cell type 'ICESTORM_LC'")}
    assert fpga.packed_use("Info: \t         ICESTORM_LC:   233/ 7680     3%\n") == {}
