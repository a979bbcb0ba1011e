`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_requant: y = clamp((a*m + 2^(s-1)) >> s, -128, 127), sign-extended to 32 bits.
// a is a signed 32-bit word, m an unsigned 16-bit mantissa, s a shift of 0..63, the
// shift arithmetic (floor), no rounding term when s = 0. Combinational.
// Widths: |a*m| < 2^47, so the product needs 48 bits (49 as signed with m's zero bit).
// Every shift s >= 48 gives exactly 0 (2^(s-1) >= 2^47 > |a*m|, so the sum lies in
// (0, 2^s)), and so does s = 48 itself: the shift is clamped to 48 (s[5] & s[4] is
// s >= 48), which keeps the rounding add, 2^(s-1) <= 2^47, exact in 49-bit arithmetic.
// The rounding term is (1 << s) >> 1: 0 for s = 0 with no special case. The clamp:
// the shifted sum (a 48-bit signed value) fits int8 exactly when its bits 47..7 are
// all equal (all zeros or all ones); otherwise it saturates to the sign's end. No condition here
// is redundant: each one decides the result for some input (docs/rtl.md "Register
// widths" and "Mutation testing": redundant logic only makes equivalent mutants).
module ga2_requant (
  input  wire [31:0] a,
  input  wire [15:0] m,
  input  wire [5:0]  s,
  output wire [31:0] y
);
  wire        [5:0]  sh   = (s[5] & s[4]) ? 6'd48 : s;
  wire signed [48:0] prod = $signed(a) * $signed({1'b0, m});
  wire        [48:0] rnd  = (49'd1 << sh) >> 1;
  wire signed [48:0] tot  = prod + $signed(rnd);
  /* verilator lint_off UNUSEDSIGNAL */
  // sh49[48] always equals sh49[47]: the shifted sum is a 48-bit signed value (for s = 0
  // it is a*m itself, |a*m| < 2^47; every s >= 1 halves it at least)
  wire signed [48:0] sh49 = tot >>> sh;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        [47:0] shd  = sh49[47:0];
  wire               fits = (&shd[47:7]) | ~(|shd[47:7]);
  wire        [7:0]  sat  = fits ? shd[7:0] : {shd[47], {7{~shd[47]}}};
  assign y = {{24{sat[7]}}, sat};
endmodule
`resetall
