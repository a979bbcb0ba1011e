`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_sram: the GA-2 scratchpad, WORDS x DW bits, NUM_RD synchronous read ports (one cycle
// of latency, each with an enable that holds its output) and NUM_WR write ports.
// WRITE-FIRST: a read of an address written in the same cycle returns the new data,
// which gives the requant (ga2_vec_rq) its element-by-element semantics when dst overlaps src (docs/isa.md).
// Write ports are numbered: when two write the same word in one cycle the higher-numbered
// port wins (in the array and in the forwarded read data). The chip never does that
// (ga2_sp_xbar stops a simulation that tries), so the order is only a definition.
// The array powers up zero (initial block); start does not clear it.
// Written so that yosys keeps it as one $mem cell (a real chip would bank it: the
// matrix unit alone needs 8 read ports, 4 rows of A and 4 columns of B).
// WORDS and AW default small: every instance sets them (ga2_top: SP_WORDS), and yosys
// elaborates each module at its defaults when it reads it (zeroing 4,096 words there cost
// every yosys run of the RTL 4 s).
module ga2_sram #(
  parameter WORDS  = 16,
  parameter AW     = 4,
  parameter DW     = 32,
  parameter NUM_RD = 8,
  parameter NUM_WR = 1
) (
  input  wire                 clk,
  input  wire [NUM_RD-1:0]    rd_en,
  input  wire [NUM_RD*AW-1:0] rd_addr,
  output wire [NUM_RD*DW-1:0] rd_data,
  input  wire [NUM_WR-1:0]    wr_en,
  input  wire [NUM_WR*AW-1:0] wr_addr,
  input  wire [NUM_WR*DW-1:0] wr_data
);
  reg [DW-1:0] mem [0:WORDS-1];

  integer w;
  initial begin
    if (WORDS < 2 || AW < 1 || AW > 16 || (1 << AW) < WORDS || (1 << (AW - 1)) >= WORDS) begin
      $error("ga2_sram: WORDS=%0d needs AW=ceil(log2(WORDS)), got AW=%0d", WORDS, AW);
      $finish;
    end
    if (DW < 1 || NUM_RD < 1 || NUM_WR < 1) begin
      $error("ga2_sram: DW=%0d, NUM_RD=%0d and NUM_WR=%0d must be >= 1", DW, NUM_RD, NUM_WR);
      $finish;
    end
`ifndef GA2_NO_MEM_INIT
    // Power-up zero. tools/flow/synth.ys defines GA2_NO_MEM_INIT: the init contents change
    // no cell or flip-flop count, and unrolling this loop costs yosys ~30 s.
    for (w = 0; w < WORDS; w = w + 1) mem[w] = {DW{1'b0}};
`endif
  end

  // the write ports in order: a later port's write to the same word wins
  integer q;
  always @(posedge clk) begin
    for (q = 0; q < NUM_WR; q = q + 1) begin
      if (wr_en[q]) mem[wr_addr[q*AW +: AW]] <= wr_data[q*DW +: DW];
    end
  end

  genvar p;
  generate
    for (p = 0; p < NUM_RD; p = p + 1) begin : g_rd
      wire [AW-1:0] ra = rd_addr[p*AW +: AW];
      reg  [DW-1:0] dout_q;
      integer       k;
      initial dout_q = {DW{1'b0}};
      // the read data: the array's word, or the write to it in the same cycle (write port
      // 0, then each later port overriding): the form yosys merges into the $mem cell's
      // transparent read port. ga2_top's port 0 is the vector unit's: the bypass the requant's
      // element-by-element semantics need (docs/isa.md)
      always @(posedge clk) begin
        if (rd_en[p]) begin
          dout_q <= (wr_en[0] && wr_addr[0 +: AW] == ra) ? wr_data[0 +: DW] : mem[ra];
          for (k = 1; k < NUM_WR; k = k + 1) begin
            if (wr_en[k] && wr_addr[k*AW +: AW] == ra) dout_q <= wr_data[k*DW +: DW];
          end
        end
      end
      assign rd_data[p*DW +: DW] = dout_q;
    end
  endgenerate
endmodule
`resetall
