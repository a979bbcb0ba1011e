`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_sp_xbar: the scratchpad port arbitration between the units and sram.
// Read port 0 is shared by every unit and the write port by every unit: each has an
// explicit grant vector over its requesters {softmax, vec_rq, mm_ctrl, dma}, fixed
// priority dma > mm_ctrl > vec_rq > softmax (version 1 runs one unit at a time, so at
// most one requests). Read ports 1..2*ARRAY-1 belong to the matrix unit alone. The
// granted unit's address drives the port; unit addresses are ISA-width (16 bits) and
// after DECODE's range checks the bits above SP_AW are zero, so the scratchpad takes the
// low SP_AW bits. Read data: port 0 to dma, vec_rq and softmax, each port's low byte to
// mm_ctrl. Outside synthesis a check stops the simulation if a port ever grants more
// than one requester (clk and rst serve only that check).
module ga2_sp_xbar #(
  parameter SP_AW = 12
) (
  input  wire                                clk,
  input  wire                                rst,
  // dma
  input  wire                                dma_rd_en,
  input  wire [`GA2_ADDR_W-1:0]              dma_rd_addr,
  output wire [31:0]                         dma_rd_data,
  input  wire                                dma_wr_en,
  input  wire [`GA2_ADDR_W-1:0]              dma_wr_addr,
  input  wire [31:0]                         dma_wr_data,
  // mm_ctrl: read port i is row i of A (i < ARRAY), ARRAY + j column j of B
  input  wire [2*`GA2_ARRAY-1:0]             mm_rd_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // Unit addresses are ISA-width: only their low SP_AW bits reach the scratchpad.
  input  wire [2*`GA2_ARRAY*`GA2_ADDR_W-1:0] mm_rd_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [2*`GA2_ARRAY*8-1:0]           mm_rd_byte,
  input  wire                                mm_wr_en,
  input  wire [`GA2_ADDR_W-1:0]              mm_wr_addr,
  input  wire [31:0]                         mm_wr_data,
  // vec_rq
  input  wire                                rq_rd_en,
  input  wire [`GA2_ADDR_W-1:0]              rq_rd_addr,
  output wire [31:0]                         rq_rd_data,
  input  wire                                rq_wr_en,
  input  wire [`GA2_ADDR_W-1:0]              rq_wr_addr,
  input  wire [31:0]                         rq_wr_data,
  // softmax
  input  wire                                sm_rd_en,
  input  wire [`GA2_ADDR_W-1:0]              sm_rd_addr,
  output wire [7:0]                          sm_rd_byte,
  input  wire                                sm_wr_en,
  input  wire [`GA2_ADDR_W-1:0]              sm_wr_addr,
  input  wire [31:0]                         sm_wr_data,
  // the scratchpad (sram)
  output wire [2*`GA2_ARRAY-1:0]             sp_rd_en,
  output wire [2*`GA2_ARRAY*SP_AW-1:0]       sp_rd_addr,
  /* verilator lint_off UNUSEDSIGNAL */
  // Ports 1..7 feed only the matrix unit, which reads s8(): their high 24 bits are unused.
  input  wire [2*`GA2_ARRAY*32-1:0]          sp_rd_data,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire                                sp_wr_en,
  output wire [SP_AW-1:0]                    sp_wr_addr,
  output wire [31:0]                         sp_wr_data
);
  localparam NA  = `GA2_ARRAY;
  localparam AW  = `GA2_ADDR_W;
  localparam NRD = 2 * NA;                  // scratchpad read ports

  initial begin
    if (SP_AW < 1 || SP_AW > AW) begin
      $error("%m: SP_AW=%0d outside 1..%0d", SP_AW, AW);
      $finish;
    end
  end

  // ------------------------------------------------------------------ grants
  // bit 0 dma, 1 mm_ctrl (read port 0: row 0 of A), 2 vec_rq, 3 softmax
  wire [3:0] rd0_gnt, wr_gnt;
  assign rd0_gnt[0] = dma_rd_en;
  assign rd0_gnt[1] = mm_rd_en[0] && !dma_rd_en;
  assign rd0_gnt[2] = rq_rd_en && !(dma_rd_en || mm_rd_en[0]);
  assign rd0_gnt[3] = sm_rd_en && !(dma_rd_en || mm_rd_en[0] || rq_rd_en);
  assign wr_gnt[0]  = dma_wr_en;
  assign wr_gnt[1]  = mm_wr_en && !dma_wr_en;
  assign wr_gnt[2]  = rq_wr_en && !(dma_wr_en || mm_wr_en);
  assign wr_gnt[3]  = sm_wr_en && !(dma_wr_en || mm_wr_en || rq_wr_en);

  /* verilator lint_off UNUSEDSIGNAL */
  // Only the low SP_AW bits of a unit address reach the scratchpad (see above).
  wire [AW-1:0] rd0_addr = rd0_gnt[0] ? dma_rd_addr :
                           rd0_gnt[1] ? mm_rd_addr[0 +: AW] :
                           rd0_gnt[2] ? rq_rd_addr : sm_rd_addr;
  wire [AW-1:0] wr_addr  = wr_gnt[0] ? dma_wr_addr :
                           wr_gnt[1] ? mm_wr_addr :
                           wr_gnt[2] ? rq_wr_addr : sm_wr_addr;
  /* verilator lint_on UNUSEDSIGNAL */

  assign sp_rd_en[0]             = |rd0_gnt;
  assign sp_rd_addr[0 +: SP_AW]  = rd0_addr[SP_AW-1:0];
  assign sp_rd_en[NRD-1:1]       = mm_rd_en[NRD-1:1];
  assign sp_wr_en                = |wr_gnt;
  assign sp_wr_addr              = wr_addr[SP_AW-1:0];
  assign sp_wr_data              = wr_gnt[0] ? dma_wr_data :
                                   wr_gnt[1] ? mm_wr_data :
                                   wr_gnt[2] ? rq_wr_data : sm_wr_data;

  genvar p;
  generate
    for (p = 1; p < NRD; p = p + 1) begin : g_port
      assign sp_rd_addr[p*SP_AW +: SP_AW] = mm_rd_addr[p*AW +: SP_AW];
    end
    for (p = 0; p < NRD; p = p + 1) begin : g_byte
      assign mm_rd_byte[p*8 +: 8] = sp_rd_data[p*32 +: 8];
    end
  endgenerate

  assign dma_rd_data = sp_rd_data[31:0];
  assign rq_rd_data  = sp_rd_data[31:0];
  assign sm_rd_byte  = sp_rd_data[7:0];

  // ------------------------------------------------------------------ grant check
`ifndef SYNTHESIS
  // synthesis translate_off
  // the number of ones of a 4-bit vector ($countones is SystemVerilog)
  function [2:0] ones4;
    input [3:0] v;
    begin
      ones4 = {2'd0, v[0]} + {2'd0, v[1]} + {2'd0, v[2]} + {2'd0, v[3]};
    end
  endfunction

  always @(posedge clk) begin
    if (!rst && (ones4(rd0_gnt) > 3'd1 || ones4(wr_gnt) > 3'd1)) begin
      $error("%m: more than one requester granted a scratchpad port (read port 0 %b, write %b)",
             rd0_gnt, wr_gnt);
      $finish;
    end
  end
  // synthesis translate_on
`endif
endmodule
`resetall
