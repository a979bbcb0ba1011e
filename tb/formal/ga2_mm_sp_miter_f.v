`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_mm_sp_miter_f: the MM unit (ga2_mm_ctrl with its array) and a mutant of it
// (modules `gold` and `gate`, built by tb/formal/compose.py mm_sp_check from
// tb/formal/miter.py build_sides) reading ONE scratchpad: a ga2_sram of SP_WORDS words,
// read ports 0..7 the gold's, 8..15 the gate's, written by the gold's write port and by
// two free writers (the vector unit's and the DMA's ports) that never write the MM's write range while
// the MM runs: ga2_decode's hull of C, dst .. dst + (M-1)*ldc + N - 1, which ga2_hazard
// keeps every other unit's write off while the MM is busy (WAW, both ways: a unit in
// flight when the MM is issued, or issued after it). Asserted: busy, last, wr_en equal
// in every cycle, wr_addr and wr_data while wr_en. Not compared: the read enables and
// addresses (the mutant reads the old C word one cycle early: that is the point).
// Assumed at start: the decoder's checks of an MM's fields that matter here, the shape
// (M, N 1..4, K >= 1, code 4) and its C hull inside the scratchpad (code 2). Everything
// else free: restarts, reset, every address and data word of the other writer.
// GA2_MM_SP_INV (tb/formal/compose.py mm_sp_inv_check): the invariant that makes this
// inductive, asserted too -- every register of the two copies equal (the copies built
// with `expose -dff`, the connections and the comparison generated into mm_sp_*.vh) but
// row 0's A operands, and below, why those and port 0's data may differ.
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
  input wire [31:0]                x_data,
  input wire                       y_en,
  input wire [SAW-1:0]             y_addr,
  input wire [31:0]                y_data
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
`ifdef GA2_MM_SP_INV
`include "mm_sp_regs.vh"     // g_r_* / t_r_*: the copies' registers; regs_eq: all equal but row 0's A
`endif

  genvar p;
  generate
    for (p = 0; p < NP; p = p + 1) begin : g_port
      assign raddr[p*SAW +: SAW]        = g_rd_addr[p*AW +: SAW];
      assign raddr[(NP+p)*SAW +: SAW]   = t_rd_addr[p*AW +: SAW];
      assign g_byte[8*p +: 8]           = rdata[p*32 +: 8];
      assign t_byte[8*p +: 8]           = rdata[(NP+p)*32 +: 8];
    end
  endgenerate

  // the MM's C hull, held from its start (ga2_hazard's mm_wr); the others' writes kept off
  // it while the MM is busy (XFREE = 1, planted: not kept off)
  // (M - 1) * ldc from a shift and an add: M is 1..4 whenever it counts (the contract)
  wire [2:0]   m1 = m - 3'd1;
  wire [31:0]  c_end = {16'd0, dst} + (m1[1] ? {19'd0, ldc, 1'b0} : 32'd0) + (m1[0] ? {20'd0, ldc} : 32'd0)
                       + {29'd0, n};
  reg [AW-1:0] c_first_q = {AW{1'b0}};
  reg [31:0]   c_end_q = 32'd0;
  always @(posedge clk) begin
    if (start) begin
      c_first_q <= dst;
      c_end_q   <= c_end;
    end
  end
  wire x_in_c = ({{(32-AW){1'b0}}, c_first_q} <= x_addr) && (x_addr < c_end_q);
  wire y_in_c = ({{(32-AW){1'b0}}, c_first_q} <= y_addr) && (y_addr < c_end_q);
  wire xw = x_en && (XFREE != 0 || !g_busy || !x_in_c);
  wire yw = y_en && (XFREE != 0 || !g_busy || !y_in_c);

  // the chip's three write ports (ga2_sp_xbar): the vector unit's (x), the MM's, the DMA's (y)
  ga2_sram #(.WORDS(SP_WORDS), .AW(SAW), .DW(32), .NUM_RD(2 * NP), .NUM_WR(3)) u_sp (
    .clk(clk), .rd_en({t_rd_en, g_rd_en}), .rd_addr(raddr), .rd_data(rdata),
    .wr_en({yw, g_wr_en, xw}), .wr_addr({y_addr, g_wr_addr[SAW-1:0], x_addr}),
    .wr_data({y_data, g_wr_data, x_data})
  );

  gold u_gold (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .a_base(a_base), .b_base(b_base), .m(m), .k(k),
    .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc), .acc(acc), .busy(g_busy), .last(g_last),
    .rd_en(g_rd_en), .rd_addr(g_rd_addr), .rd_byte(g_byte), .rd_word0(rdata[31:0]),
    .khi(3'd0), .a16(1'b0), .rd_ahi({`GA2_ARRAY{8'd0}}),
    .wr_en(g_wr_en), .wr_addr(g_wr_addr), .wr_data(g_wr_data)
`ifdef GA2_MM_SP_INV
`include "mm_sp_conn_g.vh"
`endif
  );
  gate u_gate (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .a_base(a_base), .b_base(b_base), .m(m), .k(k),
    .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc), .acc(acc), .busy(t_busy), .last(t_last),
    .rd_en(t_rd_en), .rd_addr(t_rd_addr), .rd_byte(t_byte), .rd_word0(rdata[NP*32 +: 32]),
    .khi(3'd0), .a16(1'b0), .rd_ahi({`GA2_ARRAY{8'd0}}),
    .wr_en(t_wr_en), .wr_addr(t_wr_addr), .wr_data(t_wr_data)
`ifdef GA2_MM_SP_INV
`include "mm_sp_conn_t.vh"
`endif
  );

  always @* begin
    assume (!start || (m >= 1 && m <= 4 && n >= 1 && n <= 4 && k >= 1));
    assume (!start || c_end <= SP_WORDS);
    assert (g_busy == t_busy && g_last == t_last && g_wr_en == t_wr_en);
    if (g_wr_en) assert (g_wr_addr == t_wr_addr && g_wr_data == t_wr_data);
  end

`ifdef GA2_MM_SP_INV
  // The two differ in one thing: the gate reads port 0 (the old C word) one cycle before
  // the gold (cycle K+5 of the MM, the gold in K+6). So port 0's data register (gold:
  // sram port 0, gate: port NP) may differ from the gate's lone read until the gold's next
  // read of port 0 (f_q); then it holds the same word, as nothing writes it in between
  // (the gold writes only in the drain, from K+7; the others only while it is idle). Port
  // 0's data feeds row 0's A operand, so row 0's A registers may differ too, where they
  // meet B = 0 only: while f_q, no B operand is valid and no feed window is open beyond
  // win[0] (win[0] is closed at K+5 and K+6; after a restart it opens, and the gold then
  // reads port 0 in that very cycle); a difference in PE (0, j)'s A register is one that
  // entered j + 1 cycles ago, so column j + 1's and later columns' B are still 0.
  reg f_q = 1'b0;
  always @(posedge clk) f_q <= (t_rd_en[0] && !g_rd_en[0]) || (f_q && !g_rd_en[0]);
  wire [3:0] bv = {g_r_g_feed_3__b_v_q, g_r_g_feed_2__b_v_q, g_r_g_feed_1__b_v_q, g_r_g_feed_0__b_v_q};
  wire [3:1] wq = g_r_win_q;
  wire [2:0] a_ne = {g_r_u_array_g_row_0__g_col_2__u_pe_a_out != t_r_u_array_g_row_0__g_col_2__u_pe_a_out,
                     g_r_u_array_g_row_0__g_col_1__u_pe_a_out != t_r_u_array_g_row_0__g_col_1__u_pe_a_out,
                     g_r_u_array_g_row_0__g_col_0__u_pe_a_out != t_r_u_array_g_row_0__g_col_0__u_pe_a_out};
  // di * N (N is 1..4 while busy) without a multiplier
  wire [4:0] di_n = (g_r_n_q == 3'd1) ? {3'd0, g_r_di_q} : (g_r_n_q == 3'd2) ? {2'd0, g_r_di_q, 1'b0} :
                    (g_r_n_q == 3'd3) ? {2'd0, g_r_di_q, 1'b0} + {3'd0, g_r_di_q} : {1'd0, g_r_di_q, 2'b0};
  always @* begin
    assert (regs_eq);
    assert (rdata[NP*32-1:32] == rdata[2*NP*32-1:NP*32+32]);           // ports 1..7: equal
    assert (f_q || rdata[31:0] == rdata[NP*32 +: 32]);                  // port 0: unless f_q
    assert (!f_q || (bv == 4'd0 && wq == 3'd0));
    assert (!a_ne[0] || (bv[3:1] == 3'd0 && wq[3:2] == 2'd0));
    assert (!a_ne[1] || (bv[3:2] == 2'd0 && wq[3] == 1'b0));
    assert (!a_ne[2] || bv[3] == 1'b0);
    // the gold's own lemmas: a feed window k cycles long, m >= 1 while busy
    assert (!wq[1] || (g_r_busy_q && g_r_cyc_q < g_r_k_q + 1));
    assert (!wq[2] || (g_r_busy_q && g_r_cyc_q < g_r_k_q + 2));
    assert (!wq[3] || (g_r_busy_q && g_r_cyc_q < g_r_k_q + 3));
    assert (!g_r_busy_q || (g_r_m_q != 3'd0 && g_r_m_q <= 3'd4 && g_r_n_q != 3'd0 && g_r_n_q <= 3'd4));
    // the drain's position: C element di * N + dj is written in cycle K + FILL + di * N + dj
    // (so busy ends by K + FILL + M * N - 1: the cycle counter never wraps)
    assert (!g_r_busy_q || (g_r_cyc_q < g_r_k_q + `GA2_MM_FILL ? (g_r_di_q == 2'd0 && g_r_dj_q == 2'd0) :
            ({1'b0, g_r_di_q} < g_r_m_q && {1'b0, g_r_dj_q} < g_r_n_q &&
             g_r_cyc_q - g_r_k_q - `GA2_MM_FILL == {27'd0, di_n} + {30'd0, g_r_dj_q})));
    // until the drain, the C row base is the hull's first word (so the others never write it)
    assert (!g_r_busy_q || g_r_cyc_q > g_r_k_q + `GA2_MM_FILL - 1 ||
            ({{(AW-SAW){1'b0}}, g_r_row_base_q} == c_first_q && {16'd0, c_first_q} < c_end_q));
  end
`endif
endmodule
`resetall
