`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_norm: the restart check's (restart_chk.v) pair of norm (integer RMSNorm: sum,
// square root, divider load, division, scaling):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_norm #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the unit's scratchpad size (pointer widths)
) (
  input  wire            clk,          // the check's gated clock
  input  wire            rst,
  input  wire            st_a,         // A's start (the first job and the restart)
  input  wire            st_b,         // B's start (the restart only)
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  input  wire [6:0]      len,          // ga2_norm's length field
  input  wire [15:0]     m,
  input  wire [5:0]      s,
  output wire            busy_a,       // A's busy (the restart cycle's check)
  output wire            busy_b,
  output wire            last_b,       // B's last: the comparison's end
  output wire [15:0]     mis,          // mis[s]: signal s of A differs from B's this cycle
  output wire [127:0]    obs_a,        // the outputs, for the VERBOSE message
  output wire [127:0]    obs_b
);
  localparam AW = `GA2_ADDR_W;
  wire          na_busy, na_last, na_rd_en, na_wr_en, nb_busy, nb_last, nb_rd_en, nb_wr_en;
  wire [AW-1:0] na_rd_addr, na_wr_addr, nb_rd_addr, nb_wr_addr;
  wire [31:0]   na_wr_data, nb_wr_data;
  wire [7:0]    na_q, nb_q;           // the read data: the low byte of a scratchpad word
  restart_rd #(.AW(AW), .W(8)) u_rd_a (.clk(clk), .en(na_rd_en), .addr(na_rd_addr), .q(na_q));
  restart_rd #(.AW(AW), .W(8)) u_rd_b (.clk(clk), .en(nb_rd_en), .addr(nb_rd_addr), .q(nb_q));
  // the units take the instruction word: the job's fields at their record's bits
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
  ga2_norm #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(na_busy), .last(na_last), .rd_en(na_rd_en), .rd_addr(na_rd_addr),
    .rd_data({24'd0, na_q}), .wr_en(na_wr_en), .wr_addr(na_wr_addr), .wr_data(na_wr_data)
  );
  ga2_norm #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(nb_busy), .last(nb_last), .rd_en(nb_rd_en), .rd_addr(nb_rd_addr),
    .rd_data({24'd0, nb_q}), .wr_en(nb_wr_en), .wr_addr(nb_wr_addr), .wr_data(nb_wr_data)
  );

  assign busy_a = na_busy;
  assign busy_b = nb_busy;
  assign last_b = nb_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(na_busy), .a_last(na_last), .a_rd_en(na_rd_en), .a_wr_en(na_wr_en),
    .a_rd_addr(na_rd_addr), .a_wr_addr(na_wr_addr), .a_wr_data(na_wr_data),
    .b_busy(nb_busy), .b_last(nb_last), .b_rd_en(nb_rd_en), .b_wr_en(nb_wr_en),
    .b_rd_addr(nb_rd_addr), .b_wr_addr(nb_wr_addr), .b_wr_data(nb_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
