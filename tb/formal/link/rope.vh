// The link lemmas of ga2_rope (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_rope (ROPE): reads src..src+2 pairs heads-1 and the cos/sin row
// cs..cs+2 pairs-1 (once a head), writes dst..dst+2 pairs heads-1; every scratchpad access
// lies in the range ga2_decode reports for the started instruction (the range ga2_hazard
// reserves for it), and happens only while the unit is busy (range_chk.vh). The unit sits
// behind the chip's own decoder on a free instruction word (range_dec.vh), wired as in
// ga2_top; SP_WORDS-word scratchpad, all data free (the datapath cut: tb/formal/props.py
// LINK_CUTS).
  // k-induction (tb/formal/props.py link(..., induction=True)): ga2_rope elaborated
  // with SP_WORDS = 16 and its registers made ports (`expose`) before this file is read
  wire [5:0] ph_q;
  wire pend_q;
  wire [$clog2(`GA2_ROPE_MAX_PAIRS)-1:0] j_q;
  wire [`GA2_ROPE_PAIRS_W-1:0] pairs_q;
  wire [`GA2_ROPE_HEADS_W-1:0] hd_q, heads_q;
  wire [SAW-1:0] cs_q, cp_q, xp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, j < pairs, 2 pairs heads <= SP_WORDS, hd <= heads, the phase one-hot and the
  // first one with j = 0 when hd = heads; pend is "phase 0 after a pair"; the latched
  // ranges are src .. src + 2 pairs heads - 1, cs .. cs + 2 pairs - 1, dst .. dst + 2 pairs
  // heads - 1 (no wrap), cs_q the row's start; with q = hd pairs + j the pairs done,
  // src's pointer is src + 2q (+ 1 after phase 3, + 2 after phase 4), the row's cs + 2j
  // (+ 1 after phase 0, + 2 after phase 1), dst's dst + 2q (- 1 in phase 0 with pend, + 1
  // in phase 5).
  wire [31:0] P = {26'd0, pairs_q}, H = {24'd0, heads_q}, J = {27'd0, j_q}, D = {24'd0, hd_q};
  wire [31:0] q2 = 2 * (D * P + J);
  wire [31:0] xoff = ph_q[4] || ph_q[5] ? 32'd2 : ph_q[3] ? 32'd1 : 32'd0;
  wire [31:0] coff = ph_q[0] ? 32'd0 : ph_q[1] ? 32'd1 : 32'd2;
  wire [31:0] woff = ph_q[5] ? 32'd1 : 32'd0;
  wire [SAW-1:0] xp_want = r0f_q + q2[SAW-1:0] + xoff[SAW-1:0];
  wire [31:0] r2 = 2 * J;
  wire [SAW-1:0] cp_want = r1f_q + r2[SAW-1:0] + coff[SAW-1:0];
  wire [SAW-1:0] wp_want = wf_q + q2[SAW-1:0] + woff[SAW-1:0] - pend_q;
  wire onehot = (ph_q == 6'd1 || ph_q == 6'd2 || ph_q == 6'd4 || ph_q == 6'd8 || ph_q == 6'd16 || ph_q == 6'd32);
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && r1v_q && wv_q && onehot);
      assert (J < P && 2 * P * H <= SP_WORDS && D <= H);
      assert (D != H || (ph_q[0] && J == 0));
      assert (pend_q == (ph_q[0] && (D != 0 || J != 0)));
      assert ({1'b0, r0f_q} + 2 * P * H - 1 == {1'b0, r0l_q});
      assert ({1'b0, r1f_q} + 2 * P - 1 == {1'b0, r1l_q});
      assert ({1'b0, wf_q} + 2 * P * H - 1 == {1'b0, wl_q});
      assert (cs_q == r1f_q);
      assert (xp_q == xp_want && cp_q == cp_want && wp_q == wp_want);
    end
  end
