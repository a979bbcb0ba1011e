`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_top: the GA-2 chip, wiring only (docs/rtl.md):
//   ga2_decode  instruction word -> op, fields, unit select, fault code (combinational)
//   ga2_seq     the sequencer FSM: pc, fetch, issue, retire, error registers
//   ga2_hazard  the overlap mode's scratchpad hazard check (only with OVERLAP = 1)
//   ga2_perf    the five performance counters, fed by the unit-busy vector
//   ga2_sp_xbar the scratchpad ports of the units (fixed wiring, a port set per unit)
//   ga2_dma, ga2_mm_ctrl, ga2_vec_rq, ga2_softmax, ga2_vec_add, ga2_argmax, ga2_norm,
//   ga2_pack4: the units (the last six: the vector unit, one of them busy at a time);
//   ga2_sram u_sp: the scratchpad
// Units are started by a one-cycle start pulse and report busy/last (last: the final
// busy cycle). OVERLAP = 0: EXEC waits for the running unit's last cycle; OVERLAP = 1:
// the units run concurrently, one instruction each (docs/isa.md "Timing modes").
// retire[3:0] has a slot per unit (0 dma, 1 mm, 2 vec) and slot 3 for HALT; retire_pc
// holds slot i's pc at [16*i +: 16]; retire_cycle is shared. ext_addr is the full
// external address, GA2_EXT_ADDR_W = 24 bits (LD/ST/LDX xhi above a 16-bit field).
module ga2_top #(
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter IMEM_DEPTH = `GA2_IMEM_DEPTH,
  parameter SP_WORDS   = `GA2_SP_WORDS,
  parameter OVERLAP    = `GA2_OVERLAP,    // 0: in-order timing mode, 1: overlap mode
  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN  // the longest softmax, 1..GA2_SM_LEN_LIMIT
) (
  input  wire         clk,
  input  wire         rst,
  input  wire         start,
  output wire         done,
  output wire         error,
  output wire [2:0]   error_code,
  output wire [15:0]  error_pc,
  output wire [31:0]  cnt_cycles,
  output wire [31:0]  cnt_mm,
  output wire [31:0]  cnt_dma,
  output wire [31:0]  cnt_vec,
  output wire [31:0]  cnt_instret,
  output wire [15:0]  imem_addr,
  output wire         imem_en,
  input  wire [127:0] imem_rdata,
  output wire [`GA2_EXT_ADDR_W-1:0] ext_addr,
  output wire         ext_en,
  output wire         ext_we,
  output wire [31:0]  ext_wdata,
  input  wire [31:0]  ext_rdata,
  output wire [3:0]   retire,
  output wire [63:0]  retire_pc,
  output wire [31:0]  retire_cycle
);
  // the scratchpad address width (2 <= SP_WORDS <= 65536)
  localparam SP_AW = $clog2(SP_WORDS);
  localparam NA    = `GA2_ARRAY;
  localparam AW    = `GA2_ADDR_W;
  localparam NRD   = 2 * NA;                  // the matrix unit's read ports (A rows, B columns)

  initial begin
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > 65535) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..65535 (pc is 16 bits)", IMEM_DEPTH);
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (OVERLAP != 0 && OVERLAP != 1) begin
      $error("%m: OVERLAP=%0d must be 0 (in-order) or 1 (overlap)", OVERLAP);
      $finish;
    end
    if (NA != 4) begin
      $error("%m: the matrix unit is built for a 4 x 4 array, ARRAY=%0d", NA);
      $finish;
    end
  end

  // ------------------------------------------------------------------ decode
  /* verilator lint_off UNUSEDSIGNAL */
  // The sequencer needs only HALT of the op one-hot; the units' selects come in unit_sel.
  wire [11:0]               op_oh;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [7:0]                unit_sel;
  wire [2:0]                fault_code;
  wire                      dma_dir, dma_ldx;
  wire [AW-1:0]             dma_sp_base, dma_idx;
  wire [`GA2_EXT_ADDR_W-1:0] dma_ext_base;
  wire [`GA2_LD_LEN_W-1:0]  dma_len;
  wire [`GA2_LDX_ROWS_W-1:0] dma_rows;
  wire [AW-1:0]             mm_dst, mm_a, mm_b;
  wire [`GA2_MM_M_W-1:0]    mm_m;
  wire [`GA2_MM_K_W-1:0]    mm_k;
  wire [`GA2_MM_N_W-1:0]    mm_n;
  wire                      mm_tb;
  wire [`GA2_MM_LDA_W-1:0]  mm_lda;
  wire [`GA2_MM_LDB_W-1:0]  mm_ldb;
  wire [`GA2_MM_LDC_W-1:0]  mm_ldc;
  wire                      mm_acc;
  wire [AW-1:0]             rq_dst, rq_src;
  wire [`GA2_RQ_LEN_W-1:0]  rq_len;
  wire [`GA2_RQ_M_W-1:0]    rq_m;
  wire [`GA2_RQ_S_W-1:0]    rq_s;
  wire                      rq_relu;
  wire [AW-1:0]             sm_dst, sm_src;
  // SM len is 13 bits in the encoding; ga2_softmax keeps the bits SM_MAX_LEN needs
  wire [`GA2_SM_LEN_W-1:0]  sm_len;
  /* verilator lint_off UNUSEDSIGNAL */
  // NORM len: after the shape check (len <= 64) 7 bits carry it
  wire [`GA2_NORM_LEN_W-1:0] norm_len;
  /* verilator lint_on UNUSEDSIGNAL */
  wire                      pk_unpack;
  wire [AW-1:0]             pk_dst, pk_src;
  wire [`GA2_PACK4_LEN_W-1:0] pk_len;
  wire [AW-1:0]             add_dst, add_src, add_src2;
  wire [`GA2_ADD_LEN_W-1:0] add_len;
  wire [AW-1:0]             amax_dst, amax_src;
  wire [`GA2_ARGMAX_LEN_W-1:0] amax_len;
  wire [AW-1:0]             norm_dst, norm_src;
  wire [`GA2_NORM_M_W-1:0]  norm_m;
  wire [`GA2_NORM_S_W-1:0]  norm_s;
  /* verilator lint_off UNUSEDSIGNAL */
  // The scratchpad ranges feed only ga2_hazard, which exists only with OVERLAP = 1.
  wire                      rd0_v, rd1_v, wr_v;
  wire [AW-1:0]             rd0_first, rd0_last, rd1_first, rd1_last, wr_first, wr_last;
  /* verilator lint_on UNUSEDSIGNAL */

  ga2_decode #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS), .SM_MAX_LEN(SM_MAX_LEN)) u_decode (
    .instr(imem_rdata),
    .op_oh(op_oh),
    .unit_sel(unit_sel),
    .fault_code(fault_code),
    .dma_dir(dma_dir),
    .dma_sp_base(dma_sp_base),
    .dma_ext_base(dma_ext_base),
    .dma_len(dma_len),
    .dma_ldx(dma_ldx),
    .dma_idx(dma_idx),
    .dma_rows(dma_rows),
    .mm_dst(mm_dst),
    .mm_a(mm_a),
    .mm_b(mm_b),
    .mm_m(mm_m),
    .mm_k(mm_k),
    .mm_n(mm_n),
    .mm_tb(mm_tb),
    .mm_lda(mm_lda),
    .mm_ldb(mm_ldb),
    .mm_ldc(mm_ldc),
    .mm_acc(mm_acc),
    .rq_dst(rq_dst),
    .rq_src(rq_src),
    .rq_len(rq_len),
    .rq_m(rq_m),
    .rq_s(rq_s),
    .rq_relu(rq_relu),
    .sm_dst(sm_dst),
    .sm_src(sm_src),
    .sm_len(sm_len),
    .add_dst(add_dst),
    .add_src(add_src),
    .add_len(add_len),
    .add_src2(add_src2),
    .amax_dst(amax_dst),
    .amax_src(amax_src),
    .amax_len(amax_len),
    .norm_dst(norm_dst),
    .norm_src(norm_src),
    .norm_len(norm_len),
    .norm_m(norm_m),
    .norm_s(norm_s),
    .pk_unpack(pk_unpack),
    .pk_dst(pk_dst),
    .pk_src(pk_src),
    .pk_len(pk_len),
    .rd0_v(rd0_v),
    .rd0_first(rd0_first),
    .rd0_last(rd0_last),
    .rd1_v(rd1_v),
    .rd1_first(rd1_first),
    .rd1_last(rd1_last),
    .wr_v(wr_v),
    .wr_first(wr_first),
    .wr_last(wr_last)
  );

  // ------------------------------------------------------------------ sequencer, counters
  wire dma_busy, dma_last, mm_busy, mm_last, rq_busy, rq_last, sm_busy, sm_last;
  wire add_busy, add_last, amax_busy, amax_last, norm_busy, norm_last, idx_err;
  wire pk_busy, pk_last;
  wire issue, running, clear, hazard;
  // the three units of the timing contract: {vec (vec_rq, softmax, vec_add, argmax, norm
  // or pack4), mm, dma}
  wire       vec_busy = rq_busy | sm_busy | add_busy | amax_busy | norm_busy | pk_busy;
  wire       vec_last = rq_last | sm_last | add_last | amax_last | norm_last | pk_last;
  wire [2:0] u_sel  = {|unit_sel[7:2], unit_sel[1], unit_sel[0]};
  wire [2:0] u_busy = {vec_busy, mm_busy, dma_busy};
  wire [2:0] u_last = {vec_last, mm_last, dma_last};

  ga2_seq #(.IMEM_DEPTH(IMEM_DEPTH), .OVERLAP(OVERLAP)) u_seq (
    .clk(clk),
    .rst(rst),
    .start(start),
    .fault_code(fault_code),
    .is_halt(op_oh[5]),
    .unit_sel(u_sel),
    .unit_busy(u_busy),
    .unit_last(u_last),
    .hazard(hazard),
    .idx_err(idx_err),
    .done(done),
    .error(error),
    .error_code(error_code),
    .error_pc(error_pc),
    .pc(imem_addr),
    .imem_en(imem_en),
    .issue(issue),
    .retire(retire),
    .retire_pc(retire_pc),
    .running(running),
    .clear(clear)
  );

  generate
    if (OVERLAP != 0) begin : g_hazard
      ga2_hazard u_hazard (
        .clk(clk),
        .issue(issue),
        .unit_sel(u_sel),
        .busy(u_busy),
        .rd0_v(rd0_v),
        .rd0_first(rd0_first),
        .rd0_last(rd0_last),
        .rd1_v(rd1_v),
        .rd1_first(rd1_first),
        .rd1_last(rd1_last),
        .wr_v(wr_v),
        .wr_first(wr_first),
        .wr_last(wr_last),
        .hazard(hazard)
      );
    end else begin : g_no_hazard
      assign hazard = 1'b0;      // one instruction at a time: nothing to check
    end
  endgenerate

  ga2_perf #(.CW(32)) u_perf (
    .clk(clk),
    .rst(rst),
    .clear(clear),
    .running(running),
    .busy({vec_busy, dma_busy, mm_busy}),
    .retire(retire),
    .cnt_cycles(cnt_cycles),
    .cnt_mm(cnt_mm),
    .cnt_dma(cnt_dma),
    .cnt_vec(cnt_vec),
    .cnt_instret(cnt_instret),
    .retire_cycle(retire_cycle)
  );

  // ------------------------------------------------------------------ units
  wire          dma_sp_re, dma_sp_we;
  wire [AW-1:0] dma_sp_ra, dma_sp_wa;
  wire [31:0]   dma_sp_wd, dma_sp_rd;

  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[0]),
    .dir(dma_dir),
    .ldx(dma_ldx),
    .sp_base(dma_sp_base),
    .ext_base(dma_ext_base),
    .idx(dma_idx),
    .rows(dma_rows),
    .len(dma_len),
    .busy(dma_busy),
    .last(dma_last),
    .idx_err(idx_err),
    .sp_rd_en(dma_sp_re),
    .sp_rd_addr(dma_sp_ra),
    .sp_rd_data(dma_sp_rd),
    .sp_wr_en(dma_sp_we),
    .sp_wr_addr(dma_sp_wa),
    .sp_wr_data(dma_sp_wd),
    .ext_en(ext_en),
    .ext_we(ext_we),
    .ext_addr(ext_addr),
    .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata)
  );

  wire [NRD-1:0]    mm_re;
  wire [NRD*AW-1:0] mm_ra;
  wire [NRD*8-1:0]  mm_rbyte;
  wire [31:0]       mm_rword0;
  wire              mm_we;
  wire [AW-1:0]     mm_wa;
  wire [31:0]       mm_wd;

  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_mm (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[1]),
    .dst(mm_dst),
    .a_base(mm_a),
    .b_base(mm_b),
    .m(mm_m),
    .k(mm_k),
    .n(mm_n),
    .tb(mm_tb),
    .lda(mm_lda),
    .ldb(mm_ldb),
    .ldc(mm_ldc),
    .acc(mm_acc),
    .busy(mm_busy),
    .last(mm_last),
    .rd_en(mm_re),
    .rd_addr(mm_ra),
    .rd_byte(mm_rbyte),
    .rd_word0(mm_rword0),
    .wr_en(mm_we),
    .wr_addr(mm_wa),
    .wr_data(mm_wd)
  );

  wire          rq_re, rq_we;
  wire [AW-1:0] rq_ra, rq_wa;
  wire [31:0]   rq_wd, rq_rd;

  ga2_vec_rq #(.SP_WORDS(SP_WORDS)) u_rq (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[2]),
    .dst(rq_dst),
    .src(rq_src),
    .len(rq_len),
    .m(rq_m),
    .s(rq_s),
    .relu(rq_relu),
    .busy(rq_busy),
    .last(rq_last),
    .rd_en(rq_re),
    .rd_addr(rq_ra),
    .rd_data(rq_rd),
    .wr_en(rq_we),
    .wr_addr(rq_wa),
    .wr_data(rq_wd)
  );

  wire          sm_re, sm_we;
  wire [AW-1:0] sm_ra, sm_wa;
  wire [31:0]   sm_wd;
  wire [7:0]    sm_rbyte;

  ga2_softmax #(.FAST(OVERLAP), .SP_WORDS(SP_WORDS), .SM_MAX_LEN(SM_MAX_LEN)) u_sm (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[3]),
    .dst(sm_dst),
    .src(sm_src),
    .len(sm_len),
    .busy(sm_busy),
    .last(sm_last),
    .rd_en(sm_re),
    .rd_addr(sm_ra),
    .rd_byte(sm_rbyte),
    .wr_en(sm_we),
    .wr_addr(sm_wa),
    .wr_data(sm_wd)
  );

  wire          add_re, add_we;
  wire [AW-1:0] add_ra, add_wa;
  wire [31:0]   add_wd;
  wire [7:0]    add_rbyte;

  ga2_vec_add #(.SP_WORDS(SP_WORDS)) u_add (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[4]),
    .dst(add_dst),
    .src(add_src),
    .src2(add_src2),
    .len(add_len),
    .busy(add_busy),
    .last(add_last),
    .rd_en(add_re),
    .rd_addr(add_ra),
    .rd_byte(add_rbyte),
    .wr_en(add_we),
    .wr_addr(add_wa),
    .wr_data(add_wd)
  );

  wire          amax_re, amax_we;
  wire [AW-1:0] amax_ra, amax_wa;
  wire [31:0]   amax_wd, amax_rd;

  ga2_argmax #(.SP_WORDS(SP_WORDS)) u_amax (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[5]),
    .dst(amax_dst),
    .src(amax_src),
    .len(amax_len),
    .busy(amax_busy),
    .last(amax_last),
    .rd_en(amax_re),
    .rd_addr(amax_ra),
    .rd_data(amax_rd),
    .wr_en(amax_we),
    .wr_addr(amax_wa),
    .wr_data(amax_wd)
  );

  wire          norm_re, norm_we;
  wire [AW-1:0] norm_ra, norm_wa;
  wire [31:0]   norm_wd;
  wire [7:0]    norm_rbyte;

  ga2_norm #(.SP_WORDS(SP_WORDS)) u_norm (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[6]),
    .dst(norm_dst),
    .src(norm_src),
    .len(norm_len[6:0]),
    .m(norm_m),
    .s(norm_s),
    .busy(norm_busy),
    .last(norm_last),
    .rd_en(norm_re),
    .rd_addr(norm_ra),
    .rd_byte(norm_rbyte),
    .wr_en(norm_we),
    .wr_addr(norm_wa),
    .wr_data(norm_wd)
  );

  wire          pk_re, pk_we;
  wire [AW-1:0] pk_ra, pk_wa;
  wire [31:0]   pk_wd;
  wire [7:0]    pk_rbyte;

  ga2_pack4 #(.SP_WORDS(SP_WORDS)) u_pk (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[7]),
    .unpack(pk_unpack),
    .dst(pk_dst),
    .src(pk_src),
    .len(pk_len),
    .busy(pk_busy),
    .last(pk_last),
    .rd_en(pk_re),
    .rd_addr(pk_ra),
    .rd_byte(pk_rbyte),
    .wr_en(pk_we),
    .wr_addr(pk_wa),
    .wr_data(pk_wd)
  );

  // ------------------------------------------------------------------ scratchpad
  // read ports: mm's NRD, then dma, then vec; write ports: vec, mm, dma (ga2_sp_xbar)
  wire [NRD+1:0]           sp_rd_en;
  wire [(NRD+2)*SP_AW-1:0] sp_rd_addr;
  wire [(NRD+2)*32-1:0]    sp_rd_data;
  wire [2:0]               sp_wr_en;
  wire [3*SP_AW-1:0]       sp_wr_addr;
  wire [3*32-1:0]          sp_wr_data;

  ga2_sp_xbar #(.SP_AW(SP_AW)) u_xbar (
    .clk(clk),
    .rst(rst),
    .dma_rd_en(dma_sp_re),
    .dma_rd_addr(dma_sp_ra),
    .dma_rd_data(dma_sp_rd),
    .dma_wr_en(dma_sp_we),
    .dma_wr_addr(dma_sp_wa),
    .dma_wr_data(dma_sp_wd),
    .mm_rd_en(mm_re),
    .mm_rd_addr(mm_ra),
    .mm_rd_byte(mm_rbyte),
    .mm_rd_word0(mm_rword0),
    .mm_wr_en(mm_we),
    .mm_wr_addr(mm_wa),
    .mm_wr_data(mm_wd),
    .rq_rd_en(rq_re),
    .rq_rd_addr(rq_ra),
    .rq_rd_data(rq_rd),
    .rq_wr_en(rq_we),
    .rq_wr_addr(rq_wa),
    .rq_wr_data(rq_wd),
    .sm_rd_en(sm_re),
    .sm_rd_addr(sm_ra),
    .sm_rd_byte(sm_rbyte),
    .sm_wr_en(sm_we),
    .sm_wr_addr(sm_wa),
    .sm_wr_data(sm_wd),
    .add_rd_en(add_re),
    .add_rd_addr(add_ra),
    .add_rd_byte(add_rbyte),
    .add_wr_en(add_we),
    .add_wr_addr(add_wa),
    .add_wr_data(add_wd),
    .amax_rd_en(amax_re),
    .amax_rd_addr(amax_ra),
    .amax_rd_data(amax_rd),
    .amax_wr_en(amax_we),
    .amax_wr_addr(amax_wa),
    .amax_wr_data(amax_wd),
    .norm_rd_en(norm_re),
    .norm_rd_addr(norm_ra),
    .norm_rd_byte(norm_rbyte),
    .norm_wr_en(norm_we),
    .norm_wr_addr(norm_wa),
    .norm_wr_data(norm_wd),
    .pk_rd_en(pk_re),
    .pk_rd_addr(pk_ra),
    .pk_rd_byte(pk_rbyte),
    .pk_wr_en(pk_we),
    .pk_wr_addr(pk_wa),
    .pk_wr_data(pk_wd),
    .sp_rd_en(sp_rd_en),
    .sp_rd_addr(sp_rd_addr),
    .sp_rd_data(sp_rd_data),
    .sp_wr_en(sp_wr_en),
    .sp_wr_addr(sp_wr_addr),
    .sp_wr_data(sp_wr_data)
  );

  ga2_sram #(.WORDS(SP_WORDS), .AW(SP_AW), .DW(32), .NUM_RD(NRD + 2), .NUM_WR(3)) u_sp (
    .clk(clk),
    .rd_en(sp_rd_en),
    .rd_addr(sp_rd_addr),
    .rd_data(sp_rd_data),
    .wr_en(sp_wr_en),
    .wr_addr(sp_wr_addr),
    .wr_data(sp_wr_data)
  );
endmodule
`resetall
