`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_divu: iterative unsigned restoring divider, one quotient bit per cycle.
// Handshake (docs/rtl.md, as every unit): start (one cycle) loads dividend and divisor;
// busy is then high for exactly WIDTH + 1 cycles: WIDTH steps (step_q) and the result
// cycle; last is high in that final busy cycle, when quotient = floor(dividend / divisor)
// and remainder are valid (they hold until the next start). A start while busy restarts
// the division with the new operands; reset wins over start. A zero divisor gives an
// all-ones quotient (never used by softmax, whose sum is at least LUT[0]).
module ga2_divu #(
  parameter WIDTH = 32
) (
  input  wire             clk,
  input  wire             rst,
  input  wire             start,
  input  wire [WIDTH-1:0] dividend,
  input  wire [WIDTH-1:0] divisor,
  output wire             busy,
  output wire             last,
  output wire [WIDTH-1:0] quotient,
  output wire [WIDTH-1:0] remainder
);
  initial begin
    if (WIDTH < 2 || WIDTH > 255) begin
      $error("%m: WIDTH=%0d outside 2..255", WIDTH);
      $finish;
    end
  end

  // the step counter counts WIDTH-1 down to 0 (one value a step): exactly as wide as its
  // largest value, so its top bit is used (docs/rtl.md "Register widths")
  localparam CNW = $clog2(WIDTH);
  /* verilator lint_off WIDTH */
  // WIDTH - 1 < 2^CNW: the integer keeps its value in CNW bits
  localparam [CNW-1:0] LAST_STEP = WIDTH - 1;
  /* verilator lint_on WIDTH */

  reg             step_q, last_q;
  reg [CNW-1:0]   cnt_q;
  reg [WIDTH-1:0] quo_q, rem_q, dsr_q;

  wire [WIDTH:0] trial = {rem_q, quo_q[WIDTH-1]};          // remainder shifted, next dividend bit
  wire [WIDTH:0] diff  = trial - {1'b0, dsr_q};
  wire           ge    = !diff[WIDTH];                  // trial >= divisor

  // control: reset
  always @(posedge clk) begin
    if (rst) begin
      step_q <= 1'b0;
      last_q <= 1'b0;
    end else if (start) begin
      step_q <= 1'b1;
      last_q <= 1'b0;
    end else if (step_q) begin
      if (cnt_q == {CNW{1'b0}}) begin
        step_q <= 1'b0;
        last_q <= 1'b1;
      end
    end else begin
      last_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register
  // before the first step; quotient and remainder are read only in the last cycle
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= LAST_STEP;
      quo_q <= dividend;
      rem_q <= {WIDTH{1'b0}};
      dsr_q <= divisor;
    end else if (step_q) begin
      quo_q <= {quo_q[WIDTH-2:0], ge};
      rem_q <= ge ? diff[WIDTH-1:0] : trial[WIDTH-1:0];
      cnt_q <= cnt_q - {{(CNW-1){1'b0}}, 1'b1};
    end
  end

  assign busy      = step_q | last_q;
  assign last      = last_q;
  assign quotient  = quo_q;
  assign remainder = rem_q;
endmodule
`resetall
