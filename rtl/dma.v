`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// dma: LD (dir = 0: ext[ext_base ..] -> sp[sp_base ..]) and ST (dir = 1: sp -> ext).
// One word per cycle: word i is read at busy cycle i and written at cycle i+1 (both
// memories have one cycle of read latency), so the unit is busy exactly len+1 cycles.
module dma (
  input  wire                     clk,
  input  wire                     rst,
  input  wire                     start,
  input  wire                     dir,          // 0 = LD, 1 = ST
  input  wire [`GA2_ADDR_W-1:0]   sp_base,
  input  wire [`GA2_ADDR_W-1:0]   ext_base,
  input  wire [`GA2_LD_LEN_W-1:0] len,
  output wire                     busy,
  output wire                     last,
  // scratchpad
  output wire                     sp_rd_en,
  output wire [`GA2_ADDR_W-1:0]   sp_rd_addr,
  input  wire [31:0]              sp_rd_data,
  output wire                     sp_wr_en,
  output wire [`GA2_ADDR_W-1:0]   sp_wr_addr,
  output wire [31:0]              sp_wr_data,
  // external memory
  output wire                     ext_en,
  output wire                     ext_we,
  output wire [`GA2_ADDR_W-1:0]   ext_addr,
  output wire [31:0]              ext_wdata,
  input  wire [31:0]              ext_rdata
);
  localparam AW = `GA2_ADDR_W;
  localparam LW = `GA2_LD_LEN_W;

  reg          busy_q, dir_q;
  reg [LW-1:0] cnt_q, len_q;
  reg [AW-1:0] rp_q, wp_q;     // read pointer (source space), write pointer (destination)

  wire reading = busy_q && (cnt_q != len_q);
  wire writing = busy_q && (cnt_q != {LW{1'b0}});

  // control: reset. dir_q and rp_q keep theirs: ext_addr (a chip output) is rp_q while
  // dir_q = 0, so both hold 0 from reset to the first start
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      dir_q  <= 1'b0;
      rp_q   <= {AW{1'b0}};
    end else if (start) begin
      busy_q <= 1'b1;
      dir_q  <= dir;
      rp_q   <= dir ? sp_base : ext_base;
    end else if (busy_q) begin
      if (reading) rp_q <= rp_q + 1'b1;
      if (last) busy_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy_q (reading, writing, last), and wp_q reaches ext_addr only with
  // dir_q = 1, i.e. after a start
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      wp_q  <= dir ? ext_base : sp_base;
    end else if (busy_q) begin
      cnt_q <= cnt_q + 1'b1;
      if (writing) wp_q <= wp_q + 1'b1;
    end
  end

  assign busy       = busy_q;
  assign last       = busy_q && (cnt_q == len_q);
  assign sp_rd_en   = reading && dir_q;
  assign sp_rd_addr = rp_q;
  assign sp_wr_en   = writing && !dir_q;
  assign sp_wr_addr = wp_q;
  assign sp_wr_data = ext_rdata;
  assign ext_en     = dir_q ? writing : reading;
  assign ext_we     = writing && dir_q;
  assign ext_addr   = dir_q ? wp_q : rp_q;
  assign ext_wdata  = sp_rd_data;
endmodule
`resetall
