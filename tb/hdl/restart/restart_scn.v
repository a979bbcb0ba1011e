`resetall
`timescale 1ns/1ps
`default_nettype none
// restart_scn: the restart check's scenario table (restart_chk.v): scenario scn is a
// unit (U_*), a first job P1, a second job P2 (J_*: restart_jobs.v) and the busy cycle c
// of P1 (0-based as in the units' headers) in which P2 starts. The restart cycles are the
// first cycles, every phase of each job (LDX's index read and address; feed, old-C
// pre-read, drain; max / exp pass, divider load, division, write / output; ADD's two
// reads; NORM's sum, square root, divider load, division, scaling) and the job's last busy
// cycle. N_SCN (restart_codes.vh) is their number (the default, never reached, an LD6 pair).
// Why a table: the scenario number is the one the check reports (fail_id = scenario * 16
// + signal), so the list must be one list in one order.
module restart_scn (
  input  wire [7:0] scn,
  output reg  [3:0] sc_unit,
  output reg  [4:0] sc_j1,
  output reg  [4:0] sc_j2,
  output reg  [8:0] sc_c
);
`include "restart_codes.vh"
  // (unit, P1, P2, c): the second start in P1's busy cycle c
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
endmodule
`resetall
