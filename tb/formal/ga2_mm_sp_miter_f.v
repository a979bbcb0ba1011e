`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_mm_sp_miter_f: the MM unit (ga2_mm_ctrl with its array) and a mutant of it
// (modules `gold` and `gate`, built by tb/formal/compose.py mm_sp_check from
// tb/formal/miter.py build_sides) reading ONE scratchpad: a ga2_sram of SP_WORDS words,
// read ports 0..7 the gold's, 8..15 the gate's, written by the gold's write port and by
// a free external writer that writes only while the MM is idle (the hazard check's
// guarantee: no other unit writes while the MM runs). Asserted: busy, last, wr_en equal
// in every cycle, wr_addr and wr_data while wr_en. Not compared: the read enables and
// addresses (the mutant reads the old C word one cycle early: that is the point).
// Assumed at start: the decoder's shape check (M, N 1..4, K >= 1). Everything else free.
module ga2_mm_sp_miter_f #(
  parameter SP_WORDS = 16,
  parameter SAW = 4,
  parameter XFREE = 0          // 1 (planted): the others may write while the MM runs
) (
  input wire                       clk,
  input wire                       rst,
  input wire                       start,
  input wire [`GA2_ADDR_W-1:0]     dst,
  input wire [`GA2_ADDR_W-1:0]     a_base,
  input wire [`GA2_ADDR_W-1:0]     b_base,
  input wire [`GA2_MM_M_W-1:0]     m,
  input wire [`GA2_MM_K_W-1:0]     k,
  input wire [`GA2_MM_N_W-1:0]     n,
  input wire                       tb,
  input wire [`GA2_MM_LDA_W-1:0]   lda,
  input wire [`GA2_MM_LDB_W-1:0]   ldb,
  input wire [`GA2_MM_LDC_W-1:0]   ldc,
  input wire                       acc,
  input wire                       x_en,
  input wire [SAW-1:0]             x_addr,
  input wire [31:0]                x_data
);
  localparam NP = 2 * `GA2_ARRAY;
  localparam AW = `GA2_ADDR_W;
  wire          g_busy, g_last, g_wr_en, t_busy, t_last, t_wr_en;
  wire [NP-1:0] g_rd_en, t_rd_en;
  wire [NP*AW-1:0] g_rd_addr, t_rd_addr;
  wire [AW-1:0] g_wr_addr, t_wr_addr;
  wire [31:0]   g_wr_data, t_wr_data;
  wire [2*NP*32-1:0] rdata;
  wire [2*NP*SAW-1:0] raddr;
  wire [NP*8-1:0] g_byte, t_byte;

  genvar p;
  generate
    for (p = 0; p < NP; p = p + 1) begin : g_port
      assign raddr[p*SAW +: SAW]        = g_rd_addr[p*AW +: SAW];
      assign raddr[(NP+p)*SAW +: SAW]   = t_rd_addr[p*AW +: SAW];
      assign g_byte[8*p +: 8]           = rdata[p*32 +: 8];
      assign t_byte[8*p +: 8]           = rdata[(NP+p)*32 +: 8];
    end
  endgenerate

  wire xw = x_en && (XFREE != 0 || !g_busy);          // the others write only while the MM is idle

  ga2_sram #(.WORDS(SP_WORDS), .AW(SAW), .DW(32), .NUM_RD(2 * NP), .NUM_WR(2)) u_sp (
    .clk(clk), .rd_en({t_rd_en, g_rd_en}), .rd_addr(raddr), .rd_data(rdata),
    .wr_en({xw, g_wr_en}), .wr_addr({x_addr, g_wr_addr[SAW-1:0]}), .wr_data({x_data, g_wr_data})
  );

  gold u_gold (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .a_base(a_base), .b_base(b_base), .m(m), .k(k),
    .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc), .acc(acc), .busy(g_busy), .last(g_last),
    .rd_en(g_rd_en), .rd_addr(g_rd_addr), .rd_byte(g_byte), .rd_word0(rdata[31:0]),
    .wr_en(g_wr_en), .wr_addr(g_wr_addr), .wr_data(g_wr_data)
  );
  gate u_gate (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .a_base(a_base), .b_base(b_base), .m(m), .k(k),
    .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc), .acc(acc), .busy(t_busy), .last(t_last),
    .rd_en(t_rd_en), .rd_addr(t_rd_addr), .rd_byte(t_byte), .rd_word0(rdata[NP*32 +: 32]),
    .wr_en(t_wr_en), .wr_addr(t_wr_addr), .wr_data(t_wr_data)
  );

  always @* begin
    assume (!start || (m >= 1 && m <= 4 && n >= 1 && n <= 4 && k >= 1));
    assert (g_busy == t_busy && g_last == t_last && g_wr_en == t_wr_en);
    if (g_wr_en) assert (g_wr_addr == t_wr_addr && g_wr_data == t_wr_data);
  end
endmodule
`resetall
