// The link lemmas of ga2_norm (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_norm: reads src..src+len-1 (twice), writes dst..dst+len-1;
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_norm elaborated with SP_WORDS
  // = 16 and its registers made ports (`expose`) before this file is read
  wire [2:0] state_q;
  wire [6:0] cnt_q, len_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len, the latched src is the read range's first
  // word, each range is base .. base + len - 1; the read pointer is src + cnt; the write
  // pointer dst + cnt - 1 in S_SCALE once cnt >= 1, else dst; between the passes (S_SQRT,
  // S_LOAD, S_DIV) cnt = 0.
  localparam [2:0] S_SUM = 3'd2, S_SCALE = 3'd3;
  wire [SAW:0] l5 = len_q[SAW:0];
  wire [SAW-1:0] rp_x = r0f_q + cnt_q[SAW-1:0];
  wire [SAW-1:0] wp_x = (state_q == S_SCALE && cnt_q != 0) ? wf_q + cnt_q[SAW-1:0] - 1'b1 : wf_q;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + l5 - 1'b1 == {1'b0, wl_q});
      assert (rp_q == rp_x && wp_q == wp_x);
      if (state_q != S_SUM && state_q != S_SCALE) assert (cnt_q == 0);
    end
  end
