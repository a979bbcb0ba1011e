`default_nettype none
// ga2_softmax_busy_f: ga2_softmax busy for exactly 2 (len + 1) + SM_DIV * len cycles
// (FAST = 0, the in-order mode) or 2 (len + 1) + SM_FAST_TAIL + len (FAST = 1, the
// overlap mode) (model/timing.py sm_busy; docs/isa.md), for 1 <= len <= LMAX and every
// address and input value.
// CW: the width of the check's cycle counter and latched length (busy_chk.vh). The
// formula is computed 32 bits wide (L_full) and asserted to fit CW bits below the
// counter's saturation value (L <= 2^CW - 2) at every legal start, so a CW too narrow
// for LMAX fails the check (a counterexample at the first such start) instead of
// truncating the length. FAST = 1, LMAX = 16: L <= 3*16 + 36 = 84 fits CW = 7 (with it,
// pdr still did not close in 900 s: docs/formal.md).
// PHASES = 1 (FAST = 1 only; tb/formal/props.py): the same length stated as a sequence of
// phases, in place of the one counter: after each start the check's own model runs
// phase 1 for len + 1 cycles, phase 2 for len + 1, phases 3, 4, 5 for 1, SM_FAST_TAIL - 2
// and 1, phase 6 for len, then stops; so it runs (len + 1) + (len + 1) + SM_FAST_TAIL +
// len = 2 (len + 1) + SM_FAST_TAIL + len cycles, the formula (tests/flow/test_formal.py
// checks the sum against model/timing.py sm_busy for len 1..16). Asserted: busy exactly
// while the model runs, last exactly in its final cycle. The phase counter pc_q (CW
// bits) counts 0 .. length - 1 in each phase but phase 4, which counts down from
// SM_FAST_TAIL - 3 to 0; at every legal start len and SM_FAST_TAIL - 3 are asserted to
// fit CW bits, so CW = 5 holds len <= 16 and 31, and CW = 4 fails. The split follows the
// unit (docs/isa.md: two passes, the reciprocal divide -- its load cycle, 32 steps, its
// result cycle -- then one element a cycle), so the model's counter equals the unit's
// pass, divider-step and element counters bit for bit, which pdr finds quickly; the
// single counter needs arithmetic relations (its count = cnt + len + 2, ...).
module ga2_softmax_busy_f #(
  parameter FAST = 0, parameter SP_WORDS = 16, parameter LMAX = 2,
  parameter SM_DIV = 34, parameter SM_FAST_TAIL = 34, parameter CW = 20, parameter PHASES = 0
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [6:0] len, input wire [7:0] rd_byte
);
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_SM_WORD(dst, src, len);
  ga2_softmax #(.FAST(FAST), .SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy),
    .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}), .wr_en(wr_en),
    .wr_addr(wr_addr), .wr_data(wr_data)
  );
  wire legal = len >= 1 && len <= LMAX;
  wire [31:0] L_full = FAST ? 2 * (len + 1) + SM_FAST_TAIL + len : 2 * (len + 1) + SM_DIV * len;
  wire [CW-1:0] L_new = L_full[CW-1:0];
  generate
    if (PHASES == 0) begin : g_one
`include "busy_chk.vh"
      always @* if (!rst && !init_q && start && legal) assert (L_full <= (1 << CW) - 2);
    end else begin : g_phases
`include "sm_phases.vh"
      always @* begin
        if (init_q) assume (rst);
        assume (!start || legal);
        if (!rst && !init_q) begin
          if (start) assert (len <= (1 << CW) - 1 && SM_FAST_TAIL >= 3 && tail3 <= (1 << CW) - 1);
          assert (busy == (ph_q != 3'd0));
          assert (last == (ph_q == 3'd6 && ph_end));
        end
      end
    end
  endgenerate
endmodule
