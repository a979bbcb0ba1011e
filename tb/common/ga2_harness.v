`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_cfg.vh"
// ga2_harness: the one test-bench harness of the GA-2 chip, shared by the cocotb wrapper
// (tb/chip/ga2_tb.v), the plain bench (tb/plain/tb_plain.v) and the RTL mutation bench
// (tb/mutation/mut_rtl_tb.v).
//
// Holds ga2_top (instance `dut`) with its two memory models:
//   imem  IMEM_DEPTH x 128, synchronous read, one cycle of latency;
//   ext   EXT_WORDS  x 32,  synchronous read, one cycle of latency, read-first on a
//         same-address write.
// A read outside a memory returns 0 and a write outside ext is dropped; such accesses
// are counted (imem_oob, ext_rd_oob, ext_wr_oob), as are the cycles with x/z on the
// chip's control outputs (xz_events). The four counters clear at a start and count while
// rst is low; everything is sampled at the rising edge, like the memories themselves.
// The benches reach the memories by hierarchical name (u_h.imem, u_h.ext) for
// $readmemh/$writememh and preload the scratchpad with load_sp (the one place that
// knows where ga2_top keeps it). The clock, reset and start come from the bench.
module ga2_harness #(
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter IMEM_DEPTH = `GA2_IMEM_DEPTH,
  parameter SP_WORDS   = `GA2_SP_WORDS
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        start,
  output wire        done,
  output wire        error,
  output wire [2:0]  error_code,
  output wire [15:0] error_pc,
  output wire [31:0] cnt_cycles,
  output wire [31:0] cnt_mm,
  output wire [31:0] cnt_dma,
  output wire [31:0] cnt_vec,
  output wire [31:0] cnt_instret,
  output wire        retire,
  output wire [15:0] retire_pc,
  output wire [31:0] retire_cycle,
  output reg  [31:0] imem_oob,
  output reg  [31:0] ext_rd_oob,
  output reg  [31:0] ext_wr_oob,
  output reg  [31:0] xz_events
);
  initial begin
    if (EXT_WORDS < 1 || EXT_WORDS > 65536) begin
      $error("%m: EXT_WORDS=%0d outside 1..65536", EXT_WORDS);
      $finish;
    end
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > 65535) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..65535", IMEM_DEPTH);
      $finish;
    end
    if (SP_WORDS < 2 || SP_WORDS > 65536) begin
      $error("%m: SP_WORDS=%0d outside 2..65536", SP_WORDS);
      $finish;
    end
  end

  wire        imem_en, ext_en, ext_we;
  wire [15:0] imem_addr, ext_addr;
  wire [31:0] ext_wdata;
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

  wire imem_in = {16'd0, imem_addr} < IMEM_DEPTH;
  wire ext_in  = {16'd0, ext_addr} < EXT_WORDS;

  integer i;
  initial begin
    for (i = 0; i < IMEM_DEPTH; i = i + 1) imem[i] = 128'd0;
    for (i = 0; i < EXT_WORDS; i = i + 1) ext[i] = 32'd0;
    imem_rdata = 128'd0;
    ext_rdata = 32'd0;
    imem_oob = 32'd0;
    ext_rd_oob = 32'd0;
    ext_wr_oob = 32'd0;
    xz_events = 32'd0;
  end

  always @(posedge clk) begin
    if (imem_en) begin
      if (imem_in) imem_rdata <= imem[imem_addr];
      else imem_rdata <= 128'd0;
    end
  end

  always @(posedge clk) begin
    if (ext_en) begin
      if (ext_in) begin
        ext_rdata <= ext[ext_addr];
        if (ext_we) ext[ext_addr] <= ext_wdata;
      end else begin
        ext_rdata <= 32'd0;
      end
    end
  end

  // ------------------------------------------------------------------ access checks
  always @(posedge clk) begin
    if (start === 1'b1) begin
      imem_oob <= 32'd0;
      ext_rd_oob <= 32'd0;
      ext_wr_oob <= 32'd0;
      xz_events <= 32'd0;
    end else if (rst === 1'b0) begin
      if (imem_en === 1'b1 && !imem_in) imem_oob <= imem_oob + 32'd1;
      if (ext_en === 1'b1 && !ext_in) begin
        if (ext_we === 1'b1) ext_wr_oob <= ext_wr_oob + 32'd1;
        else ext_rd_oob <= ext_rd_oob + 32'd1;
      end
      if (^{done, error, retire, imem_en, ext_en, ext_we} === 1'bx) xz_events <= xz_events + 32'd1;
    end
  end

  // ------------------------------------------------------------------ scratchpad preload
  // $readmemh into the chip's scratchpad; call only while the chip is idle.
  task load_sp;
    input [8*512-1:0] fname;
    begin
      $readmemh(fname, dut.u_sp.mem);
    end
  endtask
endmodule
`resetall
