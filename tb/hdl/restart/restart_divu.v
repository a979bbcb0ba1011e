`resetall
`timescale 1ns/1ps
`default_nettype none
`include "restart_ports.vh"
// restart_divu: the restart check's (restart_chk.v) pair of dividers (ga2_divu, 32 bits):
// A and B, started by st_a and st_b with the same operands, compared every cycle. Why a
// pair: a start while A is busy must leave A from the next cycle on exactly as B, started
// from idle in that cycle (docs/rtl.md "Start while busy"). No memory: the quotient and
// the remainder are compared in B's last cycle, where they are defined.
// mis[s], with !==: 0 busy, 1 last, 2 quotient, 3 remainder (in B's last cycle), 13 x/z on
// busy or last (A or B), or on B's quotient or remainder in its last cycle.
module restart_divu (
  `RESTART_PAIR_IN                         // clk, rst, st_a, st_b (restart_ports.vh)
  input  wire [31:0]  dividend,
  input  wire [31:0]  divisor,
  `RESTART_PAIR_OUT                        // busy_a, busy_b, last_b, mis, obs_a, obs_b
);
  wire        va_busy, va_last, vb_busy, vb_last;
  wire [31:0] va_q, va_r, vb_q, vb_r;
  ga2_divu #(.WIDTH(32)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .dividend(dividend), .divisor(divisor),
    .busy(va_busy), .last(va_last), .quotient(va_q), .remainder(va_r)
  );
  ga2_divu #(.WIDTH(32)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .dividend(dividend), .divisor(divisor),
    .busy(vb_busy), .last(vb_last), .quotient(vb_q), .remainder(vb_r)
  );

  assign busy_a = va_busy;
  assign busy_b = vb_busy;
  assign last_b = vb_last;
  always @* begin
    mis = 16'd0;
    mis[0] = (va_busy !== vb_busy);
    mis[1] = (va_last !== vb_last);
    mis[2] = (vb_last === 1'b1) && (va_q !== vb_q);
    mis[3] = (vb_last === 1'b1) && (va_r !== vb_r);
    mis[13] = (^{va_busy, va_last, vb_busy, vb_last, {32{vb_last}} & vb_q,
                 {32{vb_last}} & vb_r} === 1'bx);
  end
  assign obs_a = {va_busy, va_last, 6'd0, va_q, va_r, 56'd0};
  assign obs_b = {vb_busy, vb_last, 6'd0, vb_q, vb_r, 56'd0};
endmodule
`resetall
