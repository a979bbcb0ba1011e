`resetall
`timescale 1ns/1ps
`default_nettype none
// divu: iterative unsigned restoring divider, one quotient bit per cycle.
// start (one cycle) loads dividend and divisor; busy is then high for exactly WIDTH
// cycles (one step each); done is high for the one cycle after the last step, when
// quotient = floor(dividend / divisor) and remainder are valid (they hold until the
// next start). A zero divisor gives an all-ones quotient (never used by softmax, whose
// sum is at least LUT[0]).
module divu #(
  parameter WIDTH = 32
) (
  input  wire             clk,
  input  wire             rst,
  input  wire             start,
  input  wire [WIDTH-1:0] dividend,
  input  wire [WIDTH-1:0] divisor,
  output wire             busy,
  output wire             done,
  output wire [WIDTH-1:0] quotient,
  output wire [WIDTH-1:0] remainder
);
  initial begin
    if (WIDTH < 2 || WIDTH > 255) begin
      $error("divu: WIDTH=%0d outside 2..255", WIDTH);
      $finish;
    end
  end

  localparam [7:0] STEPS = WIDTH;

  reg             busy_r, done_r;
  reg [7:0]       cnt_r;
  reg [WIDTH-1:0] q_r, r_r, d_r;

  wire [WIDTH:0] trial = {r_r, q_r[WIDTH-1]};          // remainder shifted, next dividend bit
  wire [WIDTH:0] diff  = trial - {1'b0, d_r};
  wire           ge    = !diff[WIDTH];                  // trial >= divisor

  always @(posedge clk) begin
    if (rst) begin
      busy_r <= 1'b0;
      done_r <= 1'b0;
      cnt_r  <= 8'd0;
      q_r    <= {WIDTH{1'b0}};
      r_r    <= {WIDTH{1'b0}};
      d_r    <= {WIDTH{1'b0}};
    end else if (start) begin
      busy_r <= 1'b1;
      done_r <= 1'b0;
      cnt_r  <= STEPS;
      q_r    <= dividend;
      r_r    <= {WIDTH{1'b0}};
      d_r    <= divisor;
    end else if (busy_r) begin
      q_r   <= {q_r[WIDTH-2:0], ge};
      r_r   <= ge ? diff[WIDTH-1:0] : trial[WIDTH-1:0];
      cnt_r <= cnt_r - 8'd1;
      if (cnt_r == 8'd1) begin
        busy_r <= 1'b0;
        done_r <= 1'b1;
      end
    end else begin
      done_r <= 1'b0;
    end
  end

  assign busy      = busy_r;
  assign done      = done_r;
  assign quotient  = q_r;
  assign remainder = r_r;
endmodule
`resetall
