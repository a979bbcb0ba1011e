`default_nettype none
// ga2_hazard_f: ga2_hazard's local invariant, for every input sequence: the instruction in
// DECODE is flagged (hazard = 1) whenever a range it reads shares a word with the range a
// busy unit writes (RAW), or the range it writes shares a word with a range a busy unit
// reads or writes (WAR, WAW); the busy unit's ranges are those of its last issue.
// The reference is this file's own copy of each unit's ranges (ref_*), loaded at each
// issue, and a free word x: "shares a word" is "x lies in both", for every x. The unit's
// registers (exposed as outputs by tb/formal/props.py: `expose` on the flattened module)
// are asserted equal to the copy once the unit has had an issue, which makes the proof
// close by induction.
// The environment the chip gives it (assumed): an issue starts exactly one unit; a
// unit is busy only after an issue of its own; a dma instruction has no second read
// range (ga2_decode: rd1_v only for MM's B and a second vector source, src2).
module ga2_hazard_f (
  input wire                   clk,
  input wire                   issue,
  input wire [2:0]             unit_sel,
  input wire [2:0]             busy,
  input wire                   rd0_v,
  input wire [`GA2_ADDR_W-1:0] rd0_first,
  input wire [`GA2_ADDR_W-1:0] rd0_last,
  input wire                   rd1_v,
  input wire [`GA2_ADDR_W-1:0] rd1_first,
  input wire [`GA2_ADDR_W-1:0] rd1_last,
  input wire                   wr_v,
  input wire [`GA2_ADDR_W-1:0] wr_first,
  input wire [`GA2_ADDR_W-1:0] wr_last,
  input wire [`GA2_ADDR_W-1:0] x
);
  localparam AW = `GA2_ADDR_W;
  localparam RW = 2 * AW + 1;
  wire hazard;
  wire [RW-1:0] dma_rd_q, dma_wr_q, mm_rd0_q, mm_rd1_q, mm_wr_q, vec_rd_q, vec_rd1_q, vec_wr_q;

  ga2_hazard dut (
    .clk(clk), .issue(issue), .unit_sel(unit_sel), .busy(busy),
    .rd0_v(rd0_v), .rd0_first(rd0_first), .rd0_last(rd0_last),
    .rd1_v(rd1_v), .rd1_first(rd1_first), .rd1_last(rd1_last),
    .wr_v(wr_v), .wr_first(wr_first), .wr_last(wr_last), .hazard(hazard),
    .dma_rd_q(dma_rd_q), .dma_wr_q(dma_wr_q), .mm_rd0_q(mm_rd0_q), .mm_rd1_q(mm_rd1_q),
    .mm_wr_q(mm_wr_q), .vec_rd_q(vec_rd_q), .vec_rd1_q(vec_rd1_q), .vec_wr_q(vec_wr_q)
  );

  wire [RW-1:0] n_rd0 = {rd0_v, rd0_first, rd0_last};
  wire [RW-1:0] n_rd1 = {rd1_v, rd1_first, rd1_last};
  wire [RW-1:0] n_wr  = {wr_v, wr_first, wr_last};

  // per unit u (0 dma, 1 mm, 2 vec): seen, and its last issue's three ranges
  reg [2:0]      seen = 3'd0;
  reg [3*RW-1:0] ref_rd0, ref_rd1, ref_wr;
  integer u;
  always @(posedge clk) begin
    for (u = 0; u < 3; u = u + 1) begin
      if (issue && unit_sel[u]) begin
        seen[u] <= 1'b1;
        ref_rd0[u*RW +: RW] <= n_rd0;
        ref_rd1[u*RW +: RW] <= n_rd1;
        ref_wr[u*RW +: RW]  <= n_wr;
      end
    end
  end

  // x lies in the valid range r
  function has;
    input [RW-1:0] r;
    input [AW-1:0] w;
    begin
      has = r[RW-1] && (r[2*AW-1:AW] <= w) && (w <= r[AW-1:0]);
    end
  endfunction

  reg [2:0] conflict;
  always @* begin
    for (u = 0; u < 3; u = u + 1) begin
      conflict[u] = busy[u] && (
          ((has(n_rd0, x) || has(n_rd1, x)) && has(ref_wr[u*RW +: RW], x))                 // RAW
       || (has(n_wr, x) && (has(ref_rd0[u*RW +: RW], x) || has(ref_rd1[u*RW +: RW], x)))   // WAR
       || (has(n_wr, x) && has(ref_wr[u*RW +: RW], x)));                                  // WAW
    end
  end

  always @* begin
    // the environment
    assume (!issue || unit_sel == 3'b001 || unit_sel == 3'b010 || unit_sel == 3'b100);
    assume ((busy & ~seen) == 3'd0);
    assume (!(issue && unit_sel[`GA2_T_DMA] && rd1_v));
    // the dma keeps one read range; its second one (never valid) is not compared
    if (seen[`GA2_T_DMA]) assert (ref_rd1[RW-1] == 1'b0);
    // the invariant
    if (conflict != 3'd0) assert (hazard);
    // the registers hold the last issue's ranges (what makes induction close)
    if (seen[0]) assert (dma_rd_q == ref_rd0[0 +: RW] && dma_wr_q == ref_wr[0 +: RW]);
    if (seen[1]) assert (mm_rd0_q == ref_rd0[RW +: RW] && mm_rd1_q == ref_rd1[RW +: RW]
                         && mm_wr_q == ref_wr[RW +: RW]);
    if (seen[2]) assert (vec_rd_q == ref_rd0[2*RW +: RW] && vec_rd1_q == ref_rd1[2*RW +: RW]
                         && vec_wr_q == ref_wr[2*RW +: RW]);
  end
endmodule
