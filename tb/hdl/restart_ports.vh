// restart_ports.vh: the ports every unit pair of the restart check has (restart_dma,
// restart_mm, restart_divu; restart_chk.v connects them): RESTART_PAIR_IN first in the
// port list, its comma included: the check's gated clock, the reset, A's start (the first
// job and the restart) and B's (the restart only); RESTART_PAIR_OUT last: A's busy (the
// restart cycle's check), B's busy and last (the comparison's end), mis (mis[s]: signal s
// of A differs from B's this cycle) and the two units' outputs for the VERBOSE message.
`ifndef RESTART_PORTS_VH
`define RESTART_PORTS_VH
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`define RESTART_PAIR_IN \
  input  wire         clk, \
  input  wire         rst, \
  input  wire         st_a, \
  input  wire         st_b,
`define RESTART_PAIR_OUT \
  output wire         busy_a, \
  output wire         busy_b, \
  output wire         last_b, \
  output reg  [15:0]  mis, \
  output wire [127:0] obs_a, \
  output wire [127:0] obs_b
`endif
