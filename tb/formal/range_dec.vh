// Shared front of the range wrappers (tb/formal/ga2_*_range_f.v): the chip's own decoder,
// ga2_decode, on a free instruction word `instr`, with every field and scratchpad range it
// reports as a wire. The wrapper connects the unit's field inputs to these wires exactly
// as ga2_top does, and range_chk.vh latches the ranges (rd0, rd1, wr: what ga2_hazard
// reserves for the instruction) at each start. Needs SP_WORDS, EXT_WORDS, SM_MAX_LEN.
  localparam AW  = `GA2_ADDR_W;
  localparam SAW = $clog2(SP_WORDS);
  wire [11:0] op_oh;
  wire [7:0]  unit_sel;
  wire [2:0]  fault_code;
  wire        dma_dir, dma_ldx, mm_tb, mm_acc, rq_relu, pk_unpack;
  wire [AW-1:0] dma_sp_base, dma_idx, mm_dst, mm_a, mm_b, rq_dst, rq_src, sm_dst, sm_src;
  wire [AW-1:0] add_dst, add_src, add_src2, amax_dst, amax_src, norm_dst, norm_src, pk_dst, pk_src;
  wire [`GA2_EXT_ADDR_W-1:0] dma_ext_base;
  wire [`GA2_LD_LEN_W-1:0]   dma_len;
  wire [`GA2_LDX_ROWS_W-1:0] dma_rows;
  wire [`GA2_MM_M_W-1:0]     mm_m;
  wire [`GA2_MM_K_W-1:0]     mm_k;
  wire [`GA2_MM_N_W-1:0]     mm_n;
  wire [`GA2_MM_LDA_W-1:0]   mm_lda;
  wire [`GA2_MM_LDB_W-1:0]   mm_ldb;
  wire [`GA2_MM_LDC_W-1:0]   mm_ldc;
  wire [`GA2_RQ_LEN_W-1:0]   rq_len;
  wire [`GA2_RQ_M_W-1:0]     rq_m;
  wire [`GA2_RQ_S_W-1:0]     rq_s;
  wire [`GA2_SM_LEN_W-1:0]   sm_len;
  wire [`GA2_ADD_LEN_W-1:0]  add_len;
  wire [`GA2_ARGMAX_LEN_W-1:0] amax_len;
  wire [`GA2_NORM_LEN_W-1:0] norm_len;
  wire [`GA2_NORM_M_W-1:0]   norm_m;
  wire [`GA2_NORM_S_W-1:0]   norm_s;
  wire [`GA2_PACK4_LEN_W-1:0] pk_len;
  wire          rd0_v, rd1_v, wr_v;
  wire [AW-1:0] rd0_first, rd0_last, rd1_first, rd1_last, wr_first, wr_last;
  ga2_decode #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS), .SM_MAX_LEN(SM_MAX_LEN)) u_dec (
    .instr(instr), .op_oh(op_oh), .unit_sel(unit_sel), .fault_code(fault_code),
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
    .rd0_v(rd0_v), .rd0_first(rd0_first), .rd0_last(rd0_last),
    .rd1_v(rd1_v), .rd1_first(rd1_first), .rd1_last(rd1_last),
    .wr_v(wr_v), .wr_first(wr_first), .wr_last(wr_last)
  );
