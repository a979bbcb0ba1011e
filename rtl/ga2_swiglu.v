`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_swiglu: the MLP's gate (SWIGLU, model/ops/swiglu.py): for the int32 Q12 words
// g_i = sp[src+i], u_i = sp[src2+i]:
//   sig = SIGMOID[k] * 2^9 + (SIGMOID[k+1] - SIGMOID[k]) * f, k = (g + 2^16) >> 9,
//         f = g & 511 for g in -2^16 .. 2^16 - 1; 0 below, 2^24 above (Q24)
//   s   = floor((g * sig + 2^23) / 2^24)              silu(g), Q12
//   h   = sat32(floor((s * u + 2^11) / 2^12))          sp[dst+i]
// One signed 32 x 17-bit multiplier, six phases an element (ph_q):
//   P_G   read g_i; write h_{i-1} = the s * u_hi pass plus acc (not for the first element)
//   P_U   read u_i; a_q <= g_i
//   P_SIG u_q <= u_i; sig_q <= the interpolation (the table's slope times f)
//   P_LO  acc_q <= g * sig[15:0]
//   P_HI  a_q <= s = round(acc + g * sig[24:16] * 2^16)
//   P_ULO acc_q <= s * u[15:0]
// so the unit is busy exactly 6 len + 1 cycles (the last one only writes), reads 2 len
// words, and element i is written in the cycle element i+1's g is read: with the
// write-first scratchpad overlapping operands behave as processed element by element.
// Rounding half up is the carry of the bit below the cut (tot[23], tot[11]): no constant.
// The table's index needs no adder: for g in -2^16 .. 2^16 - 1, (g + 2^16)[16:9] is
// g[16:9] with its top bit flipped, and g is inside exactly when its bits 31..16 are all
// equal (every test of equal bits is an AND and an OR of them: no bit stands for the
// others).
module ga2_swiglu #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_SWIGLU_FIELDS   // the fields dst, src, len, src2 (model/ops/swiglu.py)
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam LW  = `GA2_SWIGLU_LEN_W;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")
  localparam [2:0] P_G = 3'd0, P_U = 3'd1, P_SIG = 3'd2, P_LO = 3'd3, P_HI = 3'd4, P_ULO = 3'd5;

  reg [2:0]     ph_q;
  reg [LW-1:0]  cnt_q, len_q;               // elements done, elements
  reg [SAW-1:0] ap_q, bp_q, wp_q;
  reg [31:0]    a_q;                        // g from P_U, s = silu(g) from P_HI
  reg [31:0]    u_q;
  reg [24:0]    sig_q;                      // the interpolated sigmoid, Q24 (0 .. 2^24)
  reg [47:0]    acc_q;                      // a low pass: g * sig[15:0] or s * u[15:0]

  // one compare ends the job (only in P_G: cnt_q steps at the end of P_ULO)
  wire at_end  = (cnt_q == len_q);
  wire reading = busy && !at_end && (ph_q == P_G || ph_q == P_U);
  wire writing = busy && (ph_q == P_G) && (cnt_q != {LW{1'b0}});

  // the table: entry k = (g + 2^16) >> 9 and its slope
  wire       in_tab = (&a_q[31:16]) | ~(|a_q[31:16]);
  wire [7:0] k      = a_q[16:9] ^ 8'h80;
  wire [15:0] t_s;
  wire [9:0]  t_d;
  ga2_sig_lut u_lut (.k(k), .s(t_s), .d(t_d));

  // the multiplier's operands by phase
  reg [31:0] ma;
  reg [16:0] mb;
  always @* begin
    case (ph_q)
      P_SIG:   begin ma = {22'd0, t_d}; mb = {8'd0, a_q[8:0]};    end   // slope * f
      P_LO:    begin ma = a_q;          mb = {1'b0, sig_q[15:0]}; end
      P_HI:    begin ma = a_q;          mb = {8'd0, sig_q[24:16]}; end
      P_ULO:   begin ma = a_q;          mb = {1'b0, u_q[15:0]};   end
      default: begin ma = a_q;          mb = {u_q[31], u_q[31:16]}; end   // P_G: u's signed high half
    endcase
  end
  // |ma * mb| < 2^47 in every phase (mb >= -2^15): 48 bits hold it
  wire signed [47:0] prod = $signed(ma) * $signed(mb);
  /* verilator lint_off UNUSEDSIGNAL */
  // a low pass plus a high pass * 2^16: g * sig (P_HI) or s * u (P_G), |tot| < 2^62 (the
  // high passes' |prod| < 2^46); tot[10:0] lie below both cuts
  wire [62:0] tot = {{15{acc_q[47]}}, acc_q} + {prod[46:0], 16'd0};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [50:0] r    = tot[62:12] + {50'd0, tot[11]};            // round half up; |r| < 2^50
  wire [31:0] silu = tot[55:24] + {31'd0, tot[23]};            // |s| <= |g|: 32 bits
  wire        fits = (&r[50:31]) | ~(|r[50:31]);
  wire [31:0] h    = fits ? r[31:0] : {r[50], {31{~r[50]}}};

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(at_end), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads the control, each
  // data register is written in its phase before it is read
  always @(posedge clk) begin
    if (start) begin
      ph_q  <= P_G;
      cnt_q <= {LW{1'b0}};
      len_q <= len;
      ap_q  <= src[SAW-1:0];
      bp_q  <= src2[SAW-1:0];
      wp_q  <= dst[SAW-1:0];
    end else if (busy) begin
      ph_q <= (ph_q == P_ULO) ? P_G : ph_q + 3'd1;
      if (ph_q == P_ULO) cnt_q <= cnt_q + 1'b1;
      if (ph_q == P_G) ap_q <= ap_q + 1'b1;
      if (ph_q == P_U) bp_q <= bp_q + 1'b1;
      if (writing) wp_q <= wp_q + 1'b1;
      case (ph_q)
        P_U:   a_q <= rd_data;
        P_SIG: begin
          u_q   <= rd_data;
          sig_q <= in_tab ? {t_s, 9'd0} + {6'd0, prod[18:0]} : {~a_q[31], 24'd0};
        end
        P_LO:  acc_q <= prod;
        P_HI:  a_q <= silu;
        P_ULO: acc_q <= prod;
        default: ;
      endcase
    end
  end

  assign rd_en   = reading;
  assign wr_en   = writing;
  assign wr_data = h;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers to the ISA-width ports
  assign rd_addr = ph_q[0] ? bp_q : ap_q;                      // P_U (1) or P_G (0)
  assign wr_addr = wp_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
