`resetall
`timescale 1ns/1ps
`default_nettype none
// requant: y = clamp((a*m + 2^(s-1)) >> s, -128, 127), sign-extended to 32 bits.
// a is a signed 32-bit word, m an unsigned 16-bit mantissa, s a shift of 0..63, the
// shift arithmetic (floor), no rounding term when s = 0. Combinational.
// Widths: |a*m| < 2^47, so the product needs 48 bits (49 as signed with m's zero bit).
// For s <= 47 the rounding add stays below 2^48 in magnitude, so 49-bit arithmetic is
// exact (the 64-bit formulation of the spec gives the same value); for s >= 48,
// 2^(s-1) >= 2^47 > |a*m|, so the sum lies in (0, 2^s) and the result is exactly 0.
module requant (
  input  wire [31:0] a,
  input  wire [15:0] m,
  input  wire [5:0]  s,
  output wire [31:0] y
);
  wire               big  = (s >= 6'd48);
  wire signed [48:0] prod = $signed(a) * $signed({1'b0, m});
  wire        [48:0] rnd  = (s == 6'd0 || big) ? 49'd0 : (49'd1 << (s - 6'd1));
  wire signed [48:0] tot  = prod + $signed(rnd);
  wire signed [48:0] shd  = tot >>> s;
  wire               hi   = shd > 49'sd127;
  wire               lo   = shd < -49'sd128;
  wire        [7:0]  sat  = big ? 8'd0 : (hi ? 8'd127 : (lo ? 8'd128 : shd[7:0]));
  assign y = {{24{sat[7]}}, sat};
endmodule
`resetall
