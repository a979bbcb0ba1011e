`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_qnt: per-token dynamic quantization of a row of int32 words (QNT, model/ops/qnt.py,
// which states every integer below): sp[dst+i] = q_i, sp[dst+len] = the row's scale word.
// One 32 x 32 multiplier, one 34-bit subtractor shared by the serial divisions and the
// square root; busy exactly 2*len + 62 (plain) or 2*len + 176 (rms), a function of the
// fields alone. The phases (state_q; cnt_q counts each phase's cycles from 0 to its end):
//  - S_P1 (len + 1): read x_i at cycle i; the cycle after, A = max |x_i| (amax_q) and the
//    exact sum of squares ss of |x_i|^2 from the multiplier (SSUM = 62 + LNW bits: len <
//    2^LNW; ss_q is 76 bits, 8191 * 2^62 < 2^75);
//  - S_N1 (6): normalise A (shifts 1, 16, 8, 4, 2, 1 while its top bits are 0: An = A <<
//    sh, sh_q) and ss (shifts 64, 32 .. 2: the largest even y with ss << y < 2^76); e_q,
//    the scale word's exponent, follows both (ss's half shift in rms mode only);
//  - rms mode only: S_DL (76) divides ss_q by len in place (restoring, quotient bits in at
//    the bottom), S_N2 (6) renormalises it, S_SQ (32) takes the square root of its top 64
//    bits, two bits a step, into root_q (c; plain mode loads c = 2^31 at start instead);
//  - S_LR (1) loads the reciprocal's remainder qmax * 2^16 - 1, S_DR (32) divides by An
//    with 1s as the dividend's next bits: ss_q[31:0] = floor((qmax * 2^48 - 1) / An), and
//    the first cycle of S_P2 adds 1 (R = the ceiling of qmax * 2^48 / An);
//  - S_P2 (len + 1): read x_i at cycle i, write q_i = +-((|x_i| << sh) * R + 2^47) >> 48
//    at cycle i + 1: streamed as in ga2_vec_rq (with dst ahead of src by less than len an element
//    reads the result already written);
//  - S_LM (1) loads the remainder Pt = (An * KQ) >> 33 (< 2^31 <= c), S_DM (19) divides by
//    c with 0s as the next bits: ss_q[18:0] = Qm = floor(Pt * 2^19 / c);
//  - S_WS (1) writes the scale word at dst + len (after every read): m = Qm >> j rounded
//    half up (j = bitlen(Qm) - 16), e = e_q + j (2^16 renormalised); 0 when A = 0.
// A = 0 needs no other case: An = 0, the division by 0 gives all ones and R = 0 (so every
// q_i = 0), and the word is forced to 0. Datapath registers without reset, all loaded by
// start or by the phase before their use.
module ga2_qnt #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_QNT_FIELDS   // the fields dst, src, len, q, b16, rms (model/ops/qnt.py)

  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (`GA2_QNT_LEN_W > 13 || `GA2_QNT_Q_W != 5) begin
      $error("%m: len %0d bits (ss_q holds 8191 squares), q %0d bits (e_q's range)",
             `GA2_QNT_LEN_W, `GA2_QNT_Q_W);
      $finish;
    end
  end

  localparam SAW = $clog2(SP_WORDS);       // scratchpad address width (docs/rtl.md "Register widths")
  // len <= SP_WORDS - 1 (the decoder checks dst + len + 1 <= SP_WORDS) and < 2^13 (its
  // field): LNW bits; the phase counter counts to len and to 75 (S_DL's last step)
  localparam LNW = (SAW < `GA2_QNT_LEN_W) ? SAW : `GA2_QNT_LEN_W;
  localparam CW  = (LNW > 7) ? LNW : 7;
  localparam SSUM = 62 + LNW;              // the sum of squares' bits (the register: 76)
  localparam [3:0] S_IDLE = 4'd0, S_P1 = 4'd1, S_N1 = 4'd2, S_DL = 4'd3, S_N2 = 4'd4,
                   S_SQ = 4'd5, S_LR = 4'd6, S_DR = 4'd7, S_P2 = 4'd8, S_LM = 4'd9,
                   S_DM = 4'd10, S_WS = 4'd11;
  // KQ = round(2^(31+n) / qmax) (n = 15, 7) and qmax * 2^16 - 1, the reciprocal's start
  localparam [31:0] KQ16 = 32'h8001_0002, KQ8 = 32'h8102_0408;
  localparam [31:0] RQ16 = 32'h7FFE_FFFF, RQ8 = 32'h007E_FFFF;
  // the scale word's exponent at start (model/ops/qnt.py X - j before the shifts):
  // plain 29 - n - q, rms -8 - n
  localparam [7:0] EP16 = 8'd14, EP8 = 8'd22, ER16 = 8'hE9, ER8 = 8'hF1;

  reg [3:0]     state_q, state_d;
  reg [CW-1:0]  cnt_q;
  reg [LNW-1:0] len_q;
  reg [SAW-1:0] src_q, rp_q, wp_q;
  reg           rms_q, b16_q;
  reg [31:0]    amax_q;    // A, then An (normalised in S_N1)
  reg [4:0]     sh_q;      // An = A << sh
  reg [75:0]    ss_q;      // the sum of squares, the divisions' dividend and quotient
  reg [31:0]    rem_q;     // the divisions' and the square root's remainder
  reg [31:0]    root_q;    // c: the square root (rms) or 2^31 (plain)
  reg [7:0]     e_q;       // the scale word's exponent before j

  // the end of each phase: one compare against the phase's last count
  /* verilator lint_off WIDTH */
  // the last counts (constants below 2^7 <= 2^CW; len zero-extended to CW bits)
  reg [CW-1:0] end_val;
  always @* begin
    case (state_q)
      S_P1, S_P2: end_val = len_q;
      S_N1, S_N2: end_val = 5;
      S_DL:       end_val = 75;
      S_SQ, S_DR: end_val = 31;
      S_DM:       end_val = 18;
      default:    end_val = 0;                   // S_LR, S_LM, S_WS: one cycle
    endcase
  end
  /* verilator lint_on WIDTH */
  wire at_end  = (cnt_q == end_val);
  wire p1      = (state_q == S_P1);
  wire p2      = (state_q == S_P2);
  wire ws      = (state_q == S_WS);
  wire pass    = p1 || p2;
  wire reading = pass && !at_end;
  wire have_x  = pass && (cnt_q != {CW{1'b0}});

  // the element: |x| (2^31 for -2^31), normalised by An's shift, the one multiplier
  wire        neg   = rd_data[31];
  wire [31:0] ax    = neg ? (32'd0 - rd_data) : rd_data;
  wire [31:0] xn    = ax << sh_q;                // sh_q = 0 in S_P1
  wire [31:0] mul_a = (state_q == S_LM) ? amax_q : xn;
  wire [31:0] mul_b = p1 ? ax : ((state_q == S_LM) ? (b16_q ? KQ16 : KQ8) : ss_q[31:0]);
  wire [63:0] prod  = {32'd0, mul_a} * {32'd0, mul_b};
  // q = (xn * R + 2^47) >> 48 < 2^16 (R <= qmax * 2^17 + 1 < 2^32 - 2^16)
  /* verilator lint_off UNUSEDSIGNAL */
  wire [16:0] rnd   = prod[63:47] + 17'd1;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] qword = neg ? (32'd0 - {16'd0, rnd[16:1]}) : {16'd0, rnd[16:1]};
  // the sum of squares' adder, SSUM bits (len < 2^LNW squares of at most 2^62), also R's
  // + 1 in S_P2's first cycle; zero-extended to ss_q's 76 bits
  wire [SSUM-1:0] ss_sum = ss_q[SSUM-1:0] + (p1 ? {{(SSUM-64){1'b0}}, prod} : {{(SSUM-1){1'b0}}, 1'b1});
  wire [75:0]     ss_acc = {{(76-SSUM){1'b0}}, ss_sum};

  // normalisation step cnt (0..5): ss by 64, 32, 16, 8, 4, 2 (ek: half of it, the
  // exponent's share) and A by 1, 16, 8, 4, 2, 1 (ak), each when the bits it shifts out
  // are 0: the greedy shifts give ss the largest even y with ss << y < 2^76 and A its
  // 32 - bitlen(A) (1 + 16 + 8 + 4 + 2 + 1 = 32 > 31)
  reg        ss_z, a_z;
  reg [75:0] ss_n;
  reg [31:0] a_n;
  reg [5:0]  ek;
  reg [4:0]  ak;
  always @* begin
    case (cnt_q[2:0])
      3'd0: begin
        ss_z = ~|(ss_q >> 12); ss_n = ss_q << 64; ek = 6'd32;
        a_z = ~|(amax_q >> 31); a_n = amax_q << 1; ak = 5'd1;
      end
      3'd1: begin
        ss_z = ~|(ss_q >> 44); ss_n = ss_q << 32; ek = 6'd16;
        a_z = ~|(amax_q >> 16); a_n = amax_q << 16; ak = 5'd16;
      end
      3'd2: begin
        ss_z = ~|(ss_q >> 60); ss_n = ss_q << 16; ek = 6'd8;
        a_z = ~|(amax_q >> 24); a_n = amax_q << 8; ak = 5'd8;
      end
      3'd3: begin
        ss_z = ~|(ss_q >> 68); ss_n = ss_q << 8; ek = 6'd4;
        a_z = ~|(amax_q >> 28); a_n = amax_q << 4; ak = 5'd4;
      end
      3'd4: begin
        ss_z = ~|(ss_q >> 72); ss_n = ss_q << 4; ek = 6'd2;
        a_z = ~|(amax_q >> 30); a_n = amax_q << 2; ak = 5'd2;
      end
      default: begin                               // 5
        ss_z = ~|(ss_q >> 74); ss_n = ss_q << 2; ek = 6'd1;
        a_z = ~|(amax_q >> 31); a_n = amax_q << 1; ak = 5'd1;
      end
    endcase
  end
  wire [7:0] e_ss = (ss_z && rms_q) ? {2'd0, ek} : 8'd0;
  wire [4:0] a_sh = a_z ? ak : 5'd0;

  // one restoring step: the divisions (S_DL by len, the next dividend bit ss_q[75]; S_DR
  // by An, the dividend's bits after the remainder's start all 1; S_DM by c, all 0; the
  // quotient bits shift into ss_q) or the square root's (S_SQ: the bit pair ss_q[75:74],
  // subtracting 4 * root + 1). Widths: a division's remainder is below its divisor
  // (< 2^32); the root's before step k is at most 2 * root < 2^(k+1) <= 2^32 and root <
  // 2^31, so trial < 2^34 and the difference lies in (-2^33, 2^33): 34 bits, bit 33 its
  // sign. Only the root's last remainder (< 2^33) does not fit rem_q, and it is never used.
  wire        sq    = (state_q == S_SQ);
  wire [31:0] dvs   = (state_q == S_DL) ? {{(32-LNW){1'b0}}, len_q} :
                      ((state_q == S_DR) ? amax_q : root_q);
  wire        inb   = (state_q == S_DL) ? ss_q[75] : (state_q == S_DR);
  wire [33:0] trial = sq ? {rem_q, ss_q[75:74]} : {1'b0, rem_q, inb};
  wire [32:0] subtr = sq ? {root_q[30:0], 2'b01} : {1'b0, dvs};
  /* verilator lint_off UNUSEDSIGNAL */
  // bit 32: only the root's last remainder has it, and that one is never used
  wire [33:0] diff  = trial - {1'b0, subtr};
  /* verilator lint_on UNUSEDSIGNAL */
  wire        fits  = !diff[33];
  wire [31:0] rem_n = fits ? diff[31:0] : trial[31:0];

  // the scale word from Qm = ss_q[18:0] (2^16 <= Qm < 2^18.02: Pt <= (2^32 - 1) KQ8 / 2^33
  // and c >= 2^31, model/ops/qnt.py) and e_q; j = bitlen(Qm) - 16: qm[18] and qm[17] are
  // never both set, so j's two bits need no priority between them
  wire [18:0] qm = ss_q[18:0];
  wire [1:0]  j  = {qm[18] | qm[17], !qm[17]};
  reg  [16:0] mr;
  always @* begin
    case (j)
      2'd3:    mr = {1'b0, qm[18:3] + {15'd0, qm[2]}};   // qm[17] = 0 here: no carry out
      2'd2:    mr = {1'b0, qm[17:2]} + {16'd0, qm[1]};
      default: mr = {1'b0, qm[16:1]} + {16'd0, qm[0]};
    endcase
  end
  wire [7:0]  e_w   = e_q + {6'd0, j} + {7'd0, mr[16]};
  wire [31:0] sword = amax_q[31] ? {8'd0, e_w, mr[16] | mr[15], mr[14:0]} : 32'd0;

  // next state: start wins (the sequencer starts a unit only while it is idle)
  always @* begin
    state_d = state_q;
    if (at_end) begin
      case (state_q)
        S_P1:    state_d = S_N1;
        S_N1:    state_d = rms_q ? S_DL : S_LR;
        S_DL:    state_d = S_N2;
        S_N2:    state_d = S_SQ;
        S_SQ:    state_d = S_LR;
        S_LR:    state_d = S_DR;
        S_DR:    state_d = S_P2;
        S_P2:    state_d = S_LM;
        S_LM:    state_d = S_DM;
        S_DM:    state_d = S_WS;
        default: state_d = S_IDLE;                 // S_WS
      endcase
    end
    if (start) state_d = S_P1;
  end

  always @(posedge clk) begin
    if (rst) state_q <= S_IDLE;
    else     state_q <= state_d;
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register a
  // phase reads before writing it (rem_q: S_N1 clears it, S_LR and S_LM load it); in
  // S_IDLE they change freely and every output is gated by state_q
  always @(posedge clk) begin
    if (start) begin
      cnt_q  <= {CW{1'b0}};
      len_q  <= len[LNW-1:0];
      src_q  <= src[SAW-1:0];
      rp_q   <= src[SAW-1:0];
      wp_q   <= dst[SAW-1:0];
      rms_q  <= rms;
      b16_q  <= b16;
      amax_q <= 32'd0;
      sh_q   <= 5'd0;
      ss_q   <= 76'd0;
      root_q <= {!rms, 31'd0};                     // rms: 0, the root's start; plain: c = 2^31
      e_q    <= rms ? (b16 ? ER16 : ER8) : ((b16 ? EP16 : EP8) - {3'd0, q});
    end else begin
      cnt_q <= at_end ? {CW{1'b0}} : cnt_q + 1'b1;
      if (reading) rp_q <= rp_q + 1'b1;
      case (state_q)
        S_P1: begin
          if (have_x) begin
            if (ax > amax_q) amax_q <= ax;
            ss_q <= ss_acc;
          end
          if (at_end) rp_q <= src_q;
        end
        S_N1, S_N2: begin
          if (ss_z) ss_q <= ss_n;
          if (a_z) amax_q <= a_n;
          sh_q  <= sh_q + a_sh;
          e_q   <= e_q + e_ss - {3'd0, a_sh};
          rem_q <= 32'd0;
        end
        S_DL, S_DR, S_DM: begin
          ss_q  <= {ss_q[74:0], fits};
          rem_q <= rem_n;
        end
        S_SQ: begin
          ss_q   <= ss_q << 2;
          rem_q  <= rem_n;
          root_q <= {root_q[30:0], fits};
        end
        S_LR: rem_q <= b16_q ? RQ16 : RQ8;
        S_P2: begin
          if (!have_x) ss_q <= ss_acc;                 // cycle 0: R = quotient + 1
          if (have_x) wp_q <= wp_q + 1'b1;
        end
        S_LM: rem_q <= {1'b0, prod[63:33]};
        default: ;                                     // S_IDLE, S_WS: hold
      endcase
    end
  end

  assign busy    = (state_q != S_IDLE);
  assign last    = ws;
  assign rd_en   = reading;
  assign wr_en   = (have_x && p2) || ws;
  assign wr_data = ws ? sword : qword;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
