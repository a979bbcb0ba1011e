`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_dma: LD (dir = 0: ext[ext_base ..] -> sp[sp_base ..]) and ST (dir = 1: sp -> ext).
// One word per cycle: word i is read at busy cycle i and written at cycle i+1 (both
// memories have one cycle of read latency), so the unit is busy exactly len+1 cycles.
// Two pointers, one per memory: sp_q (the scratchpad: read for ST, written for LD) and
// ep_q (the external memory: read for LD, written for ST), each as wide as its memory's
// addresses (docs/rtl.md "Register widths").
module ga2_dma #(
  parameter SP_WORDS  = `GA2_SP_WORDS,        // the scratchpad's words: sp_q's width
  parameter EXT_WORDS = `GA2_EXT_WORDS        // the external memory's words: ep_q's width
) (
  input  wire                     clk,
  input  wire                     rst,
  input  wire                     start,
  input  wire                     dir,          // 0 = LD, 1 = ST
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: the decoder has range-checked them, only the low SAW / EAW bits are kept
  input  wire [`GA2_ADDR_W-1:0]   sp_base,
  input  wire [`GA2_ADDR_W-1:0]   ext_base,
  /* verilator lint_on UNUSEDSIGNAL */
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
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (EXT_WORDS < 1 || EXT_WORDS > 65536) begin
      $error("%m: EXT_WORDS=%0d outside 1..65536", EXT_WORDS);
      $finish;
    end
  end

  localparam LW  = `GA2_LD_LEN_W;
  localparam SAW = $clog2(SP_WORDS);                          // scratchpad address width
  localparam EAW = (EXT_WORDS > 1) ? $clog2(EXT_WORDS) : 1;   // external address width

  reg           busy_q, dir_q;
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] sp_q;          // the scratchpad pointer
  reg [EAW-1:0] ep_q;          // the external pointer

  // one compare ends the transfer: the read enable and last are its two sides, so the
  // unit reads exactly len words and finishes in the cycle after the last read
  wire at_end  = (cnt_q == len_q);
  wire reading = busy_q && !at_end;
  wire writing = busy_q && (cnt_q != {LW{1'b0}});

  // control: reset. ep_q keeps its reset: ext_addr (a chip output) is ep_q, and it is 0
  // from reset to the first start (docs/isa.md "Per-cycle rules", rule 3)
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      ep_q   <= {EAW{1'b0}};
    end else if (start) begin
      busy_q <= 1'b1;
      ep_q   <= ext_base[EAW-1:0];
    end else if (busy_q) begin
      if (ext_en) ep_q <= ep_q + 1'b1;
      if (last) busy_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy_q (reading, writing, last; dir_q only selects between two enables
  // that are both low while idle), sp_q reaches the scratchpad only with sp_rd_en /
  // sp_wr_en
  always @(posedge clk) begin
    if (start) begin
      dir_q <= dir;
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      sp_q  <= sp_base[SAW-1:0];
    end else if (busy_q) begin
      cnt_q <= cnt_q + 1'b1;
      if (sp_rd_en || sp_wr_en) sp_q <= sp_q + 1'b1;
    end
  end

  assign busy       = busy_q;
  assign last       = busy_q && at_end;
  assign sp_rd_en   = reading && dir_q;
  assign sp_wr_en   = writing && !dir_q;
  assign sp_wr_data = ext_rdata;
  assign ext_en     = dir_q ? writing : reading;
  assign ext_we     = writing && dir_q;
  assign ext_wdata  = sp_rd_data;
  /* verilator lint_off WIDTH */
  // zero extension of the pointers to the ISA-width ports
  assign sp_rd_addr = sp_q;
  assign sp_wr_addr = sp_q;
  assign ext_addr   = ep_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
