`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_mm_range_f: ga2_mm_ctrl (MM): its 2 x ARRAY read ports read A's hull (rd0) and B's hull (rd1), it writes dst's hull (ldc strides);
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_mm_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [2*`GA2_ARRAY*8-1:0] rd_byte, input wire [`GA2_ARRAY*8-1:0] rd_ahi,
  input wire [31:0] rd_word0
);
  localparam UNIT = `GA2_U_MM_CTRL;
  localparam NR = 2 * `GA2_ARRAY;
  localparam RDW = 1;                       // MM's acc = 1 reads the old C in its write range
`include "range_dec.vh"
  // the matrix unit's fields, from the instruction word as ga2_top wires them
  wire [AW-1:0] mm_dst = instr[`GA2_MM_DST_LSB +: `GA2_MM_DST_W];
  wire [AW-1:0] mm_a   = instr[`GA2_MM_A_LSB +: `GA2_MM_A_W];
  wire [AW-1:0] mm_b   = instr[`GA2_MM_B_LSB +: `GA2_MM_B_W];
  wire [`GA2_MM_M_W-1:0]   mm_m   = instr[`GA2_MM_M_LSB +: `GA2_MM_M_W];
  wire [`GA2_MM_K_W-1:0]   mm_k   = instr[`GA2_MM_K_LSB +: `GA2_MM_K_W];
  wire [`GA2_MM_N_W-1:0]   mm_n   = instr[`GA2_MM_N_LSB +: `GA2_MM_N_W];
  wire                     mm_tb  = instr[`GA2_MM_TB_LSB];
  wire [`GA2_MM_LDA_W-1:0] mm_lda = instr[`GA2_MM_LDA_LSB +: `GA2_MM_LDA_W];
  wire [`GA2_MM_LDB_W-1:0] mm_ldb = instr[`GA2_MM_LDB_LSB +: `GA2_MM_LDB_W];
  wire [`GA2_MM_LDC_W-1:0] mm_ldc = instr[`GA2_MM_LDC_LSB +: `GA2_MM_LDC_W];
  wire                     mm_acc = instr[`GA2_MM_ACC_LSB];
  wire [`GA2_MM_KHI_W-1:0] mm_khi = instr[`GA2_MM_KHI_LSB +: `GA2_MM_KHI_W];
  wire                     mm_a16 = instr[`GA2_MM_A16_LSB];
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_mm_ctrl elaborated with SP_WORDS
  // = 16, its array cut, its registers made ports (`expose`) before this file is read
  wire [11:0] cyc_q;
  wire [2:0] m_q, n_q;
  wire [10:0] k_q;
  wire [SAW-1:0] ldc_q, b_step_q, row_base_q, ap0, ap1, ap2, ap3, bp0, bp1, bp2, bp3;
  wire [1:0] di_q, dj_q;
  wire [3:1] win_q;
  ga2_mm_ctrl dut (
    .clk(clk), .rst(rst), .start(start), .dst(mm_dst), .a_base(mm_a), .b_base(mm_b), .m(mm_m),
    .k(mm_k), .khi(mm_khi), .a16(mm_a16), .n(mm_n), .tb(mm_tb), .lda(mm_lda), .ldb(mm_ldb),
    .ldc(mm_ldc), .acc(mm_acc), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_byte(rd_byte), .rd_ahi(rd_ahi),
    .rd_word0(rd_word0), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .cyc_q(cyc_q), .m_q(m_q), .n_q(n_q), .k_q(k_q), .ldc_q(ldc_q), .b_step_q(b_step_q),
    .row_base_q(row_base_q), .di_q(di_q), .dj_q(dj_q), .win_q(win_q),
    .\g_feed[0].a_ptr_q (ap0), .\g_feed[0].b_ptr_q (bp0),
    .\g_feed[1].a_ptr_q (ap1), .\g_feed[1].b_ptr_q (bp1),
    .\g_feed[2].a_ptr_q (ap2), .\g_feed[2].b_ptr_q (bp2),
    .\g_feed[3].a_ptr_q (ap3), .\g_feed[3].b_ptr_q (bp3)
  );

`else
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .dst(mm_dst), .a_base(mm_a), .b_base(mm_b), .m(mm_m),
    .k(mm_k), .khi(mm_khi), .a16(mm_a16), .n(mm_n), .tb(mm_tb), .lda(mm_lda), .ldb(mm_ldb),
    .ldc(mm_ldc), .acc(mm_acc), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_byte(rd_byte), .rd_ahi(rd_ahi),
    .rd_word0(rd_word0), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );

`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed), over
  // the instruction's fields latched here at each start: while busy, the unit's copies
  // of M, N, K, ldc and B's step are the fields'; the cycle count is below K + 7 + M N;
  // the windows are row i's cycles i .. i + K - 1; A's row i pointer (i < M) is
  // a + i lda + the reads so far, B's column j pointer (j < N) b + j b_init + the reads
  // so far times b_step; the latched ranges are the hull formulas of the fields (no
  // wrap); in the drain the element index di N + dj is the cycle - K - 7, before it 0;
  // the drain's row base is dst + di ldc.
  reg [2:0] m_l, n_l;
  reg [10:0] k_l;
  reg [11:0] lda_l, ldb_l, ldc_l;
  reg tb_l;
  always @(posedge clk) if (!rst && start) begin
    m_l <= mm_m; n_l <= mm_n; k_l <= {mm_khi, mm_k}; lda_l <= mm_lda; ldb_l <= mm_ldb; ldc_l <= mm_ldc; tb_l <= mm_tb;
  end
  localparam [11:0] FILL = `GA2_MM_FILL;
  wire [11:0] k9 = {1'b0, k_l};
  function [11:0] cnt_of;                   // reads of a port with delay d by cycle c
    input [11:0] c;
    input [11:0] d;
    input [11:0] k;
    begin
      cnt_of = (c < d) ? 12'd0 : ((c - d > k) ? k : c - d);
    end
  endfunction
  wire [SAW-1:0] lda4 = lda_l[SAW-1:0], ldb4 = ldb_l[SAW-1:0], ldc4 = ldc_l[SAW-1:0];
  wire [SAW-1:0] binit = tb_l ? ldb4 : 4'd1, bstep = tb_l ? 4'd1 : ldb4;
  wire [SAW-1:0] ac0 = cnt_of(cyc_q, 12'd0, k9), ac1 = cnt_of(cyc_q, 12'd1, k9),
                 ac2 = cnt_of(cyc_q, 12'd2, k9), ac3 = cnt_of(cyc_q, 12'd3, k9);
  wire [11:0] e9 = cyc_q - k9 - FILL;
  // the pointers' expected values, modulo 2^SAW like the pointers themselves
  wire [SAW-1:0] ax0 = r0f_q + ac0, ax1 = r0f_q + lda4 + ac1, ax2 = r0f_q + {lda4[SAW-2:0], 1'b0} + ac2,
                 ax3 = r0f_q + {lda4[SAW-2:0], 1'b0} + lda4 + ac3;
  wire [SAW-1:0] bx0 = r1f_q + ac0 * bstep, bx1 = r1f_q + binit + ac1 * bstep,
                 bx2 = r1f_q + {binit[SAW-2:0], 1'b0} + ac2 * bstep,
                 bx3 = r1f_q + {binit[SAW-2:0], 1'b0} + binit + ac3 * bstep;
  wire [SAW-1:0] rbx = wf_q + di_q * ldc4;
  wire [23:0] a_last = r0f_q + (m_l - 1) * lda_l + k_l - 1;
  wire [23:0] b_last = tb_l ? r1f_q + (n_l - 1) * ldb_l + k_l - 1 : r1f_q + (k_l - 1) * ldb_l + n_l - 1;
  wire [23:0] d_last = wf_q + (m_l - 1) * ldc_l + n_l - 1;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && r1v_q && wv_q);
      assert (m_q == m_l && n_q == n_l && k_q == k_l && ldc_q == ldc4 && b_step_q == bstep);
      assert (m_l >= 1 && m_l <= 4 && n_l >= 1 && n_l <= 4 && k_l >= 1 && k_l <= SP_WORDS);
      assert (cyc_q < k9 + FILL + m_l * n_l);
      assert (a_last == r0l_q && b_last == r1l_q && d_last == wl_q);
      assert (win_q[1] == (cyc_q >= 1 && cyc_q - 1 < k9));
      assert (win_q[2] == (cyc_q >= 2 && cyc_q - 2 < k9));
      assert (win_q[3] == (cyc_q >= 3 && cyc_q - 3 < k9));
      assert (ap0 == ax0);
      if (m_l > 1) assert (ap1 == ax1);
      if (m_l > 2) assert (ap2 == ax2);
      if (m_l > 3) assert (ap3 == ax3);
      assert (bp0 == bx0);
      if (n_l > 1) assert (bp1 == bx1);
      if (n_l > 2) assert (bp2 == bx2);
      if (n_l > 3) assert (bp3 == bx3);
      if (cyc_q >= k9 + FILL) assert ({10'd0, di_q} * n_l + dj_q == e9 && dj_q < n_l && di_q < m_l);
      else assert (di_q == 0 && dj_q == 0);
      assert (row_base_q == rbx);
    end
  end
`endif
endmodule
`resetall
