`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_pack4: the 4-bit KV cache's two ops on one streaming block (docs/isa.md):
//   PACK4   (unpack = 0): sp[dst+i] = (sat4(x_2i) & 15) | (sat4(x_2i+1) & 15) << 4, the
//           upper 24 bits zero, x_j = s8(sp[src+j]), sat4: saturate to -8..7;
//   UNPACK4 (unpack = 1): sp[dst+2i] = sx4(sp[src+i][3:0]), sp[dst+2i+1] = sx4(sp[src+i][7:4]),
//           sign-extended to 32 bits (as ga2_vec_rq / ga2_vec_add write int8 results).
// Both are busy exactly 2*len + 1 cycles on the one vector read port, in two phases a
// cycle (ph_q 0, 1), as ga2_vec_add:
//   PACK4   reads x_2i in busy cycle 2i (phase 0) and x_2i+1 in 2i + 1 (phase 1), writes
//           word i in 2i + 2 (phase 0, the cycle x_2i+2 is read): one read per cycle;
//   UNPACK4 reads x_i in busy cycle 2i (phase 0), writes word 2i in 2i + 1 (phase 1, from
//           the read data) and word 2i + 1 in 2i + 2 (phase 0, from the data held a cycle):
//           one write per cycle.
// With the write-first scratchpad, overlapping dst and src behave as if processed pair by
// pair (PACK4) or element by element (UNPACK4) in increasing order (model/func.py).
// cnt_q counts output words of PACK4 / input words of UNPACK4 and steps after phase 1, so
// the job ends at cnt_q == len in phase 0 (the same compare ends reading and the job).
module ga2_pack4 #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_PACK4_FIELDS   // the fields dst, src, len (model/ops/pack4.py, model/ops/unpack4.py)
  wire unpack = (instr[`GA2_OP_W-1:0] == `GA2_OP_UNPACK4);   // 0 = PACK4, 1 = UNPACK4
  wire [7:0] rd_byte = rd_data[7:0];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [23:0] rd_hi = rd_data[31:8];        // s8(): only the low byte of a word counts
  /* verilator lint_on UNUSEDSIGNAL */
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if (`GA2_PACK4_LEN_W != `GA2_UNPACK4_LEN_W || `GA2_PACK4_LEN_LSB != `GA2_UNPACK4_LEN_LSB ||
        `GA2_PACK4_DST_LSB != `GA2_UNPACK4_DST_LSB || `GA2_PACK4_SRC_LSB != `GA2_UNPACK4_SRC_LSB) begin
      $error("%m: PACK4's and UNPACK4's dst, src, len are not the same bits");
      $finish;
    end
  end

  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")
  // the counter and the length reach len <= SP_WORDS / 2 (2*len words on one side): exactly
  // as wide as that (12 bits for 4096 words; the top bit is set only at len = SP_WORDS / 2),
  // at most the field's 13
  localparam LWS = $clog2(SP_WORDS / 2 + 1);
  localparam LW  = (LWS < `GA2_PACK4_LEN_W) ? LWS : `GA2_PACK4_LEN_W;

  reg           ph_q;                       // the phase of the cycle (see above)
  reg           un_q;                       // 1: UNPACK4
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] rp_q, wp_q;
  reg [7:0]     a_q;                        // the read data of the cycle before

  // one compare ends the job: the read enable and last are its two sides
  wire at_end  = (cnt_q == len_q);
  wire first   = (cnt_q == {LW{1'b0}});
  // PACK4 reads in both phases, UNPACK4 in phase 0 only
  wire reading = busy && !at_end && !(un_q && ph_q);
  // PACK4 writes in phase 0 after the first pair; UNPACK4 in phase 1, and in phase 0 after
  // the first input word
  wire writing = busy && (un_q ? (ph_q || !first) : (!ph_q && !first));

  // sat4 of an int8: its value when bits 7..3 agree, else -8 (negative) or 7
  function [3:0] sat4;
    input [7:0] x;
    begin
      if (x[7:3] == {5{x[7]}}) sat4 = x[3:0];
      else                     sat4 = x[7] ? 4'h8 : 4'h7;
    end
  endfunction

  // PACK4's word: x_2i (held a cycle) low, x_2i+1 (the read data) high; UNPACK4's: the
  // read data's low nibble in phase 1, the held word's high nibble in phase 0
  wire [3:0]  nib    = ph_q ? rd_byte[3:0] : a_q[7:4];
  wire [31:0] pk_word = {24'd0, sat4(rd_byte), sat4(a_q)};
  wire [31:0] upk_word = {{28{nib[3]}}, nib};

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      ph_q  <= 1'b0;
      un_q  <= unpack;
      cnt_q <= {LW{1'b0}};
      len_q <= len[LW-1:0];
      rp_q  <= src[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
    end else if (busy) begin
      ph_q <= !ph_q;
      if (ph_q) cnt_q <= cnt_q + 1'b1;
      if (reading) rp_q <= rp_q + 1'b1;
      if (writing) wp_q <= wp_q + 1'b1;
    end
  end

  // the read data one cycle later (a plain pipeline register, as ga2_vec_add's a_q: it
  // follows the scratchpad's read register, which powers up 0)
  always @(posedge clk) begin
    a_q <= rd_byte;
  end

  assign rd_en   = reading;
  assign wr_en   = writing;
  assign wr_data = un_q ? upk_word : pk_word;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
