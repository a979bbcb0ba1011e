`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_smw_busy_f: ga2_smw busy for exactly its record's 2 (len + 1) + PER len + 1
// cycles after each start (model/ops/smw.py, PER = DIV_CYCLES = 17), for 1 <= len <=
// LMAX, every address and every read word, a start free in every cycle after the reset
// (a start while busy is a restart), by k-induction (yosys-smtbmc with z3): ABC pdr on
// the generated wrapper (tb/formal/gen.py) did not close in 900 s (docs/formal.md).
// The check's own counter c_q counts the cycles since the latest start (1 in the first
// busy cycle, saturating); L_q is the formula's value for its len. Asserted in every
// cycle after the first with reset low: busy exactly while c_q <= L_q, last exactly at
// c_q = L_q. The lemmas that make the induction close are asserted too (so they are
// proven, not assumed): the unit's latched len is the check's, 1..LMAX; in pass 1
// (S_MAX) c = cnt + 1, in pass 2 (S_SUM) c = len + 2 + cnt, both with cnt <= len; in
// pass 3 (S_DIV) at a load (ld) st = 0 and c = 2 len + 4 + PER (cnt - 1), at a step
// (st = 0..15, 15 the boundary) c + 15 = 2 len + 3 + PER cnt + st, with 1 <= cnt <= len
// but at the first boundary (st = 15, cnt = 0); idle after a start: c > L. The unit's registers are read through `expose`
// (tb/formal/props.py smw_busy: ga2_smw flattened, its datapath cut).
module ga2_smw_busy_f #(
  parameter LMAX = 16, parameter PER = 17, parameter CW = 10
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [`GA2_SMW_LEN_W-1:0] len, input wire [31:0] rd_data
);
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  wire [1:0] state_q;
  wire [`GA2_SMW_LEN_W-1:0] cnt_q, len_q;
  wire [3:0] st_q;
  wire ld_q;
  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_SMW_WORD(dst, src, len);
  ga2_smw dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en),
    .rd_addr(rd_addr), .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .st_q(st_q), .ld_q(ld_q)
  );
  wire legal = len >= 1 && len <= LMAX;
  localparam [1:0] S_IDLE = 2'd0, S_MAX = 2'd1, S_SUM = 2'd3, S_DIV = 2'd2;

  reg init_q = 1'b1;
  reg act_q = 1'b0;
  reg [CW-1:0] c_q = {CW{1'b0}};
  reg [31:0] L_q = 32'd0;
  reg [31:0] ln_q = 32'd0;
  wire [31:0] L_new = 2 * ({19'd0, len} + 1) + PER * {19'd0, len} + 1;
  always @(posedge clk) begin
    init_q <= 1'b0;
    if (rst) begin
      act_q <= 1'b0;
      c_q <= {CW{1'b0}};
    end else if (start) begin
      act_q <= 1'b1;
      c_q <= {{(CW-1){1'b0}}, 1'b1};
      L_q <= L_new;
      ln_q <= {19'd0, len};
    end else if (c_q != {CW{1'b1}}) begin
      c_q <= c_q + 1'b1;
    end
  end
  wire [31:0] c = {{(32-CW){1'b0}}, c_q};
  wire [31:0] k = {19'd0, cnt_q};
  wire [31:0] n = {19'd0, len_q};
  wire [31:0] p = {28'd0, st_q};
  always @* begin
    if (init_q) assume (rst);
    assume (!start || legal);
    if (!init_q && !rst) begin
      if (start) assert (L_new < (1 << CW) - 1);
      assert (busy == (act_q && c <= L_q));
      assert (last == (act_q && c == L_q));
      // the lemmas
      if (!act_q) assert (state_q == S_IDLE);
      if (act_q) assert (L_q == 2 * (ln_q + 1) + PER * ln_q + 1 && ln_q >= 1 && ln_q <= LMAX);
      if (act_q && state_q == S_IDLE) assert (c > L_q);
      if (state_q != S_IDLE) assert (n == ln_q && k <= n);
      if (state_q == S_MAX) assert (c == k + 1);
      if (state_q == S_SUM) assert (c == n + 2 + k);
      if (state_q == S_DIV && ld_q) assert (k >= 1 && p == 0 && c == 2 * n + 4 + PER * (k - 1));
      if (state_q == S_DIV && !ld_q) assert ((k >= 1 || p == 15) && c + 15 == 2 * n + 3 + PER * k + p);
    end
  end
endmodule
`resetall
