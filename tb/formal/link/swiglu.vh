// The link lemmas of ga2_swiglu (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_swiglu (SWIGLU): reads src..src+len-1 and src2..src2+len-1,
// writes dst..dst+len-1; every scratchpad access lies in the range ga2_decode reports for
// the started instruction (the range ga2_hazard reserves for it), and happens only while
// the unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a free
// instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data
// free (the datapath cut: tb/formal/props.py LINK_CUTS).
  // k-induction (tb/formal/props.py link(..., induction=True)): ga2_swiglu elaborated
  // with SP_WORDS = 16 and its registers made ports (`expose`) before this file is read
  wire [2:0] ph_q;
  wire [`GA2_SWIGLU_LEN_W-1:0] cnt_q, len_q;
  wire [SAW-1:0] ap_q, bp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len, the phase 0..5 and 0 when cnt = len; each
  // latched range is base .. base + len - 1 (no wrap); src's pointer is src + cnt, plus
  // one after phase 0 (it steps in every phase 0); src2's src2 + cnt, plus one after
  // phase 1; dst's dst + cnt, less one in a phase 0 after the first element (that
  // phase's write is still to come).
  wire [SAW:0] len5 = len_q[SAW:0];
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (ph_q <= 3'd5 && (cnt_q != len_q || ph_q == 3'd0));
      assert ({1'b0, r0f_q} + len5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, r1f_q} + len5 - 1'b1 == {1'b0, r1l_q});
      assert ({1'b0, wf_q} + len5 - 1'b1 == {1'b0, wl_q});
      assert (ap_q == r0f_q + cnt_q[SAW-1:0] + (ph_q != 3'd0));
      assert (bp_q == r1f_q + cnt_q[SAW-1:0] + (ph_q >= 3'd2));
      assert (wp_q == wf_q + cnt_q[SAW-1:0] - (ph_q == 3'd0 && cnt_q != 0));
    end
  end
