`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_perf: the five performance counters of docs/isa.md's host interface (CW = 32 bits
// on the chip; the unit benches also build it narrow, so every counter bit wraps in a test).
// cycles counts the cycles with running high (FETCH, DECODE, EXEC), mm / dma / vec the
// cycles with the matching bit of the unit-busy vector high (busy = {vec, dma, mm};
// vec is RQ or SM), instret the retires (the number of set bits of the retire slots:
// units can complete in the same cycle in the overlap mode). clear (the sequencer accepting a start)
// zeroes all five and wins over counting. retire_cycle = cycles including the current
// cycle (the value in a retire cycle, docs/isa.md).
module ga2_perf #(
  parameter CW = 32                  // counter width
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        clear,
  input  wire        running,
  input  wire [2:0]  busy,           // {vec, dma, mm}
  input  wire [3:0]  retire,         // slots {HALT, vec, mm, dma}
  output wire [CW-1:0] cnt_cycles,
  output wire [CW-1:0] cnt_mm,
  output wire [CW-1:0] cnt_dma,
  output wire [CW-1:0] cnt_vec,
  output wire [CW-1:0] cnt_instret,
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

  reg [CW-1:0] cyc_q, cyc_d, mm_q, mm_d, dma_q, dma_d, vec_q, vec_d, ret_q, ret_d;

  always @* begin
    cyc_d = running ? cyc_q + ONE : cyc_q;
    mm_d  = busy[0] ? mm_q + ONE : mm_q;
    dma_d = busy[1] ? dma_q + ONE : dma_q;
    vec_d = busy[2] ? vec_q + ONE : vec_q;
    ret_d = ret_q + {{(CW-1){1'b0}}, retire[0]} + {{(CW-1){1'b0}}, retire[1]} +
            {{(CW-1){1'b0}}, retire[2]} + {{(CW-1){1'b0}}, retire[3]};
    if (clear) begin
      cyc_d = ZERO;
      mm_d  = ZERO;
      dma_d = ZERO;
      vec_d = ZERO;
      ret_d = ZERO;
    end
  end

  always @(posedge clk) begin
    if (rst) begin
      cyc_q <= ZERO;
      mm_q  <= ZERO;
      dma_q <= ZERO;
      vec_q <= ZERO;
      ret_q <= ZERO;
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
  assign retire_cycle = cyc_q + ONE;
endmodule
`resetall
