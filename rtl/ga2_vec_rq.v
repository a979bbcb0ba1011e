`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_vec_rq: the requantization unit (RQ): sp[dst+i] = requant(sp[src+i], m, s), with
// relu = 1 max(requant(..), 0) (the clamp to 0..127: ReLU fused into the requant).
// Element i is read at busy cycle i and written at cycle i+1 (busy exactly len+1), so
// with the write-first scratchpad an overlapping dst = src + d sees the elements it
// already wrote, i.e. the elements behave as if processed one at a time in order.
module ga2_vec_rq #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_RQ_FIELDS   // the fields dst, src, len, m, s, relu (model/ops/rq.py)
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam LW  = `GA2_RQ_LEN_W;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")

  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] rp_q, wp_q;
  reg [15:0]   m_q;
  reg [5:0]    s_q;
  reg          relu_q;
  wire [31:0]  y;

  // one compare ends the job: the read enable and last are its two sides
  wire at_end  = (cnt_q == len_q);
  wire reading = busy && !at_end;
  wire writing = busy && (cnt_q != {LW{1'b0}});

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      rp_q  <= src[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
      m_q   <= m;
      s_q   <= s;
      relu_q <= relu;
    end else if (busy) begin
      cnt_q <= cnt_q + 1'b1;
      if (reading) rp_q <= rp_q + 1'b1;
      if (writing) wp_q <= wp_q + 1'b1;
    end
  end

  ga2_requant u_requant (
    .a(rd_data),
    .m(m_q),
    .s(s_q),
    .y(y)
  );

  // ReLU: a negative result (its sign bit) becomes 0
  assign wr_data = y & {32{!(relu_q && y[31])}};

  assign rd_en   = reading;
  assign wr_en   = writing;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = rp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
