`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_norm: the integer RMSNorm (NORM, docs/lm.md "Numerics"): x_i = s8(sp[src+i]),
// 1 <= len <= 64 (GA2_NORM_MAX_LEN; len 0 or more is refused by the decoder),
// ss = sum x_i^2, q = isqrt(ss * 2^10), r = floor(2^29 / q),
// sp[dst+i] = requant(x_i * r, m, s) (ga2_requant, ga2_vec_rq's datapath). Busy exactly
// 2*(len + 1) + GA2_NORM_TAIL = 2*len + 50, a function of len alone:
//  - pass 1 (S_SUM, len+1 cycles): read x_i at cycle i, add x_i^2 to ss the cycle after
//    (ss <= 64 * 128^2 = 2^20: 21 bits);
//  - isqrt (S_SQRT, 16 cycles, counted by st_q): the digit-by-digit square root of
//    ss * 2^10 (31 bits, <= 2^30), one result bit a cycle from the top bit pair down:
//    rem = 4*rem + pair, subtract 4*root + 1 when it fits, root = 2*root + fits. The
//    pairs are {0, ss[20]} (step 0: the radicand's width is odd), ss[19:18] .. ss[1:0],
//    then five of zeros (the factor 2^10): ss_q shifts out its bits, one then two a step,
//    zeros coming in. q <= 2^15 (16 bits), rem <= 2*q, at most 65532 for every ss
//    (16 bits; 2^30 itself has rem 0), and the trial difference lies in (-2^17, 2^17):
//    18 bits, its sign the fit;
//  - reciprocal (S_LOAD + S_DIV, 32 cycles): ga2_divu #(.WIDTH(30)) divides 2^29 by q;
//    r <= 2^24 for q >= 32 (ss >= 1), so its low 25 bits carry it;
//  - pass 2 (S_SCALE, len+1 cycles): read x_i at cycle i, write requant(x_i * r) at
//    cycle i+1 (x_i * r lies in [-2^31, 2^31): int32). It streams like ga2_vec_rq: with dst
//    overlapping ahead of src an element reads the results already written
//    (model/func.py), and pass 1 reads every element before any write.
// ss = 0 (every x_i 0) needs no special case: q = 0, the divider's all-ones quotient
// multiplies x_i = 0 (pass 2 reads only words that pass 1 read as 0, or its own zeros),
// and requant(0) = 0. FSM: state_q / state_d (codes by phase: 01x the two read passes);
// the datapath registers in one clocked block without reset.
module ga2_norm #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_NORM_FIELDS   // the fields dst, src, len, m, s (model/ops/norm.py)
  wire [7:0] rd_byte = rd_data[7:0];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [23:0] rd_hi = rd_data[31:8];        // s8(): only the low byte of a word counts
  /* verilator lint_on UNUSEDSIGNAL */
  // the cycles between the passes: S_SQRT's SQRT_STEPS, S_LOAD's 1, the divider's
  // DIV_W + 1
  localparam SQRT_STEPS = 16;
  localparam DIV_W      = 30;

  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (`GA2_NORM_MAX_LEN < 1 || `GA2_NORM_MAX_LEN > 64) begin
      $error("%m: GA2_NORM_MAX_LEN=%0d outside 1..64 (ss < 2^21, q < 2^16 assume it)",
             `GA2_NORM_MAX_LEN);
      $finish;
    end
    if (SQRT_STEPS + 1 + DIV_W + 1 != `GA2_NORM_TAIL) begin
      $error("%m: the isqrt, load and divide cycles (%0d) are not GA2_NORM_TAIL=%0d",
             SQRT_STEPS + 1 + DIV_W + 1, `GA2_NORM_TAIL);
      $finish;
    end
  end

  localparam SAW = $clog2(SP_WORDS);       // scratchpad address width (docs/rtl.md "Register widths")
  // State codes by phase, so the pass test is a bit test: 01x the two read passes (bit 0:
  // the second, S_SCALE)
  localparam [2:0] S_IDLE = 3'd0, S_SQRT = 3'd1, S_SUM = 3'd2, S_SCALE = 3'd3, S_LOAD = 3'd4,
                   S_DIV = 3'd5;
  /* verilator lint_off WIDTH */
  // SQRT_STEPS - 1 = 15: the integer keeps its value in st_q's 4 bits
  localparam [3:0] SQRT_LAST = SQRT_STEPS - 1;
  /* verilator lint_on WIDTH */

  reg [2:0]     state_q, state_d;
  reg [6:0]     cnt_q, len_q;
  reg [3:0]     st_q;      // isqrt: the step (0..15)
  reg [SAW-1:0] src_q, rp_q, wp_q;
  reg [20:0]    ss_q;      // <= 64 * 128^2 = 2^20: exactly as wide as the largest sum
  reg [15:0]    root_q;    // isqrt: the root so far (q <= 2^15)
  reg [15:0]    rem_q;     // isqrt: the remainder so far (<= 65534)
  reg [15:0]    m_q;
  reg [5:0]     s_q;

  wire        pass    = (state_q[2:1] == 2'b01);          // S_SUM or S_SCALE
  wire        scale   = pass && state_q[0];                 // S_SCALE
  // one compare ends each pass: the read enable, the state step and the counters' step
  // are its sides, so a pass reads exactly len words
  wire        at_end  = (cnt_q == len_q);
  wire        reading = pass && !at_end;
  wire        have_x  = pass && (cnt_q != 7'd0);
  wire [7:0]  x       = rd_byte;
  /* verilator lint_off WIDTH */
  // x^2 <= 2^14: the signed product in 15 bits (the operands sign-extended to the
  // context's width)
  wire [14:0] sq      = $signed(x) * $signed(x);
  /* verilator lint_on WIDTH */

  // one isqrt step: the next bit pair (step 0: {0, ss[20]}), the trial remainder, the
  // subtrahend 4*root + 1 (root < 2^15 before the last step), whether it fits
  wire        first   = (st_q == 4'd0);
  wire        sq_end  = (st_q == SQRT_LAST);
  wire [1:0]  pair    = first ? {1'b0, ss_q[20]} : ss_q[20:19];
  /* verilator lint_off UNUSEDSIGNAL */
  // the new remainder (trial, or trial - (4*root + 1) when that fits) is <= 65532: bits
  // 17..16 of both are 0 whenever they are taken
  wire [17:0] trial   = {rem_q, pair};
  wire [17:0] diff    = trial - {1'b0, root_q[14:0], 2'b01};
  /* verilator lint_on UNUSEDSIGNAL */
  wire        fits    = !diff[17];

  wire        div_last;
  /* verilator lint_off UNUSEDSIGNAL */
  // The divider's busy and remainder are not needed (div_last marks the result cycle);
  // its quotient's bits 29..25 are 0 but for q = 0 (ss = 0, every x_i 0).
  wire        div_busy;
  wire [DIV_W-1:0] div_rem;
  wire [DIV_W-1:0] quot;
  /* verilator lint_on UNUSEDSIGNAL */

  ga2_divu #(.WIDTH(DIV_W)) u_div (
    .clk(clk),
    .rst(rst),
    .start(state_q == S_LOAD),
    .dividend(30'h2000_0000),               // 2^29
    .divisor({14'd0, root_q}),
    .busy(div_busy),
    .last(div_last),
    .quotient(quot),
    .remainder(div_rem)
  );

  // pass 2: x_i * r as an int32 (the signed product in 32 bits: it fits), then ga2_vec_rq's
  // requant; r holds in the divider until its next start
  /* verilator lint_off WIDTH */
  wire [31:0] xr = $signed(x) * $signed({1'b0, quot[24:0]});
  /* verilator lint_on WIDTH */

  ga2_requant u_requant (
    .a(xr),
    .m(m_q),
    .s(s_q),
    .y(wr_data)
  );

  // next state: start wins (the sequencer starts a unit only while it is idle)
  always @* begin
    state_d = state_q;
    case (state_q)
      S_SUM:   if (at_end) state_d = S_SQRT;
      S_SQRT:  if (sq_end) state_d = S_LOAD;
      S_LOAD:  state_d = S_DIV;
      S_DIV:   if (div_last) state_d = S_SCALE;
      S_SCALE: if (at_end) state_d = S_IDLE;
      default: state_d = S_IDLE;
    endcase
    if (start) state_d = S_SUM;
  end

  always @(posedge clk) begin
    if (rst) state_q <= S_IDLE;
    else     state_q <= state_d;
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register;
  // in S_IDLE (after reset) they hold and every use is gated by state_q (reading,
  // have_x, the divider's start)
  always @(posedge clk) begin
    if (start) begin
      cnt_q  <= 7'd0;
      st_q   <= 4'd0;
      len_q  <= len[6:0];                  // 1..64, checked by the decoder
      src_q  <= src[SAW-1:0];
      rp_q   <= src[SAW-1:0];
      wp_q   <= dst[SAW-1:0];
      ss_q   <= 21'd0;
      root_q <= 16'd0;
      rem_q  <= 16'd0;
      m_q    <= m;
      s_q    <= s;
    end else begin
      case (state_q)
        S_SUM: begin
          if (have_x) ss_q <= ss_q + {6'd0, sq};
          if (at_end) begin
            cnt_q <= 7'd0;
            rp_q  <= src_q;
          end else begin
            cnt_q <= cnt_q + 7'd1;
            rp_q  <= rp_q + 1'b1;
          end
        end
        S_SQRT: begin
          root_q <= {root_q[14:0], fits};
          rem_q  <= fits ? diff[15:0] : trial[15:0];
          ss_q   <= first ? {ss_q[19:0], 1'b0} : {ss_q[18:0], 2'b00};
          st_q   <= st_q + 4'd1;
        end
        S_SCALE: begin
          if (!at_end) begin
            cnt_q <= cnt_q + 7'd1;
            rp_q  <= rp_q + 1'b1;
          end
          if (have_x) wp_q <= wp_q + 1'b1;
        end
        default: ;                                     // S_IDLE, S_LOAD, S_DIV: hold
      endcase
    end
  end

  assign busy    = (state_q != S_IDLE);
  assign last    = scale && at_end;
  assign rd_en   = reading;
  assign wr_en   = have_x && scale;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
