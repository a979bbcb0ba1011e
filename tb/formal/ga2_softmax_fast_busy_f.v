`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_softmax_fast_busy_f: ga2_softmax with FAST = 1 (the overlap mode) busy for exactly
// 2 (len + 1) + SM_FAST_TAIL + len cycles after each start (model/timing.py sm_busy), for
// 1 <= len <= LMAX, every address and input value, a start free in every cycle after
// the reset (a start while busy is a restart), by k-induction (yosys-smtbmc with z3)
// instead of pdr, which did not close in 900 s (docs/formal.md).
// The length is stated as ga2_softmax_busy_f's PHASES = 1 model states it: after each
// start the check's own model runs phase 1 for len + 1 cycles, phase 2 for len + 1,
// phases 3, 4, 5 for 1, SM_FAST_TAIL - 2 and 1, phase 6 for len, then stops: (len + 1)
// + (len + 1) + SM_FAST_TAIL + len cycles in all, the formula (tests/flow/test_formal.py
// checks the sum against sm_busy for len 1..16). Asserted in every cycle after the
// first with reset low: busy exactly while the model runs, last exactly in its final
// cycle; at every start len and SM_FAST_TAIL - 3 fit the phase counter's CW bits.
// The lemmas that make the induction close are asserted too (so they are proven, not
// assumed): each phase is one state of the unit (1 S_MAX, 2 S_EXP, 3 S_LOAD, 4 S_DIV
// while the divider steps, 5 S_DIV in the divider's result cycle, 6 S_OUT), the model's
// counter equals the unit's pass counter (phases 1, 2), the divider's step counter
// (phase 4) or the element index (phase 6), the unit's latched length equals the
// model's, within 1..LMAX. The unit's registers are read through `expose`
// (tb/formal/props.py: ga2_softmax flattened with FAST = 1, its registers made ports).
module ga2_softmax_fast_busy_f #(
  parameter LMAX = 16, parameter SM_FAST_TAIL = 34, parameter CW = 5
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [6:0] len, input wire [7:0] rd_byte
);
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  wire [2:0] state_q;
  wire [6:0] cnt_q, len_q;
  wire [5:0] idx_q;
  wire [4:0] dcnt;
  wire dstep, dlast;
  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_SM_WORD(dst, src, len);
  ga2_softmax dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy),
    .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}), .wr_en(wr_en),
    .wr_addr(wr_addr), .wr_data(wr_data), .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q),
    .idx_q(idx_q), .\u_div.cnt_q (dcnt), .\u_div.step_q (dstep), .\u_div.last_q (dlast)
  );
  wire legal = len >= 1 && len <= LMAX;
  localparam [2:0] S_IDLE = 3'd0, S_LOAD = 3'd1, S_MAX = 3'd2, S_EXP = 3'd3, S_DIV = 3'd4,
                   S_OUT = 3'd5;

`include "sm_phases.vh"
  wire [6:0] pc7 = {{(7-CW){1'b0}}, pc_q};
  always @* begin
    if (init_q) assume (rst);
    assume (!start || legal);
    if (!init_q) begin
      if (!rst) begin
        if (start) assert (len <= (1 << CW) - 1 && SM_FAST_TAIL >= 3 && tail3 <= (1 << CW) - 1);
        assert (busy == (ph_q != 3'd0));
        assert (last == (ph_q == 3'd6 && ph_end));
      end
      // the lemmas
      assert (ph_q <= 3'd6);
      assert ((ph_q == 3'd0) == (state_q == S_IDLE));
      if (ph_q != 3'd0) assert (len_q == ln_q && ln_q >= 1 && ln_q <= LMAX);
      if (ph_q == 3'd1) assert (state_q == S_MAX && cnt_q == pc7 && pc7 <= ln_q && idx_q == 6'd0);
      if (ph_q == 3'd2) assert (state_q == S_EXP && cnt_q == pc7 && pc7 <= ln_q && idx_q == 6'd0);
      if (ph_q == 3'd3) assert (state_q == S_LOAD && idx_q == 6'd0);
      if (ph_q == 3'd4) assert (state_q == S_DIV && dstep && !dlast && dcnt == pc_q && idx_q == 6'd0);
      if (ph_q == 3'd5) assert (state_q == S_DIV && !dstep && dlast && idx_q == 6'd0);
      if (ph_q == 3'd6) assert (state_q == S_OUT && {1'b0, idx_q} == pc7 && pc7 < ln_q);
    end
  end
endmodule
`resetall
