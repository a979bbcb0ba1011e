`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_perf: the six performance counters of docs/host.md's host interface (CW = 32 bits
// on the chip; the unit benches also build it narrow, so every counter bit wraps in a test).
// cycles counts the cycles with running high (FETCH, DECODE, EXEC), mm / dma / vec the
// cycles with the matching bit of the unit-busy vector high (bit GA2_T_<UNIT> of busy;
// vec is any vector unit), instret the retires (the number of set bits of the retire slots:
// units can complete in the same cycle in the overlap mode), fetch the instruction words read
// (the cycles with the sequencer's imem_en high: one 128-bit word each, the instruction
// traffic). clear (the sequencer accepting a start) zeroes all six and wins over counting. retire_cycle = cycles including the current
// cycle (the value in a retire cycle, docs/isa.md).
module ga2_perf #(
  parameter CW = 32                  // counter width
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        clear,
  input  wire        running,
  input  wire [`GA2_NUM_T-1:0] busy,   // bit GA2_T_<UNIT>: that unit is busy
  input  wire [`GA2_NUM_T:0]   retire, // a bit per retire slot (GA2_T_<UNIT>, GA2_SLOT_HALT)
  input  wire        fetch,          // the sequencer reads an instruction word (imem_en)
  output wire [CW-1:0] cnt_cycles,
  output wire [CW-1:0] cnt_mm,
  output wire [CW-1:0] cnt_dma,
  output wire [CW-1:0] cnt_vec,
  output wire [CW-1:0] cnt_instret,
  output wire [CW-1:0] cnt_fetch,
  output wire [CW-1:0] retire_cycle
);
  initial begin
    if (CW < 3 || CW > 64) begin
      $error("%m: CW=%0d outside 3..64", CW);
      $finish;
    end
  end

  localparam [CW-1:0] ZERO = {CW{1'b0}};
  localparam [CW-1:0] ONE  = {{(CW-1){1'b0}}, 1'b1};

  reg [CW-1:0] cyc_q, cyc_d, mm_q, mm_d, dma_q, dma_d, vec_q, vec_d, ret_q, ret_d, fet_q, fet_d;

  always @* begin
    cyc_d = running ? cyc_q + ONE : cyc_q;
    mm_d  = busy[`GA2_T_MM] ? mm_q + ONE : mm_q;
    dma_d = busy[`GA2_T_DMA] ? dma_q + ONE : dma_q;
    vec_d = busy[`GA2_T_VEC] ? vec_q + ONE : vec_q;
    ret_d = ret_q + {{(CW-1){1'b0}}, retire[`GA2_T_DMA]} + {{(CW-1){1'b0}}, retire[`GA2_T_MM]} +
            {{(CW-1){1'b0}}, retire[`GA2_T_VEC]} + {{(CW-1){1'b0}}, retire[`GA2_SLOT_HALT]};
    fet_d = fetch ? fet_q + ONE : fet_q;
    if (clear) begin
      cyc_d = ZERO;
      mm_d  = ZERO;
      dma_d = ZERO;
      vec_d = ZERO;
      ret_d = ZERO;
      fet_d = ZERO;
    end
  end

  always @(posedge clk) begin
    if (rst) begin
      cyc_q <= ZERO;
      mm_q  <= ZERO;
      dma_q <= ZERO;
      vec_q <= ZERO;
      ret_q <= ZERO;
      fet_q <= ZERO;
    end else begin
      cyc_q <= cyc_d;
      mm_q  <= mm_d;
      dma_q <= dma_d;
      vec_q <= vec_d;
      ret_q <= ret_d;
      fet_q <= fet_d;
    end
  end

  assign cnt_cycles   = cyc_q;
  assign cnt_mm       = mm_q;
  assign cnt_dma      = dma_q;
  assign cnt_vec      = vec_q;
  assign cnt_instret  = ret_q;
  assign cnt_fetch    = fet_q;
  assign retire_cycle = cyc_q + ONE;
endmodule
`resetall
