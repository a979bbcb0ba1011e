`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_argmax: ARGMAX: sp[dst] = the index of the first maximum of the int32 words
// sp[src .. src+len) (signed compare, a later word replaces the best only when strictly
// greater). Word i is read at busy cycle i and compared at cycle i+1; the one write, the
// index, goes out in cycle len together with the last compare (busy exactly len+1), so
// every read comes before the write. The best starts at the smallest int32 with index 0:
// a word equal to it never replaces it, so the first maximum wins with no special case
// for the first word.
module ga2_argmax #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  input  wire                         clk,
  input  wire                         rst,
  input  wire                         start,
  /* verilator lint_off UNUSEDSIGNAL */
  // the instruction word (ga2_decode has range-checked it): only this unit's fields count
  input  wire [`GA2_INSTR_W-1:0]  instr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire                         busy,
  output wire                         last,
  output wire                         rd_en,
  output wire [`GA2_ADDR_W-1:0]       rd_addr,
  input  wire [31:0]                  rd_data,
  output wire                         wr_en,
  output wire [`GA2_ADDR_W-1:0]       wr_addr,
  output wire [31:0]                  wr_data
);
  // the instruction's fields (model/ops/argmax.py; rtl/ga2_isa.vh)
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: the decoder has range-checked them, only the low bits a unit needs are kept
  wire [`GA2_ADDR_W-1:0] dst = instr[`GA2_ARGMAX_DST_LSB +: `GA2_ARGMAX_DST_W];
  wire [`GA2_ADDR_W-1:0] src = instr[`GA2_ARGMAX_SRC_LSB +: `GA2_ARGMAX_SRC_W];
  wire [`GA2_ARGMAX_LEN_W-1:0] len = instr[`GA2_ARGMAX_LEN_LSB +: `GA2_ARGMAX_LEN_W];
  /* verilator lint_on UNUSEDSIGNAL */
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam LW  = `GA2_ARGMAX_LEN_W;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")

  reg           busy_q;
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] rp_q, wp_q;
  reg [31:0]    best_q;                     // the largest word so far
  reg [SAW-1:0] bi_q;                       // its index (< len <= SP_WORDS)

  // one compare ends the job: the read enable, the write and last are its sides
  wire at_end  = (cnt_q == len_q);
  wire reading = busy_q && !at_end;
  wire have_v  = busy_q && (cnt_q != {LW{1'b0}});     // rd_data is word cnt_q - 1
  /* verilator lint_off WIDTH */
  // the word's index: cnt_q - 1 < len <= SP_WORDS, so its low SAW bits carry it
  wire [SAW-1:0] vi_w  = cnt_q - 1'b1;
  /* verilator lint_on WIDTH */
  wire           gt    = $signed(rd_data) > $signed(best_q);
  wire [SAW-1:0] bi_d  = gt ? vi_w : bi_q;

  // control: reset
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
    end else if (start) begin
      busy_q <= 1'b1;
    end else if (busy_q) begin
      if (last) busy_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy_q (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      cnt_q  <= {LW{1'b0}};
      len_q  <= len;
      rp_q   <= src[SAW-1:0];
      wp_q   <= dst[SAW-1:0];
      best_q <= 32'h8000_0000;               // the smallest int32
      bi_q   <= {SAW{1'b0}};
    end else if (busy_q) begin
      cnt_q <= cnt_q + 1'b1;
      if (reading) rp_q <= rp_q + 1'b1;
      if (have_v && gt) best_q <= rd_data;
      if (have_v) bi_q <= bi_d;
    end
  end

  assign busy    = busy_q;
  assign last    = busy_q && at_end;
  assign rd_en   = reading;
  assign wr_en   = last;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers and index to the ISA-width ports and the word
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  assign wr_data = bi_d;
  /* verilator lint_on WIDTH */
endmodule
`resetall
