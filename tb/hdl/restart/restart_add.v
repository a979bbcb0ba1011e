`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_add: the restart check's (restart_chk.v) pair of vec_add (the residual add: two reads a word):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_add #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the unit's scratchpad size (pointer widths)
) (
  input  wire            clk,          // the check's gated clock
  input  wire            rst,
  input  wire            st_a,         // A's start (the first job and the restart)
  input  wire            st_b,         // B's start (the restart only)
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  input  wire [`GA2_ADDR_W-1:0] src2,
  input  wire [12:0]     len,
  output wire            busy_a,       // A's busy (the restart cycle's check)
  output wire            busy_b,
  output wire            last_b,       // B's last: the comparison's end
  output wire [15:0]     mis,          // mis[s]: signal s of A differs from B's this cycle
  output wire [127:0]    obs_a,        // the outputs, for the VERBOSE message
  output wire [127:0]    obs_b
);
  localparam AW = `GA2_ADDR_W;
  wire          aa_busy, aa_last, aa_rd_en, aa_wr_en, ab_busy, ab_last, ab_rd_en, ab_wr_en;
  wire [AW-1:0] aa_rd_addr, aa_wr_addr, ab_rd_addr, ab_wr_addr;
  wire [31:0]   aa_wr_data, ab_wr_data;
  wire [7:0]    aa_q, ab_q;           // the read data: the low byte of a scratchpad word
  restart_rd #(.AW(AW), .W(8)) u_rd_a (.clk(clk), .en(aa_rd_en), .addr(aa_rd_addr), .q(aa_q));
  restart_rd #(.AW(AW), .W(8)) u_rd_b (.clk(clk), .en(ab_rd_en), .addr(ab_rd_addr), .q(ab_q));
  // the units take the instruction word: the job's fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = `GA2_OP_ADD;
    instr[`GA2_ADD_DST_LSB +: `GA2_ADD_DST_W] = dst;
    instr[`GA2_ADD_SRC_LSB +: `GA2_ADD_SRC_W] = src;
    instr[`GA2_ADD_SRC2_LSB +: `GA2_ADD_SRC2_W] = src2;
    instr[`GA2_ADD_LEN_LSB +: `GA2_ADD_LEN_W] = len;
  end
  ga2_vec_add #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(aa_busy), .last(aa_last), .rd_en(aa_rd_en), .rd_addr(aa_rd_addr),
    .rd_data({24'd0, aa_q}), .wr_en(aa_wr_en), .wr_addr(aa_wr_addr), .wr_data(aa_wr_data)
  );
  ga2_vec_add #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(ab_busy), .last(ab_last), .rd_en(ab_rd_en), .rd_addr(ab_rd_addr),
    .rd_data({24'd0, ab_q}), .wr_en(ab_wr_en), .wr_addr(ab_wr_addr), .wr_data(ab_wr_data)
  );

  assign busy_a = aa_busy;
  assign busy_b = ab_busy;
  assign last_b = ab_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(aa_busy), .a_last(aa_last), .a_rd_en(aa_rd_en), .a_wr_en(aa_wr_en),
    .a_rd_addr(aa_rd_addr), .a_wr_addr(aa_wr_addr), .a_wr_data(aa_wr_data),
    .b_busy(ab_busy), .b_last(ab_last), .b_rd_en(ab_rd_en), .b_wr_en(ab_wr_en),
    .b_rd_addr(ab_rd_addr), .b_wr_addr(ab_wr_addr), .b_wr_data(ab_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
