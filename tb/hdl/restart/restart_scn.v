`resetall
`timescale 1ns/1ps
`default_nettype none
// restart_scn: the restart check's scenario table (restart_chk.v) for the DMA, the matrix
// unit and the divider (the vector units' scenarios are generated from their records:
// tb/restart.py, restart_vec): scenario scn is a unit (U_*), a first job P1, a second
// job P2 (J_*: restart_jobs.v) and the busy cycle c of P1 (0-based as in the units'
// headers) in which P2 starts. The restart cycles are the first cycles, every phase of
// each job (the lookup's index read and address; feed, old-C pre-read, drain; the divider's
// steps and result) and the job's last busy cycle. N_HAND (restart_codes.vh) is their
// number (the default, never reached, an LD6 pair).
// Why a table: the scenario number is the one the check reports (fail_id = scenario * 16
// + signal), so the list must be one list in one order.
module restart_scn (
  input  wire [9:0] scn,
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
      10'd0: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd0};
      10'd1: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd1};
      10'd2: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd2};
      10'd3: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd4};
      10'd4: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd5};
      10'd5: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD5, 9'd6};
      10'd6: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd0};
      10'd7: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd1};
      10'd8: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd2};
      10'd9: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd4};
      10'd10: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd5};
      10'd11: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_ST7, 9'd6};
      10'd12: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd0};
      10'd13: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd3};
      10'd14: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_ST6, 9'd6};
      10'd15: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd1};
      10'd16: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd4};
      10'd17: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST7, J_LD5, 9'd7};
      // mm_ctrl MMA (K 9, M N 4, acc): feed 0..11, old-C pre-read 15, drain 16..31
      10'd18: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd0};
      10'd19: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd1};
      10'd20: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd2};
      10'd21: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd4};
      10'd22: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd6};
      10'd23: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd10};
      10'd24: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd15};
      10'd25: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd16};
      10'd26: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd24};
      10'd27: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMB, 9'd31};
      // MMB (K 5, M 3, N 2, tb, acc): feed 0..6, pre-read 11, drain 12..17
      10'd28: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd0};
      10'd29: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd1};
      10'd30: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd2};
      10'd31: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd3};
      10'd32: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd4};
      10'd33: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd11};
      10'd34: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd12};
      10'd35: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd14};
      10'd36: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMB, J_MMA, 9'd17};
      // MMC (acc 0) -> MMD (tb, acc 0) and back; MMA restarted with itself
      10'd37: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd5};
      10'd38: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd16};
      10'd39: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMC, J_MMD, 9'd31};
      10'd40: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd8};
      10'd41: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd20};
      10'd42: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMD, J_MMC, 9'd25};
      10'd43: {sc_unit, sc_j1, sc_j2, sc_c} = {U_MM, J_MMA, J_MMA, 9'd12};
      // divu: steps 0..31, result 32
      10'd44: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd0};
      10'd45: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd16};
      10'd46: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd31};
      10'd47: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV1, J_DV2, 9'd32};
      10'd48: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DIV, J_DV2, J_DV1, 9'd20};
      // dma ldx, busy 8 (LX1), 7 (LX2): the index read 0, the address 1, the LD, last
      10'd49: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd0};
      10'd50: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd1};
      10'd51: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LD5, 9'd2};
      10'd52: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LX2, 9'd5};
      10'd53: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX1, J_LX2, 9'd7};
      10'd54: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd0};
      10'd55: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd1};
      10'd56: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd3};
      10'd57: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LX2, J_LX1, 9'd6};
      10'd58: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LX2, 9'd2};
      10'd59: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_ST6, J_LX1, 9'd4};
      default: {sc_unit, sc_j1, sc_j2, sc_c} = {U_DMA, J_LD6, J_LD6, 9'd0};
    endcase
  end
endmodule
`resetall
