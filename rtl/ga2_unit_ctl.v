`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_unit_ctl: the busy / last handshake of the single-pass vector units (ga2_vec_rq,
// ga2_vec_add, ga2_argmax, ga2_pack4, ga2_rqc, ga2_swiglu, ga2_rope), one piece of
// hardware instantiated in each of them.
// A start (ga2_top: issue && the unit's select) makes the unit busy from the next cycle;
// it stays busy until its last cycle, last = busy && done (done: the unit's own end
// condition, looked at only while busy), and is idle from the cycle after. A start while
// busy restarts the job (docs/rtl.md "Start while busy"): busy stays high and the unit
// reloads its datapath. Control register, reset synchronously (docs/rtl.md "Reset and X
// policy"); the unit's datapath registers are loaded by start and gated by busy.
module ga2_unit_ctl (
  input  wire clk,
  input  wire rst,
  input  wire start,
  input  wire done,      // the unit's end condition (its at_end): used only while busy
  output wire busy,
  output wire last
);
  reg busy_q;

  // control: reset
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
    end else if (start) begin
      busy_q <= 1'b1;
    end else if (last) begin
      busy_q <= 1'b0;
    end
  end

  assign busy = busy_q;
  assign last = busy_q && done;
endmodule
`resetall
