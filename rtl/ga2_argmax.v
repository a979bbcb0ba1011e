`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_argmax: ARGMAX: sp[dst] = base + the index of the first maximum of the int32 words
// sp[src .. src+len) (signed compare, a later word replaces the best only when strictly
// greater); pair = 1 also writes the maximum to sp[dst+1]; acc = 1 starts from the
// running pair (sp[dst] the index, sp[dst+1] the maximum) and writes the pair back, so a
// long vector's argmax runs tile by tile (model/ops/argmax.py).
// With acc, busy cycles 0 and 1 read the running index and maximum (their data arrive
// in cycles 1 and 2 and become the best); then word i is read at busy cycle P+i (P = 2
// with acc, else 0) and compared at cycle P+i+1; the index goes out in cycle P+len with
// the last compare, the maximum (pair or acc) in the cycle after: busy exactly
// len + 1 + (acc ? 3 : pair), every read before the first write. Without acc the best
// starts at the smallest int32 with index base: a word equal to it never replaces it,
// so the first maximum wins with no special case for the first word.
// The index is IW = BASE_W + 1 bits (base + len - 1 < 2^17), written zero-extended.
module ga2_argmax #(
  parameter SP_WORDS = `GA2_SP_WORDS           // the scratchpad's words: the pointers' width
) (
  `GA2_VEC_PORTS                            // a vector unit's ports (rtl/ga2_isa.vh)
);
  `GA2_ARGMAX_FIELDS   // the fields dst, src, len, base, acc, pair (model/ops/argmax.py)
  initial begin
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  localparam LW  = `GA2_ARGMAX_LEN_W;
  // the index word's width (model/ops/argmax.py IDX_W, which asserts LEN_W <= BASE_W)
  localparam IW  = `GA2_ARGMAX_BASE_W + 1;
  localparam SAW = $clog2(SP_WORDS);        // scratchpad address width (docs/rtl.md "Register widths")

  reg           wide_q;                     // acc or pair: the maximum is written too
  // the running pair's phase (acc), loaded at every start (so a stale one shows in any
  // later job, restart or not): PC_IDX reads the index word, PC_MAX the maximum word
  // (rd_data: the index), PC_FIRST reads the tile's first word (rd_data: the maximum),
  // then PC_SCAN; without acc the job starts in PC_SCAN
  localparam [1:0] PC_IDX = 2'd0, PC_MAX = 2'd1, PC_FIRST = 2'd2, PC_SCAN = 2'd3;
  reg [1:0]     pc_q;
  reg           po_q;                       // this cycle writes the maximum
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] rp_q, wp_q;
  reg [31:0]    best_q;                     // the largest word so far
  reg [IW-1:0]  bi_q;                       // its index
  reg [IW-1:0]  ix_q;                       // the index of the word rd_data holds (base + i)

  // one compare ends the scan: the read enable, the writes and last are its sides
  wire at_end  = (cnt_q == len_q);
  // the running pair's reads come first (cnt_q 0 < len: at_end is low), then the scan's
  wire reading = busy && !at_end;
  wire scan_rd = reading && (pc_q >= PC_FIRST);
  wire have_v  = busy && (cnt_q != {LW{1'b0}});     // rd_data is word cnt_q - 1 (po_q: unused)
  wire           gt    = $signed(rd_data) > $signed(best_q);
  wire [IW-1:0]  bi_d  = gt ? ix_q : bi_q;
  wire [SAW-1:0] wp_inc = wp_q + 1'b1;
  // the job's end: the scan's end, and with the maximum to write its second cycle
  wire           done   = at_end && (po_q || !wide_q);

  // control: busy from a start to the last cycle (the shared handshake, ga2_unit_ctl)
  ga2_unit_ctl u_ctl (
    .clk(clk), .rst(rst), .start(start), .done(done), .busy(busy), .last(last)
  );

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy (rd_en, wr_en, last)
  always @(posedge clk) begin
    if (start) begin
      wide_q <= acc || pair;
      pc_q   <= acc ? PC_IDX : PC_SCAN;
      po_q   <= 1'b0;
      cnt_q  <= {LW{1'b0}};
      len_q  <= len;
      rp_q   <= src[SAW-1:0];
      wp_q   <= dst[SAW-1:0];
      best_q <= 32'h8000_0000;               // the smallest int32
      bi_q   <= {1'b0, base};
      ix_q   <= {1'b0, base};
    end else if (busy) begin
      if (pc_q != PC_SCAN) pc_q <= pc_q + 1'b1;
      if (scan_rd) begin
        cnt_q <= cnt_q + 1'b1;
        rp_q  <= rp_q + 1'b1;
      end
      if (pc_q == PC_MAX) bi_q <= rd_data[IW-1:0];     // the running index: its word's low IW bits
      if (pc_q == PC_FIRST) best_q <= rd_data;         // the running maximum
      if (have_v && gt) best_q <= rd_data;
      if (have_v) begin
        bi_q <= bi_d;
        ix_q <= ix_q + 1'b1;
      end
      if (at_end) begin                      // the index written: the maximum's turn
        po_q <= 1'b1;
        wp_q <= wp_inc;
      end
    end
  end

  assign rd_en   = reading;
  assign wr_en   = busy && at_end;
  /* verilator lint_off WIDTH */
  // zero extension of the SAW-bit pointers and the IW-bit index to the ISA-width ports
  // and the word
  assign rd_addr = (pc_q == PC_IDX) ? wp_q : (pc_q == PC_MAX) ? wp_inc : rp_q;
  assign wr_addr = wp_q;
  assign wr_data = po_q ? best_q : bi_d;
  /* verilator lint_on WIDTH */
endmodule
`resetall
