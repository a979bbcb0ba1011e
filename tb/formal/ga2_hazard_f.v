`default_nettype none
// ga2_hazard_f: ga2_hazard's local invariant, for every input sequence: the instruction in
// DECODE is flagged (hazard = 1) whenever a range it reads (any of its GA2_NUM_RD read
// slots) shares a word with the range a busy unit writes (RAW), or the range it writes
// shares a word with a range a busy unit reads or writes (WAR, WAW); the busy unit's
// ranges are those of its last issue.
// The reference is this file's own copy of each unit's ranges (ref_*: every read slot
// and the write), loaded at each issue, and a free word x: "shares a word" is "x lies in
// both", for every x. The unit's registers (g_unit[u].rd_q: its first KEEP(u) read
// slots, g_unit[u].wr_q; exposed as outputs by tb/formal/props.py: `expose` on the
// module) are asserted equal to the copy once the unit has had an issue, which makes the
// proof close by induction.
// The environment the chip gives it (assumed): an issue starts exactly one unit; a
// unit is busy only after an issue of its own; an instruction of unit u has no valid read
// slot at or past KEEP(u) (GA2_T_RD: the most its ops read, model/rtl.py; ga2_decode
// fills the slots in each record's order, checked against the records by
// tests/tb/test_decode_cosim.py).
module ga2_hazard_f (
  input wire                               clk,
  input wire                               issue,
  input wire [2:0]                         unit_sel,
  input wire [2:0]                         busy,
  input wire [`GA2_NUM_RD-1:0]             rd_v,
  input wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_first,
  input wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_last,
  input wire                               wr_v,
  input wire [`GA2_ADDR_W-1:0]             wr_first,
  input wire [`GA2_ADDR_W-1:0]             wr_last,
  input wire [`GA2_ADDR_W-1:0]             x
);
  localparam AW = `GA2_ADDR_W;
  localparam RW = 2 * AW + 1;
  localparam NR = `GA2_NUM_RD;
  localparam [11:0] KEEP = `GA2_T_RD;
  localparam K0 = KEEP[3:0], K1 = KEEP[7:4], K2 = KEEP[11:8];
  wire hazard;
  wire [RW-1:0]    wr0_q, wr1_q, wr2_q;
  wire [K0*RW-1:0] rd0_q;
  wire [K1*RW-1:0] rd1_q;
  wire [K2*RW-1:0] rd2_q;

  ga2_hazard dut (
    .clk(clk), .issue(issue), .unit_sel(unit_sel), .busy(busy),
    .rd_v(rd_v), .rd_first(rd_first), .rd_last(rd_last),
    .wr_v(wr_v), .wr_first(wr_first), .wr_last(wr_last), .hazard(hazard),
    .\g_unit[0].wr_q (wr0_q), .\g_unit[0].rd_q (rd0_q),
    .\g_unit[1].wr_q (wr1_q), .\g_unit[1].rd_q (rd1_q),
    .\g_unit[2].wr_q (wr2_q), .\g_unit[2].rd_q (rd2_q)
  );

  // the instruction in DECODE: read slot k at n_rd[k*RW +: RW], its write range
  reg  [NR*RW-1:0] n_rd;
  wire [RW-1:0]    n_wr = {wr_v, wr_first, wr_last};
  integer k;
  always @* begin
    for (k = 0; k < NR; k = k + 1)
      n_rd[k*RW +: RW] = {rd_v[k], rd_first[k*AW +: AW], rd_last[k*AW +: AW]};
  end

  // per unit u (0 dma, 1 mm, 2 vec): seen, and its last issue's ranges
  reg [2:0]         seen = 3'd0;
  reg [3*NR*RW-1:0] ref_rd;
  reg [3*RW-1:0]    ref_wr;
  integer u;
  always @(posedge clk) begin
    for (u = 0; u < 3; u = u + 1) begin
      if (issue && unit_sel[u]) begin
        seen[u] <= 1'b1;
        ref_rd[u*NR*RW +: NR*RW] <= n_rd;
        ref_wr[u*RW +: RW]       <= n_wr;
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
  reg       n_has_rd, b_has_rd;
  always @* begin
    for (u = 0; u < 3; u = u + 1) begin
      n_has_rd = 1'b0;
      b_has_rd = 1'b0;
      for (k = 0; k < NR; k = k + 1) begin
        n_has_rd = n_has_rd || has(n_rd[k*RW +: RW], x);
        b_has_rd = b_has_rd || has(ref_rd[(u*NR + k)*RW +: RW], x);
      end
      conflict[u] = busy[u] && (
          (n_has_rd && has(ref_wr[u*RW +: RW], x))                     // RAW
       || (has(n_wr, x) && b_has_rd)                                    // WAR
       || (has(n_wr, x) && has(ref_wr[u*RW +: RW], x)));               // WAW
    end
  end

  // the read slots an instruction of each unit may have valid: its first KEEP(u)
  wire [NR-1:0] may0 = ~({NR{1'b1}} << K0);
  wire [NR-1:0] may1 = ~({NR{1'b1}} << K1);
  wire [NR-1:0] may2 = ~({NR{1'b1}} << K2);

  always @* begin
    // the environment
    assume (!issue || unit_sel == 3'b001 || unit_sel == 3'b010 || unit_sel == 3'b100);
    assume ((busy & ~seen) == 3'd0);
    assume (!(issue && unit_sel[0]) || (rd_v & ~may0) == {NR{1'b0}});
    assume (!(issue && unit_sel[1]) || (rd_v & ~may1) == {NR{1'b0}});
    assume (!(issue && unit_sel[2]) || (rd_v & ~may2) == {NR{1'b0}});
    // the invariant
    if (conflict != 3'd0) assert (hazard);
    // the registers hold the last issue's ranges (what makes induction close): the slots
    // a unit keeps equal the copy's, the copy's other slots are not valid
    if (seen[0]) assert (wr0_q == ref_wr[0 +: RW] && rd0_q == ref_rd[0 +: K0*RW]);
    if (seen[1]) assert (wr1_q == ref_wr[RW +: RW] && rd1_q == ref_rd[NR*RW +: K1*RW]);
    if (seen[2]) assert (wr2_q == ref_wr[2*RW +: RW] && rd2_q == ref_rd[2*NR*RW +: K2*RW]);
    for (k = 0; k < NR; k = k + 1) begin
      if (seen[0] && !may0[k]) assert (!ref_rd[k*RW + RW - 1]);
      if (seen[1] && !may1[k]) assert (!ref_rd[(NR + k)*RW + RW - 1]);
      if (seen[2] && !may2[k]) assert (!ref_rd[(2*NR + k)*RW + RW - 1]);
    end
  end
endmodule
