`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_pe: one processing element of the output-stationary systolic array.
// Each cycle it multiplies the int16 a (from the left: an int8 operand arrives
// sign-extended) by the int8 b (from the top),
// adds the product to its int32 accumulator, and passes a right and b down through
// registers. clr (the start of each MM) zeroes the accumulator and the b pass register.
// No reset (docs/rtl.md "Reset and X policy"): acc is read only after a clr; a pass
// register needs no clear because every b it can meet after a clr is 0 (the b pass
// registers are cleared, and by the array's skew a value already in an a register stays
// ahead of every real b), and it powers up to 0 within ARRAY cycles of reset (the A
// feed is 0 while idle); one side must be cleared (a start while busy, docs/rtl.md
// "Start while busy": stale a and stale b would meet).
module ga2_pe (
  input  wire        clk,
  input  wire        clr,
  input  wire [15:0] a_in,
  input  wire [7:0]  b_in,
  output reg  [15:0] a_out,
  output reg  [7:0]  b_out,
  output reg  [31:0] acc
);
  wire signed [23:0] prod = $signed(a_in) * $signed(b_in);

  always @(posedge clk) begin
    a_out <= a_in;
    if (clr) begin
      b_out <= 8'd0;
      acc   <= 32'd0;
    end else begin
      b_out <= b_in;
      acc   <= acc + {{8{prod[23]}}, prod};
    end
  end
endmodule
`resetall
