`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_top: the GA-2 chip, wiring only (docs/rtl.md):
//   ga2_decode  instruction word -> op, unit select, fault code, hazard ranges (combinational)
//   ga2_seq     the sequencer FSM: pc, fetch, issue, retire, error registers
//   ga2_hazard  the overlap mode's scratchpad hazard check (only with OVERLAP = 1)
//   ga2_perf    the six performance counters, fed by the unit-busy vector, the retires
//               and the instruction fetches
//   ga2_sp_xbar the scratchpad ports of the units (fixed wiring, a port set per unit)
//   ga2_dma, ga2_mm_ctrl: the DMA and matrix units; the vector units (one of them busy at
//   a time), one instance each, from the op records (rtl/ga2_units.vh, generated);
//   ga2_sram u_sp: the scratchpad
// Units are started by a one-cycle start pulse and report busy/last (last: the final
// busy cycle). OVERLAP = 0: EXEC waits for the running unit's last cycle; OVERLAP = 1:
// the units run concurrently, one instruction each (docs/isa.md "Timing modes").
// retire[3:0] has a slot per unit (GA2_T_DMA, _MM, _VEC) and GA2_SLOT_HALT; retire_pc
// holds slot i's pc at [GA2_PC_W*i +: GA2_PC_W]; retire_cycle is shared. ext_addr is the
// full external address, GA2_EXT_ADDR_W = 29 bits (xhi above a 16-bit field); imem_addr,
// error_pc and the retire pcs are GA2_PC_W = 21 bits (an instruction memory of up to
// 2^21 - 1 words, read in program order: the ISA has no branches).
module ga2_top #(`GA2_TOP_PARAMS) (                // its parameters: rtl/ga2_cfg.vh
  `GA2_HOST_PORTS,                         // clk, rst, start, done, error, error_pc, the counters
  output wire [`GA2_PC_W-1:0] imem_addr,
  output wire         imem_en,
  input  wire [127:0] imem_rdata,
  output wire [`GA2_EXT_ADDR_W-1:0] ext_addr,
  output wire         ext_en,
  output wire         ext_we,
  output wire [31:0]  ext_wdata,
  input  wire [31:0]  ext_rdata,
  output wire [`GA2_NUM_T:0] retire,
  output wire [`GA2_PC_W*(`GA2_NUM_T+1)-1:0] retire_pc,
  output wire [31:0]  retire_cycle
);
  // the scratchpad address width (2 <= SP_WORDS <= 65536)
  localparam SP_AW = $clog2(SP_WORDS);
  localparam NA    = `GA2_ARRAY;
  localparam AW    = `GA2_ADDR_W;
  localparam NRD   = 2 * NA;                  // the matrix unit's read ports (A rows, B columns)

  initial begin
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > (1 << `GA2_PC_W) - 1) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..%0d (pc is %0d bits)", IMEM_DEPTH,
             (1 << `GA2_PC_W) - 1, `GA2_PC_W);
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
  // ga2_top needs HALT's bit of the op one-hot; the units get unit_sel
  wire [`GA2_NUM_OPS-1:0]   op_oh;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [`GA2_NUM_UNITS-1:0] unit_sel;
  wire [`GA2_NUM_T-1:0]     tunit_sel;
  wire [2:0]                fault_code;
  /* verilator lint_off UNUSEDSIGNAL */
  // The scratchpad ranges feed only ga2_hazard, which exists only with OVERLAP = 1.
  wire [`GA2_NUM_RD-1:0]    rd_v;
  wire [`GA2_NUM_RD*AW-1:0] rd_first, rd_last;
  wire                      wr_v;
  wire [AW-1:0]             wr_first, wr_last;
  /* verilator lint_on UNUSEDSIGNAL */

  ga2_decode #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS), .SM_MAX_LEN(SM_MAX_LEN)) u_decode (
    .instr(imem_rdata),
    .op_oh(op_oh),
    .unit_sel(unit_sel),
    .tunit_sel(tunit_sel),
    .fault_code(fault_code),
    .rd_v(rd_v),
    .rd_first(rd_first),
    .rd_last(rd_last),
    .wr_v(wr_v),
    .wr_first(wr_first),
    .wr_last(wr_last)
  );

  // ------------------------------------------------------------------ sequencer, counters
  wire dma_busy, dma_last, mm_busy, mm_last, vec_busy, vec_last, idx_err;
  wire issue, running, clear, hazard;
  // the three units of the timing contract (bit GA2_T_<UNIT>); vec is the one busy
  // vector unit (ga2_units.vh)
  wire [`GA2_NUM_T-1:0] t_busy, t_last;
  assign t_busy[`GA2_T_DMA] = dma_busy;
  assign t_busy[`GA2_T_MM]  = mm_busy;
  assign t_busy[`GA2_T_VEC] = vec_busy;
  assign t_last[`GA2_T_DMA] = dma_last;
  assign t_last[`GA2_T_MM]  = mm_last;
  assign t_last[`GA2_T_VEC] = vec_last;

  ga2_seq #(.IMEM_DEPTH(IMEM_DEPTH), .OVERLAP(OVERLAP)) u_seq (
    .clk(clk),
    .rst(rst),
    .start(start),
    .fault_code(fault_code),
    .is_halt(op_oh[`GA2_OPI_HALT]),
    .unit_sel(tunit_sel),
    .unit_busy(t_busy),
    .unit_last(t_last),
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
        .unit_sel(tunit_sel),
        .busy(t_busy),
        .rd_v(rd_v),
        .rd_first(rd_first),
        .rd_last(rd_last),
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
    .busy(t_busy),
    .retire(retire),
    .fetch(imem_en),
    .cnt_cycles(cnt_cycles),
    .cnt_mm(cnt_mm),
    .cnt_dma(cnt_dma),
    .cnt_vec(cnt_vec),
    .cnt_instret(cnt_instret),
    .cnt_fetch(cnt_fetch),
    .retire_cycle(retire_cycle)
  );

  // ------------------------------------------------------------------ units
  wire          dma_sp_re, dma_sp_we;
  wire [AW-1:0] dma_sp_ra, dma_sp_wa;
  wire [31:0]   dma_sp_wd, dma_sp_rd;

  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[`GA2_U_DMA]),
    .instr(imem_rdata),
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
  wire [`GA2_ARRAY*8-1:0] mm_rahi;
  wire [31:0]       mm_rword0;
  wire              mm_we;
  wire [AW-1:0]     mm_wa;
  wire [31:0]       mm_wd;

  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_mm (
    .clk(clk),
    .rst(rst),
    .start(issue && unit_sel[`GA2_U_MM_CTRL]),
    .dst(imem_rdata[`GA2_MM_DST_LSB +: `GA2_MM_DST_W]),
    .a_base(imem_rdata[`GA2_MM_A_LSB +: `GA2_MM_A_W]),
    .b_base(imem_rdata[`GA2_MM_B_LSB +: `GA2_MM_B_W]),
    .m(imem_rdata[`GA2_MM_M_LSB +: `GA2_MM_M_W]),
    .k(imem_rdata[`GA2_MM_K_LSB +: `GA2_MM_K_W]),
    .khi(imem_rdata[`GA2_MM_KHI_LSB +: `GA2_MM_KHI_W]),
    .a16(imem_rdata[`GA2_MM_A16_LSB]),
    .n(imem_rdata[`GA2_MM_N_LSB +: `GA2_MM_N_W]),
    .tb(imem_rdata[`GA2_MM_TB_LSB]),
    .lda(imem_rdata[`GA2_MM_LDA_LSB +: `GA2_MM_LDA_W]),
    .ldb(imem_rdata[`GA2_MM_LDB_LSB +: `GA2_MM_LDB_W]),
    .ldc(imem_rdata[`GA2_MM_LDC_LSB +: `GA2_MM_LDC_W]),
    .acc(imem_rdata[`GA2_MM_ACC_LSB]),
    .busy(mm_busy),
    .last(mm_last),
    .rd_en(mm_re),
    .rd_addr(mm_ra),
    .rd_byte(mm_rbyte),
    .rd_ahi(mm_rahi),
    .rd_word0(mm_rword0),
    .wr_en(mm_we),
    .wr_addr(mm_wa),
    .wr_data(mm_wd)
  );

  // the vector units (one busy at a time) and their port: generated from the op
  // records (model/ops -> rtl/ga2_units.vh)
  wire          vec_rd_en, vec_wr_en;
  wire [AW-1:0] vec_rd_addr, vec_wr_addr;
  wire [31:0]   vec_rd_data, vec_wr_data;
`include "ga2_units.vh"

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
    .mm_rd_ahi(mm_rahi),
    .mm_rd_word0(mm_rword0),
    .mm_wr_en(mm_we),
    .mm_wr_addr(mm_wa),
    .mm_wr_data(mm_wd),
    .vec_rd_en(vec_rd_en),
    .vec_rd_addr(vec_rd_addr),
    .vec_rd_data(vec_rd_data),
    .vec_wr_en(vec_wr_en),
    .vec_wr_addr(vec_wr_addr),
    .vec_wr_data(vec_wr_data),
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
