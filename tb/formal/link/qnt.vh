// The link lemmas of ga2_qnt (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_qnt (QNT): reads src..src+len-1 (twice), writes dst..dst+len (the
// q_i and the scale word); every scratchpad access lies in the range ga2_decode reports
// for the started instruction (the range ga2_hazard reserves for it), and happens only
// while the unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a
// free instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad,
// all data free.
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_qnt elaborated with SP_WORDS
  // = 16, its datapath cut and its registers made ports (`expose`) before this file is read
  wire [3:0] state_q;
  wire [6:0] cnt_q;                 // SP_WORDS = 16: the phase counter 7 bits, len_q 4
  wire [3:0] len_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, a valid state, cnt <= len in the two passes, the latched
  // src is the read range's first word, the read range is src .. src + len - 1 and the
  // write range dst .. dst + len; the read pointer is src + cnt in the passes, src
  // between them and src + len after the second; the write pointer dst + cnt - 1 in
  // S_P2 once cnt >= 1, dst before it and dst + len after it (the scale word's word).
  localparam [3:0] S_P1 = 4'd1, S_P2 = 4'd8, S_LM = 4'd9, S_DM = 4'd10, S_WS = 4'd11;
  wire [SAW:0] l5 = {1'b0, len_q};
  wire [SAW-1:0] c4 = cnt_q[SAW-1:0];
  wire pass  = (state_q == S_P1 || state_q == S_P2);
  wire after = (state_q == S_LM || state_q == S_DM || state_q == S_WS);
  wire [SAW-1:0] rp_x = pass ? r0f_q + c4 : (after ? r0f_q + l5[SAW-1:0] : r0f_q);
  wire [SAW-1:0] wp_x = (state_q == S_P2 && cnt_q != 7'd0) ? wf_q + c4 - 1'b1 :
                        (after ? wf_q + l5[SAW-1:0] : wf_q);
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 4'd1 && state_q <= S_WS);
      if (pass) assert (cnt_q <= {3'd0, len_q});
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + l5 == {1'b0, wl_q});
      assert (rp_q == rp_x && wp_q == wp_x);
    end
  end
