`resetall
`timescale 1ns/1ps
`default_nettype none
// restart_rd: one read port of the restart check's read-only memory model (restart_chk.v).
// q loads f(addr) at the clock edge of a cycle with en high (one cycle of read latency,
// as rtl/ga2_sram.v) and holds otherwise; it powers up 0, as ga2_sram's read registers
// (mm_ctrl feeds A's port data ungated). f (mix) is addr * 32'h9E3779B1 with its high half
// folded into the low, XOR SALT, so every byte varies; q is its low W bits (W = 8: a
// byte lane). BYTE_PAGE = 1 (the dma's scratchpad): the words at 0xF00..0xFFF read as
// their low byte only, so a lookup there has a row index below 256. Why a module: every
// unit's pair of instances reads through the same model, so A's and B's data are the same
// function of their own enables and addresses.
module restart_rd #(
  parameter        AW        = 16,             // address width
  parameter        W         = 32,             // read data width (32, or 8: the low byte)
  parameter [31:0] SALT      = 32'h5A5A1234,   // the memory's salt (scratchpad; ext: C3A50F69)
  parameter        BYTE_PAGE = 0               // 1: 0xF00..0xFFF read as one byte (dma)
) (
  input  wire          clk,
  input  wire          en,
  input  wire [AW-1:0] addr,
  output reg  [W-1:0]  q
);
  function [W-1:0] word;
    input [AW-1:0] a;
    reg   [31:0]   p;
    /* verilator lint_off UNUSEDSIGNAL */
    // a byte lane (W = 8) keeps only the low byte of the word
    reg   [31:0]   w;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
      p = {{(32 - AW){1'b0}}, a} * 32'h9E3779B1;
      w = p ^ {16'd0, p[31:16]} ^ SALT;        // the high bits folded into every byte
      if (BYTE_PAGE != 0 && a[11:8] == 4'hF) w = {24'd0, w[7:0]};
      word = w[W-1:0];
    end
  endfunction

  initial q = {W{1'b0}};
  always @(posedge clk) begin
    if (en) q <= word(addr);
  end
endmodule
`resetall
