`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// mut_rtl_tb: the RTL mutation suite's bench (tb/mutation/rtl/suite.py writes its inputs).
//
// One simulator process judges one mutant, fail-fast: it stops at the first check that
// disagrees with the reference and prints one line "MUT FAIL <check> <what>"; a clean
// run ends with "MUT PASS <n checks>". The expected values are the Python side's, never
// this bench's: the chip programs' are the judge's (tb/judge.py expected() of the
// reference Machine's outcome, cut_trace() for a cut), the units' tb/stimulus/vectors.py's.
//  1. unit checks: requant on +rq_n vectors (combinational), divu on +dv_n vectors,
//     ga2_perf on +pf_n cycles, and the units' start-while-busy contract
//     (tb/hdl/restart_chk.v: dma, vec_rq, mm_ctrl, softmax FAST 0/1 and divu, each
//     restarted in every phase and compared cycle by cycle with a twin started from idle;
//     always, but with +restart=0: tests/tb/test_one_judge.py's runs on perturbed
//     expectations, which need only the chip programs, leave out its 5 CPU seconds);
//  2. +nprog chip programs on ga2_top, each: clear imem, load imem/ext, start, wait for
//     done (at most the program's cycle limit: a hang is "timeout"), then compare the
//     retire trace (pc, cycle) as it happens, error/code/pc, the six counters, the
//     whole external memory and the number of scratchpad words read up to done (the
//     harness's mon_sp_reads, every enabled read port in every cycle, against
//     model/func.py sp_reads summed over the executed instructions: a unit reading words
//     it never uses computes the right results and fails only here). The scratchpad
//     carries over between programs, as in the reference (the suite runs the reference
//     Machine over the same sequence).
//  3. reset while busy: a program with abort_at > 0 is cut by rst after abort_at cycles
//     (its retires up to then are still compared: each one listed, at least the nneed
//     before the cut cycle, those in it allowed); the next program, self-contained
//     (it loads every scratchpad word it reads), must then run exactly as the reference.
// Inputs in +dir=D: rq.hex (a m s y per line), dv.hex (dividend divisor q r per line),
// pN_imem.hex, pN_ext.hex, pN_exp.hex, pN_meta.hex (META_N words: limit abort_at error code
// pc cycles mm dma vec instret ntrace light reads nneed fetch, then ntrace lines "pc cycle"; the
// layout is tb/protocol.py's META). The chip and its memories:
// tb/hdl/ga2_harness.v, as in the cocotb wrapper and the plain bench.
module mut_rtl_tb #(
  parameter EXT_WORDS  = `GA2_EXT_WORDS,      // the suite builds it with config.CH09's sizes
  parameter IMEM_DEPTH = `GA2_IMEM_DEPTH,
  parameter SP_WORDS   = `GA2_SP_WORDS,
  parameter OVERLAP    = `GA2_OVERLAP,
  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN,
  parameter MAX_TRACE  = 2048,
  parameter MAX_VEC    = 4096,
  parameter DV_LAT     = 32       // divu: cycles from the start pulse to last (its WIDTH)
);
  localparam META_N = 15;         // pN_meta.hex's words before the trace (tb/protocol.py META)
  localparam PW     = `GA2_PC_W;  // the pc outputs' width
  initial begin
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (EXT_WORDS > `GA2_TB_EXT_BANK) begin   // u_h.ext alone: the harness's first array
      $error("%m: EXT_WORDS=%0d past the %0d words this bench reaches", EXT_WORDS, `GA2_TB_EXT_BANK);
      $finish;
    end
  end

  reg clk = 1'b0;
  always #5 clk = ~clk;

  // ------------------------------------------------------------------ unit: requant
  reg  [31:0] rq_a;
  reg  [15:0] rq_m;
  reg  [5:0]  rq_s;
  wire [31:0] rq_y;
  ga2_requant u_rq (.a(rq_a), .m(rq_m), .s(rq_s), .y(rq_y));

  // ------------------------------------------------------------------ unit: divu
  reg         dv_rst, dv_start;
  reg  [31:0] dv_a, dv_b;
  wire        dv_busy, dv_last;
  wire [31:0] dv_q, dv_r;
  ga2_divu #(.WIDTH(32)) u_dv (
    .clk(clk), .rst(dv_rst), .start(dv_start), .dividend(dv_a), .divisor(dv_b),
    .busy(dv_busy), .last(dv_last), .quotient(dv_q), .remainder(dv_r)
  );

  // ------------------------------------------------------------------ unit: ga2_perf
  // built narrow (CW = 5) so every counter bit wraps within the vectors; per cycle the
  // inputs, then after the edge the six counts and retire_cycle (pf.hex: 13 bytes,
  // rst clear running busy retire cycles mm dma vec instret retire_cycle)
  reg        pf_rst, pf_clear, pf_running;
  reg  [2:0] pf_busy;
  reg  [3:0] pf_retire;
  reg        pf_fetch;
  wire [4:0] pf_cyc, pf_mm, pf_dma, pf_vec, pf_ret, pf_fet, pf_rc;
  ga2_perf #(.CW(5)) u_pf (
    .clk(clk), .rst(pf_rst), .clear(pf_clear), .running(pf_running), .busy(pf_busy),
    .retire(pf_retire), .fetch(pf_fetch), .cnt_cycles(pf_cyc), .cnt_mm(pf_mm), .cnt_dma(pf_dma),
    .cnt_vec(pf_vec), .cnt_instret(pf_ret), .cnt_fetch(pf_fet), .retire_cycle(pf_rc)
  );

  // ------------------------------------------------------------------ unit: restart
  // the start-while-busy contract (docs/rtl.md "Start while busy"), self-checking; its
  // units run on a clock gated by the check, so it costs nothing outside it
  reg             rc_go;
  wire            rc_done, rc_fail;
  wire [15:0]     rc_id;
  wire [3:0]      rc_unit;
  wire [8*8-1:0]  rc_unit_name;
  wire [8*12-1:0] rc_sig_name;
  restart_chk #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_rc (
    .clk(clk), .go(rc_go), .done(rc_done), .fail(rc_fail), .fail_id(rc_id),
    .fail_unit(rc_unit), .fail_unit_name(rc_unit_name), .fail_sig_name(rc_sig_name)
  );

  // ------------------------------------------------------------------ the chip
  reg rst   = 1'b1;
  reg start = 1'b0;
`include "ga2_harness_inst.vh"

  reg [31:0]  expx [0:EXT_WORDS-1];
  reg [31:0]  meta [0:META_N + 2 * MAX_TRACE - 1];
  reg [127:0] vec  [0:MAX_VEC-1];

  // an access outside a memory while a program runs fails at once (the harness counts
  // them from the start pulse on)
  always @(negedge clk) begin
    if (tracing && start === 1'b0) begin
      if (imem_oob != 32'd0) begin
        $display("MUT FAIL oob p%0d: instruction memory read outside its %0d words", p, IMEM_DEPTH);
        $finish;
      end
      if ((ext_rd_oob | ext_wr_oob) != 32'd0) begin
        $display("MUT FAIL oob p%0d: external memory access outside its %0d words", p, EXT_WORDS);
        $finish;
      end
    end
  end

  // the host contract cycle by cycle (docs/host.md "Per-cycle rules"): the harness's
  // monitors (tb/hdl/ga2_harness.v, the ones every cocotb co-simulation judges) and its
  // x/z count on the control outputs, checked in every cycle with reset low, so the bench
  // fails on exactly what compare() fails on and at the first bad cycle
  integer mk;
  always @(negedge clk) begin
    if (rst === 1'b0 && start === 1'b0) begin
      for (mk = 0; mk < `GA2_MON_N; mk = mk + 1) begin
        if (mon[mk*32 +: 32] !== 32'd0) begin
          $display("MUT FAIL contract p%0d: host-contract rule %0d broken (%0d cycles)", p, mk,
                   mon[mk*32 +: 32]);
          $finish;
        end
      end
      if (xz_events !== 32'd0) begin
        $display("MUT FAIL xz p%0d: x/z on a control output in %0d cycles", p, xz_events);
        $finish;
      end
    end
  end

  // ------------------------------------------------------------------ checking
  reg [8*512-1:0] dir, fname;
  reg [31:0]      rd_at_done; // the harness's mon_sp_reads where done was seen
  integer nprog, p, i, ncyc, limit, ntrace, tidx, rq_n, dv_n, pf_n, checks, restart;
  reg     tracing, light;

  // docs/isa.md: after reset done, error, error_code, error_pc and the six counters are 0
  task check_reset_state;
    begin
      if (done !== 1'b0 || error !== 1'b0 || error_code !== 3'd0 || error_pc !== {PW{1'b0}}
          || cnt_cycles !== 32'd0 || cnt_mm !== 32'd0 || cnt_dma !== 32'd0
          || cnt_vec !== 32'd0 || cnt_instret !== 32'd0 || cnt_fetch !== 32'd0
          || retire !== 4'd0)
        fail("reset", "host outputs not all zero after reset");
    end
  endtask

  task fail;
    input [8*16-1:0]  what;
    input [8*160-1:0] detail;
    begin
      $display("MUT FAIL %0s %0s", what, detail);
      $finish;
    end
  endtask

  // the retire trace, compared as it happens (sampled mid-cycle), one entry per set
  // retire slot in slot order (0 dma, 1 mm, 2 vec, 3 HALT: model/timing.py SLOT)
  integer slot;
  always @(negedge clk) begin
    if (tracing && retire !== 4'd0) begin
      for (slot = 0; slot < 4; slot = slot + 1) begin
        if (retire[slot] !== 1'b0) begin
          if (retire[slot] !== 1'b1) fail("trace", "retire is x/z");
          if (tidx >= ntrace) fail("trace", "more retires than the reference");
          if ({{(32-PW){1'b0}}, retire_pc[PW*slot +: PW]} !== meta[META_N + 2 * tidx]
              || retire_cycle !== meta[META_N + 1 + 2 * tidx]) begin
            $display("MUT FAIL trace p%0d retire %0d: pc %0d cycle %0d, expected pc %0d cycle %0d",
                     p, tidx, retire_pc[PW*slot +: PW], retire_cycle, meta[META_N + 2 * tidx],
                     meta[META_N + 1 + 2 * tidx]);
            $finish;
          end
          tidx = tidx + 1;
        end
      end
    end
  end

  initial begin
    tracing = 1'b0;
    tidx = 0;
    ntrace = 0;
    checks = 0;
    dv_rst = 1'b1;
    dv_start = 1'b0;
    dv_a = 32'd0;
    dv_b = 32'd1;
    if (!$value$plusargs("dir=%s", dir)) fail("setup", "+dir=DIR is required");
    if (!$value$plusargs("nprog=%d", nprog)) nprog = 0;
    if (!$value$plusargs("rq_n=%d", rq_n)) rq_n = 0;
    if (!$value$plusargs("dv_n=%d", dv_n)) dv_n = 0;
    if (!$value$plusargs("pf_n=%d", pf_n)) pf_n = 0;
    if (!$value$plusargs("restart=%d", restart)) restart = 1;
    pf_rst = 1'b1;
    pf_clear = 1'b0;
    pf_running = 1'b0;
    pf_busy = 3'd0;
    pf_retire = 4'd0;
    pf_fetch = 1'b0;
    rc_go = 1'b0;

    // ---- unit checks
    if (rq_n > 0) begin
      $sformat(fname, "%0s/rq.hex", dir);
      $readmemh(fname, vec, 0, rq_n - 1);
      for (i = 0; i < rq_n; i = i + 1) begin
        {rq_a, rq_m, rq_s} = {vec[i][127:96], vec[i][95:80], vec[i][37:32]};
        #1;
        if (rq_y !== vec[i][31:0]) begin
          $display("MUT FAIL unit requant a=%h m=%0d s=%0d: y=%h, expected %h",
                   rq_a, rq_m, rq_s, rq_y, vec[i][31:0]);
          $finish;
        end
      end
      checks = checks + 1;
    end
    @(negedge clk);
    @(negedge clk);
    dv_rst = 1'b0;
    if (dv_n > 0) begin
      $sformat(fname, "%0s/dv.hex", dir);
      $readmemh(fname, vec, 0, dv_n - 1);
      for (i = 0; i < dv_n; i = i + 1) begin
        dv_a = vec[i][127:96];
        dv_b = vec[i][95:64];
        dv_start = 1'b1;
        @(negedge clk);
        dv_start = 1'b0;
        // divu's contract (rtl/ga2_divu.v): busy for exactly WIDTH + 1 cycles, last in the
        // final one with the results, which hold until the next start
        ncyc = 0;
        while (dv_last !== 1'b1 && ncyc < 100) begin
          if (dv_busy !== 1'b1) fail("unit", "ga2_divu: busy low before last");
          @(negedge clk);
          ncyc = ncyc + 1;
        end
        if (dv_last !== 1'b1) fail("unit", "ga2_divu: no last within 100 cycles");
        if (ncyc != DV_LAT) begin
          $display("MUT FAIL unit divu: last after %0d cycles, expected %0d", ncyc, DV_LAT);
          $finish;
        end
        if (dv_busy !== 1'b1) fail("unit", "ga2_divu: busy low in its last cycle");
        if (dv_q !== vec[i][63:32] || dv_r !== vec[i][31:0]) begin
          $display("MUT FAIL unit divu %0d / %0d: q=%0d r=%0d, expected q=%0d r=%0d",
                   dv_a, dv_b, dv_q, dv_r, vec[i][63:32], vec[i][31:0]);
          $finish;
        end
        if (i % 2 == 0) begin      // odd vectors start back to back with this last
          repeat (2) begin
            @(negedge clk);
            if (dv_last !== 1'b0 || dv_busy !== 1'b0 || dv_q !== vec[i][63:32] || dv_r !== vec[i][31:0])
              fail("unit", "ga2_divu: last, busy or the results do not hold after last");
          end
        end
      end
      // reset in the cycle of last: no last after it
      dv_rst = 1'b1;
      @(negedge clk);
      dv_rst = 1'b0;
      if (dv_busy !== 1'b0 || dv_last !== 1'b0) fail("unit", "ga2_divu: busy or last after a reset at last");
      // reset in the middle of a division: idle (not busy, no last) until the next start
      dv_start = 1'b1;
      @(negedge clk);
      dv_start = 1'b0;
      repeat (DV_LAT - 4) @(negedge clk);
      dv_rst = 1'b1;
      @(negedge clk);
      dv_rst = 1'b0;
      repeat (DV_LAT + 2) begin
        if (dv_busy !== 1'b0 || dv_last !== 1'b0) fail("unit", "ga2_divu: busy or last after a reset");
        @(negedge clk);
      end
      // start and reset in the same cycle: reset wins, the unit stays idle
      dv_start = 1'b1;
      dv_rst = 1'b1;
      @(negedge clk);
      dv_start = 1'b0;
      dv_rst = 1'b0;
      repeat (DV_LAT + 2) begin
        if (dv_busy !== 1'b0 || dv_last !== 1'b0) fail("unit", "ga2_divu: busy or last after start with reset");
        @(negedge clk);
      end
      // a start while busy restarts: last DV_LAT cycles after the second start, its result
      // (the second start in the middle, then in the final step cycle)
      for (ncyc = DV_LAT / 2; ncyc <= DV_LAT; ncyc = ncyc + DV_LAT / 2) begin
      dv_a = vec[0][127:96];
      dv_b = vec[0][95:64];
      dv_start = 1'b1;
      @(negedge clk);
      dv_start = 1'b0;
      repeat (ncyc - 1) @(negedge clk);
      dv_a = vec[1][127:96];
      dv_b = vec[1][95:64];
      dv_start = 1'b1;
      @(negedge clk);
      dv_start = 1'b0;
      limit = 0;
      while (dv_last !== 1'b1 && limit < 100) begin
        @(negedge clk);
        limit = limit + 1;
      end
      if (limit != DV_LAT || dv_q !== vec[1][63:32] || dv_r !== vec[1][31:0])
        fail("unit", "ga2_divu: a start while busy does not restart the division");
      @(negedge clk);
      end
      checks = checks + 1;
    end

    if (pf_n > 0) begin
      $sformat(fname, "%0s/pf.hex", dir);
      $readmemh(fname, vec, 0, pf_n - 1);
      for (i = 0; i < pf_n; i = i + 1) begin
        // the 13 bytes, rst first: rst clear running busy retire fetch, then the expected
        // cycles mm dma vec instret fetch retire_cycle
        {pf_rst, pf_clear, pf_running, pf_busy, pf_retire, pf_fetch} =
          {vec[i][96], vec[i][88], vec[i][80], vec[i][74:72], vec[i][67:64], vec[i][56]};
        @(negedge clk);
        if ({pf_cyc, pf_mm, pf_dma, pf_vec, pf_ret, pf_fet, pf_rc} !==
            {vec[i][52:48], vec[i][44:40], vec[i][36:32], vec[i][28:24], vec[i][20:16], vec[i][12:8],
             vec[i][4:0]}) begin
          $display("MUT FAIL unit ga2_perf cycle %0d: %0d %0d %0d %0d %0d %0d rc %0d, expected %0d %0d %0d %0d %0d %0d rc %0d",
                   i, pf_cyc, pf_mm, pf_dma, pf_vec, pf_ret, pf_fet, pf_rc, vec[i][52:48], vec[i][44:40],
                   vec[i][36:32], vec[i][28:24], vec[i][20:16], vec[i][12:8], vec[i][4:0]);
          $finish;
        end
      end
      checks = checks + 1;
    end

    // a start while busy restarts (every unit): the restarted instance's outputs equal,
    // cycle by cycle, those of a twin started from idle in the restart cycle
    if (restart != 0) begin
      rc_go = 1'b1;
      ncyc = 0;
      while (rc_done !== 1'b1 && ncyc < 40000) begin
        @(negedge clk);
        ncyc = ncyc + 1;
      end
      rc_go = 1'b0;
      if (rc_done !== 1'b1) fail("unit", "restart: the check did not finish within 20000 cycles");
      if (rc_fail !== 1'b0) begin
        $display("MUT FAIL unit restart %0s scenario %0d %0s", rc_unit_name, rc_id[15:4], rc_sig_name);
        $finish;
      end
      checks = checks + 1;
    end

    // ---- chip programs
    repeat (2) @(negedge clk);
    rst = 1'b0;
    check_reset_state;
    for (p = 0; p < nprog; p = p + 1) begin
      $sformat(fname, "%0s/p%0d_meta.hex", dir, p);
      $readmemh(fname, meta);
      light = meta[11][0];
      if (!light) begin
        for (i = 0; i < IMEM_DEPTH; i = i + 1) u_h.imem[i] = 128'd0;
        for (i = 0; i < EXT_WORDS; i = i + 1) u_h.ext[i] = 32'd0;
      end
      // a light program (a fault check) lists its words and a zero after them; it keeps
      // the external memory as it is and its memory is not compared
      $sformat(fname, "%0s/p%0d_imem.hex", dir, p);
      $readmemh(fname, u_h.imem);
      if (!light) begin
        $sformat(fname, "%0s/p%0d_ext.hex", dir, p);
        $readmemh(fname, u_h.ext);
        $sformat(fname, "%0s/p%0d_exp.hex", dir, p);
        $readmemh(fname, expx);
      end
      limit = meta[0];
      ntrace = meta[10];
      tidx = 0;
      tracing = 1'b1;
      start = 1'b1;
      @(negedge clk);
      start = 1'b0;
      ncyc = 0;
      while (done !== 1'b1 && ncyc < limit && (meta[1] == 0 || ncyc < meta[1])) begin
        @(negedge clk);
        ncyc = ncyc + 1;
      end
      tracing = 1'b0;
      rd_at_done = mon_sp_reads;
      if (meta[1] != 0) begin
        // reset while busy: the chip must come back clean for the next program
        if (done === 1'b1) fail("abort", "done before the reset point");
        if (tidx < meta[13]) begin
          $display("MUT FAIL trace p%0d: %0d retires before the reset, expected at least %0d",
                   p, tidx, meta[13]);
          $finish;
        end
        rst = 1'b1;                 // one cycle: a unit start in that cycle must lose
        @(negedge clk);
        rst = 1'b0;
        check_reset_state;
        @(negedge clk);
      end else begin
        if (done !== 1'b1) begin
          $display("MUT FAIL timeout p%0d: no done within %0d cycles", p, limit);
          $finish;
        end
        if (tidx != ntrace) begin
          $display("MUT FAIL trace p%0d: %0d retires, expected %0d", p, tidx, ntrace);
          $finish;
        end
        // an access outside a memory in the program's last cycle (after the negedge check)
        if (imem_oob != 32'd0 || (ext_rd_oob | ext_wr_oob) != 32'd0) begin
          $display("MUT FAIL oob p%0d: %0d instruction and %0d external accesses outside the memories",
                   p, imem_oob, ext_rd_oob + ext_wr_oob);
          $finish;
        end
        if ({31'd0, error} !== meta[2] || {29'd0, error_code} !== meta[3]
            || {{(32-PW){1'b0}}, error_pc} !== meta[4]) begin
          $display("MUT FAIL error p%0d: error=%b code=%0d pc=%0d, expected %0d %0d %0d",
                   p, error, error_code, error_pc, meta[2], meta[3], meta[4]);
          $finish;
        end
        if (cnt_cycles !== meta[5] || cnt_mm !== meta[6] || cnt_dma !== meta[7]
            || cnt_vec !== meta[8] || cnt_instret !== meta[9] || cnt_fetch !== meta[14]) begin
          $display("MUT FAIL counters p%0d: %0d %0d %0d %0d %0d %0d, expected %0d %0d %0d %0d %0d %0d", p,
                   cnt_cycles, cnt_mm, cnt_dma, cnt_vec, cnt_instret, cnt_fetch,
                   meta[5], meta[6], meta[7], meta[8], meta[9], meta[14]);
          $finish;
        end
        // done holds until the next start, and so do the counters (docs/host.md)
        for (i = 0; i < 3; i = i + 1) begin
          @(negedge clk);
          if (done !== 1'b1 || retire !== 4'd0 || cnt_cycles !== meta[5] || cnt_instret !== meta[9]
              || cnt_mm !== meta[6] || cnt_dma !== meta[7] || cnt_vec !== meta[8]
              || cnt_fetch !== meta[14]) begin
            $display("MUT FAIL hold p%0d: %0d cycles after done: done=%b retire=%b cycles=%0d instret=%0d",
                     p, i + 1, done, retire, cnt_cycles, cnt_instret);
            $finish;
          end
        end
        for (i = 0; i < EXT_WORDS && !light; i = i + 1) begin
          if (u_h.ext[i] !== expx[i]) begin
            $display("MUT FAIL memory p%0d: ext[%0d]=%h, expected %h", p, i, u_h.ext[i], expx[i]);
            $finish;
          end
        end
        // the scratchpad words read from the start to done (sampled there), last so that
        // a wrong result is reported as such
        if (rd_at_done !== meta[12]) begin
          $display("MUT FAIL reads p%0d: %0d scratchpad words read, expected %0d", p, rd_at_done, meta[12]);
          $finish;
        end
      end
      checks = checks + 1;
      @(negedge clk);
    end
    $display("MUT PASS %0d", checks);
    $finish;
  end
endmodule
`resetall
