// The link lemmas of ga2_softmax (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_softmax (FAST = 1: the overlap mode's build): reads src..src+len-1 (twice), writes dst..dst+len-1;
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_softmax elaborated with FAST = 1,
  // SP_WORDS = 16 (SM_MAX_LEN its default, 64) and its registers made ports (`expose`)
  // before this file is read
  wire [2:0] state_q;
  wire [6:0] cnt_q, len_q;
  wire [5:0] idx_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, the state is one of the unit's six, 1 <= len <= SP_WORDS, cnt <= len, the
  // latched src is the read range's first word, each range is base .. base + len - 1;
  // the read pointer is src + cnt; the write pointer dst + idx; idx < len in S_OUT, else 0.
  localparam [2:0] S_OUT = 3'd5;
  wire [SAW:0] l5 = len_q[SAW:0];
  always @* begin
    if (!init_q && busy) begin
      assert (state_q <= S_OUT);
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + l5 - 1'b1 == {1'b0, wl_q});
      assert (rp_q == r0f_q + cnt_q[SAW-1:0]);
      assert (wp_q == wf_q + idx_q[SAW-1:0]);
      if (state_q == S_OUT) assert ({1'b0, idx_q} < len_q);
      else assert (idx_q == 0);
    end
  end
