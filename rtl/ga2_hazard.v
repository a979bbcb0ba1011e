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
// b.first <= a.last. The decoder gives GA2_NUM_RD read slots (the most any op reads, in
// its record's order) and one write range; each timing unit u keeps one write range and
// its first KEEP(u) read slots, KEEP(u) = GA2_T_RD's bits 4u+3:4u, the most its ops read
// (both generated from the op records, model/rtl.py: today dma 1 -- ST's src, the lookup's
// index word --, mm 2 -- A, B --, vec 3 -- the per-channel requant's src, row and column
// scales), so every check is
// exact for every range. The decoding instruction's own unit is included (it stalls on
// that unit's busy anyway). External-memory ranges need no check: only the dma touches
// that memory, one transfer at a time in program order.
module ga2_hazard (
  input  wire                               clk,
  input  wire                               issue,     // the DECODE cycle that starts a unit
  input  wire [`GA2_NUM_T-1:0]              unit_sel,  // the started unit: bit GA2_T_<UNIT>
  input  wire [`GA2_NUM_T-1:0]              busy,      // the units' busy: bit GA2_T_<UNIT>
  // the instruction in DECODE (ga2_decode): its read slots and its write range
  input  wire [`GA2_NUM_RD-1:0]             rd_v,
  input  wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_first,
  input  wire [`GA2_NUM_RD*`GA2_ADDR_W-1:0] rd_last,
  input  wire                               wr_v,
  input  wire [`GA2_ADDR_W-1:0]             wr_first,
  input  wire [`GA2_ADDR_W-1:0]             wr_last,
  output wire                               hazard
);
  localparam AW = `GA2_ADDR_W;
  localparam RW = 2 * AW + 1;                 // a range: {valid, first, last}
  localparam NT = `GA2_NUM_T;
  localparam NR = `GA2_NUM_RD;
  localparam [4*NT-1:0] KEEP = `GA2_T_RD;    // the read slots each unit keeps

  // two valid ranges {valid, first, last} that share a word
  function meet;
    input [RW-1:0] a;
    input [RW-1:0] b;
    begin
      meet = a[RW-1] && b[RW-1] && (a[2*AW-1:AW] <= b[AW-1:0]) && (b[2*AW-1:AW] <= a[AW-1:0]);
    end
  endfunction

  // the instruction in DECODE: read slot k at new_rd[k*RW +: RW], its write range
  wire [NR*RW-1:0] new_rd;
  wire [RW-1:0]    new_wr = {wr_v, wr_first, wr_last};
  wire [NT-1:0]    hz;

  genvar u, k;
  generate
    for (k = 0; k < NR; k = k + 1) begin : g_new
      assign new_rd[k*RW +: RW] = {rd_v[k], rd_first[k*AW +: AW], rd_last[k*AW +: AW]};
    end

    // per unit u: its in-flight write range wr_q and read slots rd_q (slot k at
    // rd_q[k*RW +: RW]), loaded at its issue. No reset: they count only while the unit
    // is busy (the busy gate below), and they are loaded at the issue that makes it busy,
    // so no value they hold before their first issue can reach `hazard` (docs/rtl.md,
    // X policy).
    for (u = 0; u < NT; u = u + 1) begin : g_unit
      localparam NK = KEEP[4*u +: 4];
      reg  [RW-1:0]    wr_q, wr_d;
      reg  [NK*RW-1:0] rd_q, rd_d;
      wire [NR-1:0]    raw;
      wire [NK-1:0]    war;

      always @* begin
        wr_d = wr_q;
        rd_d = rd_q;
        if (issue && unit_sel[u]) begin
          wr_d = new_wr;
          rd_d = new_rd[NK*RW-1:0];
        end
      end

      always @(posedge clk) begin
        wr_q <= wr_d;
        rd_q <= rd_d;
      end

      // RAW: each read slot of the instruction in DECODE against the unit's write;
      // WAR: its write against each read slot the unit keeps
      for (k = 0; k < NR; k = k + 1) begin : g_raw
        assign raw[k] = meet(new_rd[k*RW +: RW], wr_q);
      end
      for (k = 0; k < NK; k = k + 1) begin : g_war
        assign war[k] = meet(new_wr, rd_q[k*RW +: RW]);
      end
      // the three kinds (every range an argument of meet(), so each continuous assignment
      // follows every change of its inputs in Icarus); WAW: its write against the unit's
      assign hz[u] = busy[u] && ((|raw) || (|war) || meet(new_wr, wr_q));
    end
  endgenerate

  assign hazard = |hz;
endmodule
`resetall
