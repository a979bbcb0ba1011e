`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_softmax: the SM unit: sp[dst+i] = floor(e_i * 65536 / S), e_i = LUT[max - x_i],
// S = sum e_i, x_i = s8(sp[src+i]), 1 <= len <= 64 (len 0 is refused by the sequencer;
// the unit would never finish it). Passes 1 and 2 are the same for both FAST values:
//  - pass 1 (len+1 cycles): read x_i at cycle i, track the maximum;
//  - pass 2 (len+1 cycles): read x_i again, e_i = LUT[max - x_i] into a 64-entry
//    buffer, S += e_i.
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
//    p_i - 1, and 0 <= r < 2S < 2^23 (S <= 64*65535): r is computed modulo 2^23.
// All reads (both passes) happen before the first write. FSM: state_q / state_d
// (S_IDLE, S_LOAD, S_MAX, S_EXP, S_DIV, S_OUT: codes by phase); the datapath registers in one clocked block.
module ga2_softmax #(
  parameter FAST     = 0,                  // 0: serial divide per element; 1: reciprocal
  parameter SP_WORDS = `GA2_SP_WORDS       // the scratchpad's words: the pointers' width
) (
  input  wire                   clk,
  input  wire                   rst,
  input  wire                   start,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: the decoder has range-checked them, only the low SAW bits are kept
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [6:0]             len,       // 1..64, checked by the sequencer
  output wire                   busy,
  output wire                   last,
  output wire                   rd_en,
  output wire [`GA2_ADDR_W-1:0] rd_addr,
  input  wire [7:0]             rd_byte,   // s8(): only the low byte of a word counts
  output wire                   wr_en,
  output wire [`GA2_ADDR_W-1:0] wr_addr,
  output wire [31:0]            wr_data
);
  initial begin
    if (FAST != 0 && FAST != 1) begin
      $error("%m: FAST=%0d is not 0 or 1", FAST);
      $finish;
    end
    if (`GA2_SM_MAX_LEN < 1 || `GA2_SM_MAX_LEN > 64) begin
      $error("%m: GA2_SM_MAX_LEN=%0d outside 1..64 (the FAST bounds assume S < 2^22)", `GA2_SM_MAX_LEN);
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam SAW = $clog2(SP_WORDS);       // scratchpad address width (docs/rtl.md "Register widths")
  // State codes by phase, so the phase tests are bit tests: 01x the two read passes
  // (bit 0: the second, S_EXP), 10x the divide phase (bit 0: FAST's output cycles).
  localparam [2:0] S_IDLE = 3'd0, S_LOAD = 3'd1, S_MAX = 3'd2, S_EXP = 3'd3, S_DIV = 3'd4,
                   S_OUT = 3'd5;

  reg [2:0]     state_q, state_d;
  reg [6:0]     cnt_q, len_q;
  reg [5:0]     ew_q, idx_q;
  reg [SAW-1:0] src_q, rp_q, wp_q;
  reg [7:0]     mx_q;
  reg [21:0]    sum_q;     // <= 64 * 65535 < 2^22: exactly as wide as the largest sum
  reg [15:0]    ebuf [0:`GA2_SM_MAX_LEN-1];

  wire        pass    = (state_q[2:1] == 2'b01);          // S_MAX or S_EXP
  // one compare ends each pass: the read enable, the state step and the counters' step
  // are its sides, so a pass reads exactly len words
  wire        at_end  = (cnt_q == len_q);
  wire        reading = pass && !at_end;
  wire        have_x  = pass && (cnt_q != 7'd0);
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
  wire        is_last  = ({1'b0, idx_q} + 7'd1 == len_q);

  ga2_exp_lut u_lut (
    .d(d),
    .e(e)
  );

  ga2_divu #(.WIDTH(32)) u_div (
    .clk(clk),
    .rst(rst),
    .start(state_q == S_LOAD),
    .dividend(fast ? 32'hFFFF_FFFF : {ebuf[idx_q], 16'd0}),
    .divisor({10'd0, sum_q}),
    .busy(div_busy),
    .last(div_last),
    .quotient(quot),
    .remainder(div_rem)
  );

  // FAST pass 3: e_rd = e_i, rcp = R (the divider holds its quotient until its next
  // start); e*R <= 65535*65537 = 2^32 - 1 fits 32 bits, so q0 = floor(e*R/2^16) <= 65535;
  // the remainder and the product q0*S are only needed modulo 2^23 (0 <= r < 2S < 2^23),
  // so they keep 23 bits.
  wire [15:0] e_rd  = ebuf[idx_q];
  wire [16:0] rcp   = quot[16:0];
  /* verilator lint_off UNUSEDSIGNAL */
  // prod[15:0]: the fraction of e*R/2^16, dropped by the floor
  wire [31:0] prod  = {16'd0, e_rd} * {15'd0, rcp};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] q0    = prod[31:16];
  wire [22:0] q0s   = {7'd0, q0} * {1'b0, sum_q};
  wire [22:0] rem   = {e_rd[6:0], 16'd0} - q0s;
  wire        fix   = (rem >= {1'b0, sum_q});
  wire [16:0] qfast = {1'b0, q0} + {16'd0, fix};

  // the buffer powers up zero (data only: every entry is written before it is read)
  integer b;
  initial begin
    for (b = 0; b < `GA2_SM_MAX_LEN; b = b + 1) ebuf[b] = 16'd0;
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

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads every register;
  // in S_IDLE (after reset) they hold and every use is gated by state_q (reading,
  // have_x, elem_end)
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= 7'd0;
      len_q <= len;
      ew_q  <= 6'd0;
      idx_q <= 6'd0;
      src_q <= src[SAW-1:0];
      rp_q  <= src[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
      mx_q  <= 8'h80;                                  // -128, the smallest int8
      sum_q <= 22'd0;
    end else begin
      case (state_q)
        S_MAX: begin
          if (have_x && x_gt) mx_q <= x;
          if (at_end) begin
            cnt_q <= 7'd0;
            rp_q  <= src_q;
          end else begin
            cnt_q <= cnt_q + 7'd1;
            rp_q  <= rp_q + 1'b1;
          end
        end
        S_EXP: begin
          if (have_x) begin
            sum_q <= sum_q + {6'd0, e};
            ew_q  <= ew_q + 6'd1;
          end
          if (!at_end) begin
            cnt_q <= cnt_q + 7'd1;
            rp_q  <= rp_q + 1'b1;
          end
        end
        S_DIV, S_OUT: begin
          if (elem_end) begin
            wp_q <= wp_q + 1'b1;
            if (!is_last) idx_q <= idx_q + 6'd1;
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
