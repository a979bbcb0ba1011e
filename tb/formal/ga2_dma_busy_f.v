`default_nettype none
// ga2_dma_busy_f: ga2_dma busy for exactly LD / ST len + 1 cycles, the lookup (ldx) len +
// LDX_EXTRA + 1
// (model/timing.py busy_cycles; docs/isa.md), for every field value the decoder lets
// through on a SP_WORDS-word scratchpad and an EXT_WORDS-word external memory
// (1 <= len, base + len within each memory, the lookup's table in range, any rows and index).
module ga2_dma_busy_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter LDX_EXTRA = 2
) (
  input wire clk, input wire rst, input wire start, input wire dir, input wire ldx,
  input wire [`GA2_ADDR_W-1:0] sp_base, input wire [`GA2_ADDR_W-1:0] ext_base,
  input wire [`GA2_ADDR_W-1:0] idx, input wire [`GA2_LDX_ROWS_W-1:0] rows,
  input wire [`GA2_LD_LEN_W-1:0] len, input wire [31:0] sp_rd_data, input wire [31:0] ext_rdata
);
  localparam CW = 20;
  wire busy, last, idx_err, sp_rd_en, sp_wr_en, ext_en, ext_we;
  wire [`GA2_ADDR_W-1:0] sp_rd_addr, sp_wr_addr, ext_addr;
  wire [31:0] sp_wr_data, ext_wdata;
  // the unit takes the instruction word: the free fields at their record's bits (ST,
  // the lookup or LD by dir and ldx; external addresses below 2^16: xhi 0)
  wire [`GA2_INSTR_W-1:0] instr = dir ? `GA2_ST_WORD(sp_base, ext_base, len, 0) :
                                 ldx ? `GA2_LDX_WORD(sp_base, ext_base, len, idx, rows, 0) :
                                       `GA2_LD_WORD(sp_base, ext_base, len, 0);
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last),
    .idx_err(idx_err), .sp_rd_en(sp_rd_en), .sp_rd_addr(sp_rd_addr), .sp_rd_data(sp_rd_data),
    .sp_wr_en(sp_wr_en), .sp_wr_addr(sp_wr_addr), .sp_wr_data(sp_wr_data), .ext_en(ext_en),
    .ext_we(ext_we), .ext_addr(ext_addr), .ext_wdata(ext_wdata), .ext_rdata(ext_rdata)
  );
  wire legal = len != 0 && !(dir && ldx) && {16'd0, sp_base} + len <= SP_WORDS
               && (ldx ? (idx < SP_WORDS && rows != 0 && {16'd0, ext_base} + rows * len <= EXT_WORDS)
                       : {16'd0, ext_base} + len <= EXT_WORDS);
  wire [CW-1:0] L_new = ldx ? len + LDX_EXTRA + 1 : len + 1;
`include "busy_chk.vh"
endmodule
