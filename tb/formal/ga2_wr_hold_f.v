`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_wr_hold_f: a vector unit's write address holds over the cycle before each write
// (tb/formal/compose.py wr_hold(); docs/formal.md "The equivalents list"): in every cycle
// with wr_en high, wr_addr equals its value one cycle before, and wr_en is low in the
// first cycle. The unit under proof is renamed ga2_wr_hold_dut (compose.py's `pre`), any
// unit with a vector unit's ports (GA2_VEC_PORTS). The registers start at 0 (the miters'
// initial state, tb/formal/miter.py ZERO_INIT); reset, start, the instruction word and the
// read data are free in every cycle (no decoder contract is assumed).
// Why: a mutant that gives wr_addr one cycle late (the mutation class "delay": a register
// loaded with the old right-hand side every cycle, initial value 0) then shows the gold's
// address in every cycle the address is observed (its enable high), and its new register
// feeds nothing but wr_addr (compose.py's cone step), so the masked miter's statement holds.
module ga2_wr_hold_f (
  input wire                    clk,
  input wire                    rst,
  input wire                    start,
  input wire [`GA2_INSTR_W-1:0] instr,
  input wire [31:0]             rd_data
);
  wire                   busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0]            wr_data;

  ga2_wr_hold_dut dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );

  reg                   past_valid_q = 1'b0;
  reg [`GA2_ADDR_W-1:0] past_addr_q  = {`GA2_ADDR_W{1'b0}};
  always @(posedge clk) begin
    past_valid_q <= 1'b1;
    past_addr_q  <= wr_addr;
  end

  always @* begin
    if (wr_en) assert (past_valid_q && (wr_addr == past_addr_q));
  end
endmodule
`resetall
