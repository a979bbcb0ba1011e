`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// decode_tb: cocotb toplevel of tb/drivers/decode_job.py: two ga2_decode instances on the
// same instruction word, u_a with chip A's sizes (A_*), u_b with chip B's (B_*), so one
// build per simulator checks the decoder against model/isa.py for two Configs.
// Combinational: Python sets instr, waits, reads the outputs (all of u_a; u_b's op
// one-hot and fault code). The scratchpad range outputs of u_a: the read slots as the
// decoder gives them (rd_v, rd_first, rd_last: slot k at bit k, bits k*GA2_ADDR_W +:
// GA2_ADDR_W), the write range packed as {valid, first, last} (rng_wr).
module decode_tb #(
  parameter A_SP_WORDS   = `GA2_SP_WORDS,
  parameter A_EXT_WORDS  = `GA2_EXT_WORDS,
  parameter A_SM_MAX_LEN = `GA2_SM_MAX_LEN,
  parameter B_SP_WORDS   = `GA2_SP_WORDS,
  parameter B_EXT_WORDS  = `GA2_EXT_WORDS,
  parameter B_SM_MAX_LEN = `GA2_SM_MAX_LEN
) (
  input  wire [`GA2_INSTR_W-1:0]  instr,
  output wire [2:0]               a_fault,
  output wire [2:0]               b_fault,
  output wire [`GA2_NUM_OPS-1:0]  op_oh,
  output wire [`GA2_NUM_OPS-1:0]  b_op_oh,
  output wire [`GA2_NUM_UNITS-1:0] unit_sel,
  output wire [`GA2_NUM_T-1:0]    tunit_sel,
  // the scratchpad ranges (the overlap mode's hazard check): {valid, first, last} each
  output wire [`GA2_NUM_RD-1:0]   rd_v,
  output wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_first,
  output wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_last,
  output wire [2*`GA2_ADDR_W:0]   rng_wr
);
  ga2_decode #(.SP_WORDS(A_SP_WORDS), .EXT_WORDS(A_EXT_WORDS), .SM_MAX_LEN(A_SM_MAX_LEN)) u_a (
    .instr(instr), .op_oh(op_oh), .unit_sel(unit_sel), .tunit_sel(tunit_sel), .fault_code(a_fault),
    .rd_v(rd_v), .rd_first(rd_first), .rd_last(rd_last),
    .wr_v(rng_wr[2*`GA2_ADDR_W]), .wr_first(rng_wr[`GA2_ADDR_W +: `GA2_ADDR_W]),
    .wr_last(rng_wr[0 +: `GA2_ADDR_W])
  );

  ga2_decode #(.SP_WORDS(B_SP_WORDS), .EXT_WORDS(B_EXT_WORDS), .SM_MAX_LEN(B_SM_MAX_LEN)) u_b (
    .instr(instr), .op_oh(b_op_oh), .unit_sel(), .tunit_sel(), .fault_code(b_fault),
    .rd_v(), .rd_first(), .rd_last(),
    .wr_v(), .wr_first(), .wr_last()
  );
endmodule
`resetall
