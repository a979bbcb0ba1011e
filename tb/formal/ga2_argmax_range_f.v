`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_argmax_range_f: ga2_argmax (ARGMAX): reads src..src+len-1, writes the one word dst;
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_argmax_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] rd_data
);
  localparam UNIT = `GA2_U_ARGMAX;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
  ga2_argmax #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data), .wr_en(wr_en),
    .wr_addr(wr_addr), .wr_data(wr_data)
  );
`include "range_chk.vh"
endmodule
`resetall
