`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_norm_recip_f: where ga2_norm's reciprocal comes from (tb/formal/props.py
// norm_recip(); docs/formal_compose.md "The reciprocal constants"), for every input sequence with
// the decoder's contract (start -> 1 <= len <= GA2_NORM_MAX_LEN):
//  - the isqrt: in every cycle after S_SQRT (S_LOAD, S_DIV, S_SCALE), with ss0 the sum
//    pass 1 left (this wrapper's copy, taken in S_SQRT's first step) and SQ Horner's
//    square of the root (SQ = 4 SQ + fits * (4 root + 1) a step, i.e. root^2):
//    ss0 <= 2^20, SQ + rem_q == ss0 * 2^10 and rem_q <= 2 root_q, so
//    root_q^2 <= ss0 * 2^10 < (root_q + 1)^2: root_q = isqrt(ss0 * 2^10);
//  - the divider: in S_DIV it is stepping or in its last cycle, started in S_LOAD, with
//    the divisor root_q; in S_SCALE (the only state that writes) it is idle, has shown
//    `last` since that start, and holds the divisor root_q: its quotient is the one
//    ga2_divu's contract gives (tb/formal/ga2_divu_f.v) for (dividend, root_q).
// The strengthening invariant (what makes 1-induction close): in S_SUM the isqrt's
// registers are 0 and ss_q <= (cnt_q - 1) * 2^14 (each x^2 <= 2^14); in S_SQRT's step
// i = st_q: the radicand's pairs not yet used are in ss_q (ss0 shifted left 2i - 1),
// SQ + rem_q == the radicand's top 2i bits, rem_q <= 2 root_q, root_q < 2^i.
// ga2_norm's registers and nets below are ports after `expose` (props.py).
module ga2_norm_recip_f #(
  parameter MAXLEN = 64,
  parameter MUL    = 1          // 1: also assert SQ == root_q * root_q (a 16-bit multiplier)
) (
  input wire                     clk,
  input wire                     rst,
  input wire                     start,
  input wire [`GA2_ADDR_W-1:0]   dst,
  input wire [`GA2_ADDR_W-1:0]   src,
  input wire [6:0]               len,
  input wire [`GA2_NORM_M_W-1:0] m,
  input wire [`GA2_NORM_S_W-1:0] s,
  input wire [7:0]               rd_byte
);
  localparam [2:0] S_IDLE = 3'd0, S_SQRT = 3'd1, S_SUM = 3'd2, S_SCALE = 3'd3, S_LOAD = 3'd4,
                   S_DIV = 3'd5;
  wire busy, last, rd_en, wr_en, fits, div_step, div_last;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  wire [2:0]  state_q;
  wire [6:0]  cnt_q, len_q;
  wire [3:0]  st_q;
  wire [20:0] ss_q;
  wire [15:0] root_q, rem_q;
  wire [29:0] div_dsr;

  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_NORM_WORD(dst, src, len, m, s);
  ga2_norm dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .st_q(st_q), .ss_q(ss_q),
    .root_q(root_q), .rem_q(rem_q), .fits(fits),
    .\u_div.step_q (div_step), .\u_div.last_q (div_last), .\u_div.dsr_q (div_dsr)
  );

  // this wrapper's copies: ss0, SQ, and "the divider has shown last since its start"
  reg [20:0] ss0;
  reg [31:0] sq_q;
  reg        ddone;
  wire       sqrt0  = (state_q == S_SQRT) && (st_q == 4'd0);
  wire [20:0] g_ss  = sqrt0 ? ss_q : ss0;
  wire [31:0] g_sq  = sqrt0 ? 32'd0 : sq_q;
  always @(posedge clk) begin
    if (sqrt0) ss0 <= ss_q;
    if (state_q == S_SQRT) sq_q <= {g_sq[29:0], 2'b00} + (fits ? {14'd0, root_q, 2'b01} : 32'd0);
    if (state_q == S_LOAD) ddone <= 1'b0;
    else if (div_last)     ddone <= 1'b1;
  end

  /* verilator lint_off WIDTH */
  wire [31:0] rad   = {1'b0, g_ss, 10'd0};                   // the radicand ss0 * 2^10
  wire [5:0]  two_i = {1'b0, st_q, 1'b0};
  wire [31:0] top   = (st_q == 4'd0) ? 32'd0 : (rad >> (6'd32 - two_i));   // its top 2i bits
  wire [20:0] rest  = g_ss << (two_i - 6'd1);                // the pairs still to come
  wire [20:0] bound = (cnt_q == 7'd0) ? 21'd0 : ({14'd0, cnt_q} - 21'd1) << 14;
  /* verilator lint_on WIDTH */
  wire [32:0] sq_rem = {1'b0, g_sq} + {17'd0, rem_q};
  wire [31:0] sqr    = {16'd0, root_q} * {16'd0, root_q};
  wire        after  = (state_q == S_LOAD) || (state_q == S_DIV) || (state_q == S_SCALE);

  // reset in the first cycle (arm: every later one), then every reset and start free
  reg arm = 1'b0;
  always @(posedge clk) arm <= 1'b1;

  always @* begin
    if (!arm) assume (rst);
    // the decoder's contract
    assume (!start || (len >= 7'd1 && len <= MAXLEN));
  end

  always @* if (arm) begin
    if (state_q == S_SUM || state_q == S_SCALE)
      assert (len_q >= 7'd1 && len_q <= MAXLEN && cnt_q <= len_q);
    if (state_q == S_SQRT || state_q == S_LOAD || state_q == S_DIV)
      assert (len_q >= 7'd1 && len_q <= MAXLEN && cnt_q == 7'd0);
    if (state_q == S_SUM) begin
      assert (st_q == 4'd0 && root_q == 16'd0 && rem_q == 16'd0);
      assert (ss_q <= bound);
    end
    if (state_q == S_SQRT) begin
      assert (g_ss <= 21'd1048576);
      if (st_q == 4'd0) assert (root_q == 16'd0 && rem_q == 16'd0);
      else              assert (ss_q == rest);
      assert (sq_rem == {1'b0, top});
      assert ({1'b0, rem_q} <= {root_q, 1'b0});
      assert ((root_q >> st_q) == 16'd0);
      if (MUL) assert (g_sq == sqr);
    end
    if (after) begin
      assert (ss0 <= 21'd1048576);
      assert (sq_rem == {2'b00, ss0, 10'd0});
      assert ({1'b0, rem_q} <= {root_q, 1'b0});
      if (MUL) assert (sq_q == sqr);
    end
    // the divider: started in S_LOAD with root_q, done (and idle) in S_SCALE
    if (state_q == S_DIV)   assert ((div_step || div_last) && !ddone && div_dsr == {14'd0, root_q});
    if (state_q == S_SCALE) assert (!div_step && ddone && div_dsr == {14'd0, root_q});
    if (div_last) assert (!div_step);
  end
endmodule
`resetall
