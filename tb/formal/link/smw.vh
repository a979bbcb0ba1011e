// The link lemmas of ga2_smw (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_smw: reads src..src+len-1 (three passes), writes
// dst..dst+len-1; every scratchpad access lies in the range ga2_decode reports for the
// started instruction (the range ga2_hazard reserves for it), and happens only while the
// unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a free
// instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all
// data free. ABC pdr on the generated wrapper (tb/formal/gen.py) did not close in 600 s:
// k-induction with the lemmas below (tb/formal/props.py LINK_INDUCTION).
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_smw elaborated with SP_WORDS
  // = 16, its datapath cut and its registers made ports (`expose`) before this file is read
  wire [1:0] state_q;
  wire [`GA2_SMW_LEN_W-1:0] cnt_q, len_q;
  wire [3:0] st_q;
  wire ld_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len, the latched src is the read range's first
  // word, each range is base .. base + len - 1; the read pointer is src + cnt (each pass
  // restarts both); the write pointer dst until pass 3, there dst + cnt - 1 once cnt >= 1
  // (the boundary with cnt = k writes p_(k-1)); in pass 3 cnt >= 1 but at the first
  // boundary (a step with st = 15).
  localparam [1:0] S_DIV = 2'd2;
  wire [SAW:0] ln = len_q[SAW:0];
  wire [SAW-1:0] rp_x = r0f_q + cnt_q[SAW-1:0];
  wire [SAW-1:0] wp_x = (state_q == S_DIV && cnt_q != 0) ? wf_q + cnt_q[SAW-1:0] - 1'b1 : wf_q;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + ln - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + ln - 1'b1 == {1'b0, wl_q});
      assert (rp_q == rp_x && wp_q == wp_x);
      if (state_q == S_DIV) assert (cnt_q != 0 || (!ld_q && st_q == 4'd15));
    end
  end
