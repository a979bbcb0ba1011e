// The link lemmas of ga2_pack4 (tb/formal/gen.py range_wrapper splices this file's two parts
// into the unit's generated link wrapper, gen_<unit>_range_f: the part before "// -- lemmas"
// ahead of the unit's instance with its registers exposed, the rest after range_chk.vh;
// both only with LINK_LEMMAS, tb/formal/props.py LINK_INDUCTION). The wrapper:
// ga2_pack4 (un 0, packing: reads 2 len words at src, writes len at dst; un 1: reads len, writes 2 len);
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_pack4 elaborated with SP_WORDS
  // = 16 and its registers made ports (`expose`) before this file is read
  localparam LW = 4;                         // ga2_pack4's LW at SP_WORDS = 16
  wire ph_q, un_q;
  wire [LW-1:0] cnt_q, len_q;
  wire [SAW-1:0] rp_q, wp_q;
// -- lemmas
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len, 2 len <= SP_WORDS, cnt <= len; packing (un 0): the read range is src ..
  // src + 2 len - 1, the write range dst .. dst + len - 1, the read pointer src + 2 cnt +
  // ph, the write pointer dst + cnt (ph 1) or dst + cnt - 1 (ph 0, cnt >= 1); unpacking (un 1):
  // the read range src .. src + len - 1, the write range dst .. dst + 2 len - 1, the read
  // pointer src + cnt + ph, the write pointer dst (cnt 0) or dst + 2 cnt - 1 + ph.
  wire [SAW:0] l5 = {1'b0, len_q};
  // the pointers' expected values, modulo 2^SAW like the pointers themselves
  wire [SAW-1:0] c2 = {cnt_q[SAW-2:0], 1'b0};
  wire [SAW-1:0] rp_pk = r0f_q + c2 + ph_q;
  wire [SAW-1:0] wp_pk = wf_q + cnt_q - (!ph_q && cnt_q != 0);
  wire [SAW-1:0] rp_up = r0f_q + cnt_q + ph_q;
  wire [SAW-1:0] wp_up = (cnt_q == 0) ? wf_q : wf_q + c2 - 1'b1 + ph_q;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && 2 * l5 <= SP_WORDS && cnt_q <= len_q);
      if (!un_q) begin
        assert ({1'b0, r0f_q} + 2 * l5 - 1'b1 == {1'b0, r0l_q});
        assert ({1'b0, wf_q} + l5 - 1'b1 == {1'b0, wl_q});
        assert (rp_q == rp_pk);
        assert (wp_q == wp_pk);
      end else begin
        assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
        assert ({1'b0, wf_q} + 2 * l5 - 1'b1 == {1'b0, wl_q});
        assert (rp_q == rp_up);
        assert (wp_q == wp_up);
      end
    end
  end
