`default_nettype none
// ga2_vec_add_busy_f: ga2_vec_add busy for exactly 2 len + 1 cycles (model/timing.py
// busy_cycles; docs/isa.md), for 1 <= len <= LMAX and every address and input value.
module ga2_vec_add_busy_f #(
  parameter SP_WORDS = 16, parameter LMAX = 16
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [`GA2_ADDR_W-1:0] src2, input wire [`GA2_ADD_LEN_W-1:0] len,
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
    instr[`GA2_OP_W-1:0] = `GA2_OP_ADD;
    instr[`GA2_ADD_DST_LSB +: `GA2_ADD_DST_W] = dst;
    instr[`GA2_ADD_SRC_LSB +: `GA2_ADD_SRC_W] = src;
    instr[`GA2_ADD_SRC2_LSB +: `GA2_ADD_SRC2_W] = src2;
    instr[`GA2_ADD_LEN_LSB +: `GA2_ADD_LEN_W] = len;
  end
  ga2_vec_add #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
  wire legal = len >= 1 && len <= LMAX;
  wire [CW-1:0] L_new = 2 * len + 1;
`include "busy_chk.vh"
endmodule
