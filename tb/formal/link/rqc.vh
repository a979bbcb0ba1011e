// The link lemmas of ga2_rqc (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_rqc (RQC): reads the src hull src..src+(M-1)*ld+N-1, the row scales
// rsc..rsc+(M-1)*rstride and the column scales csc..csc+N-1 (ga2_decode's read slots 0, 1,
// 2), writes dst..dst+M*N-1; every scratchpad access lies in the range ga2_decode reports
// for the started instruction (the range ga2_hazard reserves for it), and happens only
// while the unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a
// free instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad,
// all data free. pdr on the generated wrapper timed out (600 s): k-induction with the
// lemmas below (LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION).
  // k-induction: ga2_rqc elaborated with SP_WORDS = 16 and its registers made ports
  // (`expose`) before this file is read
  localparam MW = $clog2(((SP_WORDS < 255) ? SP_WORDS : 255) + 1);
  wire [1:0] st_q;
  wire w_q;
  wire [MW-1:0] ri_q, m_q;
  wire [SAW-1:0] rb_q, ap_q, ld_q, rp_q, rs_q, cs_q, cp_q, ce_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed), over the
  // started instruction's M, N, ld, rstride (latched here) and the latched ranges: while
  // busy the unit's fields are the instruction's (ld, rstride in SAW bits), the three read
  // slots and the write range valid with their last words at the record's extents (no
  // wrap: 12-bit sums); ri rows started (1..M in an element's phases, i = ri - 1 its row;
  // 0..M in S_ROW, the next row i = ri: ii); jj the element (the column pointer's distance
  // from csc, less one in S_M) below N; the pointers at src + i*ld (+ jj, + 1 once read),
  // rsc + ri*rstride, csc + jj, dst + i*N + jj less the write still due (w_q: the cycle
  // after S_M).
  localparam [1:0] S_ROW = 2'd0, S_A = 2'd1, S_C = 2'd2, S_M = 2'd3;
  reg [MW-1:0] lm_q;
  reg [SAW:0]  ln_q;
  reg [SAW-1:0] lld_q, lrs_q;
  always @(posedge clk) begin
    if (start) begin
      lm_q  <= instr[`GA2_RQC_M_LSB +: MW];
      ln_q  <= instr[`GA2_RQC_N_LSB +: SAW + 1];
      lld_q <= instr[`GA2_RQC_LD_LSB +: SAW];
      lrs_q <= instr[`GA2_RQC_RSTRIDE_LSB +: SAW];
    end
  end
  wire [11:0] M = {{(12-MW){1'b0}}, lm_q}, N = {{(11-SAW){1'b0}}, ln_q};
  wire [11:0] LD = {{(12-SAW){1'b0}}, lld_q}, RS = {{(12-SAW){1'b0}}, lrs_q};
  wire [11:0] ri = {{(12-MW){1'b0}}, ri_q};
  wire [11:0] ii = (st_q == S_ROW) ? ri : ri - 1'b1;
  wire [SAW-1:0] jj = cp_q - cs_q - {{(SAW-1){1'b0}}, st_q == S_M};
  wire [11:0] j  = {{(12-SAW){1'b0}}, jj};
  wire [11:0] f0 = {{(12-SAW){1'b0}}, r0f_q}, f1 = {{(12-SAW){1'b0}}, r1f_q};
  wire [11:0] f2 = {{(12-SAW){1'b0}}, rf_q[2*SAW +: SAW]}, fw = {{(12-SAW){1'b0}}, wf_q};
  wire [11:0] rb = f0 + ii * LD;
  wire [11:0] wq = {11'd0, w_q};
  always @* begin
    if (!init_q && busy) begin
      assert (rv_q == 3'b111 && wv_q && m_q == lm_q && M >= 1 && N >= 1 && N <= SP_WORDS);
      assert (ld_q == lld_q && rs_q == lrs_q && (M == 1 || LD < SP_WORDS));
      assert (f0 + (M - 1) * LD + N - 1 == {{(12-SAW){1'b0}}, r0l_q});
      assert (f1 + (M - 1) * RS == {{(12-SAW){1'b0}}, r1l_q});
      assert (f2 + N - 1 == {{(12-SAW){1'b0}}, rl_q[2*SAW +: SAW]});
      assert (fw + M * N - 1 == {{(12-SAW){1'b0}}, wl_q});
      assert (cs_q == rf_q[2*SAW +: SAW] && ce_q == cs_q + ln_q[SAW-1:0]);
      assert (rp_q == f1[SAW-1:0] + ri[SAW-1:0] * lrs_q && ri <= M);
      if (st_q == S_ROW) begin
        assert (rb_q == rb[SAW-1:0] && ap_q == rb_q && w_q == (ri != 0));
        assert (wp_q == fw[SAW-1:0] + ri[SAW-1:0] * ln_q[SAW-1:0] - w_q);
      end else begin
        assert (ri >= 1 && j < N && rb_q == rb[SAW-1:0] && (ii == 0 || ii * LD < SP_WORDS));
        assert (ap_q == rb_q + jj + (st_q != S_A));
        assert (w_q == (st_q == S_A && j != 0));
        assert (wp_q == fw[SAW-1:0] + ii[SAW-1:0] * ln_q[SAW-1:0] + jj - w_q);
      end
    end
  end
