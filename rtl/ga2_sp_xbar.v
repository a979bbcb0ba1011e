`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_sp_xbar: the scratchpad ports of the units, fixed wiring (no arbitration): every
// unit has its own ports, so units running at the same time (the overlap timing mode)
// never compete for one. ga2_sram port order (docs/rtl.md):
//   read  ports 0..ARRAY-1        ga2_mm_ctrl, row i of A
//               ARRAY..2*ARRAY-1  ga2_mm_ctrl, column j of B
//               2*ARRAY           ga2_dma
//               2*ARRAY+1         vec (the vector units: one of them, never two busy at
//                                 once; ga2_top's rtl/ga2_units.vh puts them on this port)
//   write ports 0 vec, 1 ga2_mm_ctrl, 2 ga2_dma
// Unit addresses are ISA-width (16 bits); after DECODE's range checks the bits above
// SP_AW are zero, so the scratchpad takes the low SP_AW bits. Read data: each mm port's
// low byte to ga2_mm_ctrl (and port 0's full word, the old C word of MM acc = 1), the ga2_dma
// port to ga2_dma, the vec port's full word to the vector units.
// Outside synthesis a check stops the simulation when, in one cycle, two units' ports
// touch the same scratchpad word and at least one of them writes it: the sequencer's
// hazard check (ga2_hazard) must never let that happen (clk and rst serve only that check).
module ga2_sp_xbar #(
  parameter SP_AW = 12
) (
  input  wire                                clk,
  input  wire                                rst,
  // ga2_dma
  input  wire                                dma_rd_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SP_AW bits reach the scratchpad.
  input  wire [`GA2_ADDR_W-1:0]              dma_rd_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [31:0]                         dma_rd_data,
  input  wire                                dma_wr_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SP_AW bits reach the scratchpad.
  input  wire [`GA2_ADDR_W-1:0]              dma_wr_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [31:0]                         dma_wr_data,
  // ga2_mm_ctrl: read port i is row i of A (i < ARRAY), ARRAY + j column j of B
  input  wire [2*`GA2_ARRAY-1:0]             mm_rd_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // Unit addresses are ISA-width: only their low SP_AW bits reach the scratchpad.
  input  wire [2*`GA2_ARRAY*`GA2_ADDR_W-1:0] mm_rd_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [2*`GA2_ARRAY*8-1:0]           mm_rd_byte,
  output wire [`GA2_ARRAY*8-1:0]             mm_rd_ahi,     // bits 15:8 of the A ports (a16)
  output wire [31:0]                         mm_rd_word0,   // port 0's full word (MM acc)
  input  wire                                mm_wr_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SP_AW bits reach the scratchpad.
  input  wire [`GA2_ADDR_W-1:0]              mm_wr_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [31:0]                         mm_wr_data,
  // the vector port: the one busy vector unit's (ga2_top ANDs each unit's address and
  // data with its enable and ORs them, rtl/ga2_units.vh)
  input  wire                                vec_rd_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SP_AW bits reach the scratchpad.
  input  wire [`GA2_ADDR_W-1:0]              vec_rd_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [31:0]                         vec_rd_data,
  input  wire                                vec_wr_en,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SP_AW bits reach the scratchpad.
  input  wire [`GA2_ADDR_W-1:0]              vec_wr_addr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [31:0]                         vec_wr_data,
  // the scratchpad (ga2_sram): NRD read ports, NWR write ports in the order above
  output wire [2*`GA2_ARRAY+1:0]             sp_rd_en,
  output wire [(2*`GA2_ARRAY+2)*SP_AW-1:0]   sp_rd_addr,
  /* verilator lint_off UNUSEDSIGNAL */
  // The mm ports feed only the matrix unit, which reads s8() (B) or s16() (A with a16):
  // their high 24 (B) or 16 (A) bits are unused, but for port 0's (the old C word of an
  // accumulating MM, mm_rd_word0).
  input  wire [(2*`GA2_ARRAY+2)*32-1:0]      sp_rd_data,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [2:0]                          sp_wr_en,
  output wire [3*SP_AW-1:0]                  sp_wr_addr,
  output wire [3*32-1:0]                     sp_wr_data
);
  localparam NA   = `GA2_ARRAY;
  localparam AW   = `GA2_ADDR_W;
  localparam NMM  = 2 * NA;                 // the matrix unit's read ports
  localparam PDMA = NMM;                    // the dma read port
  localparam PVEC = NMM + 1;                // the vec read port

  initial begin
    if (SP_AW < 1 || SP_AW > AW) begin
      $error("%m: SP_AW=%0d outside 1..%0d", SP_AW, AW);
      $finish;
    end
  end

  // ------------------------------------------------------------------ wiring
  genvar p;
  generate
    for (p = 0; p < NMM; p = p + 1) begin : g_port
      assign sp_rd_addr[p*SP_AW +: SP_AW] = mm_rd_addr[p*AW +: SP_AW];
      assign mm_rd_byte[p*8 +: 8]         = sp_rd_data[p*32 +: 8];
    end
    for (p = 0; p < `GA2_ARRAY; p = p + 1) begin : g_ahi
      assign mm_rd_ahi[p*8 +: 8]          = sp_rd_data[p*32 + 8 +: 8];
    end
  endgenerate

  assign sp_rd_en[NMM-1:0]                 = mm_rd_en;
  assign sp_rd_en[PDMA]                    = dma_rd_en;
  assign sp_rd_addr[PDMA*SP_AW +: SP_AW]   = dma_rd_addr[SP_AW-1:0];
  assign sp_rd_en[PVEC]                    = vec_rd_en;
  assign sp_rd_addr[PVEC*SP_AW +: SP_AW]   = vec_rd_addr[SP_AW-1:0];

  assign sp_wr_en                          = {dma_wr_en, mm_wr_en, vec_wr_en};
  assign sp_wr_addr                        = {dma_wr_addr[SP_AW-1:0], mm_wr_addr[SP_AW-1:0],
                                              vec_wr_addr[SP_AW-1:0]};
  assign sp_wr_data                        = {dma_wr_data, mm_wr_data, vec_wr_data};

  assign mm_rd_word0 = sp_rd_data[0 +: 32];
  assign dma_rd_data = sp_rd_data[PDMA*32 +: 32];
  assign vec_rd_data = sp_rd_data[PVEC*32 +: 32];

  // ------------------------------------------------------------------ missed-hazard check
`ifndef SYNTHESIS
  // Per write port w (0 vec, 1 mm, 2 dma): every enabled port of the OTHER two
  // units at the same address (their reads and their write). Continuous assignments, so
  // the simulators evaluate only what changes.
  localparam NR = NMM + 2;                  // read ports
  wire [NR-1:0] rd_unit_dma = {1'b0, 1'b1, {NMM{1'b0}}};
  wire [NR-1:0] rd_unit_mm  = {2'b00, {NMM{1'b1}}};
  wire [NR-1:0] rd_unit_vec = {1'b1, 1'b0, {NMM{1'b0}}};
  wire [3*NR-1:0] rd_unit   = {rd_unit_dma, rd_unit_mm, rd_unit_vec};   // by write port
  wire [2:0] miss;
  genvar w, r, v;
  generate
    for (w = 0; w < 3; w = w + 1) begin : g_chk
      wire [SP_AW-1:0] wa = sp_wr_addr[w*SP_AW +: SP_AW];
      wire [NR-1:0] rd_hit;
      wire [2:0]    wr_hit;
      for (r = 0; r < NR; r = r + 1) begin : g_rd
        assign rd_hit[r] = sp_rd_en[r] && !rd_unit[w*NR + r] && (sp_rd_addr[r*SP_AW +: SP_AW] == wa);
      end
      for (v = 0; v < 3; v = v + 1) begin : g_wr
        assign wr_hit[v] = (v != w) && sp_wr_en[v] && (sp_wr_addr[v*SP_AW +: SP_AW] == wa);
      end
      assign miss[w] = sp_wr_en[w] && ((rd_hit != {NR{1'b0}}) || (wr_hit != 3'd0));
    end
  endgenerate

  // miss is computed for the formal flow too (read_verilog -formal defines FORMAL, not
  // SYNTHESIS): tb/formal/ga2_top_f.v asserts it 0 (make formal); the stop is simulation's
  // synthesis translate_off
  always @(posedge clk) begin
    if (!rst && miss != 3'd0) begin
      $error("%m: missed hazard: a write of unit(s) %b ({dma, mm, vec}) meets another unit's access to the same scratchpad word in one cycle",
             miss);
      $finish;
    end
  end
  // synthesis translate_on
`endif
endmodule
`resetall
