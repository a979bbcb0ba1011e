`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// decode_tb: cocotb toplevel of tb/drivers/decode_job.py: two ga2_decode instances on the
// same instruction word, u_a with chip A's sizes (A_*), u_b with chip B's (B_*), so one
// build per simulator checks the decoder against model/isa.py for two Configs.
// Combinational: Python sets instr, waits, reads the outputs (all of u_a; u_b's op
// one-hot and fault code). The scratchpad range outputs of u_a come packed as
// {valid, first, last} (rng_rd0, rng_rd1, rng_wr).
module decode_tb #(
  parameter A_SP_WORDS   = `GA2_SP_WORDS,
  parameter A_EXT_WORDS  = `GA2_EXT_WORDS,
  parameter A_SM_MAX_LEN = `GA2_SM_MAX_LEN,
  parameter B_SP_WORDS   = `GA2_SP_WORDS,
  parameter B_EXT_WORDS  = `GA2_EXT_WORDS,
  parameter B_SM_MAX_LEN = `GA2_SM_MAX_LEN
) (
  input  wire [127:0]             instr,
  output wire [2:0]               a_fault,
  output wire [2:0]               b_fault,
  output wire [11:0]              op_oh,
  output wire [11:0]              b_op_oh,
  output wire [7:0]               unit_sel,
  output wire                     dma_dir,
  output wire [`GA2_ADDR_W-1:0]   dma_sp_base,
  output wire [`GA2_EXT_ADDR_W-1:0] dma_ext_base,
  output wire [`GA2_LD_LEN_W-1:0] dma_len,
  output wire                     dma_ldx,
  output wire [`GA2_ADDR_W-1:0]   dma_idx,
  output wire [`GA2_LDX_ROWS_W-1:0] dma_rows,
  output wire [`GA2_ADDR_W-1:0]   mm_dst,
  output wire [`GA2_ADDR_W-1:0]   mm_a,
  output wire [`GA2_ADDR_W-1:0]   mm_b,
  output wire [`GA2_MM_M_W-1:0]   mm_m,
  output wire [`GA2_MM_K_W-1:0]   mm_k,
  output wire [`GA2_MM_N_W-1:0]   mm_n,
  output wire                     mm_tb,
  output wire [`GA2_MM_LDA_W-1:0] mm_lda,
  output wire [`GA2_MM_LDB_W-1:0] mm_ldb,
  output wire [`GA2_MM_LDC_W-1:0] mm_ldc,
  output wire                     mm_acc,
  output wire [`GA2_ADDR_W-1:0]   rq_dst,
  output wire [`GA2_ADDR_W-1:0]   rq_src,
  output wire [`GA2_RQ_LEN_W-1:0] rq_len,
  output wire [`GA2_RQ_M_W-1:0]   rq_m,
  output wire [`GA2_RQ_S_W-1:0]   rq_s,
  output wire                     rq_relu,
  output wire [`GA2_ADDR_W-1:0]   sm_dst,
  output wire [`GA2_ADDR_W-1:0]   sm_src,
  output wire [`GA2_SM_LEN_W-1:0] sm_len,
  output wire [`GA2_ADDR_W-1:0]   add_dst,
  output wire [`GA2_ADDR_W-1:0]   add_src,
  output wire [`GA2_ADD_LEN_W-1:0] add_len,
  output wire [`GA2_ADDR_W-1:0]   add_src2,
  output wire [`GA2_ADDR_W-1:0]   amax_dst,
  output wire [`GA2_ADDR_W-1:0]   amax_src,
  output wire [`GA2_ARGMAX_LEN_W-1:0] amax_len,
  output wire [`GA2_ADDR_W-1:0]   norm_dst,
  output wire [`GA2_ADDR_W-1:0]   norm_src,
  output wire [`GA2_NORM_LEN_W-1:0] norm_len,
  output wire [`GA2_NORM_M_W-1:0] norm_m,
  output wire [`GA2_NORM_S_W-1:0] norm_s,
  output wire                     pk_unpack,
  output wire [`GA2_ADDR_W-1:0]   pk_dst,
  output wire [`GA2_ADDR_W-1:0]   pk_src,
  output wire [`GA2_PACK4_LEN_W-1:0] pk_len,
  // the scratchpad ranges (the overlap mode's hazard check): {valid, first, last} each
  output wire [2*`GA2_ADDR_W:0]   rng_rd0,
  output wire [2*`GA2_ADDR_W:0]   rng_rd1,
  output wire [2*`GA2_ADDR_W:0]   rng_wr
);
  ga2_decode #(.SP_WORDS(A_SP_WORDS), .EXT_WORDS(A_EXT_WORDS), .SM_MAX_LEN(A_SM_MAX_LEN)) u_a (
    .instr(instr), .op_oh(op_oh), .unit_sel(unit_sel), .fault_code(a_fault),
    .dma_dir(dma_dir), .dma_sp_base(dma_sp_base), .dma_ext_base(dma_ext_base), .dma_len(dma_len),
    .dma_ldx(dma_ldx), .dma_idx(dma_idx), .dma_rows(dma_rows),
    .mm_dst(mm_dst), .mm_a(mm_a), .mm_b(mm_b), .mm_m(mm_m), .mm_k(mm_k), .mm_n(mm_n),
    .mm_tb(mm_tb), .mm_lda(mm_lda), .mm_ldb(mm_ldb), .mm_ldc(mm_ldc), .mm_acc(mm_acc),
    .rq_dst(rq_dst), .rq_src(rq_src), .rq_len(rq_len), .rq_m(rq_m), .rq_s(rq_s), .rq_relu(rq_relu),
    .sm_dst(sm_dst), .sm_src(sm_src), .sm_len(sm_len),
    .add_dst(add_dst), .add_src(add_src), .add_len(add_len), .add_src2(add_src2),
    .amax_dst(amax_dst), .amax_src(amax_src), .amax_len(amax_len),
    .norm_dst(norm_dst), .norm_src(norm_src), .norm_len(norm_len), .norm_m(norm_m), .norm_s(norm_s),
    .pk_unpack(pk_unpack), .pk_dst(pk_dst), .pk_src(pk_src), .pk_len(pk_len),
    .rd0_v(rng_rd0[2*`GA2_ADDR_W]), .rd0_first(rng_rd0[`GA2_ADDR_W +: `GA2_ADDR_W]),
    .rd0_last(rng_rd0[0 +: `GA2_ADDR_W]),
    .rd1_v(rng_rd1[2*`GA2_ADDR_W]), .rd1_first(rng_rd1[`GA2_ADDR_W +: `GA2_ADDR_W]),
    .rd1_last(rng_rd1[0 +: `GA2_ADDR_W]),
    .wr_v(rng_wr[2*`GA2_ADDR_W]), .wr_first(rng_wr[`GA2_ADDR_W +: `GA2_ADDR_W]),
    .wr_last(rng_wr[0 +: `GA2_ADDR_W])
  );

  ga2_decode #(.SP_WORDS(B_SP_WORDS), .EXT_WORDS(B_EXT_WORDS), .SM_MAX_LEN(B_SM_MAX_LEN)) u_b (
    .instr(instr), .op_oh(b_op_oh), .unit_sel(), .fault_code(b_fault),
    .dma_dir(), .dma_sp_base(), .dma_ext_base(), .dma_len(), .dma_ldx(), .dma_idx(), .dma_rows(),
    .mm_dst(), .mm_a(), .mm_b(), .mm_m(), .mm_k(), .mm_n(),
    .mm_tb(), .mm_lda(), .mm_ldb(), .mm_ldc(), .mm_acc(),
    .rq_dst(), .rq_src(), .rq_len(), .rq_m(), .rq_s(), .rq_relu(),
    .sm_dst(), .sm_src(), .sm_len(),
    .add_dst(), .add_src(), .add_len(), .add_src2(), .amax_dst(), .amax_src(), .amax_len(),
    .norm_dst(), .norm_src(), .norm_len(), .norm_m(), .norm_s(),
    .pk_unpack(), .pk_dst(), .pk_src(), .pk_len(),
    .rd0_v(), .rd0_first(), .rd0_last(), .rd1_v(), .rd1_first(), .rd1_last(),
    .wr_v(), .wr_first(), .wr_last()
  );
endmodule
`resetall
