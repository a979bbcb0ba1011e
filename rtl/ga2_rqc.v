`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_rqc: RQC, requantization per output channel with the activation's per-token scale
// (model/ops/rqc.py): for i < M, j < N
//   sp[dst + i*N + j] = sat32(floor(F / 2^sh + 1/2)),  F = acc * m_r * m_c,
//   sh = 30 - q - e_r - e_c,
// acc the int32 word sp[src + i*ld + j], (m_r, e_r) the scale word sp[rsc + i*rstride]
// (the row's, the activation's per-token scale), (m_c, e_c) the scale word sp[csc + j]
// (the column's: the weight's per-output-channel scale); a scale word is m in bits 15:0,
// the signed e in bits 23:16 (model/wide.py). For sh <= 0 the result is F * 2^-sh.
// Timing (busy exactly M*(3N + 1) + 1, a function of M and N alone): per row a cycle
// S_ROW that reads its scale word, then per element three cycles S_A (read acc), S_C
// (read the column scale) and S_M (no read); an element is written in the cycle after
// its S_M: the next element's S_A, the next row's S_ROW, or the job's last cycle (S_ROW
// with every row done, which reads nothing). So each element's reads come after every
// earlier write (the write-first scratchpad gives a read the word written in its cycle):
// with dst over a source, elements behave as if processed one at a time, in order.
// One 33 x 17 signed multiplier, three uses an element: S_C P = acc * m_r (48 bits,
// registered), S_M H = P[47:16] * m_c (48 bits, registered, the column word straight
// from the read port and kept), write cycle L = P[15:0] * m_c (32 bits, unsigned); F =
// H * 2^16 + L. The shift, with k = sh - 1 (10 bits, -256..285):
//  - k >= 0: A = F >>> min(k, 63) (k >= 64 gives the same 0 or -1 as 63);
//  - k < 0: A = sat32(F) * 2^(-k), as {sat32(F), 32 zeros} >>> (32 + max(k, -32)): a
//    left shift of a value that already saturated stays saturated, and for k < -32
//    (sh < -31) k = -32 saturates every F != 0 as well (sat32(F) * 2^31; -1 gives -2^31);
//  then the result is sat32((A + 1) >>> 1) (A + 1 never overflows: |F| < 2^63 - 2^47),
//  which fits int32 when bits 63:32 of A + 1 agree.
// Control: busy (ga2_unit_ctl), the phase st_q (S_ROW, S_A, S_C, S_M: every code reachable), w_q (the
// cycle after S_M: a write; in S_A without it the read port holds the row's scale word);
// the job ends at S_ROW with ri_q (rows started) = M: one compare, `at_end`; a row ends
// when the column pointer reaches csc + N.
module ga2_rqc #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  localparam SAW  = $clog2(SP_WORDS);       // scratchpad address width (docs/rtl.md "Register widths")
  // M <= 255 (its field) and M * N <= SP_WORDS: the row counter reaches M
  localparam MMAX = (SP_WORDS < 255) ? SP_WORDS : 255;
  localparam MW   = $clog2(MMAX + 1);
  // N, ld and rstride (13-bit fields) below SP_WORDS where they count: their low SAW bits
  // (all 13 on a scratchpad of more than 2^13 words)
  localparam FW   = (SAW < `GA2_RQC_N_W) ? SAW : `GA2_RQC_N_W;

  `GA2_RQC_FIELDS   // the fields dst, src, m, n, ld, rsc, rstride, csc, q (model/ops/rqc.py)
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam [1:0] S_ROW = 2'd0, S_A = 2'd1, S_C = 2'd2, S_M = 2'd3;

  reg [1:0]     st_q;
  reg           w_q;                        // this cycle writes the element of the last S_M
  reg [MW-1:0]  ri_q, m_q;                  // rows started, M
  reg [SAW-1:0] rb_q, ap_q, ld_q;           // src: the row's first word, the next acc word, ld
  reg [SAW-1:0] rp_q, rs_q;                 // the next row scale word, rstride
  reg [SAW-1:0] cs_q, cp_q, ce_q;           // csc, the next column scale word, csc + N
  reg [SAW-1:0] wp_q;                       // the next dst word
  reg [4:0]     q_q;
  reg [15:0]    mr_q;                       // the row's scale word: mantissa, exponent
  reg [7:0]     er_q;
  reg [23:0]    c_q;                        // the element's column scale word (m, e)
  reg [47:0]    p_q;                        // acc * m_r
  reg [47:0]    h_q;                        // (acc * m_r)[47:16] * m_c

  // one compare ends the job: the read enable of S_ROW and last are its two sides
  wire at_end  = (st_q == S_ROW) && (ri_q == m_q);
  wire row_end = (cp_q == ce_q);            // in S_M: the row's last element
  wire reading = busy && (st_q != S_M) && !at_end;
  wire writing = busy && w_q;
  wire [SAW-1:0] nrb = rb_q + ld_q;

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath and phase: no reset (docs/rtl.md "Reset and X policy"): start loads them;
  // every use is gated by busy (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      st_q <= S_ROW;
      w_q  <= 1'b0;
      ri_q <= {MW{1'b0}};
      m_q  <= m[MW-1:0];
      rb_q <= src[SAW-1:0];
      ap_q <= src[SAW-1:0];
      rp_q <= rsc[SAW-1:0];
      cs_q <= csc[SAW-1:0];
      cp_q <= csc[SAW-1:0];
      wp_q <= dst[SAW-1:0];
      q_q  <= q;
      /* verilator lint_off WIDTH */
      // the low FW <= SAW bits, zero-extended (ld and rstride step between rows, so with
      // M >= 2 they are below SP_WORDS; N <= SP_WORDS counts modulo 2^SAW, as the column
      // pointer does)
      ld_q <= ld[FW-1:0];
      rs_q <= rstride[FW-1:0];
      ce_q <= csc[SAW-1:0] + n[FW-1:0];
      /* verilator lint_on WIDTH */
    end else if (busy) begin
      w_q <= (st_q == S_M);
      if (writing) wp_q <= wp_q + 1'b1;
      case (st_q)
        S_ROW: begin
          st_q <= S_A;
          ri_q <= ri_q + 1'b1;
          rp_q <= rp_q + rs_q;
        end
        S_A: begin
          st_q <= S_C;
          ap_q <= ap_q + 1'b1;
          if (!w_q) begin
            mr_q <= rd_data[15:0];
            er_q <= rd_data[23:16];
          end
        end
        S_C: begin
          st_q <= S_M;
          cp_q <= cp_q + 1'b1;
          p_q  <= prod[47:0];
        end
        default: begin                      // S_M
          h_q <= prod[47:0];
          c_q <= rd_data[23:0];
          if (row_end) begin
            st_q <= S_ROW;
            rb_q <= nrb;
            ap_q <= nrb;
            cp_q <= cs_q;
          end else begin
            st_q <= S_A;
          end
        end
      endcase
    end
  end

  // ------------------------------------------------------------------ the multiplier
  reg [32:0] mul_a;
  reg [15:0] mul_b;
  always @* begin
    case (st_q)
      S_C: begin                            // acc * m_r
        mul_a = {rd_data[31], rd_data};
        mul_b = mr_q;
      end
      S_M: begin                            // P[47:16] * m_c, m_c from the read port
        mul_a = {p_q[47], p_q[47:16]};
        mul_b = rd_data[15:0];
      end
      default: begin                        // the write: P[15:0] * m_c
        mul_a = {17'd0, p_q[15:0]};
        mul_b = c_q[15:0];
      end
    endcase
  end
  /* verilator lint_off UNUSEDSIGNAL */
  // |P|, |H| < 2^47 and L < 2^32: bits 49:48 only repeat the sign
  wire signed [49:0] prod = $signed(mul_a) * $signed({1'b0, mul_b});
  /* verilator lint_on UNUSEDSIGNAL */

  // ------------------------------------------------------------------ shift, round, saturate
  wire [63:0] f     = {h_q, 16'd0} + {32'd0, prod[31:0]};
  // k = sh - 1 = 29 - q - e_r - e_c, two's complement in 10 bits (the exponents
  // sign-extended, q zero-extended)
  wire signed [7:0] e_r = er_q;
  wire signed [7:0] e_c = c_q[23:16];
  /* verilator lint_off WIDTH */
  wire signed [9:0] e_rs = e_r;
  wire signed [9:0] e_cs = e_c;
  wire [9:0]  k     = 10'd29 - q_q - e_rs - e_cs;
  /* verilator lint_on WIDTH */
  wire        neg   = k[9];
  wire        f_fits = (&f[63:31]) | ~(|f[63:31]);
  wire [31:0] fs    = f_fits ? f[31:0] : {f[63], {31{~f[63]}}};
  // the shift: k >= 0 min(k, 63); k < 0 32 + max(k, -32) (k = -32..-1 is 111111xxxxx)
  wire [5:0]  r     = neg ? ((&k[8:5]) ? {1'b0, k[4:0]} : 6'd0)
                          : ((|k[8:6]) ? 6'd63 : k[5:0]);
  wire [63:0] y     = neg ? {fs, 32'd0} : f;
  wire [63:0] a     = $signed(y) >>> r;
  /* verilator lint_off UNUSEDSIGNAL */
  // (A + 1) >>> 1: bit 0 is dropped
  wire [63:0] t     = a + 64'd1;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        fits  = (&t[63:32]) | ~(|t[63:32]);
  assign wr_data = fits ? t[32:1] : {t[63], {31{~t[63]}}};

  assign rd_en   = reading;
  assign wr_en   = writing;
  // the read address by phase (S_M reads nothing: its pointer is don't-care)
  reg [SAW-1:0] ra;
  always @* begin
    case (st_q)
      S_A:     ra = ap_q;
      S_C:     ra = cp_q;
      default: ra = rp_q;
    endcase
  end
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = ra;
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
