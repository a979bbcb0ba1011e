// Shared body of the range wrappers (tb/formal/ga2_*_range_f.v), after range_dec.vh and
// the unit. The wrapper provides: UNIT (the unit's bit of ga2_decode's unit_sel), NR and
// the unit's busy, rd_en[NR-1:0], rd_addr[NR*AW-1:0], wr_en, wr_addr, RDW (1: a read may
// also lie in the write range -- MM with acc = 1 reads the old C words it then writes;
// ga2_hazard guards a unit's write range against every other unit's reads and writes,
// RAW and WAW, so such a read is covered) and BUG (0: none; the planted bugs below,
// which must fail).
// Assumed (the chip's environment): reset in the first cycle; start (ga2_top: issue &&
// unit_sel[UNIT]) only for an instruction that passes the decoder's checks
// (fault_code = 0) and selects this unit, and only while the unit is idle (ga2_seq
// stalls an instruction whose unit is busy, in both timing modes); the instruction
// word, reset after the first cycle and all read data free in every cycle.
// Latched at each start: the instruction's ranges as ga2_decode reports them (its NRD
// read slots and wr: first..last, inclusive, with valid bits), i.e. what ga2_hazard
// reserves for it; read slot k in rv_q[k], rf_q / rl_q[k*SAW +: SAW], and slots 0 and 1
// also as r0v_q, r0f_q, r0l_q, r1v_q, r1f_q, r1l_q (the hand-written wrappers' lemmas).
// Asserted in every cycle after the first:
//   - at a start, each valid range lies inside the scratchpad (so its low SAW bits are
//     the whole range: the latch keeps SAW bits);
//   - the unit is busy only after a start since the last reset;
//   - a read (any port's rd_en) only while busy, at an address in a read slot of the
//     latest start (or wr, when RDW); a write only while busy, at an address in wr. So no access happens
//     while idle, in particular none after busy drops.
// BUG = 1: the check sees the write address plus one (a unit writing one word past its
// range); BUG = 2: the check sees every write one cycle late (enable and address
// registered: a unit whose last write lands after busy drops); BUG = 3: the check sees
// read port 0's address plus one (a unit reading one word past its range).
  reg init_q = 1'b1;
  reg act_q  = 1'b0;
  reg [NRD-1:0]     rv_q;
  reg [NRD*SAW-1:0] rf_q, rl_q;
  reg wv_q;
  reg [SAW-1:0] wf_q, wl_q;
  wire          r0v_q = rv_q[0], r1v_q = rv_q[1];
  wire [SAW-1:0] r0f_q = rf_q[0 +: SAW], r0l_q = rl_q[0 +: SAW];
  wire [SAW-1:0] r1f_q = rf_q[SAW +: SAW], r1l_q = rl_q[SAW +: SAW];
  integer i, k;
  reg bwe_q = 1'b0;
  reg [AW-1:0] bwa_q;
  always @(posedge clk) begin
    init_q <= 1'b0;
    bwe_q <= wr_en;
    bwa_q <= wr_addr;
    if (rst) begin
      act_q <= 1'b0;
    end else if (start) begin
      act_q <= 1'b1;
      rv_q  <= rd_v;
      for (k = 0; k < NRD; k = k + 1) begin
        rf_q[k*SAW +: SAW] <= rd_first[k*AW +: SAW];
        rl_q[k*SAW +: SAW] <= rd_last[k*AW +: SAW];
      end
      wv_q  <= wr_v;
      wf_q  <= wr_first[SAW-1:0];
      wl_q  <= wr_last[SAW-1:0];
    end
  end
  // the write the check sees (BUG plants a wrong one)
  wire          c_we = (BUG == 2) ? bwe_q : wr_en;
  wire [AW-1:0] c_wa = (BUG == 2) ? bwa_q : (BUG == 1) ? wr_addr + 1'b1 : wr_addr;
  wire [NR*AW-1:0] c_ra = (BUG == 3) ? rd_addr + 1'b1 : rd_addr;     // + 1 on port 0's slice

  // a word of the scratchpad inside a latched range
  function inr;
    input [AW-1:0]  a;
    input           v;
    input [SAW-1:0] f;
    input [SAW-1:0] l;
    begin
      inr = v && a < SP_WORDS && a[SAW-1:0] >= f && a[SAW-1:0] <= l;
    end
  endfunction

  // a word inside one of the latched read slots
  reg in_rd;
  always @* begin
    if (init_q) assume (rst);
    assume (!start || (fault_code == 3'd0 && unit_sel[UNIT] && !busy));
    if (!init_q) begin
      if (start && !rst) begin
        for (k = 0; k < NRD; k = k + 1)
          assert (!rd_v[k] || (rd_first[k*AW +: AW] < SP_WORDS && rd_last[k*AW +: AW] < SP_WORDS));
        assert (!wr_v || (wr_first < SP_WORDS && wr_last < SP_WORDS));
      end
      assert (!busy || act_q);
      for (i = 0; i < NR; i = i + 1) begin
        in_rd = RDW != 0 && inr(c_ra[i*AW +: AW], wv_q, wf_q, wl_q);
        for (k = 0; k < NRD; k = k + 1)
          in_rd = in_rd || inr(c_ra[i*AW +: AW], rv_q[k], rf_q[k*SAW +: SAW], rl_q[k*SAW +: SAW]);
        if (rd_en[i])
          assert (busy && act_q && in_rd);
      end
      if (c_we) assert (busy && act_q && inr(c_wa, wv_q, wf_q, wl_q));
    end
  end
