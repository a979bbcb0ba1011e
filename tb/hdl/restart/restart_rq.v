`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_rq: the restart check's (restart_chk.v) pair of vec_rq (requantization, relu 0 and 1):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_rq #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the unit's scratchpad size (pointer widths)
) (
  input  wire            clk,          // the check's gated clock
  input  wire            rst,
  input  wire            st_a,         // A's start (the first job and the restart)
  input  wire            st_b,         // B's start (the restart only)
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  input  wire [12:0]     len,
  input  wire [15:0]     m,
  input  wire [5:0]      s,
  input  wire            relu,
  output wire            busy_a,       // A's busy (the restart cycle's check)
  output wire            busy_b,
  output wire            last_b,       // B's last: the comparison's end
  output wire [15:0]     mis,          // mis[s]: signal s of A differs from B's this cycle
  output wire [127:0]    obs_a,        // the outputs, for the VERBOSE message
  output wire [127:0]    obs_b
);
  localparam AW = `GA2_ADDR_W;
  wire          ra_busy, ra_last, ra_rd_en, ra_wr_en, rb_busy, rb_last, rb_rd_en, rb_wr_en;
  wire [AW-1:0] ra_rd_addr, ra_wr_addr, rb_rd_addr, rb_wr_addr;
  wire [31:0]   ra_wr_data, rb_wr_data;
  wire [31:0]   ra_q, rb_q;           // the read data: a scratchpad word
  restart_rd #(.AW(AW), .W(32)) u_rd_a (.clk(clk), .en(ra_rd_en), .addr(ra_rd_addr), .q(ra_q));
  restart_rd #(.AW(AW), .W(32)) u_rd_b (.clk(clk), .en(rb_rd_en), .addr(rb_rd_addr), .q(rb_q));
  // the units take the instruction word: the job's fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = `GA2_OP_RQ;
    instr[`GA2_RQ_DST_LSB +: `GA2_RQ_DST_W] = dst;
    instr[`GA2_RQ_SRC_LSB +: `GA2_RQ_SRC_W] = src;
    instr[`GA2_RQ_LEN_LSB +: `GA2_RQ_LEN_W] = len;
    instr[`GA2_RQ_M_LSB +: `GA2_RQ_M_W] = m;
    instr[`GA2_RQ_S_LSB +: `GA2_RQ_S_W] = s;
    instr[`GA2_RQ_RELU_LSB] = relu;
  end
  ga2_vec_rq #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(ra_busy), .last(ra_last), .rd_en(ra_rd_en), .rd_addr(ra_rd_addr),
    .rd_data(ra_q), .wr_en(ra_wr_en), .wr_addr(ra_wr_addr), .wr_data(ra_wr_data)
  );
  ga2_vec_rq #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(rb_busy), .last(rb_last), .rd_en(rb_rd_en), .rd_addr(rb_rd_addr),
    .rd_data(rb_q), .wr_en(rb_wr_en), .wr_addr(rb_wr_addr), .wr_data(rb_wr_data)
  );

  assign busy_a = ra_busy;
  assign busy_b = rb_busy;
  assign last_b = rb_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(ra_busy), .a_last(ra_last), .a_rd_en(ra_rd_en), .a_wr_en(ra_wr_en),
    .a_rd_addr(ra_rd_addr), .a_wr_addr(ra_wr_addr), .a_wr_data(ra_wr_data),
    .b_busy(rb_busy), .b_last(rb_last), .b_rd_en(rb_rd_en), .b_wr_en(rb_wr_en),
    .b_rd_addr(rb_rd_addr), .b_wr_addr(rb_wr_addr), .b_wr_data(rb_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
