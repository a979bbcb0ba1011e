`default_nettype none
// ga2_softmax_busy_f: ga2_softmax busy for exactly 2 (len + 1) + SM_DIV * len cycles
// (FAST = 0, the in-order mode) or 2 (len + 1) + SM_FAST_TAIL + len (FAST = 1, the
// overlap mode) (model/timing.py sm_busy; docs/isa.md), for 1 <= len <= LMAX and every
// address and input value.
module ga2_softmax_busy_f #(
  parameter FAST = 0, parameter SP_WORDS = 16, parameter LMAX = 2,
  parameter SM_DIV = 34, parameter SM_FAST_TAIL = 34
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [6:0] len, input wire [7:0] rd_byte
);
  localparam CW = 20;
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  ga2_softmax #(.FAST(FAST), .SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .src(src), .len(len), .busy(busy),
    .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_byte(rd_byte), .wr_en(wr_en),
    .wr_addr(wr_addr), .wr_data(wr_data)
  );
  wire legal = len >= 1 && len <= LMAX;
  wire [CW-1:0] L_new = FAST ? 2 * (len + 1) + SM_FAST_TAIL + len : 2 * (len + 1) + SM_DIV * len;
`include "busy_chk.vh"
endmodule
