`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_softmax: the SM unit: sp[dst+i] = floor(e_i * 65536 / S), e_i = LUT[max - x_i],
// S = sum e_i, x_i = s8(sp[src+i]), 1 <= len <= SM_MAX_LEN (1..GA2_SM_LEN_LIMIT = 1024;
// len 0 and len > SM_MAX_LEN are refused by the decoder; the unit would never finish
// len 0). Passes 1 and 2 are the same for both FAST values:
//  - pass 1 (len+1 cycles): read x_i at cycle i, track the maximum (seeded from x_0: a
//    flag set at start loads the first element, so no start constant is left, and the
//    maximum is an element; docs/formal.md "The equivalents list");
//  - pass 2 (len+1 cycles): read x_i again, e_i = LUT[max - x_i] into an SM_MAX_LEN-entry
//    buffer, S += e_i (SUMW bits: S <= SM_MAX_LEN * 65535 < 2^SUMW; 22 for 64, 26 for
//    1024).
// FAST = 0 (in-order timing mode), busy exactly 2*(len+1) + 34*len:
//  - pass 3 (34 cycles per element): load the divider with e_i*65536 and S, 32 divide
//    steps, write the quotient in the divider's last busy cycle.
// FAST = 1 (overlap timing mode), busy exactly 2*(len+1) + 34 + len = 3*len + 36:
//  - reciprocal (34 cycles, once): load the divider with 2^32-1 and S (S_LOAD), 32 steps
//    and the result cycle (S_DIV): R = floor((2^32-1)/S), at most 65537 (S >= LUT[0]);
//  - pass 3 (len cycles, S_OUT): one element a cycle, combinationally:
//    q0 = floor(e_i*R / 2^16), r = e_i*2^16 - q0*S, p_i = q0 + (r >= S).
//    Exact: R > (2^32-1)/S - 1 and e_i <= min(65535, S) give
//    0 <= e_i*2^16/S - e_i*R/2^16 < e_i/2^16 + e_i/(S*2^16) <= 1, so q0 is p_i or
//    p_i - 1, and 0 <= r < 2S < 2^(SUMW+1): r is computed modulo 2^(SUMW+1). Neither
//    divide depends on len (32-bit operands: e_i*65536 < 2^32, S < 2^26), so the busy
//    formulas hold for every len up to 1024.
// All reads (both passes) happen before the first write. FSM: state_q / state_d
// (S_IDLE, S_LOAD, S_MAX, S_EXP, S_DIV, S_OUT: codes by phase); the datapath registers in one clocked block.
module ga2_softmax #(
  parameter FAST       = 0,                  // 0: serial divide per element; 1: reciprocal
  parameter SP_WORDS   = `GA2_SP_WORDS,      // the scratchpad's words: the pointers' width
  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN     // the longest vector: the buffer and the sum
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_SM_FIELDS   // the fields dst, src, len (model/ops/sm.py)
  wire [7:0] rd_byte = rd_data[7:0];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [23:0] rd_hi = rd_data[31:8];        // s8(): only the low byte of a word counts
  /* verilator lint_on UNUSEDSIGNAL */
  initial begin
    if (FAST != 0 && FAST != 1) begin
      $error("%m: FAST=%0d is not 0 or 1", FAST);
      $finish;
    end
    if (SM_MAX_LEN < 1 || SM_MAX_LEN > `GA2_SM_LEN_LIMIT) begin
      $error("%m: SM_MAX_LEN=%0d outside 1..%0d (the FAST bounds assume S < 2^26)", SM_MAX_LEN,
             `GA2_SM_LEN_LIMIT);
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam SAW  = $clog2(SP_WORDS);      // scratchpad address width (docs/rtl.md "Register widths")
  // exactly as wide as their largest values: the counters 0..len (LENW), the buffer
  // indices 0..len-1 (IDXW), the sum (SUMW, above)
  localparam LENW = $clog2(SM_MAX_LEN + 1);
  localparam IDXW = (SM_MAX_LEN > 1) ? $clog2(SM_MAX_LEN) : 1;
  localparam SUMW = $clog2(SM_MAX_LEN * 65535 + 1);
  // State codes by phase, so the phase tests are bit tests: 01x the two read passes
  // (bit 0: the second, S_EXP), 10x the divide phase (bit 0: FAST's output cycles).
  localparam [2:0] S_IDLE = 3'd0, S_LOAD = 3'd1, S_MAX = 3'd2, S_EXP = 3'd3, S_DIV = 3'd4,
                   S_OUT = 3'd5;

  reg [2:0]     state_q, state_d;
  reg [LENW-1:0] cnt_q, len_q;
  reg [IDXW-1:0] ew_q, idx_q;
  reg [SAW-1:0]  src_q, rp_q, wp_q;
  reg [7:0]      mx_q;
  reg            seed_q;   // pass 1 has not read x_0 yet: the next x seeds mx_q
  reg [SUMW-1:0] sum_q;    // <= SM_MAX_LEN * 65535: exactly as wide as the largest sum
  reg [15:0]     ebuf [0:SM_MAX_LEN-1];

  wire        pass    = (state_q[2:1] == 2'b01);          // S_MAX or S_EXP
  // one compare ends each pass: the read enable, the state step and the counters' step
  // are its sides, so a pass reads exactly len words
  wire        at_end  = (cnt_q == len_q);
  wire        reading = pass && !at_end;
  wire        have_x  = pass && (cnt_q != {LENW{1'b0}});
  wire [7:0]  x       = rd_byte;
  wire        x_gt    = $signed(x) > $signed(mx_q);
  wire [7:0]  d       = mx_q - x;                     // 0..255 since mx >= x
  wire [15:0] e;
  wire        div_last;
  wire [31:0] quot;
  /* verilator lint_off UNUSEDSIGNAL */
  // The divider's busy and remainder outputs are not needed: last marks the write cycle.
  wire        div_busy;
  wire [31:0] div_rem;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        fast     = (FAST != 0);
  // an element's write: FAST in every S_OUT cycle, else S_DIV's last (S_OUT unreachable)
  wire        elem_end = state_q[2] && (fast ? state_q[0] : div_last);
  /* verilator lint_off WIDTH */
  // zero extension of the index (IDXW <= LENW bits) and of e to the sum's width
  wire [LENW-1:0] idx_w  = idx_q;
  wire [SUMW-1:0] e_w    = e;
  /* verilator lint_on WIDTH */
  wire        is_last  = (idx_w + 1'b1 == len_q);

  ga2_exp_lut u_lut (
    .d(d),
    .e(e)
  );

  ga2_divu #(.WIDTH(32)) u_div (
    .clk(clk),
    .rst(rst),
    .start(state_q == S_LOAD),
    .dividend(fast ? 32'hFFFF_FFFF : {ebuf[idx_q], 16'd0}),
    .divisor({{(32-SUMW){1'b0}}, sum_q}),
    .busy(div_busy),
    .last(div_last),
    .quotient(quot),
    .remainder(div_rem)
  );

  // FAST pass 3: e_rd = e_i, rcp = R (the divider holds its quotient until its next
  // start); e*R <= 65535*65537 = 2^32 - 1 fits 32 bits, so q0 = floor(e*R/2^16) <= 65535;
  // the remainder and the product q0*S are only needed modulo 2^(SUMW+1) (0 <= r < 2S),
  // so they keep SUMW + 1 bits (23 for SM_MAX_LEN = 64, 27 for 1024).
  wire [15:0] e_rd  = ebuf[idx_q];
  wire [16:0] rcp   = quot[16:0];
  /* verilator lint_off UNUSEDSIGNAL */
  // prod[15:0]: the fraction of e*R/2^16, dropped by the floor; e_sh's bits above SUMW:
  // dropped by the modulo
  wire [31:0] prod  = {16'd0, e_rd} * {15'd0, rcp};
  wire [31:0] e_sh  = {e_rd, 16'd0};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] q0    = prod[31:16];
  wire [SUMW:0] q0s = {{(SUMW-15){1'b0}}, q0} * {1'b0, sum_q};
  wire [SUMW:0] rem = e_sh[SUMW:0] - q0s;
  wire        fix   = (rem >= {1'b0, sum_q});
  wire [16:0] qfast = {1'b0, q0} + {16'd0, fix};

  // the buffer powers up zero (data only: every entry is written before it is read)
  integer b;
  initial begin
    for (b = 0; b < SM_MAX_LEN; b = b + 1) ebuf[b] = 16'd0;
  end

  always @(posedge clk) begin
    // both passes write: S_MAX's values (with a max still growing) all land in ebuf[0]
    // (ew_q steps only in S_EXP), which S_EXP's first element rewrites before any read
    if (have_x) ebuf[ew_q] <= e;
  end

  // next state: start wins (the sequencer starts a unit only while it is idle)
  always @* begin
    state_d = state_q;
    case (state_q)
      S_MAX:   if (at_end) state_d = S_EXP;
      S_EXP:   if (at_end) state_d = S_LOAD;
      S_LOAD:  state_d = S_DIV;
      S_DIV:   if (div_last) state_d = fast ? S_OUT : (is_last ? S_IDLE : S_LOAD);
      S_OUT:   if (is_last || !fast) state_d = S_IDLE;     // FAST = 0: unreachable, as default
      default: state_d = S_IDLE;
    endcase
    if (start) state_d = S_MAX;
  end

  always @(posedge clk) begin
    if (rst) state_q <= S_IDLE;
    else     state_q <= state_d;
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register
  // but mx_q, which x_0 loads (seed_q; in S_MAX's first cycle no x is used);
  // in S_IDLE (after reset) they hold and every use is gated by state_q (reading,
  // have_x, elem_end)
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= {LENW{1'b0}};
      len_q <= len[LENW-1:0];
      ew_q  <= {IDXW{1'b0}};
      idx_q <= {IDXW{1'b0}};
      src_q <= src[SAW-1:0];
      rp_q  <= src[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
      seed_q <= 1'b1;
      sum_q <= {SUMW{1'b0}};
    end else begin
      case (state_q)
        S_MAX: begin
          if (have_x && (seed_q || x_gt)) mx_q <= x;
          if (have_x) seed_q <= 1'b0;
          if (at_end) begin
            cnt_q <= {LENW{1'b0}};
            rp_q  <= src_q;
          end else begin
            cnt_q <= cnt_q + 1'b1;
            rp_q  <= rp_q + 1'b1;
          end
        end
        S_EXP: begin
          if (have_x) begin
            sum_q <= sum_q + e_w;
            ew_q  <= ew_q + 1'b1;
          end
          if (!at_end) begin
            cnt_q <= cnt_q + 1'b1;
            rp_q  <= rp_q + 1'b1;
          end
        end
        S_DIV, S_OUT: begin
          if (elem_end) begin
            wp_q <= wp_q + 1'b1;
            if (!is_last) idx_q <= idx_q + 1'b1;
          end
        end
        default: ;                                     // S_IDLE, S_LOAD: hold
      endcase
    end
  end

  assign busy    = (state_q != S_IDLE);
  assign last    = elem_end && is_last;
  assign rd_en   = reading;
  assign wr_en   = elem_end;
  assign wr_data = fast ? {15'd0, qfast} : quot;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
