`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_decode: the GA-2 instruction decoder and fault checks, combinational.
// instr (the 128-bit instruction word) -> the op one-hot (bit GA2_OPI_<OP>), the RTL
// unit it starts (unit_sel, bit GA2_U_<UNIT>), its unit of the timing contract
// (tunit_sel, bit GA2_T_<UNIT>), fault_code: 0 none, else the first of opcode (1),
// shape (4), scratchpad range (2), external range (3) in that priority (docs/isa.md),
// exactly model/isa.py decode() + check() on a chip with these sizes; and the
// instruction's scratchpad ranges for the overlap mode's hazard check (ga2_hazard):
// the GA2_NUM_RD read slots (the ranges it reads, in its record's order: rd_v, rd_first,
// rd_last; GA2_NUM_RD is the most any op reads) and wr (the one it writes), first..last
// inclusive with a valid bit, exact for an instruction without fault (the only kind issued).
// Every op's part is generated from its record (model/ops -> rtl/ga2_decode_ops.vh by
// tools/flow/headers.py): a new operation needs no edit here. The range arithmetic is
// 32 bits wide and no sum can wrap (model/rtl.py checks the bounds), so a range reaching
// past a memory faults. (Error 6, a lookup's row index not below rows, comes from data:
// ga2_dma finds it in EXEC.)
module ga2_decode #(
  parameter SP_WORDS   = `GA2_SP_WORDS,
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN
) (
  /* verilator lint_off UNUSEDSIGNAL */
  // Bits above an op's last field carry nothing; the decoder ignores them, like
  // model/isa.decode.
  input  wire [`GA2_INSTR_W-1:0]    instr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [`GA2_NUM_OPS-1:0]    op_oh,
  output wire [`GA2_NUM_UNITS-1:0]  unit_sel,
  output wire [`GA2_NUM_T-1:0]      tunit_sel,
  output reg  [2:0]                 fault_code,
  // the read slots: slot k is rd_v[k], rd_first / rd_last[k*GA2_ADDR_W +: GA2_ADDR_W]
  output wire [`GA2_NUM_RD-1:0]             rd_v,
  output wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_first,
  output wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_last,
  output wire                       wr_v,
  output wire [`GA2_ADDR_W-1:0]     wr_first,
  output wire [`GA2_ADDR_W-1:0]     wr_last
);
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (SM_MAX_LEN < 1 || SM_MAX_LEN > `GA2_SM_LEN_LIMIT) begin
      $error("%m: SM_MAX_LEN=%0d outside 1..%0d", SM_MAX_LEN, `GA2_SM_LEN_LIMIT);
      $finish;
    end
  end

`include "ga2_decode_ops.vh"
endmodule
`resetall
