`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_mm_ctrl: the matrix unit (MM): operand feeder, systolic array and result drain.
//
// The depth is KE = K + 256 * khi (1 .. 2047). a16 = 1: A's operands are the low 16 bits
// of their words (int16; the low byte, sign-extended, otherwise), in the same cycles.
// Timing (cycle c = 0 is the first busy cycle after start; busy exactly KE + 7 + M*N;
// K below stands for KE):
//  - row i of A reads a(i,k) = sp[A + i*lda + k] at cycle k + i on read port i;
//  - column j of B reads b(k,j) = sp[B + k*ldb + j] (tb = 0) or sp[B + j*ldb + k]
//    (tb = 1) at cycle k + j on read port ARRAY + j;
//  - rows >= M and columns >= N read nothing and feed zero; the data arrives one cycle
//    later and meets in PE (i, j) at cycle k + i + j + 1, so the last MAC is at K + 6;
//  - cycles K + 7 .. K + 6 + M*N drain the results row-major, one per cycle, to
//    sp[dst + i*ldc + j]. All reads of A and B happen before any write.
//  - acc = 1 (dst += A x B): each result is added (32-bit wraparound) to the old word
//    at its address, read on read port 0 (row 0 of A, idle after cycle K - 1) through
//    its full 32-bit data (rd_word0) one cycle before the write: the first at cycle
//    K + 6, then during each drain cycle the next element's word. The scratchpad is
//    write-first, so with overlapping output rows (ldc < N) an element reads the word
//    an earlier element wrote, row-major as in model/func.py. Busy cycles unchanged.
// Address ports are ISA-width (16 bits); the sequencer has range-checked them in DECODE,
// so the pointers keep SAW = log2(SP_WORDS) bits (docs/rtl.md "Register widths").
module ga2_mm_ctrl #(
  parameter SP_WORDS = `GA2_SP_WORDS                    // the scratchpad's words
) (
  input  wire                             clk,
  input  wire                             rst,
  input  wire                             start,
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: only the low SAW bits are kept
  input  wire [`GA2_ADDR_W-1:0]           dst,
  input  wire [`GA2_ADDR_W-1:0]           a_base,
  input  wire [`GA2_ADDR_W-1:0]           b_base,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [`GA2_MM_M_W-1:0]           m,
  input  wire [`GA2_MM_K_W-1:0]           k,
  input  wire [`GA2_MM_KHI_W-1:0]         khi,
  input  wire                             a16,
  input  wire [`GA2_MM_N_W-1:0]           n,
  input  wire                             tb,
  input  wire [`GA2_MM_LDA_W-1:0]         lda,
  input  wire [`GA2_MM_LDB_W-1:0]         ldb,
  input  wire [`GA2_MM_LDC_W-1:0]         ldc,
  input  wire                             acc,
  output wire                             busy,
  output wire                             last,
  output wire [2*`GA2_ARRAY-1:0]          rd_en,     // [i] row i of A, [ARRAY+j] column j of B
  output wire [2*`GA2_ARRAY*`GA2_ADDR_W-1:0] rd_addr,
  input  wire [2*`GA2_ARRAY*8-1:0]        rd_byte,   // low byte of each port's read data
  input  wire [`GA2_ARRAY*8-1:0]          rd_ahi,    // bits 15:8 of the A ports' read data
  input  wire [31:0]                      rd_word0,  // read port 0's full word (acc = 1)
  output wire                             wr_en,
  output wire [`GA2_ADDR_W-1:0]           wr_addr,
  output wire [31:0]                      wr_data
);
  localparam NA = `GA2_ARRAY;
  localparam AW = `GA2_ADDR_W;
  localparam SAW = $clog2(SP_WORDS);                   // scratchpad address width
  localparam KW = `GA2_MM_K_W + `GA2_MM_KHI_W;           // the depth KE's width
  // the cycle counter reaches KE + FILL + M*N <= 2047 + 7 + 16 = 2070 (it steps in the
  // last busy cycle too): 12 bits
  localparam CW = $clog2((1 << KW) + `GA2_MM_FILL + NA * NA);

  initial begin
    if (NA != 4) begin
      $error("ga2_mm_ctrl: built for a 4 x 4 array (2-bit row/column indices), ARRAY=%0d", NA);
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  reg          busy_q;
  reg          acc_q;
  reg          a16_q;
  reg [CW-1:0] cyc_q;
  reg [2:0]    m_q, n_q;
  reg [KW-1:0] k_q;
  reg [SAW-1:0] ldc_q, b_step_q, row_base_q;
  reg [1:0]    di_q, dj_q;

  localparam [CW-1:0] FILL = `GA2_MM_FILL;

  wire [CW-1:0] k_ext     = {{(CW-KW){1'b0}}, k_q};
  wire          drain     = busy_q && (cyc_q >= k_ext + FILL);
  wire          row_end   = ({1'b0, dj_q} == n_q - 3'd1);
  wire          tile_end  = ({1'b0, di_q} == m_q - 3'd1) && row_end;
  // acc = 1: the read of the old C word of the element written next cycle (header)
  wire          pre_drain = busy_q && (cyc_q == k_ext + FILL - 1'b1);
  wire          c_rd      = acc_q && (pre_drain || (drain && !tile_end));
  /* verilator lint_off WIDTH */
  // the column index as a SAW-bit offset (zero-extended; truncated only when SAW = 1,
  // where the range check keeps N <= 2)
  wire [SAW-1:0] dj_off   = dj_q;
  /* verilator lint_on WIDTH */
  wire [SAW-1:0] c_addr   = pre_drain ? row_base_q :
                            row_end   ? row_base_q + ldc_q :
                                        row_base_q + dj_off + 1'b1;
  wire [SAW-1:0] wr_ptr   = row_base_q + dj_off;

  // the strides modulo 2^SAW (zero-extended or truncated to SAW bits: the addresses they
  // step are below SP_WORDS, so arithmetic modulo 2^SAW is exact)
  /* verilator lint_off WIDTH */
  wire [SAW-1:0] lda_s  = lda;
  wire [SAW-1:0] ldb_s  = ldb;
  wire [SAW-1:0] ldc_s  = ldc;
  /* verilator lint_on WIDTH */
  wire [SAW-1:0] b_init = tb ? ldb_s : {{(SAW-1){1'b0}}, 1'b1};  // column-to-column step
  wire [SAW-1:0] b_step = tb ? {{(SAW-1){1'b0}}, 1'b1} : ldb_s;  // k-to-k step
  wire [NA*16-1:0]    a_left;
  wire [NA*8-1:0]     b_top;
  wire [31:0]         result;

  // Feed window: row i of A and column i of B are fed during cycles i .. i+K-1 (if
  // i < M, resp. i < N). win[0] is high in cycles 0 .. K-1; win[i] is win[0] delayed
  // by i cycles through a register chain: the array's input skew. A start clears it (a
  // start while busy ends the old windows, docs/rtl.md "Start while busy"), and so does
  // reset (from power-up it would feed x for NA-1 cycles).
  wire [NA-1:0] win;
  reg  [NA-1:1] win_q;
  assign win[0] = busy_q && (cyc_q < k_ext);
  assign win[NA-1:1] = win_q;
  always @(posedge clk) begin
    if (rst || start) win_q <= {(NA-1){1'b0}};
    else              win_q <= win[NA-2:0];
  end

  genvar i;
  generate
    for (i = 0; i < NA; i = i + 1) begin : g_feed
      localparam [2:0] IDX = i;
      reg [SAW-1:0] a_ptr_q, b_ptr_q;
      reg           b_v_q;
      // start offsets i*lda and i*b_init (i = 0..3) from a shift and an add
      wire [SAW-1:0] a_off = (IDX[1] ? (lda_s << 1) : {SAW{1'b0}}) + (IDX[0] ? lda_s : {SAW{1'b0}});
      wire [SAW-1:0] b_off = (IDX[1] ? (b_init << 1) : {SAW{1'b0}}) + (IDX[0] ? b_init : {SAW{1'b0}});
      wire a_act = win[i] && (IDX < m_q);
      wire b_act = win[i] && (IDX < n_q);
      // B's valid bit: the port data of a read issued in cycle c feeds the array in cycle
      // c + 1, and only then; b = 0 in every other cycle (clear at reset and at start:
      // a left-over B operand would meet left-over A operands after a restart). The A
      // side has no valid bit: A's port data feeds row i in every cycle. Outside row i's
      // window it is a held or foreign word that can only meet b = 0: before the window
      // it runs ahead of the first B operand of every column, after it one cycle behind
      // the last (the skew), and rows >= M are never drained. The ports power up 0
      // (ga2_sram.v), so no x enters the array.
      always @(posedge clk) begin
        b_v_q <= b_act && !(rst || start);
      end
      // the pointers: no reset (docs/rtl.md "Reset and X policy"): start loads them,
      // and they are read only with a_act / b_act (win[i], so busy_q)
      always @(posedge clk) begin
        if (start) begin
          a_ptr_q <= a_base[SAW-1:0] + a_off;
          b_ptr_q <= b_base[SAW-1:0] + b_off;
        end else begin
          if (a_act) a_ptr_q <= a_ptr_q + 1'b1;
          if (b_act) b_ptr_q <= b_ptr_q + b_step_q;
        end
      end
      // port 0 also reads the old C words (acc = 1), never in the same cycle as A; the
      // SAW-bit pointers are zero-extended to the ISA-width ports
      /* verilator lint_off WIDTH */
      if (i == 0) begin : g_c
        assign rd_en[i]               = a_act || c_rd;
        assign rd_addr[AW*i +: AW]    = c_rd ? c_addr : a_ptr_q;
      end else begin : g_a
        assign rd_en[i]               = a_act;
        assign rd_addr[AW*i +: AW]    = a_ptr_q;
      end
      assign rd_en[NA+i]              = b_act;
      assign rd_addr[AW*(NA+i) +: AW] = b_ptr_q;
      /* verilator lint_on WIDTH */
      assign a_left[16*i +: 16]       = {a16_q ? rd_ahi[8*i +: 8] : {8{rd_byte[8*i+7]}},
                                         rd_byte[8*i +: 8]};
      assign b_top[8*i +: 8]          = rd_byte[8*(NA+i) +: 8] & {8{b_v_q}};
    end
  endgenerate

  ga2_systolic #(.N(NA), .IW(2)) u_array (
    .clk(clk),
    .clr(start),
    .a_left(a_left),
    .b_top(b_top),
    .sel_row(di_q),
    .sel_col(dj_q),
    .result(result)
  );

  // A's width: reset, so that no x enters the array before the first start (it selects
  // the upper byte fed in every cycle; the ports power up 0)
  always @(posedge clk) begin
    if (rst)        a16_q <= 1'b0;
    else if (start) a16_q <= a16;
  end

  // control: reset
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
    end else if (start) begin
      busy_q <= 1'b1;
    end else if (busy_q) begin
      if (last) busy_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy_q (drain, pre_drain, win[0], last) or by an enable that is (c_rd,
  // a_act, b_act, wr_en); the drain indices di/dj select the result only for wr_data
  always @(posedge clk) begin
    if (start) begin
      acc_q      <= acc;
      cyc_q      <= {CW{1'b0}};
      m_q        <= m;
      n_q        <= n;
      k_q        <= {khi, k};
      ldc_q      <= ldc_s;
      b_step_q   <= b_step;
      row_base_q <= dst[SAW-1:0];
      di_q       <= 2'd0;
      dj_q       <= 2'd0;
    end else if (busy_q) begin
      cyc_q <= cyc_q + 1'b1;
      if (drain && !tile_end) begin
        if (row_end) begin
          dj_q       <= 2'd0;
          di_q       <= di_q + 2'd1;
          row_base_q <= row_base_q + ldc_q;
        end else begin
          dj_q       <= dj_q + 2'd1;
        end
      end
    end
  end

  assign busy    = busy_q;
  assign last    = drain && tile_end;
  assign wr_en   = drain;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit write pointer to the ISA-width port
  assign wr_addr = wr_ptr;
  /* verilator lint_on WIDTH */
  assign wr_data = acc_q ? result + rd_word0 : result;
endmodule
`resetall
