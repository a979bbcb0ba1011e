`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_rqc_busy_f: ga2_rqc (RQC) busy for exactly M * (3N + 1) + 1 cycles after each start
// (its record's formula, model/ops/rqc.py; tests/flow/test_formal.py holds the two equal),
// last in the final one, for 1 <= M, N <= LMAX and every instruction the decoder accepts
// on a SP_WORDS-word scratchpad, every read value, a start free in every cycle after the
// reset (a start while busy is a restart): busy_chk.vh, by k-induction (yosys-smtbmc with
// z3) instead of the generated wrapper's pdr, which did not close in 900 s (the formula
// is a product of two fields).
// The lemmas that make the induction close are asserted too (so proven, not assumed):
// while busy the unit's latched M is the instruction's, csc + N is its column end (mod
// 2^SAW), the rows started ri_q lie in 1..M (0..M in S_ROW), the element index jj (the
// column pointer's distance from csc, less one in S_M, where it has stepped) lies below
// N, and the cycle count of busy_chk.vh is the unit's position in the job:
// ri * (3N + 1) + 1 in S_ROW, (ri - 1) * (3N + 1) + 2 + 3 jj in S_A, + 1 in S_C, + 2
// in S_M. The unit's registers are read through `expose` (tb/formal/props.py).
module ga2_rqc_busy_f #(
  parameter SP_WORDS = 16, parameter LMAX = 16, parameter CW = 20, parameter PLUS = 0
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [`GA2_RQC_M_W-1:0] m, input wire [`GA2_RQC_N_W-1:0] n,
  input wire [`GA2_RQC_LD_W-1:0] ld, input wire [`GA2_ADDR_W-1:0] rsc,
  input wire [`GA2_RQC_RSTRIDE_W-1:0] rstride, input wire [`GA2_ADDR_W-1:0] csc,
  input wire [`GA2_RQC_Q_W-1:0] q, input wire [31:0] rd_data
);
  localparam SAW  = $clog2(SP_WORDS);
  localparam MMAX = (SP_WORDS < 255) ? SP_WORDS : 255;
  localparam MW   = $clog2(MMAX + 1);
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  wire [1:0] st_q;
  wire [MW-1:0] ri_q, m_q;
  wire [SAW-1:0] cs_q, cp_q, ce_q;
  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_RQC_WORD(dst, src, m, n, ld, rsc, rstride, csc, q);
  ga2_rqc dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr),
    .wr_data(wr_data), .st_q(st_q), .ri_q(ri_q), .m_q(m_q), .cs_q(cs_q), .cp_q(cp_q), .ce_q(ce_q)
  );
  // the decoder's checks of RQC (model/ops/rqc.py's shape and ranges) on SP_WORDS words,
  // with M and N at most LMAX
  wire [31:0] M = {24'd0, m}, N = {19'd0, n};
  wire legal = M >= 1 && M <= LMAX && N >= 1 && N <= LMAX
            && src + M * ld - ld + N <= SP_WORDS && rsc + M * rstride - rstride + 1 <= SP_WORDS
            && csc + N <= SP_WORDS && dst + M * N <= SP_WORDS;
  wire [31:0] busy_new = M * (3 * N + 1) + 1 + PLUS;     // PLUS: a planted bug (props.py)
  wire [CW-1:0] L_new = busy_new[CW-1:0];
`include "busy_chk.vh"

  // the lemmas, over the latched instruction's M and N
  reg [MW-1:0] lm_q;
  reg [SAW:0]  ln_q;                 // N <= LMAX <= SP_WORDS: SAW + 1 bits
  always @(posedge clk) begin
    if (start) begin
      lm_q <= m[MW-1:0];
      ln_q <= n[SAW:0];
    end
  end
  localparam [1:0] S_ROW = 2'd0, S_A = 2'd1, S_C = 2'd2, S_M = 2'd3;
  wire [SAW-1:0] jj = cp_q - cs_q - {{(SAW-1){1'b0}}, st_q == S_M};
  wire [SAW-1:0] nn = ce_q - cs_q;
  wire [CW-1:0]  row = {{(CW-SAW-1){1'b0}}, ln_q} * 3 + 1;          // 3N + 1
  wire [CW-1:0]  ri  = {{(CW-MW){1'b0}}, ri_q};
  wire [CW-1:0]  j3  = {{(CW-SAW){1'b0}}, jj} * 3;
  always @* begin
    if (!init_q && !rst && busy) begin
      assert (act_q && m_q == lm_q && lm_q >= 1 && lm_q <= LMAX && ln_q >= 1 && ln_q <= LMAX);
      assert (nn == ln_q[SAW-1:0] && L_q == {{(CW-MW){1'b0}}, lm_q} * row + 1 + PLUS);
      if (st_q == S_ROW) begin
        assert (ri_q <= lm_q && cnt_q == ri * row + 1);
      end else begin
        assert (ri_q >= 1 && ri_q <= lm_q && {1'b0, jj} < ln_q);
        assert (cnt_q == (ri - 1) * row + 2 + j3 + (st_q == S_C) + 2 * (st_q == S_M));
      end
    end
  end
endmodule
`resetall
