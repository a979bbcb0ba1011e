`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_seq: the GA-2 sequencer (docs/isa.md "Timing modes"), in-order issue in both modes:
//   OVERLAP = 0 (in-order): WAIT (idle, or halted: done) --start--> FETCH (imem read at pc) -> DECODE
//     (checks; issue to the unit) -> EXEC (exactly the unit's busy cycles) -> FETCH ...
//   OVERLAP = 1 (overlap): FETCH -> DECODE, which repeats while the instruction's unit is
//     busy or it has a scratchpad hazard with a busy unit (ga2_hazard); the cycle after
//     the issue is the next FETCH (pc + 1): one instruction in flight per unit.
// HALT, a fault (fault_code from ga2_decode, checked in DECODE; code 5 when FETCH finds
// pc == IMEM_DEPTH) wait in their state until no unit is busy (at once in the in-order
// mode, where none is), then halt: HALT retires in that cycle; a fault writes nothing, is
// not retired and sets error / code / pc.
// Error 6 (a lookup's row index not below rows) is found in EXEC, from data: ga2_dma raises
// idx_err in that lookup's last busy cycle; the sequencer keeps the first one of the run
// (idx_q, and its pc, the dma slot's, in ipc_q) and the program runs on with unchanged
// timing; at the halt (HALT, a DECODE fault or code 5) error / code / pc report it,
// ahead of a later fault's code and pc (model/machine.py; docs/isa.md "Faults").
// retire per slot: GA2_T_DMA, GA2_T_MM, GA2_T_VEC (each unit's last busy cycle:
// unit_last), GA2_SLOT_HALT; retire_pc slot i at [PW*i +: PW] (PW = GA2_PC_W, 21 bits):
// the pc of the unit's in-flight instruction (in-order: pc, which holds while EXEC runs),
// the HALT slot pc.
// done = done_q (set by a halt or fault, cleared by a start). clear is high in the cycle a start is accepted (the counters
// restart), running in FETCH, DECODE and EXEC (the cycles cnt_cycles counts).
module ga2_seq #(
  parameter IMEM_DEPTH = 1024,
  parameter OVERLAP    = 0,
  parameter NT         = `GA2_NUM_T      // the timing contract's units
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        start,
  input  wire [2:0]  fault_code,     // ga2_decode's, valid in DECODE
  input  wire        is_halt,
  input  wire [NT-1:0] unit_sel,     // the decoded instruction's unit (bit GA2_T_<UNIT>)
  input  wire [NT-1:0] unit_busy,    // bit GA2_T_<UNIT>: that unit is busy
  input  wire [NT-1:0] unit_last,    // each unit's last busy cycle (bit GA2_T_<UNIT>)
  input  wire        hazard,         // ga2_hazard (overlap mode; 0 in the in-order mode)
  input  wire        idx_err,        // ga2_dma: a lookup's row index was not below rows
  output wire        done,
  output wire        error,
  output wire [2:0]  error_code,
  output wire [`GA2_PC_W-1:0] error_pc,
  output wire [`GA2_PC_W-1:0] pc,
  output wire        imem_en,
  output wire        issue,          // DECODE of a unit instruction without fault: start it
  output wire [NT:0] retire,         // a bit per retire slot (GA2_T_<UNIT>, GA2_SLOT_HALT)
  output wire [`GA2_PC_W*(NT+1)-1:0] retire_pc,
  output wire        running,
  output reg         clear
);
  initial begin
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > (1 << `GA2_PC_W) - 1) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..%0d (pc is %0d bits)", IMEM_DEPTH,
             (1 << `GA2_PC_W) - 1, `GA2_PC_W);
      $finish;
    end
    if (OVERLAP != 0 && OVERLAP != 1) begin
      $error("%m: OVERLAP=%0d must be 0 (in-order) or 1 (overlap)", OVERLAP);
      $finish;
    end
  end

  // Four states in two bits, every code reachable: S_WAIT is idle before the first start
  // and halted after a run (done_q tells them apart), so no compare on state_q has an
  // unreachable code to hide in. The codes pair WAIT with FETCH and DECODE with EXEC in
  // their low bit, so a compare that loses the top bit confuses two states that act
  // differently (an instruction read while idle, a second issue in EXEC).
  localparam [1:0] S_WAIT = 2'd0, S_DECODE = 2'd1, S_FETCH = 2'd2, S_EXEC = 2'd3;
  // pc reaches IMEM_DEPTH (the pc check's value): exactly as wide as that (docs/rtl.md
  // "Register widths"); the pc outputs are GA2_PC_W bits, zero-extended (pcx)
  localparam PCW = $clog2(IMEM_DEPTH + 1);
  localparam PW  = `GA2_PC_W;

  reg [1:0]     state_q, state_d;
  reg           done_q, done_d;
  reg [PCW-1:0] pc_q, pc_d;
  reg           err_q, err_d;
  reg [2:0]     code_q, code_d;
  reg [PW-1:0]  epc_q, epc_d;
  reg           idx_q, idx_d;      // a lookup of this run raised error 6
  reg [PW-1:0]  ipc_q, ipc_d;      // the dma slot's pc, held from the first error 6 on

  /* verilator lint_off WIDTH */
  // zero extension of pc_q to the GA2_PC_W-bit outputs
  wire [PW-1:0] pcx = pc_q;
  /* verilator lint_on WIDTH */

  wire in_decode = (state_q == S_DECODE);
  wire pc_end    = ({{(32-PCW){1'b0}}, pc_q} == IMEM_DEPTH);
  // overlap mode: a unit still busy (HALT and faults wait), the decoded instruction stalls
  wire any_busy  = (OVERLAP != 0) && (unit_busy != {NT{1'b0}});
  wire stall     = (OVERLAP != 0) && (((unit_sel & unit_busy) != {NT{1'b0}}) || hazard);
  wire fault     = (fault_code != 3'd0);
  // DECODE's three outcomes, exclusive by their conditions (the decoder never faults a
  // HALT, and go excludes both): a fault, a HALT, an issue
  wire go        = in_decode && !fault && !is_halt && !stall;
  wire [PW-1:0] dma_pc;            // the pc of the dma's instruction (retire slot 0)

  always @* begin
    state_d = state_q;
    done_d  = done_q;
    pc_d    = pc_q;
    err_d   = err_q;
    code_d  = code_q;
    epc_d   = epc_q;
    idx_d   = idx_q || idx_err;
    ipc_d   = idx_q ? ipc_q : dma_pc;
    clear   = 1'b0;
    case (state_q)
      S_WAIT: begin
        if (start) begin
          state_d = S_FETCH;
          done_d  = 1'b0;
          pc_d    = {PCW{1'b0}};
          clear   = 1'b1;
          err_d   = 1'b0;
          code_d  = 3'd0;
          epc_d   = {PW{1'b0}};
          idx_d   = 1'b0;
        end
      end
      S_FETCH: begin
        if (!pc_end) begin
          state_d = S_DECODE;
        end else if (!any_busy) begin
          state_d = S_WAIT;
          done_d  = 1'b1;
          err_d   = 1'b1;
          code_d  = idx_q ? `GA2_ERR_INDEX : `GA2_ERR_PC;
          epc_d   = idx_q ? ipc_q : pcx;
        end
      end
      S_DECODE: begin
        if (fault && !any_busy) begin
          state_d = S_WAIT;
          done_d  = 1'b1;
          err_d   = 1'b1;
          code_d  = idx_q ? `GA2_ERR_INDEX : fault_code;
          epc_d   = idx_q ? ipc_q : pcx;
        end
        if (is_halt && !any_busy) begin
          state_d = S_WAIT;
          done_d  = 1'b1;
          if (idx_q) begin
            err_d  = 1'b1;
            code_d = `GA2_ERR_INDEX;
            epc_d  = ipc_q;
          end
        end
        if (go) begin
          pc_d    = (OVERLAP != 0) ? pc_q + 1'b1 : pc_q;
          state_d = (OVERLAP != 0) ? S_FETCH : S_EXEC;
        end
      end
      default: begin                               // S_EXEC
        if (unit_last != {NT{1'b0}}) begin
          state_d = S_FETCH;
          pc_d    = pc_q + 1'b1;
        end
      end
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      state_q <= S_WAIT;
      done_q  <= 1'b0;
      pc_q    <= {PCW{1'b0}};
      err_q   <= 1'b0;
      code_q  <= 3'd0;
      epc_q   <= {PW{1'b0}};
    end else begin
      state_q <= state_d;
      done_q  <= done_d;
      pc_q    <= pc_d;
      err_q   <= err_d;
      code_q  <= code_d;
      epc_q   <= epc_d;
    end
  end

  // no reset (docs/rtl.md "Reset and X policy"): a start clears idx_q, and ipc_q follows
  // the dma slot's pc while idx_q is 0; both are read only at a halt, which only a run
  // reaches, so what they hold before the first start (or after a reset in a run) never
  // shows
  always @(posedge clk) begin
    idx_q <= idx_d;
    ipc_q <= ipc_d;
  end

  // ------------------------------------------------------------------ retire pcs
  generate
    if (OVERLAP != 0) begin : g_upc
      // each unit keeps the pc of its in-flight instruction, latched at its issue
      reg [PW*NT-1:0] upc_q, upc_d;
      integer u;
      always @* begin
        upc_d = upc_q;
        for (u = 0; u < NT; u = u + 1) begin
          if (go && unit_sel[u]) upc_d[PW*u +: PW] = pcx;
        end
      end
      always @(posedge clk) begin
        if (rst) upc_q <= {PW*NT{1'b0}};
        else upc_q <= upc_d;
      end
      assign retire_pc = {pcx, upc_q};
      assign dma_pc    = upc_q[PW*`GA2_T_DMA +: PW];
    end else begin : g_pc
      // one instruction at a time: pc holds during its EXEC
      assign retire_pc = {(NT+1){pcx}};
      assign dma_pc    = pcx;
    end
  endgenerate

  assign done       = done_q;
  assign error      = err_q;
  assign error_code = code_q;
  assign error_pc   = epc_q;
  assign pc         = pcx;
  assign imem_en    = (state_q == S_FETCH) && !pc_end;
  assign issue      = go;
  assign retire     = {in_decode && is_halt && !any_busy, unit_last};
  assign running    = (state_q != S_WAIT);
endmodule
`resetall
