`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_tb: co-simulation wrapper of the chip (the cocotb toplevel, also usable alone):
// tb/hdl/ga2_harness.v (ga2_top and its memories) plus the clock (always #5), reset,
// start and a file protocol, so the Python side never pokes memories word by word.
//
// The host writes, per program k of a run, into the run directory (the simulator's cwd):
//   pK_imem.bin   IMEM_DEPTH 128-bit words        pK_ext.bin  EXT_WORDS 32-bit words
//                 (IMEM_DEPTH up to 2^21 - 1: pcs are GA2_PC_W = 21 bits)
//   pK_ctl.hex    two words: gap abort_at         pK_sp.bin   optional: the scratchpad
// (.bin: raw big-endian words, the whole memory, the program zero-padded: the harness's
// load_*_bin, one $fread each); pK_ext.bin is optional too: without it the external memory
// keeps what the previous program left (a serving run carries it from step to step,
// docs/serving.md).
// then sets first/count and bumps `req`. The wrapper runs programs first..first+count-1
// one after the other (prog shows which, in waveforms): it loads imem and ext (and the
// scratchpad when pK_sp.bin exists), waits `gap` cycles, pulses start and waits for done or +max_cycles=N cycles (a
// hang comes back as a timeout; the chip is then reset), writes the retire trace
// (pK_trace.txt: "pc cycle" per retired instruction, in hex, retires of one cycle in
// slot order), the external-bus log
// (pK_bus.txt: "r|w first last" in hex, one line per run of consecutive addresses of the
// same kind, in the order of the accesses), the status line
// (pK_status.txt) and the ext memory (pK_ext_out.hex; with +ext_from=N +ext_to=M its words
// N .. M-1 only),
// and at the end sets ack = req.
// Host contract (docs/host.md): the status line also holds what the host
// saw just before the start (pre_*) and how often it changed during the gap (idle_changes,
// must stay 0: done and the counters hold until the next start); abort_at > 0 cuts the
// program by rst after abort_at cycles (cut_cycles: the chip's cycle counter then), and
// the status line then holds the outputs right after that reset (all must be 0).
// gap = 0 starts in the first cycle done is seen high (back to back).
// The harness's per-cycle monitors (tb/hdl/ga2_harness.v) go into the status too:
// mon_* (the run, up to the status), run_cycles (start to done), and pre_mon_* (the idle
// cycles from the previous status, or the reset after it, to this start); and sp_reads,
// the scratchpad words the run read up to the done cycle (the harness's mon_sp_reads,
// sampled where done is seen; cut or timed out: up to that cycle), which the host
// compares with the reference's count (tb/judge.py).
// All sampling and driving happens on the falling edge, so the order of events at the
// rising edge (which differs between Icarus and Verilator --timing) cannot matter.
// +cov (tb/coverage.py, make coverage) also writes pK_cov.txt per program: the chip's
// hazard stalls by kind and unit pair and the units busy at a cut (the coverage monitor);
// the pack4 unit (its two ops) is on the vector port, so its stalls count as vec's and,
// again, by themselves (hpk lines), and cut_pk says whether it was the busy vector unit.
// The monitor reads the RTL's hierarchy by name, so the gate-level build (GA2_GLS, tb/sim/
// build.py: a flattened netlist) leaves it out; its pK_cov.txt then holds zeros.
// +waves (Icarus) dumps ga2_tb.vcd; Verilator builds with --trace dump dump.vcd.
module ga2_tb #(`GA2_TOP_PARAMS) (                // its parameters: rtl/ga2_cfg.vh
  input  wire [15:0] req /*verilator public_flat_rw*/,      // bumped by the host: run first..first+count-1
  input  wire [15:0] first /*verilator public_flat_rw*/,
  input  wire [15:0] count /*verilator public_flat_rw*/,
  output reg  [15:0] ack /*verilator public_flat_rw*/,      // = req once the programs' results are on disk
  output reg         tb_busy /*verilator public_flat_rw*/,  // high while programs run
  output reg  [15:0] prog /*verilator public_flat_rw*/      // the program running now
);
  reg clk = 1'b0;
  always #5 clk = ~clk;

  reg rst   = 1'b1;
  reg start = 1'b0;

`include "ga2_harness_inst.vh"

  // everything the host sees, for the hold and reset checks: a function, read only in the
  // gap before a start (a continuous wire would be recomputed every cycle of every run);
  // from the top: done, error, error_code, error_pc (GA2_PC_W), the six counters, retire
  localparam PW  = `GA2_PC_W;
  localparam HOW = 5 + PW + 6 * 32 + 4;
  function [HOW-1:0] host_outs;
    input dummy;
    begin
      host_outs = {done, error, error_code, error_pc, cnt_cycles, cnt_mm, cnt_dma,
                   cnt_vec, cnt_instret, cnt_fetch, retire};
    end
  endfunction

  // ------------------------------------------------------------------ run control
  integer max_cycles, ncyc, fd_trace, fd_stat, fd, i, k, gap, abort_at, idle_changes, slot;
  integer ext_from;     // +ext_from=N +ext_to=M: pK_ext_out.hex holds ext[N .. M-1] only (a
  integer ext_to;       // large model's weights are read, never written: the host reads back
                        // its token area and KV cache)
  reg     timeout, tracing, cut;
  reg [31:0]  ctl [0:1];
  reg [31:0]  cut_cycles, sp_reads;
  reg [HOW-1:0] pre;
  // the harness's host-contract monitors (tb/hdl/ga2_harness.v): mon_base is their
  // value when the last status was written (or after the reset that followed it), so
  // mon - mon_base before a start counts the idle cycles since then
  reg [`GA2_MON_N*32-1:0] mon_base, mon_idle;
  reg [8*64-1:0] fname, fname_hi;

  // the retire trace, sampled mid-cycle: a line per set retire slot, in slot order
  // (0 dma, 1 mm, 2 vec, 3 HALT: model/timing.py SLOT); a slot with x/z writes x's
  // (the loop only in a cycle with a slot not 0: most cycles retire nothing)
  always @(negedge clk) begin
    if (tracing && retire !== 4'b0000) begin
      for (slot = 0; slot < 4; slot = slot + 1) begin
        if (retire[slot] !== 1'b0)
          $fdisplay(fd_trace, "%h %h", (retire[slot] === 1'b1) ? retire_pc[PW*slot +: PW] : {PW{1'bx}},
                    retire_cycle);
      end
    end
  end

  // a cut: rst for ONE cycle (the shortest reset; a unit start in that cycle must lose)
  task reset_chip;
    begin
      rst = 1'b1;
      @(negedge clk);
      rst = 1'b0;
    end
  endtask

  task write_results;
    begin
      $sformat(fname, "p%0d_ext_out.hex", k);
      $sformat(fname_hi, "p%0d_ext_hi_out.hex", k);
      u_h.write_ext(fname, fname_hi, ext_from, ext_to);   // past GA2_TB_EXT_BANK: two files
      $sformat(fname, "p%0d_status.txt", k);
      fd_stat = $fopen(fname, "w");
      $fdisplay(fd_stat, "done %h error %h code %h pc %h cycles %h mm %h dma %h vec %h instret %h fetch %h retire %h timeout %h wall %h imem_oob %h ext_rd_oob %h ext_wr_oob %h xz %h sp_reads %h",
                done, error, error_code, error_pc, cnt_cycles, cnt_mm, cnt_dma, cnt_vec,
                cnt_instret, cnt_fetch, retire, timeout, ncyc, imem_oob, ext_rd_oob, ext_wr_oob, xz_events,
                sp_reads);
      $fdisplay(fd_stat, "aborted %h cut_cycles %h idle_changes %h pre_done %h pre_error %h pre_code %h pre_pc %h pre_cycles %h pre_mm %h pre_dma %h pre_vec %h pre_instret %h pre_fetch %h pre_retire %h",
                cut, cut_cycles, idle_changes, pre[HOW-1], pre[HOW-2], pre[HOW-3 -: 3], pre[HOW-6 -: PW],
                pre[195:164], pre[163:132], pre[131:100], pre[99:68], pre[67:36], pre[35:4], pre[3:0]);
      $fdisplay(fd_stat, "mon_count %h mon_rise %h mon_hold %h mon_imem %h mon_ext %h mon_reset %h mon_epc %h mon_retire %h mon_clear %h run_cycles %h",
                mon[31:0], mon[63:32], mon[95:64], mon[127:96], mon[159:128], mon[191:160],
                mon[223:192], mon[255:224], mon[287:256], mon_run_cycles);
      $fdisplay(fd_stat, "pre_mon_count %h pre_mon_rise %h pre_mon_hold %h pre_mon_imem %h pre_mon_ext %h pre_mon_reset %h pre_mon_epc %h pre_mon_retire %h pre_mon_clear %h",
                mon_idle[31:0], mon_idle[63:32], mon_idle[95:64], mon_idle[127:96],
                mon_idle[159:128], mon_idle[191:160], mon_idle[223:192], mon_idle[255:224],
                mon_idle[287:256]);
      $fclose(fd_stat);
    end
  endtask

  // mon - mon_base, per 32-bit count
  task idle_counts;
    integer j;
    begin
      for (j = 0; j < `GA2_MON_N; j = j + 1)
        mon_idle[j*32 +: 32] = mon[j*32 +: 32] - mon_base[j*32 +: 32];
    end
  endtask

  // the external-bus monitor (docs/serving.md): every access of the run, sampled mid-cycle
  // like the trace, merged into runs of consecutive addresses of one kind
  integer fd_bus;
  reg        bus_open, bus_we;
  reg [`GA2_EXT_ADDR_W-1:0] bus_first, bus_last;
  always @(negedge clk) begin
    if (tracing && u_h.ext_en === 1'b1) begin
      if (bus_open && u_h.ext_we === bus_we && u_h.ext_addr == bus_last + 1'b1) begin
        bus_last = u_h.ext_addr;
      end else begin
        if (bus_open) $fdisplay(fd_bus, "%s %h %h", bus_we ? "w" : "r", bus_first, bus_last);
        bus_open = 1'b1;
        bus_we = (u_h.ext_we === 1'b1);
        bus_first = u_h.ext_addr;
        bus_last = u_h.ext_addr;
      end
    end
  end

  // ------------------------------------------------------------------ coverage monitor
  // +cov (tb/coverage.py): per program the chip's hazard stalls by kind and unit pair and
  // the units busy at a cut, into pK_cov.txt (written before the status). A cycle counts
  // for (kind, busy unit, decoding unit) when DECODE holds a unit instruction without
  // fault that ga2_hazard stalls, that unit is busy and the instruction's ranges meet its
  // in-flight ranges in that kind (ga2_hazard's own terms, read by hierarchical name).
  // Index kind*9 + busy*3 + dec: kind 0 RAW, 1 WAR, 2 WAW; unit 0 dma, 1 mm, 2 vec.
  // The same cycles with the vector side the pack4 unit (busy: its busy; decoding: its
  // select) count again in cov_hpk, index kind*4 + j: j 0 dma<-pk, 1 mm<-pk (the pack4
  // instruction waits), 2 pk<-dma, 3 pk<-mm (a dma / mm instruction waits on pack4).
  reg         cov_on;
  reg [31:0]  cov_haz [0:26];
  reg [31:0]  cov_hpk [0:11];
  reg [2:0]   cov_cut_busy;
  reg         cov_cut_pk;
  integer     fd_cov, ci;
`ifndef GA2_GLS
  generate
    if (OVERLAP != 0) begin : g_cov
      localparam AW = `GA2_ADDR_W;
      localparam RW = 2 * AW + 1;
      function meet;
        input [RW-1:0] a;
        input [RW-1:0] b;
        begin
          meet = a[RW-1] && b[RW-1] && (a[2*AW-1:AW] <= b[AW-1:0]) && (b[2*AW-1:AW] <= a[AW-1:0]);
        end
      endfunction
      localparam NR = `GA2_NUM_RD;
      // the instruction in DECODE and each unit's in-flight ranges (its read slots
      // zero-extended to NR: the slots it does not keep are never valid)
      wire [NR*RW-1:0] n_rd = u_h.dut.g_hazard.u_hazard.new_rd;
      wire [RW-1:0]    n_wr = u_h.dut.g_hazard.u_hazard.new_wr;
      wire [RW-1:0]    b_wr [0:2];
      wire [NR*RW-1:0] b_rd [0:2];
      assign b_wr[0] = u_h.dut.g_hazard.u_hazard.g_unit[0].wr_q;
      assign b_rd[0] = u_h.dut.g_hazard.u_hazard.g_unit[0].rd_q;     // zero-extended
      assign b_wr[1] = u_h.dut.g_hazard.u_hazard.g_unit[1].wr_q;
      assign b_rd[1] = u_h.dut.g_hazard.u_hazard.g_unit[1].rd_q;     // zero-extended
      assign b_wr[2] = u_h.dut.g_hazard.u_hazard.g_unit[2].wr_q;
      assign b_rd[2] = u_h.dut.g_hazard.u_hazard.g_unit[2].rd_q;     // zero-extended
      // the sequencer's own view (its ports and its DECODE state), so nothing here depends
      // on how ga2_top wires them
      wire [2:0] busy = u_h.dut.u_seq.unit_busy;
      wire [2:0] dsel = u_h.dut.u_seq.unit_sel;
      wire pk_busy = u_h.dut.pack4_busy;
      wire pk_sel  = u_h.dut.unit_sel[`GA2_U_PACK4];
      integer bu, du, kd, j;
      reg [2:0] kinds;
      // the stall term is read inside the block, only with +cov (no logic in other runs)
      always @(negedge clk) begin
        if (cov_on && tracing && (u_h.dut.u_seq.in_decode && !u_h.dut.u_seq.fault
                                  && !u_h.dut.u_seq.is_halt && u_h.dut.u_seq.hazard) === 1'b1) begin
          for (bu = 0; bu < 3; bu = bu + 1) begin
            for (du = 0; du < 3; du = du + 1) begin
              if (busy[bu] && dsel[du]) begin
                kinds = {meet(n_wr, b_wr[bu]), 2'b00};
                for (kd = 0; kd < NR; kd = kd + 1) begin
                  kinds[1] = kinds[1] || meet(n_wr, b_rd[bu][kd*RW +: RW]);
                  kinds[0] = kinds[0] || meet(n_rd[kd*RW +: RW], b_wr[bu]);
                end
                // j: the pack4 refinement of this pair, 4 when neither side is pack4
                j = (du == 2 && pk_sel && bu < 2) ? bu :
                    (bu == 2 && pk_busy && du < 2) ? 2 + du : 4;
                for (kd = 0; kd < 3; kd = kd + 1) begin
                  if (kinds[kd]) begin
                    cov_haz[kd*9 + bu*3 + du] = cov_haz[kd*9 + bu*3 + du] + 1;
                    if (j < 4) cov_hpk[kd*4 + j] = cov_hpk[kd*4 + j] + 1;
                  end
                end
              end
            end
          end
        end
      end
    end
  endgenerate
`endif

  task write_cov;
    begin
      $sformat(fname, "p%0d_cov.txt", k);
      fd_cov = $fopen(fname, "w");
      $fdisplay(fd_cov, "cut_busy %h", cov_cut_busy);
      $fdisplay(fd_cov, "cut_pk %h", cov_cut_pk);
      for (ci = 0; ci < 27; ci = ci + 1)
        if (cov_haz[ci] != 0) $fdisplay(fd_cov, "haz%0d %h", ci, cov_haz[ci]);
      for (ci = 0; ci < 12; ci = ci + 1)
        if (cov_hpk[ci] != 0) $fdisplay(fd_cov, "hpk%0d %h", ci, cov_hpk[ci]);
      $fclose(fd_cov);
    end
  endtask

  task run_program;
    begin
      prog = k[15:0];
      $sformat(fname, "p%0d_ctl.hex", k);
      $readmemh(fname, ctl);
      gap = ctl[0];
      abort_at = ctl[1];
      $sformat(fname, "p%0d_imem.bin", k);
      u_h.load_bin(2'd0, fname);        // the instruction memory
      $sformat(fname, "p%0d_ext.bin", k);
      fd = $fopen(fname, "r");
      if (fd != 0) begin
        $fclose(fd);
        u_h.load_bin(2'd1, fname);      // the external memory
      end
      $sformat(fname, "p%0d_sp.bin", k);
      fd = $fopen(fname, "r");
      if (fd != 0) begin
        $fclose(fd);
        u_h.load_bin(2'd2, fname);      // the scratchpad
      end
      // the gap before the start: the host outputs must hold
      pre = host_outs(1'b0);
      idle_changes = 0;
      for (i = 0; i < gap; i = i + 1) begin
        @(negedge clk);
        if (host_outs(1'b0) !== pre) idle_changes = idle_changes + 1;
      end
      idle_counts;
      $sformat(fname, "p%0d_trace.txt", k);
      fd_trace = $fopen(fname, "w");
      $sformat(fname, "p%0d_bus.txt", k);
      fd_bus = $fopen(fname, "w");
      bus_open = 1'b0;
      for (ci = 0; ci < 27; ci = ci + 1) cov_haz[ci] = 32'd0;
      for (ci = 0; ci < 12; ci = ci + 1) cov_hpk[ci] = 32'd0;
      cov_cut_busy = 3'd0;
      cov_cut_pk = 1'b0;
      tracing = 1'b1;
      start = 1'b1;
      @(negedge clk);
      start = 1'b0;
      ncyc = 0;
      timeout = 1'b0;
      cut = 1'b0;
      // done is sampled mid-cycle; it stays low until the cycle after HALT or a fault
      @(negedge clk);
      while (done !== 1'b1 && !timeout && !cut) begin
        ncyc = ncyc + 1;
        if (ncyc >= max_cycles) timeout = 1'b1;
        else if (abort_at != 0 && ncyc >= abort_at) cut = 1'b1;
        else @(negedge clk);
      end
      tracing = 1'b0;
      cut_cycles = cnt_cycles;
      sp_reads = mon_sp_reads;       // the run's scratchpad reads, up to the done cycle
      $fclose(fd_trace);
      if (bus_open) $fdisplay(fd_bus, "%s %h %h", bus_we ? "w" : "r", bus_first, bus_last);
      $fclose(fd_bus);
`ifndef GA2_GLS
      cov_cut_busy = cut ? u_h.dut.u_seq.unit_busy : 3'd0;
      cov_cut_pk = cut ? u_h.dut.pack4_busy : 1'b0;
`endif
      // reset while busy: the status shows the outputs right after the reset
      if (cut) reset_chip;
      if (cov_on) write_cov;
      write_results;
      // a hung chip: reset it so the next program starts from a clean sequencer
      if (timeout) reset_chip;
      mon_base = mon;
    end
  endtask

  initial begin
    ack = 16'd0;
    tb_busy = 1'b0;
    prog = 16'd0;
    tracing = 1'b0;
    fd_trace = 0;
    fd_bus = 0;
    bus_open = 1'b0;
    mon_base = {`GA2_MON_N*32{1'b0}};
    mon_idle = {`GA2_MON_N*32{1'b0}};
    if (!$value$plusargs("max_cycles=%d", max_cycles)) max_cycles = 200000;
    if (!$value$plusargs("ext_from=%d", ext_from)) ext_from = 0;
    if (!$value$plusargs("ext_to=%d", ext_to)) ext_to = EXT_WORDS;
    cov_on = $test$plusargs("cov");
`ifndef VERILATOR
    if ($test$plusargs("waves")) begin
      $dumpfile("ga2_tb.vcd");
      $dumpvars(0, ga2_tb);
    end
`endif
    rst = 1'b1;
    start = 1'b0;
    repeat (4) @(negedge clk);
    rst = 1'b0;
    forever begin
      @(negedge clk);
      if (req != ack) begin
        tb_busy = 1'b1;
        for (k = first; k < first + count; k = k + 1) run_program;
        tb_busy = 1'b0;
        ack = req;
      end
    end
  end
endmodule
`resetall
