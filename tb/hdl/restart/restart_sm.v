`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_sm: the restart check's (restart_chk.v) pair of softmax (FAST = 0 or 1, a
// parameter: restart_chk has one pair of each):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_sm #(
  parameter FAST     = 0,                  // ga2_softmax's FAST
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
  wire          sa_busy, sa_last, sa_rd_en, sa_wr_en, sb_busy, sb_last, sb_rd_en, sb_wr_en;
  wire [AW-1:0] sa_rd_addr, sa_wr_addr, sb_rd_addr, sb_wr_addr;
  wire [31:0]   sa_wr_data, sb_wr_data;
  wire [7:0]    sa_q, sb_q;           // the read data: the low byte of a scratchpad word
  restart_rd #(.AW(AW), .W(8)) u_rd_a (.clk(clk), .en(sa_rd_en), .addr(sa_rd_addr), .q(sa_q));
  restart_rd #(.AW(AW), .W(8)) u_rd_b (.clk(clk), .en(sb_rd_en), .addr(sb_rd_addr), .q(sb_q));
  // the units take the instruction word: the job's fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = `GA2_OP_SM;
    instr[`GA2_SM_DST_LSB +: `GA2_SM_DST_W] = dst;
    instr[`GA2_SM_SRC_LSB +: `GA2_SM_SRC_W] = src;
    instr[`GA2_SM_LEN_LSB +: `GA2_SM_LEN_W] = len;
  end
  ga2_softmax #(.FAST(FAST), .SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(sa_busy), .last(sa_last), .rd_en(sa_rd_en), .rd_addr(sa_rd_addr),
    .rd_data({24'd0, sa_q}), .wr_en(sa_wr_en), .wr_addr(sa_wr_addr), .wr_data(sa_wr_data)
  );
  ga2_softmax #(.FAST(FAST), .SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(sb_busy), .last(sb_last), .rd_en(sb_rd_en), .rd_addr(sb_rd_addr),
    .rd_data({24'd0, sb_q}), .wr_en(sb_wr_en), .wr_addr(sb_wr_addr), .wr_data(sb_wr_data)
  );

  assign busy_a = sa_busy;
  assign busy_b = sb_busy;
  assign last_b = sb_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(sa_busy), .a_last(sa_last), .a_rd_en(sa_rd_en), .a_wr_en(sa_wr_en),
    .a_rd_addr(sa_rd_addr), .a_wr_addr(sa_wr_addr), .a_wr_data(sa_wr_data),
    .b_busy(sb_busy), .b_last(sb_last), .b_rd_en(sb_rd_en), .b_wr_en(sb_wr_en),
    .b_rd_addr(sb_rd_addr), .b_wr_addr(sb_wr_addr), .b_wr_data(sb_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
