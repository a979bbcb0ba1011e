`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_smw: SMW, the softmax over wide scores (model/ops/smw.py): the int32 words
// s_i = sp[src+i] (log2 units in Q8), 1 <= len <= 8191, give the Q15 probabilities
// p_i = round(e_i * 2^15 / S) in sp[dst+i]. Busy exactly 2*(len + 1) + 17*len + 1,
// a function of len alone:
//  - pass 1 (S_MAX, len+1 cycles): read s_i at cycle i, the signed maximum mx the cycle
//    after: s_0 loads it (mxv_q), a later s_i when s_i > mx (the sign of the 33-bit
//    mx - s_i that pass 2 uses too);
//  - pass 2 (S_SUM, len+1 cycles): read s_i at cycle i, the cycle after
//    d = mx - s_i (32 bits), e = EXP2[d[7:0]] >> d[11:8] (ga2_exp2_lut, Q16, <= 2^16),
//    0 when d[31:12] != 0 (d >> 8 >= 16), and S += e (29 bits: 8191 * 2^16 < 2^29);
//  - pass 3 (S_DIV, 1 + 17*len cycles): a boundary cycle (st_q = 15) reads s_0; then per
//    element the load (ld_q) and 16 restoring-division steps (st_q = 0..15, the last
//    one being the next boundary). The boundary reads s_i (i = cnt_q) and, but for the
//    first, writes the previous p; the load recomputes e from the word read and loads
//    the divider with e * 2^15 + floor(S/2): its high 16 bits as the partial remainder
//    (< S, as e <= 2^16 <= S), its low 16 as the quotient bits to come; each step shifts
//    one quotient bit in (trial = 2 rem + bit, ge = trial >= S: trial < 2S, so 30 bits
//    carry the difference). The 16th step's bit is combinational: the boundary writes
//    {quo_q[14:0], ge} = floor((e * 2^15 + floor(S/2)) / S) <= 2^15 and reads the next
//    word in the same cycle, so (the scratchpad being write-first) with dst ahead of src
//    element i reads the p already written (model/ops/smw.py's in-order loop), and
//    passes 1 and 2 read every word before any write.
// No data decides a cycle. FSM: state_q / state_d; the datapath registers (pass 3's
// ld_q and st_q too) in one clocked block without reset.
module ga2_smw #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_SMW_FIELDS   // the fields dst, src, len (model/ops/smw.py)
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (`GA2_SMW_LEN_W != 13) begin
      $error("%m: GA2_SMW_LEN_W=%0d, not 13 (the 29-bit sum assumes len <= 8191)",
             `GA2_SMW_LEN_W);
      $finish;
    end
  end

  localparam LW  = `GA2_SMW_LEN_W;
  localparam SAW = $clog2(SP_WORDS);       // scratchpad address width (docs/rtl.md "Register widths")
  localparam SW  = 29;                     // the sum: len * 2^16 < 2^29
  // State codes: bit 0 the two read passes (S_MAX, S_SUM); under a compare narrowed to
  // bit 0 each pass aliases the other and S_DIV aliases S_IDLE (docs/mutation_rtl.md)
  localparam [1:0] S_IDLE = 2'd0, S_MAX = 2'd1, S_SUM = 2'd3, S_DIV = 2'd2;

  reg [1:0]     state_q, state_d;
  reg [LW-1:0]  cnt_q, len_q;
  reg           ld_q;                      // pass 3: this cycle loads the divider
  reg [3:0]     st_q;                      // pass 3: the division step (15: the boundary)
  reg [SAW-1:0] src_q, rp_q, wp_q;
  reg [31:0]    mx_q;                      // the maximum
  reg           mxv_q;                     // mx holds a word of this instruction
  reg [SW-1:0]  sum_q;                     // S
  reg [SW-1:0]  rem_q;                     // the division's partial remainder (< S)
  reg [15:0]    quo_q;                     // its dividend bits to come / quotient bits so far

  wire pass12  = state_q[0];               // S_MAX or S_SUM
  wire div     = (state_q == S_DIV);
  wire load    = div && ld_q;
  wire step    = div && !ld_q;
  wire bnd     = step && (st_q == 4'd15);  // the 16th step: write p, read the next word
  // one compare ends each pass: the read enable, the state step and the counters' step
  // are its sides
  wire at_end  = (cnt_q == len_q);
  wire reading = (pass12 || bnd) && !at_end;
  wire have_v  = pass12 && (cnt_q != {LW{1'b0}});     // rd_data is word cnt_q - 1
  wire wrote   = bnd && (cnt_q != {LW{1'b0}});        // a p to write (none at the first)

  // the word read against the maximum: one 33-bit signed difference mx - s, its sign
  // pass 1's compare (s > mx), its low 32 bits pass 2's and 3's d (mod 2^32; mx >= s but
  // for a probability pass 3 reads back); e = EXP2[d & 255] >> (d >> 8), 0 when d >> 8 >= 16
  wire [32:0] dd  = {mx_q[31], mx_q} - {rd_data[31], rd_data};
  wire [31:0] d   = dd[31:0];
  wire        gt  = dd[32];
  wire [16:0] lut_e;
  ga2_exp2_lut u_lut (
    .d(d[7:0]),
    .e(lut_e)
  );
  wire [16:0] e   = (d[31:12] != 20'd0) ? 17'd0 : (lut_e >> d[11:8]);
  // the load: e * 2^15 + floor(S/2) (< 2^31 + 2^28: 32 bits)
  wire [31:0] dvd = {e, 15'd0} + {4'd0, sum_q[SW-1:1]};
  // one division step: the next bit in, trial - S (trial < 2S < 2^30: bit 29 the borrow)
  wire [SW:0] trial = {rem_q, quo_q[15]};
  wire [SW:0] diff  = trial - {1'b0, sum_q};
  wire        ge    = !diff[SW];

  // next state: start wins (the sequencer starts a unit only while it is idle)
  always @* begin
    state_d = state_q;
    case (state_q)
      S_MAX:   if (at_end) state_d = S_SUM;
      S_SUM:   if (at_end) state_d = S_DIV;
      S_DIV:   if (bnd && at_end) state_d = S_IDLE;
      default: state_d = S_IDLE;
    endcase
    if (start) state_d = S_MAX;
  end

  always @(posedge clk) begin
    if (rst) state_q <= S_IDLE;
    else     state_q <= state_d;
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register a
  // pass reads before writing it (mx: the first word loads it); in S_IDLE (after reset)
  // they hold and every use is gated by state_q (reading, have_v, load, step)
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      src_q <= src[SAW-1:0];
      rp_q  <= src[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
      mxv_q <= 1'b0;
      sum_q <= {SW{1'b0}};
    end else begin
      if (pass12) begin
        if (at_end) begin
          cnt_q <= {LW{1'b0}};
          rp_q  <= src_q;
          st_q  <= 4'd15;                  // pass 3 starts at a boundary: it reads s_0
          ld_q  <= 1'b0;
        end else begin
          cnt_q <= cnt_q + 1'b1;
          rp_q  <= rp_q + 1'b1;
        end
      end
      // pass 1: the first word, then every greater one (pass 2 reads the same words, none
      // greater: it changes nothing)
      if (have_v && (gt || !mxv_q)) begin
        mx_q  <= rd_data;
        mxv_q <= 1'b1;
      end
      if (have_v && state_q == S_SUM) sum_q <= sum_q + {{(SW-17){1'b0}}, e};
      if (bnd && !at_end) begin
        cnt_q <= cnt_q + 1'b1;
        rp_q  <= rp_q + 1'b1;
        ld_q  <= 1'b1;
      end
      if (load) ld_q <= 1'b0;
      if (step) st_q <= st_q + 4'd1;       // 15 wraps to 0: the next element's first step
      if (load) begin
        rem_q <= {{(SW-16){1'b0}}, dvd[31:16]};
        quo_q <= dvd[15:0];
      end else if (div) begin
        rem_q <= ge ? diff[SW-1:0] : trial[SW-1:0];
        quo_q <= {quo_q[14:0], ge};
      end
      if (wrote) wp_q <= wp_q + 1'b1;
    end
  end

  assign busy    = (state_q != S_IDLE);
  assign last    = bnd && at_end;
  assign rd_en   = reading;
  assign wr_en   = wrote;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
  assign wr_data = {16'd0, quo_q[14:0], ge};
endmodule
`resetall
