`resetall
`timescale 1ns/1ps
`default_nettype none
// restart_cmp1: the comparison of a one-port unit's two instances A and B in the restart
// check (restart_chk.v): vec_rq, softmax, vec_add, argmax, norm and pack4 have the same
// outputs (busy, last, one read port, one write port), so one comparison serves them all.
// mis[s] is signal s of A differing from B this cycle, with !==: 0 busy, 1 last, 2 rd_en,
// 3 rd_addr, 4 wr_en, 5 wr_addr, 6 wr_data (an address or data only where B's enable is
// high), 13 x/z on busy, last or an enable (A or B), or on B's address or data where its
// enable is high. obs_a, obs_b: the outputs, for the VERBOSE message.
module restart_cmp1 #(
  parameter AW = 16
) (
  input  wire          a_busy, a_last, a_rd_en, a_wr_en,
  input  wire [AW-1:0] a_rd_addr, a_wr_addr,
  input  wire [31:0]   a_wr_data,
  input  wire          b_busy, b_last, b_rd_en, b_wr_en,
  input  wire [AW-1:0] b_rd_addr, b_wr_addr,
  input  wire [31:0]   b_wr_data,
  output reg  [15:0]   mis,
  output wire [127:0]  obs_a,
  output wire [127:0]  obs_b
);
  always @* begin
    mis = 16'd0;
    mis[0] = (a_busy !== b_busy);
    mis[1] = (a_last !== b_last);
    mis[2] = (a_rd_en !== b_rd_en);
    mis[3] = (b_rd_en === 1'b1) && (a_rd_addr !== b_rd_addr);
    mis[4] = (a_wr_en !== b_wr_en);
    mis[5] = (b_wr_en === 1'b1) && (a_wr_addr !== b_wr_addr);
    mis[6] = (b_wr_en === 1'b1) && (a_wr_data !== b_wr_data);
    mis[13] = (^{a_busy, a_last, a_rd_en, a_wr_en, b_busy, b_last, b_rd_en, b_wr_en,
                 {AW{b_rd_en}} & b_rd_addr, {AW{b_wr_en}} & b_wr_addr,
                 {32{b_wr_en}} & b_wr_data} === 1'bx);
  end
  assign obs_a = {a_busy, a_last, a_rd_en, a_wr_en, 4'd0, a_rd_addr, a_wr_addr, a_wr_data, 56'd0};
  assign obs_b = {b_busy, b_last, b_rd_en, b_wr_en, 4'd0, b_rd_addr, b_wr_addr, b_wr_data, 56'd0};
endmodule
`resetall
