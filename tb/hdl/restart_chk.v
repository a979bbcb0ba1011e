`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_chk: the units' "start while busy" contract (docs/rtl.md "Start while busy"),
// checked differentially. A start while a unit is busy abandons the running job: from
// the next cycle on, the unit's outputs are exactly those of the same unit started from
// idle in that cycle.
//
// Per unit two instances, A and B, each with its own read-only memory model: per read
// port a register that loads f(addr) at the clock edge of a cycle with that port's
// enable high (one cycle of read latency, as rtl/ga2_sram.v) and holds otherwise; f (mix) is
// addr * 32'h9E3779B1 with its high half folded into the low, XOR a salt, so every byte
// varies; writes go nowhere. So the read data of an instance is a function of its own
// read enables and addresses, and its outputs a function of its own state.
//
// A scenario (unit, first job P1, second job P2, restart cycle c): reset both instances
// (2 cycles), start A with P1; in P1's busy cycle c (0-based as in the units' headers,
// c = t - 1 for a second start t cycles after the first) start A and B with P2 in the
// same cycle; from the next cycle compare A with B every cycle with !== until B's last
// plus 2 cycles (in those 2 both must be idle): busy, last, every enable, each address
// and write data where its enable is high. The units: dma (LD, ST and LDX, mixed, LDX
// with a good and a bad row index), vec_rq (relu 0 and 1), mm_ctrl (ga2_systolic + ga2_pe
// inside), softmax FAST = 0 and FAST = 1, divu (quotient and remainder in its last
// cycle), vec_add, argmax, norm, pack4 (PACK4 and UNPACK4 after each other); the restart cycles: the first cycles, every phase (LDX's
// index read and address; feed, old-C pre-read, drain; max / exp pass, divider load,
// division, write / output; ADD's two reads; NORM's sum, square root, divider load,
// division, scaling) and the job's last busy cycle. The dma's scratchpad words at
// 0xF00..0xFFF read as one byte (mix8), so an LDX there has a row index below 256.
//
// Protocol: a rising go (sampled on the falling edge of clk) runs the scenarios in order;
// done rises after the last one, or at the first mismatch with fail = 1, fail_id =
// scenario * 16 + signal, fail_unit and the names (ASCII, zero-padded on the left). The
// units run on clk gated by the run flag (set at go, cleared at done), so an idle
// checker costs a simulation nothing. Signals (fail_id[3:0]):
//   dma:            0 busy, 1 last, 2 sp_rd_en, 3 sp_rd_addr, 4 sp_wr_en, 5 sp_wr_addr,
//                   6 sp_wr_data, 7 ext_en, 8 ext_we, 9 ext_addr, 10 ext_wdata, 11 idx_err
//   vec_rq, mm_ctrl, softmax, vec_add, argmax, norm:
//                   0 busy, 1 last, 2 rd_en (mm_ctrl: the 8 ports), 3 rd_addr (each
//                   enabled port), 4 wr_en, 5 wr_addr, 6 wr_data
//   divu:           0 busy, 1 last, 2 quotient, 3 remainder (in the last cycle)
//   every unit:     12 A not busy in the restart cycle (the scenario is no restart),
//                   13 x/z on busy, last or an enable (A or B), or on B's address or
//                   data where its enable is high (x in both would compare equal),
//                   14 busy in the 2 cycles after B's last, 15 no last of B within
//                   LIMIT cycles of its start
module restart_chk #(
  parameter SP_WORDS  = `GA2_SP_WORDS,      // the units' scratchpad size (pointer widths)
  parameter EXT_WORDS = `GA2_EXT_WORDS,     // dma's external memory size
  parameter VERBOSE   = 0,                  // 1: $display the first mismatch
  parameter LIMIT     = 600                 // cycles for B's last (softmax len 7: 254)
) (
  input  wire            clk,
  input  wire            go,
  output reg             done,
  output reg             fail,
  output reg  [15:0]     fail_id,
  output reg  [3:0]      fail_unit,
  output reg  [8*8-1:0]  fail_unit_name,
  output reg  [8*12-1:0] fail_sig_name
);
  localparam AW = `GA2_ADDR_W;
  localparam NA = `GA2_ARRAY;
  localparam NP = 2 * NA;                                   // mm_ctrl's read ports

  localparam [3:0] U_DMA = 4'd0, U_RQ = 4'd1, U_MM = 4'd2, U_SM0 = 4'd3, U_SM1 = 4'd4,
                   U_DIV = 4'd5, U_ADD = 4'd6, U_AMX = 4'd7, U_NRM = 4'd8, U_PK = 4'd9;
  localparam [7:0] N_SCN = 8'd138;
  localparam [11:0] LIM = LIMIT;

  // ------------------------------------------------------------------ the read data
  localparam [31:0] SALT_SP = 32'h5A5A1234, SALT_EXT = 32'hC3A50F69;
  function [31:0] mix;
    input [AW-1:0] a;
    input [31:0]   salt;
    reg   [31:0]   p;
    begin
      p   = {{(32 - AW){1'b0}}, a} * 32'h9E3779B1;
      mix = p ^ {16'd0, p[31:16]} ^ salt;       // the high bits folded into every byte
    end
  endfunction

  // ------------------------------------------------------------------ control
  reg        run_q, rst_u, st_a, st_b, go_q;
  reg [2:0]  ph;
  reg [7:0]  scn;
  reg [11:0] cnt;
  reg [4:0]  job;
  wire       uclk = clk & run_q;      // run_q changes on the falling edge only

  localparam [2:0] P_IDLE = 3'd0, P_RST = 3'd1, P_RUN1 = 3'd2, P_CMP = 3'd3, P_TAIL = 3'd4;

  // ------------------------------------------------------------------ the jobs
  localparam [4:0] J_LD6 = 5'd0, J_ST6 = 5'd1, J_LD5 = 5'd2, J_ST7 = 5'd3,
                   J_RQ6 = 5'd4, J_RQ5 = 5'd5, J_RQ6B = 5'd6,
                   J_MMA = 5'd7, J_MMB = 5'd8, J_MMC = 5'd9, J_MMD = 5'd10,
                   J_SM7 = 5'd11, J_SM5 = 5'd12, J_SM8 = 5'd13, J_SM6 = 5'd14,
                   J_DV1 = 5'd15, J_DV2 = 5'd16,
                   J_LX1 = 5'd17, J_LX2 = 5'd18, J_AD4 = 5'd19, J_AD3 = 5'd20,
                   J_AM6 = 5'd21, J_AM4 = 5'd22, J_NM5 = 5'd23, J_NM3 = 5'd24,
                   J_PK4 = 5'd25, J_UP3 = 5'd26;
  reg          f_dir, f_tb, f_acc, f_ldx, f_relu, f_unpack;
  reg [AW-1:0] f_idx;
  reg [15:0]   f_rows;
  reg [AW-1:0] f_dst, f_a, f_b;          // f_a: dma sp_base, src, MM A; f_b: ext_base, MM B
  reg [12:0]   f_len;
  reg [2:0]    f_m, f_n;
  reg [7:0]    f_k;
  reg [11:0]   f_lda, f_ldb, f_ldc;
  reg [15:0]   f_rqm;
  reg [5:0]    f_rqs;
  reg [31:0]   f_dvd, f_dvs;
  always @* begin
    f_dir = 1'b0; f_tb = 1'b0; f_acc = 1'b0;
    f_dst = {AW{1'b0}}; f_a = {AW{1'b0}}; f_b = {AW{1'b0}};
    f_len = 13'd0; f_m = 3'd0; f_n = 3'd0; f_k = 8'd0;
    f_lda = 12'd0; f_ldb = 12'd0; f_ldc = 12'd0;
    f_rqm = 16'd0; f_rqs = 6'd0; f_dvd = 32'd0; f_dvs = 32'd1;
    f_ldx = 1'b0; f_relu = 1'b0; f_idx = {AW{1'b0}}; f_rows = 16'd0; f_unpack = 1'b0;
    case (job)
      // dma: dir, sp_base (f_a), ext_base (f_b), len; busy len + 1
      J_LD6: begin f_dir = 1'b0; f_a = 16'd100; f_b = 16'd200;  f_len = 13'd6; end
      J_ST6: begin f_dir = 1'b1; f_a = 16'd300; f_b = 16'd40;   f_len = 13'd6; end
      J_LD5: begin f_dir = 1'b0; f_a = 16'd520; f_b = 16'd900;  f_len = 13'd5; end
      J_ST7: begin f_dir = 1'b1; f_a = 16'd7;   f_b = 16'd1000; f_len = 13'd7; end
      // LDX: busy len + 3 (index 0, address 1, then an LD); LX1's index is a byte
      // (< rows 256), LX2's a full word (>= rows: error 6, no ext access, no write)
      J_LX1: begin f_ldx = 1'b1; f_a = 16'd100; f_b = 16'd300; f_len = 13'd5; f_idx = 16'hF05; f_rows = 16'd256; end
      J_LX2: begin f_ldx = 1'b1; f_a = 16'd40;  f_b = 16'd20;  f_len = 13'd4; f_idx = 16'd77;  f_rows = 16'd256; end
      // vec_rq: dst, src (f_a), len, m, s (results mostly inside -128..127); busy len + 1
      J_RQ6:  begin f_dst = 16'd600; f_a = 16'd610; f_len = 13'd6; f_rqm = 16'd20000; f_rqs = 6'd40; end
      J_RQ5:  begin f_dst = 16'd30;  f_a = 16'd10;  f_len = 13'd5; f_rqm = 16'd777;   f_rqs = 6'd36;
                    f_relu = 1'b1; end
      J_RQ6B: begin f_dst = 16'd0;   f_a = 16'd1;   f_len = 13'd6; f_rqm = 16'd65535; f_rqs = 6'd42; end
      // mm_ctrl: busy K + 7 + M*N (A, C: 32; B: 18; D: 26)
      J_MMA: begin f_dst = 16'd800; f_a = 16'd100; f_b = 16'd300; f_m = 3'd4; f_k = 8'd9; f_n = 3'd4;
                   f_tb = 1'b0; f_lda = 12'd9;  f_ldb = 12'd4; f_ldc = 12'd4; f_acc = 1'b1; end
      J_MMB: begin f_dst = 16'd50;  f_a = 16'd400; f_b = 16'd450; f_m = 3'd3; f_k = 8'd5; f_n = 3'd2;
                   f_tb = 1'b1; f_lda = 12'd7;  f_ldb = 12'd5; f_ldc = 12'd3; f_acc = 1'b1; end
      J_MMC: begin f_dst = 16'd900; f_a = 16'd130; f_b = 16'd200; f_m = 3'd4; f_k = 8'd9; f_n = 3'd4;
                   f_tb = 1'b0; f_lda = 12'd10; f_ldb = 12'd5; f_ldc = 12'd6; f_acc = 1'b0; end
      J_MMD: begin f_dst = 16'd700; f_a = 16'd20;  f_b = 16'd60;  f_m = 3'd4; f_k = 8'd7; f_n = 3'd3;
                   f_tb = 1'b1; f_lda = 12'd8;  f_ldb = 12'd7; f_ldc = 12'd3; f_acc = 1'b0; end
      // softmax: dst, src (f_a), len; busy FAST = 0: 2(len+1) + 34 len, FAST = 1: 3 len + 36
      J_SM7: begin f_dst = 16'd500; f_a = 16'd120; f_len = 13'd7; end
      J_SM5: begin f_dst = 16'd12;  f_a = 16'd333; f_len = 13'd5; end
      J_SM8: begin f_dst = 16'd41;  f_a = 16'd40;  f_len = 13'd8; end
      J_SM6: begin f_dst = 16'd900; f_a = 16'd77;  f_len = 13'd6; end
      // divu: busy 33
      J_DV1: begin f_dvd = 32'hDEADBEEF; f_dvs = 32'd12345; end
      J_DV2: begin f_dvd = 32'h12345678; f_dvs = 32'd7; end
      // vec_add: dst, src (f_a), src2 (f_b), len; busy 2 len + 1
      J_AD4: begin f_dst = 16'd600; f_a = 16'd610; f_b = 16'd700; f_len = 13'd4; end
      J_AD3: begin f_dst = 16'd31;  f_a = 16'd30;  f_b = 16'd40;  f_len = 13'd3; end
      // argmax: dst, src (f_a), len; busy len + 1
      J_AM6: begin f_dst = 16'd50;  f_a = 16'd100; f_len = 13'd6; end
      J_AM4: begin f_dst = 16'd7;   f_a = 16'd300; f_len = 13'd4; end
      // norm: dst, src (f_a), len, m, s; busy 2 (len + 1) + 48: NM5 sum 0..5, square root
      // 6..21, divider load 22, division 23..53, scaling 54..59
      J_NM5: begin f_dst = 16'd500; f_a = 16'd120; f_len = 13'd5; f_rqm = 16'd20000; f_rqs = 6'd21; end
      J_NM3: begin f_dst = 16'd12;  f_a = 16'd13;  f_len = 13'd3; f_rqm = 16'd30000; f_rqs = 6'd22; end
      // pack4: dst, src (f_a), len, unpack; busy 2 len + 1 (PK4: PACK4 of 4, 9 cycles;
      // UP3: UNPACK4 of 3, 7 cycles, dst over src)
      J_PK4: begin f_dst = 16'd600; f_a = 16'd610; f_len = 13'd4; end
      J_UP3: begin f_dst = 16'd31;  f_a = 16'd30;  f_len = 13'd3; f_unpack = 1'b1; end
      default: ;
    endcase
  end

  // ------------------------------------------------------------------ the scenarios
  // (unit, P1, P2, c): the second start in P1's busy cycle c
  reg [3:0] sc_unit;
  reg [4:0] sc_j1, sc_j2;
  reg [8:0] sc_c;
  always @* begin
    case (scn)
      // dma, busy 7 (LD6, ST6), 6 (LD5), 8 (ST7): the first cycles, the last writes, last
      8'd0:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd0};
      8'd1:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd1};
      8'd2:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd2};
      8'd3:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd4};
      8'd4:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd5};
      8'd5:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd6};
      8'd6:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd0};
      8'd7:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd1};
      8'd8:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd2};
      8'd9:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd4};
      8'd10: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd5};
      8'd11: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd6};
      8'd12: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd0};
      8'd13: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd3};
      8'd14: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd6};
      8'd15: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd1};
      8'd16: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd4};
      8'd17: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd7};
      // vec_rq, busy 7 (RQ6, RQ6B), 6 (RQ5)
      8'd18: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd0};
      8'd19: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd1};
      8'd20: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd2};
      8'd21: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd3};
      8'd22: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd5};
      8'd23: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6, J_RQ5, 9'd6};
      8'd24: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ5, J_RQ6B, 9'd0};
      8'd25: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ5, J_RQ6B, 9'd2};
      8'd26: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ5, J_RQ6B, 9'd5};
      8'd27: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6B, J_RQ6, 9'd3};
      8'd28: {sc_unit, sc_j1, sc_j2, sc_c} = {U_RQ, J_RQ6B, J_RQ6, 9'd6};
      // mm_ctrl MMA (K 9, M N 4, acc): feed 0..11, old-C pre-read 15, drain 16..31
      8'd29: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd0};
      8'd30: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd1};
      8'd31: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd2};
      8'd32: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd4};
      8'd33: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd6};
      8'd34: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd10};
      8'd35: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd15};
      8'd36: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd16};
      8'd37: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd24};
      8'd38: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd31};
      // MMB (K 5, M 3, N 2, tb, acc): feed 0..6, pre-read 11, drain 12..17
      8'd39: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd0};
      8'd40: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd1};
      8'd41: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd2};
      8'd42: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd3};
      8'd43: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd4};
      8'd44: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd11};
      8'd45: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd12};
      8'd46: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd14};
      8'd47: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd17};
      // MMC (acc 0) -> MMD (tb, acc 0) and back; MMA restarted with itself
      8'd48: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd5};
      8'd49: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd16};
      8'd50: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd31};
      8'd51: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd8};
      8'd52: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd20};
      8'd53: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd25};
      8'd54: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMA, 9'd12};
      // softmax FAST = 0, SM7: max 0..7, exp 8..15, load 16, divide 17..49 (write 49),
      // load 50, divide 51..83, ..., last 253
      8'd55: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd0};
      8'd56: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd4};
      8'd57: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd11};
      8'd58: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd16};
      8'd59: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd20};
      8'd60: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd49};
      8'd61: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd70};
      8'd62: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM7, J_SM5, 9'd253};
      // SM5: max 0..5, exp 6..11, load 12, divide 13..45 (write 45), last 181
      8'd63: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM5, J_SM7, 9'd2};
      8'd64: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM5, J_SM7, 9'd12};
      8'd65: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM0, J_SM5, J_SM7, 9'd45};
      // softmax FAST = 1, SM6: max 0..6, exp 7..13, load 14, divide 15..47, out 48..53
      8'd66: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd0};
      8'd67: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd1};
      8'd68: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd3};
      8'd69: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd9};
      8'd70: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd14};
      8'd71: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd30};
      8'd72: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd47};
      8'd73: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd48};
      8'd74: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd51};
      8'd75: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM6, J_SM8, 9'd53};
      // SM8: max 0..8, exp 9..17, load 18, divide 19..51, out 52..59
      8'd76: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd2};
      8'd77: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd12};
      8'd78: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd18};
      8'd79: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd40};
      8'd80: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd52};
      8'd81: {sc_unit, sc_j1, sc_j2, sc_c} = {U_SM1, J_SM8, J_SM6, 9'd59};
      // divu: steps 0..31, result 32
      8'd82: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd0};
      8'd83: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd16};
      8'd84: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd31};
      8'd85: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd32};
      8'd86: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV2, J_DV1, 9'd20};
      // dma LDX, busy 8 (LX1), 7 (LX2): the index read 0, the address 1, the LD, last
      8'd87: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd0};
      8'd88: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd1};
      8'd89: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd2};
      8'd90: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LX2, 9'd5};
      8'd91: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LX2, 9'd7};
      8'd92: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd0};
      8'd93: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd1};
      8'd94: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd3};
      8'd95: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd6};
      8'd96: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LX2, 9'd2};
      8'd97: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_LX1, 9'd4};
      // vec_add AD4 (busy 9: reads 0..7, writes 2, 4, 6, 8), AD3 (busy 7)
      8'd98:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd0};
      8'd99:  {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd1};
      8'd100: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd2};
      8'd101: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd3};
      8'd102: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd5};
      8'd103: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD4, J_AD3, 9'd8};
      8'd104: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD3, J_AD4, 9'd1};
      8'd105: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD3, J_AD4, 9'd4};
      8'd106: {sc_unit, sc_j1, sc_j2, sc_c} = {U_ADD, J_AD3, J_AD4, 9'd6};
      // argmax AM6 (busy 7), AM4 (busy 5)
      8'd107: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM6, J_AM4, 9'd0};
      8'd108: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM6, J_AM4, 9'd1};
      8'd109: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM6, J_AM4, 9'd3};
      8'd110: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM6, J_AM4, 9'd6};
      8'd111: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM4, J_AM6, 9'd2};
      8'd112: {sc_unit, sc_j1, sc_j2, sc_c} = {U_AMX, J_AM4, J_AM6, 9'd4};
      // norm NM5 (busy 60), NM3 (busy 56: sum 0..3, root 4..19, load 20, divide 21..51,
      // scaling 52..55)
      8'd113: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd0};
      8'd114: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd3};
      8'd115: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd5};
      8'd116: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd6};
      8'd117: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd12};
      8'd118: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd21};
      8'd119: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd22};
      8'd120: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd23};
      8'd121: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd40};
      8'd122: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd53};
      8'd123: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd54};
      8'd124: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd56};
      8'd125: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM5, J_NM3, 9'd59};
      8'd126: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM3, J_NM5, 9'd2};
      8'd127: {sc_unit, sc_j1, sc_j2, sc_c} = {U_NRM, J_NM3, J_NM5, 9'd30};
      // pack4 PK4 (busy 9: reads 0..7, writes 2, 4, 6, 8), UP3 (busy 7: reads 0, 2, 4,
      // writes 1..6): the first cycles, both phases, the last cycle; each op after the other
      8'd128: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd0};
      8'd129: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd1};
      8'd130: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd2};
      8'd131: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd3};
      8'd132: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd5};
      8'd133: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_PK4, J_UP3, 9'd8};
      8'd134: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_UP3, J_PK4, 9'd1};
      8'd135: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_UP3, J_PK4, 9'd2};
      8'd136: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_UP3, J_PK4, 9'd4};
      8'd137: {sc_unit, sc_j1, sc_j2, sc_c} = {U_PK, J_UP3, J_PK4, 9'd6};
      default: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD6, 9'd0};
    endcase
  end

  wire on_dma = (sc_unit == U_DMA);
  wire on_rq  = (sc_unit == U_RQ);
  wire on_mm  = (sc_unit == U_MM);
  wire on_sm0 = (sc_unit == U_SM0);
  wire on_sm1 = (sc_unit == U_SM1);
  wire on_div = (sc_unit == U_DIV);
  wire on_add = (sc_unit == U_ADD);
  wire on_amx = (sc_unit == U_AMX);
  wire on_nrm = (sc_unit == U_NRM);
  wire on_pk  = (sc_unit == U_PK);

  // ------------------------------------------------------------------ dma
  wire          da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, da_idx_err;
  wire          db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, db_idx_err;
  wire [AW-1:0] da_sp_rd_addr, da_sp_wr_addr;
  wire [AW-1:0] db_sp_rd_addr, db_sp_wr_addr;
  // the dma's external address is 24 bits (xhi above a 16-bit field); these jobs stay
  // below 2^16, so the observed vector keeps the low AW bits (mis[9] compares all)
  wire [`GA2_EXT_ADDR_W-1:0] da_ext_addr, db_ext_addr;
  wire [31:0]   da_sp_wr_data, da_ext_wdata, db_sp_wr_data, db_ext_wdata;
  reg  [31:0]   da_sp_q, da_ext_q, db_sp_q, db_ext_q;
  always @(posedge uclk) begin
    if (da_sp_rd_en) da_sp_q  <= dma_word(da_sp_rd_addr);
    if (da_ext_en)   da_ext_q <= mix(da_ext_addr[AW-1:0], SALT_EXT);
    if (db_sp_rd_en) db_sp_q  <= dma_word(db_sp_rd_addr);
    if (db_ext_en)   db_ext_q <= mix(db_ext_addr[AW-1:0], SALT_EXT);
  end
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_dma), .dir(f_dir), .ldx(f_ldx), .sp_base(f_a),
    .ext_base({{(`GA2_EXT_ADDR_W-AW){1'b0}}, f_b}), .idx(f_idx), .rows(f_rows), .len(f_len), .busy(da_busy), .last(da_last),
    .idx_err(da_idx_err),
    .sp_rd_en(da_sp_rd_en), .sp_rd_addr(da_sp_rd_addr), .sp_rd_data(da_sp_q),
    .sp_wr_en(da_sp_wr_en), .sp_wr_addr(da_sp_wr_addr), .sp_wr_data(da_sp_wr_data),
    .ext_en(da_ext_en), .ext_we(da_ext_we), .ext_addr(da_ext_addr), .ext_wdata(da_ext_wdata),
    .ext_rdata(da_ext_q)
  );
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_dma), .dir(f_dir), .ldx(f_ldx), .sp_base(f_a),
    .ext_base({{(`GA2_EXT_ADDR_W-AW){1'b0}}, f_b}), .idx(f_idx), .rows(f_rows), .len(f_len), .busy(db_busy), .last(db_last),
    .idx_err(db_idx_err),
    .sp_rd_en(db_sp_rd_en), .sp_rd_addr(db_sp_rd_addr), .sp_rd_data(db_sp_q),
    .sp_wr_en(db_sp_wr_en), .sp_wr_addr(db_sp_wr_addr), .sp_wr_data(db_sp_wr_data),
    .ext_en(db_ext_en), .ext_we(db_ext_we), .ext_addr(db_ext_addr), .ext_wdata(db_ext_wdata),
    .ext_rdata(db_ext_q)
  );

  // ------------------------------------------------------------------ vec_rq
  wire          ra_busy, ra_last, ra_rd_en, ra_wr_en, rb_busy, rb_last, rb_rd_en, rb_wr_en;
  wire [AW-1:0] ra_rd_addr, ra_wr_addr, rb_rd_addr, rb_wr_addr;
  wire [31:0]   ra_wr_data, rb_wr_data;
  reg  [31:0]   ra_q, rb_q;
  always @(posedge uclk) begin
    if (ra_rd_en) ra_q <= mix(ra_rd_addr, SALT_SP);
    if (rb_rd_en) rb_q <= mix(rb_rd_addr, SALT_SP);
  end
  ga2_vec_rq #(.SP_WORDS(SP_WORDS)) u_rq_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_rq), .dst(f_dst), .src(f_a), .len(f_len),
    .m(f_rqm), .s(f_rqs), .relu(f_relu), .busy(ra_busy), .last(ra_last), .rd_en(ra_rd_en),
    .rd_addr(ra_rd_addr), .rd_data(ra_q), .wr_en(ra_wr_en), .wr_addr(ra_wr_addr),
    .wr_data(ra_wr_data)
  );
  ga2_vec_rq #(.SP_WORDS(SP_WORDS)) u_rq_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_rq), .dst(f_dst), .src(f_a), .len(f_len),
    .m(f_rqm), .s(f_rqs), .relu(f_relu), .busy(rb_busy), .last(rb_last), .rd_en(rb_rd_en),
    .rd_addr(rb_rd_addr), .rd_data(rb_q), .wr_en(rb_wr_en), .wr_addr(rb_wr_addr),
    .wr_data(rb_wr_data)
  );

  // the dma's scratchpad word: at 0xF00..0xFFF one byte (a row index below 256), else mix
  function [31:0] dma_word;
    input [AW-1:0] a;
    begin
      dma_word = (a[11:8] == 4'hF) ? {24'd0, mix8(a)} : mix(a, SALT_SP);
    end
  endfunction

  // ------------------------------------------------------------------ mm_ctrl
  wire             ma_busy, ma_last, ma_wr_en, mb_busy, mb_last, mb_wr_en;
  wire [NP-1:0]    ma_rd_en, mb_rd_en;
  wire [NP*AW-1:0] ma_rd_addr, mb_rd_addr;
  wire [AW-1:0]    ma_wr_addr, mb_wr_addr;
  wire [31:0]      ma_wr_data, mb_wr_data;
  reg  [NP*8-1:0]  ma_byte, mb_byte;         // the low byte of each port's read data
  // the read registers power up 0, as rtl/ga2_sram.v's (mm_ctrl feeds A's port data ungated)
  initial begin
    ma_byte = {NP*8{1'b0}};
    mb_byte = {NP*8{1'b0}};
  end
  reg  [31:0]      ma_w0, mb_w0;             // port 0's full word
  integer          mp;
  always @(posedge uclk) begin
    for (mp = 0; mp < NP; mp = mp + 1) begin
      if (ma_rd_en[mp]) ma_byte[8*mp +: 8] <= mix8(ma_rd_addr[AW*mp +: AW]);
      if (mb_rd_en[mp]) mb_byte[8*mp +: 8] <= mix8(mb_rd_addr[AW*mp +: AW]);
    end
    if (ma_rd_en[0]) ma_w0 <= mix(ma_rd_addr[AW-1:0], SALT_SP);
    if (mb_rd_en[0]) mb_w0 <= mix(mb_rd_addr[AW-1:0], SALT_SP);
  end
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_mm_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_mm), .dst(f_dst), .a_base(f_a), .b_base(f_b),
    .m(f_m), .k(f_k), .n(f_n), .tb(f_tb), .lda(f_lda), .ldb(f_ldb), .ldc(f_ldc), .acc(f_acc),
    .busy(ma_busy), .last(ma_last), .rd_en(ma_rd_en), .rd_addr(ma_rd_addr),
    .rd_byte(ma_byte), .rd_word0(ma_w0), .wr_en(ma_wr_en), .wr_addr(ma_wr_addr),
    .wr_data(ma_wr_data)
  );
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_mm_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_mm), .dst(f_dst), .a_base(f_a), .b_base(f_b),
    .m(f_m), .k(f_k), .n(f_n), .tb(f_tb), .lda(f_lda), .ldb(f_ldb), .ldc(f_ldc), .acc(f_acc),
    .busy(mb_busy), .last(mb_last), .rd_en(mb_rd_en), .rd_addr(mb_rd_addr),
    .rd_byte(mb_byte), .rd_word0(mb_w0), .wr_en(mb_wr_en), .wr_addr(mb_wr_addr),
    .wr_data(mb_wr_data)
  );

  // the low byte of a scratchpad word (mm_ctrl's and softmax's byte lanes)
  function [7:0] mix8;
    input [AW-1:0] a;
    /* verilator lint_off UNUSEDSIGNAL */
    // only the low byte of the word reaches a byte lane
    reg   [31:0]   w;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
      w    = mix(a, SALT_SP);
      mix8 = w[7:0];
    end
  endfunction

  // ------------------------------------------------------------------ softmax (FAST 0, 1)
  wire          s0a_busy, s0a_last, s0a_rd_en, s0a_wr_en, s0b_busy, s0b_last, s0b_rd_en, s0b_wr_en;
  wire [AW-1:0] s0a_rd_addr, s0a_wr_addr, s0b_rd_addr, s0b_wr_addr;
  wire [31:0]   s0a_wr_data, s0b_wr_data;
  wire          s1a_busy, s1a_last, s1a_rd_en, s1a_wr_en, s1b_busy, s1b_last, s1b_rd_en, s1b_wr_en;
  wire [AW-1:0] s1a_rd_addr, s1a_wr_addr, s1b_rd_addr, s1b_wr_addr;
  wire [31:0]   s1a_wr_data, s1b_wr_data;
  reg  [7:0]    s0a_q, s0b_q, s1a_q, s1b_q;
  always @(posedge uclk) begin
    if (s0a_rd_en) s0a_q <= mix8(s0a_rd_addr);
    if (s0b_rd_en) s0b_q <= mix8(s0b_rd_addr);
    if (s1a_rd_en) s1a_q <= mix8(s1a_rd_addr);
    if (s1b_rd_en) s1b_q <= mix8(s1b_rd_addr);
  end
  ga2_softmax #(.FAST(0), .SP_WORDS(SP_WORDS)) u_sm0_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_sm0), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(s0a_busy), .last(s0a_last), .rd_en(s0a_rd_en), .rd_addr(s0a_rd_addr),
    .rd_byte(s0a_q), .wr_en(s0a_wr_en), .wr_addr(s0a_wr_addr), .wr_data(s0a_wr_data)
  );
  ga2_softmax #(.FAST(0), .SP_WORDS(SP_WORDS)) u_sm0_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_sm0), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(s0b_busy), .last(s0b_last), .rd_en(s0b_rd_en), .rd_addr(s0b_rd_addr),
    .rd_byte(s0b_q), .wr_en(s0b_wr_en), .wr_addr(s0b_wr_addr), .wr_data(s0b_wr_data)
  );
  ga2_softmax #(.FAST(1), .SP_WORDS(SP_WORDS)) u_sm1_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_sm1), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(s1a_busy), .last(s1a_last), .rd_en(s1a_rd_en), .rd_addr(s1a_rd_addr),
    .rd_byte(s1a_q), .wr_en(s1a_wr_en), .wr_addr(s1a_wr_addr), .wr_data(s1a_wr_data)
  );
  ga2_softmax #(.FAST(1), .SP_WORDS(SP_WORDS)) u_sm1_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_sm1), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(s1b_busy), .last(s1b_last), .rd_en(s1b_rd_en), .rd_addr(s1b_rd_addr),
    .rd_byte(s1b_q), .wr_en(s1b_wr_en), .wr_addr(s1b_wr_addr), .wr_data(s1b_wr_data)
  );

  // ------------------------------------------------------------------ divu
  wire        va_busy, va_last, vb_busy, vb_last;
  wire [31:0] va_q, va_r, vb_q, vb_r;
  ga2_divu #(.WIDTH(32)) u_div_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_div), .dividend(f_dvd), .divisor(f_dvs),
    .busy(va_busy), .last(va_last), .quotient(va_q), .remainder(va_r)
  );
  ga2_divu #(.WIDTH(32)) u_div_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_div), .dividend(f_dvd), .divisor(f_dvs),
    .busy(vb_busy), .last(vb_last), .quotient(vb_q), .remainder(vb_r)
  );

  // ------------------------------------------------------------------ vec_add, argmax, norm
  wire          aa_busy, aa_last, aa_rd_en, aa_wr_en, ab_busy, ab_last, ab_rd_en, ab_wr_en;
  wire [AW-1:0] aa_rd_addr, aa_wr_addr, ab_rd_addr, ab_wr_addr;
  wire [31:0]   aa_wr_data, ab_wr_data;
  wire          xa_busy, xa_last, xa_rd_en, xa_wr_en, xb_busy, xb_last, xb_rd_en, xb_wr_en;
  wire [AW-1:0] xa_rd_addr, xa_wr_addr, xb_rd_addr, xb_wr_addr;
  wire [31:0]   xa_wr_data, xb_wr_data;
  wire          na_busy, na_last, na_rd_en, na_wr_en, nb_busy, nb_last, nb_rd_en, nb_wr_en;
  wire [AW-1:0] na_rd_addr, na_wr_addr, nb_rd_addr, nb_wr_addr;
  wire [31:0]   na_wr_data, nb_wr_data;
  reg  [7:0]    aa_q, ab_q, na_q, nb_q;
  reg  [31:0]   xa_q, xb_q;
  always @(posedge uclk) begin
    if (aa_rd_en) aa_q <= mix8(aa_rd_addr);
    if (ab_rd_en) ab_q <= mix8(ab_rd_addr);
    if (xa_rd_en) xa_q <= mix(xa_rd_addr, SALT_SP);
    if (xb_rd_en) xb_q <= mix(xb_rd_addr, SALT_SP);
    if (na_rd_en) na_q <= mix8(na_rd_addr);
    if (nb_rd_en) nb_q <= mix8(nb_rd_addr);
  end
  ga2_vec_add #(.SP_WORDS(SP_WORDS)) u_add_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_add), .dst(f_dst), .src(f_a), .src2(f_b),
    .len(f_len), .busy(aa_busy), .last(aa_last), .rd_en(aa_rd_en), .rd_addr(aa_rd_addr),
    .rd_byte(aa_q), .wr_en(aa_wr_en), .wr_addr(aa_wr_addr), .wr_data(aa_wr_data)
  );
  ga2_vec_add #(.SP_WORDS(SP_WORDS)) u_add_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_add), .dst(f_dst), .src(f_a), .src2(f_b),
    .len(f_len), .busy(ab_busy), .last(ab_last), .rd_en(ab_rd_en), .rd_addr(ab_rd_addr),
    .rd_byte(ab_q), .wr_en(ab_wr_en), .wr_addr(ab_wr_addr), .wr_data(ab_wr_data)
  );
  ga2_argmax #(.SP_WORDS(SP_WORDS)) u_amx_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_amx), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(xa_busy), .last(xa_last), .rd_en(xa_rd_en), .rd_addr(xa_rd_addr),
    .rd_data(xa_q), .wr_en(xa_wr_en), .wr_addr(xa_wr_addr), .wr_data(xa_wr_data)
  );
  ga2_argmax #(.SP_WORDS(SP_WORDS)) u_amx_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_amx), .dst(f_dst), .src(f_a), .len(f_len),
    .busy(xb_busy), .last(xb_last), .rd_en(xb_rd_en), .rd_addr(xb_rd_addr),
    .rd_data(xb_q), .wr_en(xb_wr_en), .wr_addr(xb_wr_addr), .wr_data(xb_wr_data)
  );
  ga2_norm #(.SP_WORDS(SP_WORDS)) u_nrm_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_nrm), .dst(f_dst), .src(f_a), .len(f_len),
    .m(f_rqm), .s(f_rqs), .busy(na_busy), .last(na_last), .rd_en(na_rd_en),
    .rd_addr(na_rd_addr), .rd_byte(na_q), .wr_en(na_wr_en), .wr_addr(na_wr_addr),
    .wr_data(na_wr_data)
  );
  ga2_norm #(.SP_WORDS(SP_WORDS)) u_nrm_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_nrm), .dst(f_dst), .src(f_a), .len(f_len),
    .m(f_rqm), .s(f_rqs), .busy(nb_busy), .last(nb_last), .rd_en(nb_rd_en),
    .rd_addr(nb_rd_addr), .rd_byte(nb_q), .wr_en(nb_wr_en), .wr_addr(nb_wr_addr),
    .wr_data(nb_wr_data)
  );

  // ------------------------------------------------------------------ pack4
  wire          pa_busy, pa_last, pa_rd_en, pa_wr_en, pb_busy, pb_last, pb_rd_en, pb_wr_en;
  wire [AW-1:0] pa_rd_addr, pa_wr_addr, pb_rd_addr, pb_wr_addr;
  wire [31:0]   pa_wr_data, pb_wr_data;
  reg  [7:0]    pa_q, pb_q;
  always @(posedge uclk) begin
    if (pa_rd_en) pa_q <= mix8(pa_rd_addr);
    if (pb_rd_en) pb_q <= mix8(pb_rd_addr);
  end
  ga2_pack4 #(.SP_WORDS(SP_WORDS)) u_pk_a (
    .clk(uclk), .rst(rst_u), .start(st_a && on_pk), .unpack(f_unpack), .dst(f_dst), .src(f_a),
    .len(f_len), .busy(pa_busy), .last(pa_last), .rd_en(pa_rd_en), .rd_addr(pa_rd_addr),
    .rd_byte(pa_q), .wr_en(pa_wr_en), .wr_addr(pa_wr_addr), .wr_data(pa_wr_data)
  );
  ga2_pack4 #(.SP_WORDS(SP_WORDS)) u_pk_b (
    .clk(uclk), .rst(rst_u), .start(st_b && on_pk), .unpack(f_unpack), .dst(f_dst), .src(f_a),
    .len(f_len), .busy(pb_busy), .last(pb_last), .rd_en(pb_rd_en), .rd_addr(pb_rd_addr),
    .rd_byte(pb_q), .wr_en(pb_wr_en), .wr_addr(pb_wr_addr), .wr_data(pb_wr_data)
  );

  // ------------------------------------------------------------------ comparison
  // mis[s]: signal s of A differs from B's this cycle; busy/last of the unit under test
  reg [15:0]  mis;
  reg         busy_a, busy_b, last_b;
  reg [127:0] obs_a, obs_b;              // VERBOSE: the unit's outputs, for the message
  integer     pp;
  always @* begin
    mis = 16'd0;
    busy_a = 1'b0;
    busy_b = 1'b0;
    last_b = 1'b0;
    obs_a = 128'd0;
    obs_b = 128'd0;
    case (sc_unit)
      U_DMA: begin
        busy_a  = da_busy;
        busy_b  = db_busy;
        last_b  = db_last;
        mis[0]  = (da_busy !== db_busy);
        mis[1]  = (da_last !== db_last);
        mis[2]  = (da_sp_rd_en !== db_sp_rd_en);
        mis[3]  = (db_sp_rd_en === 1'b1) && (da_sp_rd_addr !== db_sp_rd_addr);
        mis[4]  = (da_sp_wr_en !== db_sp_wr_en);
        mis[5]  = (db_sp_wr_en === 1'b1) && (da_sp_wr_addr !== db_sp_wr_addr);
        mis[6]  = (db_sp_wr_en === 1'b1) && (da_sp_wr_data !== db_sp_wr_data);
        mis[7]  = (da_ext_en !== db_ext_en);
        mis[8]  = (da_ext_we !== db_ext_we);
        mis[9]  = (db_ext_en === 1'b1) && (da_ext_addr !== db_ext_addr);
        mis[10] = (db_ext_we === 1'b1) && (da_ext_wdata !== db_ext_wdata);
        mis[11] = (da_idx_err !== db_idx_err);
        mis[13] = (^{da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, da_idx_err,
                     db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, db_idx_err,
                     {AW{db_sp_rd_en}} & db_sp_rd_addr, {AW{db_sp_wr_en}} & db_sp_wr_addr,
                     {32{db_sp_wr_en}} & db_sp_wr_data, {AW{db_ext_en}} & db_ext_addr[AW-1:0],
                     {32{db_ext_we}} & db_ext_wdata} === 1'bx);
        obs_a   = {da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, 2'b00,
                   da_sp_rd_addr, da_sp_wr_addr, da_ext_addr[AW-1:0], da_sp_wr_data, da_ext_wdata, 8'd0};
        obs_b   = {db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, 2'b00,
                   db_sp_rd_addr, db_sp_wr_addr, db_ext_addr[AW-1:0], db_sp_wr_data, db_ext_wdata, 8'd0};
      end
      U_RQ: begin
        busy_a = ra_busy;
        busy_b = rb_busy;
        last_b = rb_last;
        mis[0] = (ra_busy !== rb_busy);
        mis[1] = (ra_last !== rb_last);
        mis[2] = (ra_rd_en !== rb_rd_en);
        mis[3] = (rb_rd_en === 1'b1) && (ra_rd_addr !== rb_rd_addr);
        mis[4] = (ra_wr_en !== rb_wr_en);
        mis[5] = (rb_wr_en === 1'b1) && (ra_wr_addr !== rb_wr_addr);
        mis[6] = (rb_wr_en === 1'b1) && (ra_wr_data !== rb_wr_data);
        mis[13] = (^{ra_busy, ra_last, ra_rd_en, ra_wr_en, rb_busy, rb_last, rb_rd_en, rb_wr_en,
                     {AW{rb_rd_en}} & rb_rd_addr, {AW{rb_wr_en}} & rb_wr_addr,
                     {32{rb_wr_en}} & rb_wr_data} === 1'bx);
        obs_a  = {ra_busy, ra_last, ra_rd_en, ra_wr_en, 4'd0, ra_rd_addr, ra_wr_addr, ra_wr_data, 56'd0};
        obs_b  = {rb_busy, rb_last, rb_rd_en, rb_wr_en, 4'd0, rb_rd_addr, rb_wr_addr, rb_wr_data, 56'd0};
      end
      U_ADD: begin
        busy_a = aa_busy;
        busy_b = ab_busy;
        last_b = ab_last;
        mis[0] = (aa_busy !== ab_busy);
        mis[1] = (aa_last !== ab_last);
        mis[2] = (aa_rd_en !== ab_rd_en);
        mis[3] = (ab_rd_en === 1'b1) && (aa_rd_addr !== ab_rd_addr);
        mis[4] = (aa_wr_en !== ab_wr_en);
        mis[5] = (ab_wr_en === 1'b1) && (aa_wr_addr !== ab_wr_addr);
        mis[6] = (ab_wr_en === 1'b1) && (aa_wr_data !== ab_wr_data);
        mis[13] = (^{aa_busy, aa_last, aa_rd_en, aa_wr_en, ab_busy, ab_last, ab_rd_en, ab_wr_en,
                     {AW{ab_rd_en}} & ab_rd_addr, {AW{ab_wr_en}} & ab_wr_addr,
                     {32{ab_wr_en}} & ab_wr_data} === 1'bx);
        obs_a  = {aa_busy, aa_last, aa_rd_en, aa_wr_en, 4'd0, aa_rd_addr, aa_wr_addr, aa_wr_data, 56'd0};
        obs_b  = {ab_busy, ab_last, ab_rd_en, ab_wr_en, 4'd0, ab_rd_addr, ab_wr_addr, ab_wr_data, 56'd0};
      end
      U_AMX: begin
        busy_a = xa_busy;
        busy_b = xb_busy;
        last_b = xb_last;
        mis[0] = (xa_busy !== xb_busy);
        mis[1] = (xa_last !== xb_last);
        mis[2] = (xa_rd_en !== xb_rd_en);
        mis[3] = (xb_rd_en === 1'b1) && (xa_rd_addr !== xb_rd_addr);
        mis[4] = (xa_wr_en !== xb_wr_en);
        mis[5] = (xb_wr_en === 1'b1) && (xa_wr_addr !== xb_wr_addr);
        mis[6] = (xb_wr_en === 1'b1) && (xa_wr_data !== xb_wr_data);
        mis[13] = (^{xa_busy, xa_last, xa_rd_en, xa_wr_en, xb_busy, xb_last, xb_rd_en, xb_wr_en,
                     {AW{xb_rd_en}} & xb_rd_addr, {AW{xb_wr_en}} & xb_wr_addr,
                     {32{xb_wr_en}} & xb_wr_data} === 1'bx);
        obs_a  = {xa_busy, xa_last, xa_rd_en, xa_wr_en, 4'd0, xa_rd_addr, xa_wr_addr, xa_wr_data, 56'd0};
        obs_b  = {xb_busy, xb_last, xb_rd_en, xb_wr_en, 4'd0, xb_rd_addr, xb_wr_addr, xb_wr_data, 56'd0};
      end
      U_NRM: begin
        busy_a = na_busy;
        busy_b = nb_busy;
        last_b = nb_last;
        mis[0] = (na_busy !== nb_busy);
        mis[1] = (na_last !== nb_last);
        mis[2] = (na_rd_en !== nb_rd_en);
        mis[3] = (nb_rd_en === 1'b1) && (na_rd_addr !== nb_rd_addr);
        mis[4] = (na_wr_en !== nb_wr_en);
        mis[5] = (nb_wr_en === 1'b1) && (na_wr_addr !== nb_wr_addr);
        mis[6] = (nb_wr_en === 1'b1) && (na_wr_data !== nb_wr_data);
        mis[13] = (^{na_busy, na_last, na_rd_en, na_wr_en, nb_busy, nb_last, nb_rd_en, nb_wr_en,
                     {AW{nb_rd_en}} & nb_rd_addr, {AW{nb_wr_en}} & nb_wr_addr,
                     {32{nb_wr_en}} & nb_wr_data} === 1'bx);
        obs_a  = {na_busy, na_last, na_rd_en, na_wr_en, 4'd0, na_rd_addr, na_wr_addr, na_wr_data, 56'd0};
        obs_b  = {nb_busy, nb_last, nb_rd_en, nb_wr_en, 4'd0, nb_rd_addr, nb_wr_addr, nb_wr_data, 56'd0};
      end
      U_PK: begin
        busy_a = pa_busy;
        busy_b = pb_busy;
        last_b = pb_last;
        mis[0] = (pa_busy !== pb_busy);
        mis[1] = (pa_last !== pb_last);
        mis[2] = (pa_rd_en !== pb_rd_en);
        mis[3] = (pb_rd_en === 1'b1) && (pa_rd_addr !== pb_rd_addr);
        mis[4] = (pa_wr_en !== pb_wr_en);
        mis[5] = (pb_wr_en === 1'b1) && (pa_wr_addr !== pb_wr_addr);
        mis[6] = (pb_wr_en === 1'b1) && (pa_wr_data !== pb_wr_data);
        mis[13] = (^{pa_busy, pa_last, pa_rd_en, pa_wr_en, pb_busy, pb_last, pb_rd_en, pb_wr_en,
                     {AW{pb_rd_en}} & pb_rd_addr, {AW{pb_wr_en}} & pb_wr_addr,
                     {32{pb_wr_en}} & pb_wr_data} === 1'bx);
        obs_a  = {pa_busy, pa_last, pa_rd_en, pa_wr_en, 4'd0, pa_rd_addr, pa_wr_addr, pa_wr_data, 56'd0};
        obs_b  = {pb_busy, pb_last, pb_rd_en, pb_wr_en, 4'd0, pb_rd_addr, pb_wr_addr, pb_wr_data, 56'd0};
      end
      U_MM: begin
        busy_a = ma_busy;
        busy_b = mb_busy;
        last_b = mb_last;
        mis[0] = (ma_busy !== mb_busy);
        mis[1] = (ma_last !== mb_last);
        mis[2] = (ma_rd_en !== mb_rd_en);
        for (pp = 0; pp < NP; pp = pp + 1) begin
          if (mb_rd_en[pp] === 1'b1 && ma_rd_addr[AW*pp +: AW] !== mb_rd_addr[AW*pp +: AW])
            mis[3] = 1'b1;
        end
        mis[4] = (ma_wr_en !== mb_wr_en);
        mis[5] = (mb_wr_en === 1'b1) && (ma_wr_addr !== mb_wr_addr);
        mis[6] = (mb_wr_en === 1'b1) && (ma_wr_data !== mb_wr_data);
        for (pp = 0; pp < NP; pp = pp + 1) begin
          if ((^({AW{mb_rd_en[pp]}} & mb_rd_addr[AW*pp +: AW])) === 1'bx) mis[13] = 1'b1;
        end
        if ((^{ma_busy, ma_last, ma_rd_en, ma_wr_en, mb_busy, mb_last, mb_rd_en, mb_wr_en,
               {AW{mb_wr_en}} & mb_wr_addr, {32{mb_wr_en}} & mb_wr_data}) === 1'bx)
          mis[13] = 1'b1;
        obs_a  = {ma_busy, ma_last, ma_wr_en, 5'd0, ma_rd_en, ma_wr_addr, ma_wr_data, ma_rd_addr[63:0]};
        obs_b  = {mb_busy, mb_last, mb_wr_en, 5'd0, mb_rd_en, mb_wr_addr, mb_wr_data, mb_rd_addr[63:0]};
      end
      U_SM0: begin
        busy_a = s0a_busy;
        busy_b = s0b_busy;
        last_b = s0b_last;
        mis[0] = (s0a_busy !== s0b_busy);
        mis[1] = (s0a_last !== s0b_last);
        mis[2] = (s0a_rd_en !== s0b_rd_en);
        mis[3] = (s0b_rd_en === 1'b1) && (s0a_rd_addr !== s0b_rd_addr);
        mis[4] = (s0a_wr_en !== s0b_wr_en);
        mis[5] = (s0b_wr_en === 1'b1) && (s0a_wr_addr !== s0b_wr_addr);
        mis[6] = (s0b_wr_en === 1'b1) && (s0a_wr_data !== s0b_wr_data);
        mis[13] = (^{s0a_busy, s0a_last, s0a_rd_en, s0a_wr_en, s0b_busy, s0b_last, s0b_rd_en,
                     s0b_wr_en, {AW{s0b_rd_en}} & s0b_rd_addr, {AW{s0b_wr_en}} & s0b_wr_addr,
                     {32{s0b_wr_en}} & s0b_wr_data} === 1'bx);
        obs_a  = {s0a_busy, s0a_last, s0a_rd_en, s0a_wr_en, 4'd0, s0a_rd_addr, s0a_wr_addr, s0a_wr_data, 56'd0};
        obs_b  = {s0b_busy, s0b_last, s0b_rd_en, s0b_wr_en, 4'd0, s0b_rd_addr, s0b_wr_addr, s0b_wr_data, 56'd0};
      end
      U_SM1: begin
        busy_a = s1a_busy;
        busy_b = s1b_busy;
        last_b = s1b_last;
        mis[0] = (s1a_busy !== s1b_busy);
        mis[1] = (s1a_last !== s1b_last);
        mis[2] = (s1a_rd_en !== s1b_rd_en);
        mis[3] = (s1b_rd_en === 1'b1) && (s1a_rd_addr !== s1b_rd_addr);
        mis[4] = (s1a_wr_en !== s1b_wr_en);
        mis[5] = (s1b_wr_en === 1'b1) && (s1a_wr_addr !== s1b_wr_addr);
        mis[6] = (s1b_wr_en === 1'b1) && (s1a_wr_data !== s1b_wr_data);
        mis[13] = (^{s1a_busy, s1a_last, s1a_rd_en, s1a_wr_en, s1b_busy, s1b_last, s1b_rd_en,
                     s1b_wr_en, {AW{s1b_rd_en}} & s1b_rd_addr, {AW{s1b_wr_en}} & s1b_wr_addr,
                     {32{s1b_wr_en}} & s1b_wr_data} === 1'bx);
        obs_a  = {s1a_busy, s1a_last, s1a_rd_en, s1a_wr_en, 4'd0, s1a_rd_addr, s1a_wr_addr, s1a_wr_data, 56'd0};
        obs_b  = {s1b_busy, s1b_last, s1b_rd_en, s1b_wr_en, 4'd0, s1b_rd_addr, s1b_wr_addr, s1b_wr_data, 56'd0};
      end
      U_DIV: begin
        busy_a = va_busy;
        busy_b = vb_busy;
        last_b = vb_last;
        mis[0] = (va_busy !== vb_busy);
        mis[1] = (va_last !== vb_last);
        mis[2] = (vb_last === 1'b1) && (va_q !== vb_q);
        mis[3] = (vb_last === 1'b1) && (va_r !== vb_r);
        mis[13] = (^{va_busy, va_last, vb_busy, vb_last, {32{vb_last}} & vb_q,
                     {32{vb_last}} & vb_r} === 1'bx);
        obs_a  = {va_busy, va_last, 6'd0, va_q, va_r, 56'd0};
        obs_b  = {vb_busy, vb_last, 6'd0, vb_q, vb_r, 56'd0};
      end
      default: ;
    endcase
  end

  // the first signal that differs
  reg [3:0] first;
  integer   k;
  always @* begin
    first = 4'd0;
    for (k = 15; k >= 0; k = k - 1) begin
      if (mis[k]) first = k[3:0];
    end
  end

  function [8*8-1:0] unit_name;
    input [3:0] u;
    begin
      case (u)
        U_DMA:   unit_name = "dma";
        U_ADD:   unit_name = "vec_add";
        U_AMX:   unit_name = "argmax";
        U_NRM:   unit_name = "norm";
        U_PK:    unit_name = "pack4";
        U_RQ:    unit_name = "vec_rq";
        U_MM:    unit_name = "mm_ctrl";
        U_SM0:   unit_name = "softmax0";
        U_SM1:   unit_name = "softmax1";
        U_DIV:   unit_name = "divu";
        default: unit_name = "?";
      endcase
    end
  endfunction

  function [8*12-1:0] sig_name;
    input [3:0] u;
    input [3:0] s;
    begin
      case (s)
        4'd0:  sig_name = "busy";
        4'd1:  sig_name = "last";
        4'd12: sig_name = "not_busy";      // A idle in the restart cycle
        4'd13: sig_name = "xz";
        4'd14: sig_name = "not_idle";      // busy after B's last
        4'd15: sig_name = "no_last";
        default: begin
          if (u == U_DMA) begin
            case (s)
              4'd2:    sig_name = "sp_rd_en";
              4'd3:    sig_name = "sp_rd_addr";
              4'd4:    sig_name = "sp_wr_en";
              4'd5:    sig_name = "sp_wr_addr";
              4'd6:    sig_name = "sp_wr_data";
              4'd7:    sig_name = "ext_en";
              4'd8:    sig_name = "ext_we";
              4'd9:    sig_name = "ext_addr";
              4'd10:   sig_name = "ext_wdata";
              4'd11:   sig_name = "idx_err";
              default: sig_name = "?";
            endcase
          end else if (u == U_DIV) begin
            case (s)
              4'd2:    sig_name = "quotient";
              4'd3:    sig_name = "remainder";
              default: sig_name = "?";
            endcase
          end else begin
            case (s)
              4'd2:    sig_name = "rd_en";
              4'd3:    sig_name = "rd_addr";
              4'd4:    sig_name = "wr_en";
              4'd5:    sig_name = "wr_addr";
              4'd6:    sig_name = "wr_data";
              default: sig_name = "?";
            endcase
          end
        end
      endcase
    end
  endfunction

  // ------------------------------------------------------------------ the sequence
  // Everything changes on the falling edge; the units sample on the rising edge of uclk.
  initial begin
    done = 1'b0;
    fail = 1'b0;
    fail_id = 16'd0;
    fail_unit = 3'd0;
    fail_unit_name = {8{8'd0}};
    fail_sig_name = {12{8'd0}};
    run_q = 1'b0;
    rst_u = 1'b1;
    st_a = 1'b0;
    st_b = 1'b0;
    go_q = 1'b0;
    ph = P_IDLE;
    scn = 8'd0;
    cnt = 12'd0;
    job = J_LD6;
    da_sp_q = 32'd0; da_ext_q = 32'd0; db_sp_q = 32'd0; db_ext_q = 32'd0;
    ra_q = 32'd0; rb_q = 32'd0;
    ma_byte = {NP*8{1'b0}}; mb_byte = {NP*8{1'b0}}; ma_w0 = 32'd0; mb_w0 = 32'd0;
    s0a_q = 8'd0; s0b_q = 8'd0; s1a_q = 8'd0; s1b_q = 8'd0;
    aa_q = 8'd0; ab_q = 8'd0; xa_q = 32'd0; xb_q = 32'd0; na_q = 8'd0; nb_q = 8'd0;
    pa_q = 8'd0; pb_q = 8'd0;
  end

  // the end of the run: at the first mismatch (sig) or after the last scenario
  task stop_run;
    input       bad;
    input [3:0] sig;
    begin
      if (bad) begin
        fail           <= 1'b1;
        fail_id        <= {4'd0, scn, sig};
        fail_unit      <= sc_unit;
        fail_unit_name <= unit_name(sc_unit);
        fail_sig_name  <= sig_name(sc_unit, sig);
        if (VERBOSE != 0)
          $display("restart_chk: scenario %0d (%0s, restart in busy cycle %0d, %0d cycles after): %0s differs: A %h, B %h",
                   scn, unit_name(sc_unit), sc_c, cnt, sig_name(sc_unit, sig), obs_a, obs_b);
      end
      done  <= 1'b1;
      run_q <= 1'b0;
      rst_u <= 1'b1;
      st_a  <= 1'b0;
      st_b  <= 1'b0;
      ph    <= P_IDLE;
    end
  endtask

  always @(negedge clk) begin
    go_q <= go;
    case (ph)
      P_IDLE: begin
        if (go === 1'b1 && go_q !== 1'b1) begin
          done  <= 1'b0;
          fail  <= 1'b0;
          scn   <= 8'd0;
          cnt   <= 12'd0;
          run_q <= 1'b1;
          rst_u <= 1'b1;
          ph    <= P_RST;
        end
      end
      P_RST: begin                       // rst high for two rising edges, then P1's start
        if (cnt == 12'd1) begin
          rst_u <= 1'b0;
          st_a  <= 1'b1;
          job   <= sc_j1;
          cnt   <= 12'd0;
          ph    <= P_RUN1;
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      P_RUN1: begin                      // in P1's busy cycle cnt
        if (cnt == {3'd0, sc_c}) begin
          if (busy_a !== 1'b1) begin
            stop_run(1'b1, 4'd12);
          end else begin
            st_a <= 1'b1;
            st_b <= 1'b1;
            job  <= sc_j2;
            cnt  <= 12'd0;
            ph   <= P_CMP;
          end
        end else begin
          st_a <= 1'b0;
          cnt  <= cnt + 12'd1;
        end
      end
      P_CMP: begin                       // in P2's busy cycle cnt
        st_a <= 1'b0;
        st_b <= 1'b0;
        if (mis != 16'd0) begin
          stop_run(1'b1, first);
        end else if (last_b === 1'b1) begin
          cnt <= 12'd0;
          ph  <= P_TAIL;
        end else if (cnt == LIM) begin
          stop_run(1'b1, 4'd15);
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      P_TAIL: begin                      // the 2 cycles after B's last: both idle
        if (mis != 16'd0) begin
          stop_run(1'b1, first);
        end else if (busy_a !== 1'b0 || busy_b !== 1'b0) begin
          stop_run(1'b1, 4'd14);
        end else if (cnt == 12'd1) begin
          if (scn == N_SCN - 8'd1) begin
            stop_run(1'b0, 4'd0);
          end else begin
            scn   <= scn + 8'd1;
            cnt   <= 12'd0;
            rst_u <= 1'b1;
            ph    <= P_RST;
          end
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      default: ph <= P_IDLE;
    endcase
  end
endmodule
`resetall
