`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_perf: the five 32-bit performance counters of docs/isa.md's host interface.
// cycles counts the cycles with running high (FETCH, DECODE, EXEC), mm / dma / vec the
// cycles with the matching bit of the unit-busy vector high (busy = {vec, dma, mm};
// vec is RQ or SM), instret the retires (the number of set bits of the retire slots:
// units can complete in the same cycle in the overlap mode). clear (the sequencer accepting a start)
// zeroes all five and wins over counting. retire_cycle = cycles including the current
// cycle (the value in a retire cycle, docs/isa.md).
module ga2_perf (
  input  wire        clk,
  input  wire        rst,
  input  wire        clear,
  input  wire        running,
  input  wire [2:0]  busy,           // {vec, dma, mm}
  input  wire [3:0]  retire,         // slots {HALT, vec, mm, dma}
  output wire [31:0] cnt_cycles,
  output wire [31:0] cnt_mm,
  output wire [31:0] cnt_dma,
  output wire [31:0] cnt_vec,
  output wire [31:0] cnt_instret,
  output wire [31:0] retire_cycle
);
  reg [31:0] cyc_q, cyc_d, mm_q, mm_d, dma_q, dma_d, vec_q, vec_d, ret_q, ret_d;

  always @* begin
    cyc_d = running ? cyc_q + 32'd1 : cyc_q;
    mm_d  = busy[0] ? mm_q + 32'd1 : mm_q;
    dma_d = busy[1] ? dma_q + 32'd1 : dma_q;
    vec_d = busy[2] ? vec_q + 32'd1 : vec_q;
    ret_d = ret_q + {31'd0, retire[0]} + {31'd0, retire[1]} + {31'd0, retire[2]} +
            {31'd0, retire[3]};
    if (clear) begin
      cyc_d = 32'd0;
      mm_d  = 32'd0;
      dma_d = 32'd0;
      vec_d = 32'd0;
      ret_d = 32'd0;
    end
  end

  always @(posedge clk) begin
    if (rst) begin
      cyc_q <= 32'd0;
      mm_q  <= 32'd0;
      dma_q <= 32'd0;
      vec_q <= 32'd0;
      ret_q <= 32'd0;
    end else begin
      cyc_q <= cyc_d;
      mm_q  <= mm_d;
      dma_q <= dma_d;
      vec_q <= vec_d;
      ret_q <= ret_d;
    end
  end

  assign cnt_cycles   = cyc_q;
  assign cnt_mm       = mm_q;
  assign cnt_dma      = dma_q;
  assign cnt_vec      = vec_q;
  assign cnt_instret  = ret_q;
  assign retire_cycle = cyc_q + 32'd1;
endmodule
`resetall
