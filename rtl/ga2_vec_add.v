`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_vec_add: the residual add (ADD): sp[dst+i] = clamp(x(sp[src+i]) + x(sp[src2+i])).
// w = 0: x = s8 (the low byte as two's complement), clamp to int8 (-128..127), sign-extended;
// w = 1 (the wide residual stream): x = the word as int32, clamp to int32 (a sum past
// -2^31 .. 2^31-1 saturates, never wraps).
// One read port, two operands: element i reads src_i at busy cycle 2i and src2_i at 2i+1
// and is written at 2i+2 (the cycle src_{i+1} is read), so the unit is busy exactly
// 2*len + 1 cycles, and with the write-first scratchpad an element reads every result
// written before it: with dst overlapping either operand the elements behave as if
// processed one at a time in increasing order (model/func.py).
// cnt_q counts elements, ph_q the operand of the cycle (0: src, 1: src2); the element
// counter steps after the src2 read, so the job ends at cnt_q == len in phase 0.
module ga2_vec_add #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_ADD_FIELDS   // the fields dst, src, len, src2, w (model/ops/add.py)
  wire [7:0] rd_byte = rd_data[7:0];
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam LW  = `GA2_ADD_LEN_W;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")

  reg           ph_q;                       // 0: the src read (and a write), 1: the src2 read
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] ap_q, bp_q, wp_q;
  reg           w_q;                        // 1: int32 words, sat32; 0: int8, sat8
  reg [31:0]    a_q;                        // the read data of the cycle before

  // one compare ends the job: the read enable and last are its two sides
  wire at_end  = (cnt_q == len_q);
  wire reading = busy && !at_end;
  wire writing = busy && !ph_q && (cnt_q != {LW{1'b0}});

  // the 9-bit sum of two int8, saturated: it fits int8 when its two top bits agree
  wire [8:0] sum  = {a_q[7], a_q[7:0]} + {rd_byte[7], rd_byte};
  wire [7:0] sat  = (sum[8] == sum[7]) ? sum[7:0] : {sum[8], {7{~sum[8]}}};
  // w = 1: the 33-bit sum of two int32, saturated the same way
  wire [32:0] sumw = {a_q[31], a_q} + {rd_data[31], rd_data};
  wire [31:0] satw = (sumw[32] == sumw[31]) ? sumw[31:0] : {sumw[32], {31{~sumw[32]}}};

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      ph_q  <= 1'b0;
      w_q   <= w;
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      ap_q  <= src[SAW-1:0];
      bp_q  <= src2[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
    end else if (busy) begin
      ph_q <= !ph_q;
      // both operand pointers step after the src2 read (src is read again only two
      // cycles later), with the element counter
      if (ph_q) begin
        cnt_q <= cnt_q + 1'b1;
        ap_q  <= ap_q + 1'b1;
        bp_q  <= bp_q + 1'b1;
      end
      if (writing) wp_q <= wp_q + 1'b1;
    end
  end

  // the read data one cycle later: in a write cycle (phase 0) it is src_i, read two cycles
  // before, while rd_data is src2_i. A plain pipeline register (no enable, no reset): it
  // follows the scratchpad's read register, which powers up 0, so it is never x after
  // the first clock edge, and a start needs nothing from it.
  always @(posedge clk) begin
    a_q <= rd_data;
  end

  assign rd_en   = reading;
  assign wr_en   = writing;
  assign wr_data = w_q ? satw : {{24{sat[7]}}, sat};
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = ph_q ? bp_q : ap_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
