`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_pack4: the restart check's (restart_chk.v) pair of pack4 (PACK4 and UNPACK4):
// A and B, each reading its own memory model (restart_rd), started by st_a and st_b with
// the same job fields, compared every cycle by restart_cmp1. Why a pair: a start while A
// is busy must leave A from the next cycle on exactly as B, started from idle in that
// cycle (docs/rtl.md "Start while busy").
module restart_pack4 #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the unit's scratchpad size (pointer widths)
) (
  input  wire            clk,          // the check's gated clock
  input  wire            rst,
  input  wire            st_a,         // A's start (the first job and the restart)
  input  wire            st_b,         // B's start (the restart only)
  input  wire            unpack,
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
  wire          pa_busy, pa_last, pa_rd_en, pa_wr_en, pb_busy, pb_last, pb_rd_en, pb_wr_en;
  wire [AW-1:0] pa_rd_addr, pa_wr_addr, pb_rd_addr, pb_wr_addr;
  wire [31:0]   pa_wr_data, pb_wr_data;
  wire [7:0]    pa_q, pb_q;           // the read data: the low byte of a scratchpad word
  restart_rd #(.AW(AW), .W(8)) u_rd_a (.clk(clk), .en(pa_rd_en), .addr(pa_rd_addr), .q(pa_q));
  restart_rd #(.AW(AW), .W(8)) u_rd_b (.clk(clk), .en(pb_rd_en), .addr(pb_rd_addr), .q(pb_q));
  // the units take the instruction word: the job's fields at their record's bits
  reg [`GA2_INSTR_W-1:0] instr;
  always @* begin
    instr = {`GA2_INSTR_W{1'b0}};
    instr[`GA2_OP_W-1:0] = unpack ? `GA2_OP_UNPACK4 : `GA2_OP_PACK4;
    instr[`GA2_PACK4_DST_LSB +: `GA2_PACK4_DST_W] = dst;
    instr[`GA2_PACK4_SRC_LSB +: `GA2_PACK4_SRC_W] = src;
    instr[`GA2_PACK4_LEN_LSB +: `GA2_PACK4_LEN_W] = len;
  end
  ga2_pack4 #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(pa_busy), .last(pa_last), .rd_en(pa_rd_en), .rd_addr(pa_rd_addr),
    .rd_data({24'd0, pa_q}), .wr_en(pa_wr_en), .wr_addr(pa_wr_addr), .wr_data(pa_wr_data)
  );
  ga2_pack4 #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(pb_busy), .last(pb_last), .rd_en(pb_rd_en), .rd_addr(pb_rd_addr),
    .rd_data({24'd0, pb_q}), .wr_en(pb_wr_en), .wr_addr(pb_wr_addr), .wr_data(pb_wr_data)
  );

  assign busy_a = pa_busy;
  assign busy_b = pb_busy;
  assign last_b = pb_last;
  restart_cmp1 #(.AW(AW)) u_cmp (
    .a_busy(pa_busy), .a_last(pa_last), .a_rd_en(pa_rd_en), .a_wr_en(pa_wr_en),
    .a_rd_addr(pa_rd_addr), .a_wr_addr(pa_wr_addr), .a_wr_data(pa_wr_data),
    .b_busy(pb_busy), .b_last(pb_last), .b_rd_en(pb_rd_en), .b_wr_en(pb_wr_en),
    .b_rd_addr(pb_rd_addr), .b_wr_addr(pb_wr_addr), .b_wr_data(pb_wr_data),
    .mis(mis), .obs_a(obs_a), .obs_b(obs_b)
  );
endmodule
`resetall
