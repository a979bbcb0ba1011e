`default_nettype none
// ga2_norm_busy_f: ga2_norm busy for exactly 2 (len + 1) + NORM_TAIL cycles
// (model/timing.py busy_cycles; docs/isa.md), for 1 <= len <= LMAX and every address,
// m, s and input value.
module ga2_norm_busy_f #(
  parameter SP_WORDS = 16, parameter LMAX = 4, parameter NORM_TAIL = 48
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [6:0] len, input wire [`GA2_NORM_M_W-1:0] m, input wire [`GA2_NORM_S_W-1:0] s,
  input wire [7:0] rd_byte
);
  localparam CW = 20;
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  // the unit takes the instruction word: the free fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = `GA2_OP_NORM;
    instr[`GA2_NORM_DST_LSB +: `GA2_NORM_DST_W] = dst;
    instr[`GA2_NORM_SRC_LSB +: `GA2_NORM_SRC_W] = src;
    instr[`GA2_NORM_LEN_LSB +: `GA2_NORM_LEN_W] = len;
    instr[`GA2_NORM_M_LSB +: `GA2_NORM_M_W] = m;
    instr[`GA2_NORM_S_LSB +: `GA2_NORM_S_W] = s;
  end
  ga2_norm #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
  wire legal = len >= 1 && len <= LMAX;
  wire [CW-1:0] L_new = 2 * (len + 1) + NORM_TAIL;
`include "busy_chk.vh"
endmodule
