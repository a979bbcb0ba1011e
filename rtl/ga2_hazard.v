`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_hazard: the overlap timing mode's scratchpad hazard check (docs/isa.md "Timing
// modes"), used by ga2_top only when OVERLAP = 1.
// At an issue the started unit latches the instruction's scratchpad ranges (ga2_decode's
// hulls, exactly model/func.py reads() / writes()) into its own registers; they count
// while that unit is busy. `hazard` (combinational) is high when the instruction now in
// DECODE conflicts with the in-flight instruction of a busy unit:
//   RAW  a range it reads  meets the range that unit writes,
//   WAR  the range it writes meets a range that unit reads,
//   WAW  the range it writes meets the range that unit writes.
// Ranges are inclusive first..last pairs; two meet when a.first <= b.last and
// b.first <= a.last. Per unit: dma one read (ST src, the lookup's index word) and one write
// (LD and lookup dst) range, mm two reads (A, B) and one write (dst), vec two reads (src, src2)
// and one write. The decoding instruction's own
// unit is included (it stalls on that unit's busy anyway). External-memory ranges need
// no check: only the dma touches that memory, one transfer at a time in program order.
module ga2_hazard (
  input  wire                   clk,
  input  wire                   issue,        // the DECODE cycle that starts a unit
  input  wire [`GA2_NUM_T-1:0]  unit_sel,     // the started unit: bit GA2_T_<UNIT>
  input  wire [`GA2_NUM_T-1:0]  busy,         // the units' busy: bit GA2_T_<UNIT>
  // the instruction in DECODE (ga2_decode)
  input  wire                   rd0_v,
  input  wire [`GA2_ADDR_W-1:0] rd0_first,
  input  wire [`GA2_ADDR_W-1:0] rd0_last,
  input  wire                   rd1_v,
  input  wire [`GA2_ADDR_W-1:0] rd1_first,
  input  wire [`GA2_ADDR_W-1:0] rd1_last,
  input  wire                   wr_v,
  input  wire [`GA2_ADDR_W-1:0] wr_first,
  input  wire [`GA2_ADDR_W-1:0] wr_last,
  output wire                   hazard
);
  localparam AW = `GA2_ADDR_W;
  localparam RW = 2 * AW + 1;                 // a range register: {valid, first, last}

  // the in-flight ranges: dma {rd, wr}, mm {rd0 (A), rd1 (B), wr}, vec {rd0, rd1 (src2), wr}
  reg [RW-1:0] dma_rd_q, dma_rd_d, dma_wr_q, dma_wr_d;
  reg [RW-1:0] mm_rd0_q, mm_rd0_d, mm_rd1_q, mm_rd1_d, mm_wr_q, mm_wr_d;
  reg [RW-1:0] vec_rd_q, vec_rd_d, vec_rd1_q, vec_rd1_d, vec_wr_q, vec_wr_d;

  wire [RW-1:0] new_rd0 = {rd0_v, rd0_first, rd0_last};
  wire [RW-1:0] new_rd1 = {rd1_v, rd1_first, rd1_last};
  wire [RW-1:0] new_wr  = {wr_v, wr_first, wr_last};

  always @* begin
    dma_rd_d = dma_rd_q;
    dma_wr_d = dma_wr_q;
    mm_rd0_d = mm_rd0_q;
    mm_rd1_d = mm_rd1_q;
    mm_wr_d  = mm_wr_q;
    vec_rd_d  = vec_rd_q;
    vec_rd1_d = vec_rd1_q;
    vec_wr_d  = vec_wr_q;
    if (issue && unit_sel[`GA2_T_DMA]) begin
      dma_rd_d = new_rd0;
      dma_wr_d = new_wr;
    end
    if (issue && unit_sel[`GA2_T_MM]) begin
      mm_rd0_d = new_rd0;
      mm_rd1_d = new_rd1;
      mm_wr_d  = new_wr;
    end
    if (issue && unit_sel[`GA2_T_VEC]) begin
      vec_rd_d  = new_rd0;
      vec_rd1_d = new_rd1;
      vec_wr_d  = new_wr;
    end
  end

  // No reset: a unit's range registers count only while that unit is busy (the busy
  // gate below), and it is loaded at the issue that makes it busy, so no value they hold
  // before their first issue can reach `hazard` (docs/rtl.md, X policy).
  always @(posedge clk) begin
    dma_rd_q <= dma_rd_d;
    dma_wr_q <= dma_wr_d;
    mm_rd0_q <= mm_rd0_d;
    mm_rd1_q <= mm_rd1_d;
    mm_wr_q  <= mm_wr_d;
    vec_rd_q  <= vec_rd_d;
    vec_rd1_q <= vec_rd1_d;
    vec_wr_q  <= vec_wr_d;
  end

  // two valid ranges {valid, first, last} that share a word
  function meet;
    input [RW-1:0] a;
    input [RW-1:0] b;
    begin
      meet = a[RW-1] && b[RW-1] && (a[2*AW-1:AW] <= b[AW-1:0]) && (b[2*AW-1:AW] <= a[AW-1:0]);
    end
  endfunction

  // the instruction in DECODE against each busy unit's in-flight ranges, kind by kind
  // (every range an argument of meet(), so each continuous assignment follows every
  // change of its inputs in Icarus):
  //   RAW  its reads (new_rd0, new_rd1) against the unit's write
  //   WAR  its write against the unit's reads
  //   WAW  its write against the unit's write
  wire hz_dma = busy[`GA2_T_DMA] && (meet(new_rd0, dma_wr_q) || meet(new_rd1, dma_wr_q)
                         || meet(new_wr, dma_rd_q)
                         || meet(new_wr, dma_wr_q));
  wire hz_mm  = busy[`GA2_T_MM] && (meet(new_rd0, mm_wr_q) || meet(new_rd1, mm_wr_q)
                         || meet(new_wr, mm_rd0_q) || meet(new_wr, mm_rd1_q)
                         || meet(new_wr, mm_wr_q));
  wire hz_vec = busy[`GA2_T_VEC] && (meet(new_rd0, vec_wr_q) || meet(new_rd1, vec_wr_q)
                         || meet(new_wr, vec_rd_q) || meet(new_wr, vec_rd1_q)
                         || meet(new_wr, vec_wr_q));

  assign hazard = hz_dma || hz_mm || hz_vec;
endmodule
`resetall
