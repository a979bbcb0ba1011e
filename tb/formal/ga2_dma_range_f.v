`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_dma_range_f: ga2_dma (LD writes dst..dst+len-1; ST reads src..src+len-1; LDX reads its index word idx and writes dst..dst+len-1), on a EXT_WORDS-word external memory;
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_dma_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] sp_rd_data, input wire [31:0] ext_rdata
);
  localparam UNIT = 0;
  localparam NR = 1;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
  wire idx_err, ext_en, ext_we;
  wire [`GA2_EXT_ADDR_W-1:0] ext_addr;
  wire [31:0] ext_wdata;
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .dir(dma_dir), .ldx(dma_ldx), .sp_base(dma_sp_base),
    .ext_base(dma_ext_base), .idx(dma_idx), .rows(dma_rows), .len(dma_len), .busy(busy),
    .last(last), .idx_err(idx_err), .sp_rd_en(rd_en), .sp_rd_addr(rd_addr),
    .sp_rd_data(sp_rd_data), .sp_wr_en(wr_en), .sp_wr_addr(wr_addr), .sp_wr_data(wr_data),
    .ext_en(ext_en), .ext_we(ext_we), .ext_addr(ext_addr), .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata)
  );
`include "range_chk.vh"
endmodule
`resetall
