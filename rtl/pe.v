`resetall
`timescale 1ns/1ps
`default_nettype none
// pe: one processing element of the output-stationary systolic array.
// Each cycle it multiplies the int8 a (from the left) by the int8 b (from the top),
// adds the product to its int32 accumulator, and passes a right and b down through
// registers. clr (the start of each MM) zeroes the accumulator and the pass registers.
module pe (
  input  wire        clk,
  input  wire        rst,
  input  wire        clr,
  input  wire [7:0]  a_in,
  input  wire [7:0]  b_in,
  output reg  [7:0]  a_out,
  output reg  [7:0]  b_out,
  output reg  [31:0] acc
);
  wire signed [15:0] prod = $signed(a_in) * $signed(b_in);

  always @(posedge clk) begin
    if (rst || clr) begin
      a_out <= 8'd0;
      b_out <= 8'd0;
      acc   <= 32'd0;
    end else begin
      a_out <= a_in;
      b_out <= b_in;
      acc   <= acc + {{16{prod[15]}}, prod};
    end
  end
endmodule
`resetall
