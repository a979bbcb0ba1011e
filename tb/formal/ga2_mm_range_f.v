`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_mm_range_f: ga2_mm_ctrl (MM): its 2 x ARRAY read ports read A's hull (rd0) and B's hull (rd1), it writes dst's hull (ldc strides);
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_mm_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [2*`GA2_ARRAY*8-1:0] rd_byte, input wire [31:0] rd_word0
);
  localparam UNIT = 1;
  localparam NR = 2 * `GA2_ARRAY;
  localparam RDW = 1;                       // MM's acc = 1 reads the old C in its write range
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .dst(mm_dst), .a_base(mm_a), .b_base(mm_b), .m(mm_m),
    .k(mm_k), .n(mm_n), .tb(mm_tb), .lda(mm_lda), .ldb(mm_ldb), .ldc(mm_ldc), .acc(mm_acc),
    .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_byte(rd_byte),
    .rd_word0(rd_word0), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
`include "range_chk.vh"
endmodule
`resetall
