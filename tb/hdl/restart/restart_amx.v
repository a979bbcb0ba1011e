`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_amx: the restart check's (restart_chk.v) pair of argmax (full words read):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_amx #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the unit's scratchpad size (pointer widths)
) (
  input  wire            clk,          // the check's gated clock
  input  wire            rst,
  input  wire            st_a,         // A's start (the first job and the restart)
  input  wire            st_b,         // B's start (the restart only)
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  input  wire [12:0]     len,
  output wire            busy_a,       // A's busy (the restart cycle's check)
  output wire            busy_b,
  output wire            last_b,       // B's last: the comparison's end
  output wire [15:0]     mis,          // mis[s]: signal s of A differs from B's this cycle
  output wire [127:0]    obs_a,        // the outputs, for the VERBOSE message
  output wire [127:0]    obs_b
);
  localparam AW = `GA2_ADDR_W;
  wire          xa_busy, xa_last, xa_rd_en, xa_wr_en, xb_busy, xb_last, xb_rd_en, xb_wr_en;
  wire [AW-1:0] xa_rd_addr, xa_wr_addr, xb_rd_addr, xb_wr_addr;
  wire [31:0]   xa_wr_data, xb_wr_data;
  wire [31:0]   xa_q, xb_q;           // the read data: a scratchpad word
  restart_rd #(.AW(AW), .W(32)) u_rd_a (.clk(clk), .en(xa_rd_en), .addr(xa_rd_addr), .q(xa_q));
  restart_rd #(.AW(AW), .W(32)) u_rd_b (.clk(clk), .en(xb_rd_en), .addr(xb_rd_addr), .q(xb_q));
  // the units take the instruction word: the job's fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = `GA2_OP_ARGMAX;
    instr[`GA2_ARGMAX_DST_LSB +: `GA2_ARGMAX_DST_W] = dst;
    instr[`GA2_ARGMAX_SRC_LSB +: `GA2_ARGMAX_SRC_W] = src;
    instr[`GA2_ARGMAX_LEN_LSB +: `GA2_ARGMAX_LEN_W] = len;
  end
  ga2_argmax #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(xa_busy), .last(xa_last), .rd_en(xa_rd_en), .rd_addr(xa_rd_addr),
    .rd_data(xa_q), .wr_en(xa_wr_en), .wr_addr(xa_wr_addr), .wr_data(xa_wr_data)
  );
  ga2_argmax #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(xb_busy), .last(xb_last), .rd_en(xb_rd_en), .rd_addr(xb_rd_addr),
    .rd_data(xb_q), .wr_en(xb_wr_en), .wr_addr(xb_wr_addr), .wr_data(xb_wr_data)
  );

  assign busy_a = xa_busy;
  assign busy_b = xb_busy;
  assign last_b = xb_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(xa_busy), .a_last(xa_last), .a_rd_en(xa_rd_en), .a_wr_en(xa_wr_en),
    .a_rd_addr(xa_rd_addr), .a_wr_addr(xa_wr_addr), .a_wr_data(xa_wr_data),
    .b_busy(xb_busy), .b_last(xb_last), .b_rd_en(xb_rd_en), .b_wr_en(xb_wr_en),
    .b_rd_addr(xb_rd_addr), .b_wr_addr(xb_wr_addr), .b_wr_data(xb_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
