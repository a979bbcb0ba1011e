`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_fpga_requant: ga2_requant (the chip's requantization datapath, combinational: a
// 32 x 16 multiply, rounding, a 0..48 shift, saturation) between two register stages,
// a calibration top of `make fpga` (tools/flow/fpga.py): small enough to place and route
// on an iCE40 alone, it gives nextpnr's routed register-to-register delay of the kind of
// path that is the whole chip's longest in yosys's sta, next to sta's own figure for it.
module ga2_fpga_requant (
  input  wire        clk,
  input  wire [31:0] a,
  input  wire [15:0] m,
  input  wire [5:0]  s,
  output reg  [31:0] y
);
  reg  [31:0] a_q;
  reg  [15:0] m_q;
  reg  [5:0]  s_q;
  wire [31:0] y_d;

  ga2_requant u_requant (.a(a_q), .m(m_q), .s(s_q), .y(y_d));

  always @(posedge clk) begin
    a_q <= a;
    m_q <= m;
    s_q <= s;
    y   <= y_d;
  end
endmodule
`resetall
