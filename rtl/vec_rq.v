`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// vec_rq: the requantization unit (RQ): sp[dst+i] = requant(sp[src+i], m, s).
// Element i is read at busy cycle i and written at cycle i+1 (busy exactly len+1), so
// with the write-first scratchpad an overlapping dst = src + d sees the elements it
// already wrote, i.e. the elements behave as if processed one at a time in order.
module vec_rq (
  input  wire                     clk,
  input  wire                     rst,
  input  wire                     start,
  input  wire [`GA2_ADDR_W-1:0]   dst,
  input  wire [`GA2_ADDR_W-1:0]   src,
  input  wire [`GA2_RQ_LEN_W-1:0] len,
  input  wire [`GA2_RQ_M_W-1:0]   m,
  input  wire [`GA2_RQ_S_W-1:0]   s,
  output wire                     busy,
  output wire                     last,
  output wire                     rd_en,
  output wire [`GA2_ADDR_W-1:0]   rd_addr,
  input  wire [31:0]              rd_data,
  output wire                     wr_en,
  output wire [`GA2_ADDR_W-1:0]   wr_addr,
  output wire [31:0]              wr_data
);
  localparam AW = `GA2_ADDR_W;
  localparam LW = `GA2_RQ_LEN_W;

  reg          busy_r;
  reg [LW-1:0] cnt_r, len_r;
  reg [AW-1:0] rp_r, wp_r;
  reg [15:0]   m_r;
  reg [5:0]    s_r;

  wire reading = busy_r && (cnt_r != len_r);
  wire writing = busy_r && (cnt_r != {LW{1'b0}});

  always @(posedge clk) begin
    if (rst) begin
      busy_r <= 1'b0;
      cnt_r  <= {LW{1'b0}};
      len_r  <= {LW{1'b0}};
      rp_r   <= {AW{1'b0}};
      wp_r   <= {AW{1'b0}};
      m_r    <= 16'd0;
      s_r    <= 6'd0;
    end else if (start) begin
      busy_r <= 1'b1;
      cnt_r  <= {LW{1'b0}};
      len_r  <= len;
      rp_r   <= src;
      wp_r   <= dst;
      m_r    <= m;
      s_r    <= s;
    end else if (busy_r) begin
      cnt_r <= cnt_r + 1'b1;
      if (reading) rp_r <= rp_r + 1'b1;
      if (writing) wp_r <= wp_r + 1'b1;
      if (last) busy_r <= 1'b0;
    end
  end

  requant u_requant (
    .a(rd_data),
    .m(m_r),
    .s(s_r),
    .y(wr_data)
  );

  assign busy    = busy_r;
  assign last    = busy_r && (cnt_r == len_r);
  assign rd_en   = reading;
  assign rd_addr = rp_r;
  assign wr_en   = writing;
  assign wr_addr = wp_r;
endmodule
`resetall
