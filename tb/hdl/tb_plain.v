`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// tb_plain: a plain Verilog bench of ga2_top (no cocotb), for quick checks and for the
// "plain Verilog" simulation-speed figure. Runs on Icarus and on Verilator --binary.
//
// Plusargs: +imem=FILE (128-bit words, 32 hex digits a line; unlisted words are zero)
//           +ext_in=FILE (32-bit words, 8 hex digits a line)   +ext_out=FILE
//           +max_cycles=N (default 1000000)   +trace=FILE (optional: "pc cycle" per
//           retired instruction, decimal, retires of one cycle in slot order)   +runs=N (default 1: start the chip N times,
//           reloading +ext_in before each run; the scratchpad carries over)
//           +vcd=FILE (Icarus only: dump the chip's signals)
// Prints one line "RESULT done=.. error=.. code=.. pc=.. cycles=.. mm=.. dma=.. vec=..
// instret=.. fetch=.. timeout=.. imem_oob=.. ext_rd_oob=.. ext_wr_oob=.. xz=.. sp_reads=.. mon_*=..
// run_cycles=.." per run (the harness's counts of the run: accesses outside each memory,
// cycles with x/z on a control output, scratchpad words read, the nine host-contract
// monitors of tb/judge.py MONITORS and the cycles to done) and writes the external memory
// after the last run. tb/protocol.py reads both; tb/judge.py judges them, the monitors
// included, as it judges the cocotb wrapper's.
// The chip and its memories: tb/hdl/ga2_harness.v, as in the cocotb wrapper.
// +sp_in=FILE preloads the scratchpad before the first run.
module tb_plain #(`GA2_TOP_PARAMS);                 // its parameters: rtl/ga2_cfg.vh
  reg clk = 1'b0;
  always #5 clk = ~clk;

  reg rst   = 1'b1;
  reg start = 1'b0;

`include "ga2_harness_inst.vh"
  reg [8*512-1:0] f_imem, f_ext_in, f_ext_out, f_trace, f_vcd, f_sp;
  integer max_cycles, ncyc, i, fd_trace, runs, run;
  reg     timeout;

  // a line per set retire slot, in slot order (0 dma, 1 mm, 2 vec, 3 HALT)
  integer slot;
  always @(negedge clk) begin
    if (fd_trace != 0) begin
      for (slot = 0; slot < 4; slot = slot + 1) begin
        if (retire[slot] === 1'b1) $fdisplay(fd_trace, "%0d %0d", retire_pc[`GA2_PC_W*slot +: `GA2_PC_W], retire_cycle);
      end
    end
  end

  initial begin
    if (EXT_WORDS > `GA2_TB_EXT_BANK) begin   // $readmemh/$writememh of u_h.ext: its first array
      $error("%m: EXT_WORDS=%0d past the %0d words this bench reaches", EXT_WORDS, `GA2_TB_EXT_BANK);
      $finish;
    end
    fd_trace = 0;
    if (!$value$plusargs("max_cycles=%d", max_cycles)) max_cycles = 1000000;
    if (!$value$plusargs("imem=%s", f_imem)) begin
      $display("tb_plain: +imem=FILE is required");
      $finish;
    end
    f_ext_in = 0;
    if ($value$plusargs("trace=%s", f_trace)) fd_trace = $fopen(f_trace, "w");
    if (!$value$plusargs("runs=%d", runs)) runs = 1;
`ifndef VERILATOR
    if ($value$plusargs("vcd=%s", f_vcd)) begin
      $dumpfile(f_vcd);
      $dumpvars(0, u_h.dut);
    end
`endif
    // the memories are loaded after time 0, when the harness and the chip have cleared theirs
    repeat (3) @(negedge clk);
    $readmemh(f_imem, u_h.imem);
    if ($value$plusargs("ext_in=%s", f_ext_in)) $readmemh(f_ext_in, u_h.ext);
    if ($value$plusargs("sp_in=%s", f_sp)) u_h.load_sp(f_sp);
    rst = 1'b0;
    for (run = 0; run < runs; run = run + 1) begin
      // every run restarts the chip (start after HALT or a fault) on a fresh ext image;
      // the scratchpad carries over, as on the chip
      if (run > 0 && f_ext_in != 0) $readmemh(f_ext_in, u_h.ext);
      @(negedge clk);
      start = 1'b1;
      @(negedge clk);
      start = 1'b0;
      ncyc = 0;
      timeout = 1'b0;
      while (done !== 1'b1 && !timeout) begin
        @(negedge clk);
        ncyc = ncyc + 1;
        if (ncyc >= max_cycles) timeout = 1'b1;
      end
      $display("RESULT done=%0d error=%0d code=%0d pc=%0d cycles=%0d mm=%0d dma=%0d vec=%0d instret=%0d fetch=%0d timeout=%0d imem_oob=%0d ext_rd_oob=%0d ext_wr_oob=%0d xz=%0d sp_reads=%0d mon_count=%0d mon_rise=%0d mon_hold=%0d mon_imem=%0d mon_ext=%0d mon_reset=%0d mon_epc=%0d mon_retire=%0d mon_clear=%0d run_cycles=%0d",
               done, error, error_code, error_pc, cnt_cycles, cnt_mm, cnt_dma, cnt_vec,
               cnt_instret, cnt_fetch, timeout, imem_oob, ext_rd_oob, ext_wr_oob, xz_events, mon_sp_reads,
               mon[31:0], mon[63:32], mon[95:64], mon[127:96], mon[159:128], mon[191:160],
               mon[223:192], mon[255:224], mon[287:256], mon_run_cycles);
    end
    if (fd_trace != 0) $fclose(fd_trace);
    if ($value$plusargs("ext_out=%s", f_ext_out)) $writememh(f_ext_out, u_h.ext);
    $finish;
  end
endmodule
`resetall
