`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_rope: rotary position embedding (ROPE, model/ops/rope.py): for pair q = h*pairs + j
// of heads h < heads, j < pairs, with x0, x1 = sp[src+2q], sp[src+2q+1] (int32 Q12) and
// c, s = the low 16 bits, signed, of sp[cs+2j], sp[cs+2j+1] (Q14):
//   sp[dst+2q]   = sat32(floor((x0 c - x1 s + 2^13) / 2^14))
//   sp[dst+2q+1] = sat32(floor((x0 s + x1 c + 2^13) / 2^14))
// One signed 32 x 16-bit multiplier, six phases a pair (ph_q, one-hot: every phase test is
// one bit):
//   P_C  read c_j; write y1 of the pair before (acc + x0 s), not for the first pair
//   P_S  read s_j; c_q <= c
//   P_X0 read x0;  s_q <= s
//   P_X1 read x1;  acc_q <= x0 c (x0 on the read port); x0_q <= x0
//   P_Y0 write y0 = acc - x1 s (x1 on the read port); x1_q <= x1
//   P_M  acc_q <= x1 c; the pair is done (the next head restarts the row at cs)
//   (P_C of the next pair: y1 = acc + x0 s)
// so the unit is busy exactly 6 pairs heads + 1 cycles (the last one only writes), reads
// 4 words a pair, and writes a pair's y1 in the cycle it reads the next pair's cos: with
// the write-first scratchpad, overlapping ranges behave as processed pair by pair.
// Rounding half up is the carry of the bit below the cut (sum[13]): no constant.
module ga2_rope #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_ROPE_FIELDS   // the fields dst, src, pairs, cs, heads (model/ops/rope.py)

  localparam PW  = `GA2_ROPE_PAIRS_W;
  localparam JW  = $clog2(`GA2_ROPE_MAX_PAIRS);   // the pair index in a head: 0 .. pairs - 1
  localparam HW  = `GA2_ROPE_HEADS_W;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    if ((1 << JW) != `GA2_ROPE_MAX_PAIRS || `GA2_ROPE_MAX_PAIRS >= (1 << PW)) begin
      $error("%m: GA2_ROPE_MAX_PAIRS=%0d is not a power of two that the pairs field holds",
             `GA2_ROPE_MAX_PAIRS);
      $finish;
    end
  end
  // the phases' bits in ph_q
  localparam P_C = 0, P_S = 1, P_X0 = 2, P_X1 = 3, P_Y0 = 4, P_M = 5;

  reg [5:0]     ph_q;                       // one-hot
  reg           pend_q;                     // a pair's y1 is due: P_C after a P_M
  reg [JW-1:0]  j_q;                        // the pair in the head: 0 .. pairs - 1
  reg [PW-1:0]  pairs_q;                    // pairs a head (1 .. GA2_ROPE_MAX_PAIRS)
  reg [HW-1:0]  hd_q, heads_q;              // heads done, heads
  reg [SAW-1:0] cs_q, cp_q, xp_q, wp_q;     // the row, its pointer, src's, dst's
  reg [15:0]    c_q, s_q;
  reg [31:0]    x0_q, x1_q;
  reg [47:0]    acc_q;                      // x0 c, then x1 c

  // one compare ends the job (only in P_C: hd_q steps at the end of P_M)
  wire at_end  = (hd_q == heads_q);
  wire reading = busy && !at_end && !(ph_q[P_Y0] || ph_q[P_M]);     // P_C .. P_X1
  wire writing = busy && (ph_q[P_Y0] || pend_q);
  wire head_end = ({1'b0, j_q} == pairs_q - 1'b1);                  // the head's last pair

  // the multiplier: x0 c, x1 s from the read port, then x1 c, x0 s from the registers (each
  // held register read in a phase where the read port holds another word)
  wire        from_rd = ph_q[P_X1] || ph_q[P_Y0];
  // AND-OR of exclusive phases (0 in the others, whose product is unused)
  wire [31:0] ma = ({32{from_rd}} & rd_data) | ({32{ph_q[P_M]}} & x1_q) | ({32{ph_q[P_C]}} & x0_q);
  wire [15:0] mb = (ph_q[P_X1] || ph_q[P_M]) ? c_q : s_q;
  // |x c| <= 2^46: 48 bits; a sum or difference of two: 49
  wire signed [47:0] prod = $signed(ma) * $signed(mb);
  wire [48:0] acc49 = {acc_q[47], acc_q};
  wire [48:0] pr49  = {prod[47], prod};
  /* verilator lint_off UNUSEDSIGNAL */
  // sum[12:0] lie below the cut
  wire [48:0] sum   = ph_q[P_Y0] ? acc49 - pr49 : acc49 + pr49;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [34:0] r     = sum[48:14] + {34'd0, sum[13]};               // round half up
  wire        fits  = (&r[34:31]) | ~(|r[34:31]);
  wire [31:0] y     = fits ? r[31:0] : {r[34], {31{~r[34]}}};

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads the control, each
  // data register is written in its phase before it is read
  always @(posedge clk) begin
    if (start) begin
      ph_q    <= 6'b000001;                // P_C
      pend_q  <= 1'b0;
      j_q     <= {JW{1'b0}};
      pairs_q <= pairs;
      hd_q    <= {HW{1'b0}};
      heads_q <= heads;
      cs_q    <= cs[SAW-1:0];
      cp_q    <= cs[SAW-1:0];
      xp_q    <= src[SAW-1:0];
      wp_q    <= dst[SAW-1:0];
    end else if (busy) begin
      ph_q   <= {ph_q[4:0], ph_q[5]};
      pend_q <= ph_q[P_M];
      if (writing) wp_q <= wp_q + 1'b1;
      if (ph_q[P_C] || ph_q[P_S]) cp_q <= cp_q + 1'b1;
      if (ph_q[P_X0] || ph_q[P_X1]) xp_q <= xp_q + 1'b1;
      if (ph_q[P_S]) c_q <= rd_data[15:0];
      if (ph_q[P_X0]) s_q <= rd_data[15:0];
      if (ph_q[P_X1]) x0_q <= rd_data;
      if (ph_q[P_Y0]) x1_q <= rd_data;
      if (ph_q[P_X1] || ph_q[P_M]) acc_q <= prod;
      if (ph_q[P_M]) begin
        if (head_end) begin
          j_q  <= {JW{1'b0}};
          hd_q <= hd_q + 1'b1;
          cp_q <= cs_q;
        end else begin
          j_q  <= j_q + 1'b1;
        end
      end
    end
  end

  assign rd_en   = reading;
  assign wr_en   = writing;
  assign wr_data = y;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = (ph_q[P_X0] || ph_q[P_X1]) ? xp_q : cp_q;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
