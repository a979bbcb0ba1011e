`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_seq_f: the sequencer's side of the overlap mode's scratchpad safety, for every input
// sequence (start, reset, the decoder's verdict, the units' busy and last, ga2_hazard's
// flag all free in every cycle): it issues (starts a unit) only when ga2_hazard's flag is
// low and the decoded instruction's unit is idle. With the link checks (each unit touches
// only the ranges ga2_hazard latched at its issue, only while busy) and ga2_hazard's
// invariant (a conflicting range of a busy unit always raises the flag), two units in
// flight never touch one word with one of them writing; ga2_top feeds ga2_hazard and the
// sequencer the same unit busy vector ({vec, mm, dma}, vec the OR of its six units).
// Also: an issue happens only for a unit instruction without a fault (never with a HALT
// or a fault code), and only inside a run (running, done low). The first cycle is a reset.
module ga2_seq_f #(
  parameter IMEM_DEPTH = 16
) (
  input wire       clk,
  input wire       rst,
  input wire       start,
  input wire [2:0] fault_code,
  input wire       is_halt,
  input wire [2:0] unit_sel,
  input wire [2:0] unit_busy,
  input wire [2:0] unit_last,
  input wire       hazard,
  input wire       idx_err
);
  wire        done, error, imem_en, issue, running, clear;
  wire [2:0]  error_code;
  wire [`GA2_PC_W-1:0]   error_pc, pc;
  wire [3:0]             retire;
  wire [4*`GA2_PC_W-1:0] retire_pc;

  ga2_seq #(.IMEM_DEPTH(IMEM_DEPTH), .OVERLAP(1)) dut (
    .clk(clk), .rst(rst), .start(start), .fault_code(fault_code), .is_halt(is_halt),
    .unit_sel(unit_sel), .unit_busy(unit_busy), .unit_last(unit_last), .hazard(hazard),
    .idx_err(idx_err), .done(done), .error(error), .error_code(error_code),
    .error_pc(error_pc), .pc(pc), .imem_en(imem_en), .issue(issue), .retire(retire),
    .retire_pc(retire_pc), .running(running), .clear(clear)
  );

  // the first cycle is a reset (the chip's power-up, tb/formal/ga2_top_f.v's too)
  reg init_q = 1'b1;
  always @(posedge clk) init_q <= 1'b0;
  always @* begin
    if (init_q) assume (rst);
    // the lemma that closes the induction: done (a halt or fault) only in the wait state
    if (!init_q) assert (!(done && running));
    if (issue) begin
      assert (!hazard);                          // no scratchpad conflict with a busy unit
      assert ((unit_sel & unit_busy) == 3'd0);   // the unit it starts is idle
      assert (fault_code == 3'd0 && !is_halt);   // a unit instruction, without a fault
      if (!init_q) assert (running && !done);    // inside a run (from the reset on)
    end
  end
endmodule
`resetall
