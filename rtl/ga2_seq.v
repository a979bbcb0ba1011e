`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_seq: the GA-2 sequencer (one instruction at a time, docs/isa.md timing contract):
//   IDLE / HALTED --start--> FETCH (imem read at pc) -> DECODE (checks; issue to the unit)
//   -> EXEC (exactly the unit's busy cycles; retire in its last) -> FETCH ...
// HALT retires in DECODE; a fault (fault_code from ga2_decode, checked in DECODE; code 5
// when FETCH finds pc == IMEM_DEPTH) writes nothing, is not retired and halts.
// done = state HALTED. clear is high in the cycle a start is accepted (the counters
// restart), running in FETCH, DECODE and EXEC (the cycles cnt_cycles counts).
module ga2_seq #(
  parameter IMEM_DEPTH = 1024
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        start,
  input  wire [2:0]  fault_code,     // ga2_decode's, valid in DECODE
  input  wire        is_halt,
  input  wire        unit_last,      // the running unit's last busy cycle
  output wire        done,
  output wire        error,
  output wire [2:0]  error_code,
  output wire [15:0] error_pc,
  output wire [15:0] pc,
  output wire        imem_en,
  output wire        issue,          // DECODE of a unit instruction without fault: start it
  output wire        retire,
  output wire        running,
  output reg         clear
);
  initial begin
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > 65535) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..65535 (pc is 16 bits)", IMEM_DEPTH);
      $finish;
    end
  end

  localparam [2:0] S_IDLE = 3'd0, S_FETCH = 3'd1, S_DECODE = 3'd2, S_EXEC = 3'd3, S_HALTED = 3'd4;

  reg [2:0]  state_q, state_d;
  reg [15:0] pc_q, pc_d;
  reg        err_q, err_d;
  reg [2:0]  code_q, code_d;
  reg [15:0] epc_q, epc_d;

  wire in_decode = (state_q == S_DECODE);
  wire pc_end    = ({16'd0, pc_q} == IMEM_DEPTH);

  always @* begin
    state_d = state_q;
    pc_d    = pc_q;
    err_d   = err_q;
    code_d  = code_q;
    epc_d   = epc_q;
    clear   = 1'b0;
    case (state_q)
      S_IDLE, S_HALTED: begin
        if (start) begin
          state_d = S_FETCH;
          pc_d    = 16'd0;
          clear   = 1'b1;
          err_d   = 1'b0;
          code_d  = 3'd0;
          epc_d   = 16'd0;
        end
      end
      S_FETCH: begin
        if (pc_end) begin
          state_d = S_HALTED;
          err_d   = 1'b1;
          code_d  = `GA2_ERR_PC;
          epc_d   = pc_q;
        end else begin
          state_d = S_DECODE;
        end
      end
      S_DECODE: begin
        if (fault_code != 3'd0) begin
          state_d = S_HALTED;
          err_d   = 1'b1;
          code_d  = fault_code;
          epc_d   = pc_q;
        end else if (is_halt) begin
          state_d = S_HALTED;
        end else begin
          state_d = S_EXEC;
        end
      end
      S_EXEC: begin
        if (unit_last) begin
          state_d = S_FETCH;
          pc_d    = pc_q + 16'd1;
        end
      end
      default: state_d = S_IDLE;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      state_q <= S_IDLE;
      pc_q    <= 16'd0;
      err_q   <= 1'b0;
      code_q  <= 3'd0;
      epc_q   <= 16'd0;
    end else begin
      state_q <= state_d;
      pc_q    <= pc_d;
      err_q   <= err_d;
      code_q  <= code_d;
      epc_q   <= epc_d;
    end
  end

  assign done       = (state_q == S_HALTED);
  assign error      = err_q;
  assign error_code = code_q;
  assign error_pc   = epc_q;
  assign pc         = pc_q;
  assign imem_en    = (state_q == S_FETCH) && !pc_end;
  assign issue      = in_decode && (fault_code == 3'd0) && !is_halt;
  assign retire     = (in_decode && is_halt) || ((state_q == S_EXEC) && unit_last);
  assign running    = (state_q == S_FETCH) || (state_q == S_DECODE) || (state_q == S_EXEC);
endmodule
`resetall
