`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_cfg.vh"
// ga2_tb: co-simulation wrapper of ga2_top (the cocotb toplevel, also usable alone).
//
// Holds the clock (always #5), reset, the instruction memory (IMEM_DEPTH x 128) and the
// external memory (EXT_WORDS x 32), both synchronous-read with one cycle of latency
// (read-first on a same-address write). The Python side never pokes memories word by
// word: per program it writes imem.hex and ext_in.hex into the run directory and bumps
// `req`; the wrapper then clears imem to zero (a zero word is an illegal opcode),
// $readmemh's both memories, pulses start, waits for done or +max_cycles=N cycles
// (a hang comes back as a timeout), writes the retire trace (trace.txt: "pc cycle" per
// retired instruction, in hex), the status line (status.txt) and the ext memory
// (ext_out.hex), and sets ack = req, which the cocotb coroutine awaits.
// All sampling and driving happens on the falling edge, so the order of events at the
// rising edge (which differs between Icarus and Verilator --timing) cannot matter.
// +waves (Icarus) dumps ga2_tb.vcd; Verilator builds with --trace dump dump.vcd.
module ga2_tb #(
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter IMEM_DEPTH = `GA2_IMEM_DEPTH,
  parameter SP_WORDS   = `GA2_SP_WORDS
) (
  input  wire [15:0] req /*verilator public_flat_rw*/,      // bumped by the host: run the program in imem.hex/ext_in.hex
  output reg  [15:0] ack /*verilator public_flat_rw*/,      // = req once the program's results are on disk
  output reg         tb_busy /*verilator public_flat_rw*/   // high while a program runs
);
  initial begin
    if (EXT_WORDS < 1 || EXT_WORDS > 65536) begin
      $error("ga2_tb: EXT_WORDS=%0d outside 1..65536", EXT_WORDS);
      $finish;
    end
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > 65536) begin
      $error("ga2_tb: IMEM_DEPTH=%0d outside 1..65536", IMEM_DEPTH);
      $finish;
    end
  end

  reg clk = 1'b0;
  always #5 clk = ~clk;

  reg rst   = 1'b1;
  reg start = 1'b0;

  wire        done, error, retire, imem_en, ext_en, ext_we;
  wire [2:0]  error_code;
  wire [15:0] error_pc, imem_addr, ext_addr, retire_pc;
  wire [31:0] cnt_cycles, cnt_mm, cnt_dma, cnt_vec, cnt_instret, ext_wdata, retire_cycle;
  reg  [127:0] imem_rdata;
  reg  [31:0]  ext_rdata;

  ga2_top #(.EXT_WORDS(EXT_WORDS), .IMEM_DEPTH(IMEM_DEPTH), .SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start),
    .done(done), .error(error), .error_code(error_code), .error_pc(error_pc),
    .cnt_cycles(cnt_cycles), .cnt_mm(cnt_mm), .cnt_dma(cnt_dma), .cnt_vec(cnt_vec),
    .cnt_instret(cnt_instret),
    .imem_addr(imem_addr), .imem_en(imem_en), .imem_rdata(imem_rdata),
    .ext_addr(ext_addr), .ext_en(ext_en), .ext_we(ext_we), .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata),
    .retire(retire), .retire_pc(retire_pc), .retire_cycle(retire_cycle)
  );

  // ------------------------------------------------------------------ memories
  reg [127:0] imem [0:IMEM_DEPTH-1];
  reg [31:0]  ext  [0:EXT_WORDS-1];
  reg [31:0]  imem_oob, ext_rd_oob, ext_wr_oob;   // accesses outside the memories

  always @(posedge clk) begin
    if (imem_en) begin
      if ({16'd0, imem_addr} < IMEM_DEPTH) imem_rdata <= imem[imem_addr];
      else imem_rdata <= 128'd0;
    end
  end

  always @(posedge clk) begin
    if (ext_en) begin
      if ({16'd0, ext_addr} < EXT_WORDS) begin
        ext_rdata <= ext[ext_addr];
        if (ext_we) ext[ext_addr] <= ext_wdata;
      end else begin
        ext_rdata <= 32'd0;
      end
    end
  end

  // ------------------------------------------------------------------ run control
  integer max_cycles, ncyc, fd_trace, fd_stat, i;
  reg     timeout, tracing;
  reg [31:0] xz_events;   // x/z seen on control outputs while running

  // out-of-range access counters and the retire trace, sampled mid-cycle
  always @(negedge clk) begin
    if (tracing) begin
      if (imem_en === 1'b1 && {16'd0, imem_addr} >= IMEM_DEPTH) imem_oob <= imem_oob + 32'd1;
      if (ext_en === 1'b1 && {16'd0, ext_addr} >= EXT_WORDS) begin
        if (ext_we === 1'b1) ext_wr_oob <= ext_wr_oob + 32'd1;
        else ext_rd_oob <= ext_rd_oob + 32'd1;
      end
      if (^{done, error, retire, imem_en, ext_en, ext_we} === 1'bx) xz_events <= xz_events + 32'd1;
      if (retire === 1'b1) $fdisplay(fd_trace, "%h %h", retire_pc, retire_cycle);
    end
  end

  initial begin
    ack = 16'd0;
    tb_busy = 1'b0;
    tracing = 1'b0;
    imem_oob = 32'd0; ext_rd_oob = 32'd0; ext_wr_oob = 32'd0; xz_events = 32'd0;
    fd_trace = 0;
    if (!$value$plusargs("max_cycles=%d", max_cycles)) max_cycles = 200000;
`ifndef VERILATOR
    if ($test$plusargs("waves")) begin
      $dumpfile("ga2_tb.vcd");
      $dumpvars(0, ga2_tb);
    end
`endif
    for (i = 0; i < IMEM_DEPTH; i = i + 1) imem[i] = 128'd0;
    for (i = 0; i < EXT_WORDS; i = i + 1) ext[i] = 32'd0;
    imem_rdata = 128'd0;
    ext_rdata = 32'd0;
    rst = 1'b1;
    start = 1'b0;
    repeat (4) @(negedge clk);
    rst = 1'b0;
    forever begin
      @(negedge clk);
      if (req != ack) begin
        tb_busy = 1'b1;
        for (i = 0; i < IMEM_DEPTH; i = i + 1) imem[i] = 128'd0;
        $readmemh("imem.hex", imem);
        $readmemh("ext_in.hex", ext);
        fd_trace = $fopen("trace.txt", "w");
        imem_oob = 32'd0; ext_rd_oob = 32'd0; ext_wr_oob = 32'd0; xz_events = 32'd0;
        tracing = 1'b1;
        start = 1'b1;
        @(negedge clk);
        start = 1'b0;
        ncyc = 0;
        timeout = 1'b0;
        // done is sampled mid-cycle; it stays low until the cycle after HALT or a fault
        @(negedge clk);
        while (done !== 1'b1 && !timeout) begin
          ncyc = ncyc + 1;
          if (ncyc >= max_cycles) timeout = 1'b1;
          else @(negedge clk);
        end
        tracing = 1'b0;
        @(negedge clk);   // let the last out-of-range/trace updates settle
        $fclose(fd_trace);
        $writememh("ext_out.hex", ext);
        fd_stat = $fopen("status.txt", "w");
        $fdisplay(fd_stat, "done %h error %h code %h pc %h cycles %h mm %h dma %h vec %h instret %h timeout %h wall %h imem_oob %h ext_rd_oob %h ext_wr_oob %h xz %h",
                  done, error, error_code, error_pc, cnt_cycles, cnt_mm, cnt_dma, cnt_vec,
                  cnt_instret, timeout, ncyc, imem_oob, ext_rd_oob, ext_wr_oob, xz_events);
        $fclose(fd_stat);
        if (timeout) begin
          // a hung chip: reset it so the next program starts from a clean sequencer
          rst = 1'b1;
          repeat (2) @(negedge clk);
          rst = 1'b0;
        end
        tb_busy = 1'b0;
        ack = req;
      end
    end
  end
endmodule
`resetall
