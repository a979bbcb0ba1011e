`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_systolic: N x N output-stationary array of ga2_pe. Row i's int16 A values (int8
// operands arrive sign-extended) enter at the left (a_left[16*i +: 16]) and move one PE
// right per cycle; column j's B values enter at the top (b_top[8*j +: 8]) and move one PE down per cycle; PE (i, j) accumulates
// a(i,k) * b(k,j) when the feeder skews row i and column j by i and j cycles.
// result is the accumulator of PE (sel_row, sel_col) (the drain reads one per cycle).
module ga2_systolic #(
  parameter N  = 4,
  parameter IW = 2          // index width: N = 2^IW
) (
  input  wire           clk,
  input  wire           clr,
  input  wire [16*N-1:0] a_left,
  input  wire [8*N-1:0] b_top,
  input  wire [IW-1:0]  sel_row,
  input  wire [IW-1:0]  sel_col,
  output wire [31:0]    result
);
  initial begin
    if (IW < 1 || (1 << IW) != N) begin
      $error("ga2_systolic: N=%0d must be 2^IW (IW=%0d)", N, IW);
      $finish;
    end
  end

  // a_h[i][j]: the value entering PE (i, j) from the left; column N is the exit.
  // b_v[i][j]: the value entering PE (i, j) from the top; row N is the exit.
  // a_h[(N+1)*i + j]: the value entering PE (i, j) from the left (column N: the exit);
  // b_v[N*i + j]: the value entering PE (i, j) from the top (row N: the exit);
  // acc_w[N*i + j]: PE (i, j)'s accumulator. Arrays of nets rather than flat vectors,
  // so a simulator wakes only the readers of the element that changed.
  /* verilator lint_off UNUSEDSIGNAL */
  // The values leaving the last column (a) and the last row (b) go nowhere.
  wire [15:0] a_h [0:(N+1)*N-1];
  wire [7:0]  b_v [0:(N+1)*N-1];
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] acc_w [0:N*N-1];

  assign result = acc_w[{sel_row, sel_col}];       // PE (i, j) is entry N*i + j

  genvar i, j;
  generate
    for (i = 0; i < N; i = i + 1) begin : g_edge
      assign a_h[(N+1)*i] = a_left[16*i +: 16]; // row i, column 0
      assign b_v[i]       = b_top[8*i +: 8];    // row 0, column i
    end
    for (i = 0; i < N; i = i + 1) begin : g_row
      for (j = 0; j < N; j = j + 1) begin : g_col
        ga2_pe u_pe (
          .clk(clk),
          .clr(clr),
          .a_in(a_h[(N+1)*i + j]),
          .b_in(b_v[N*i + j]),
          .a_out(a_h[(N+1)*i + j + 1]),
          .b_out(b_v[N*(i+1) + j]),
          .acc(acc_w[N*i + j])
        );
      end
    end
  endgenerate
endmodule
`resetall
