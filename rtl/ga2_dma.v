`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_dma: LD (dir = 0: ext[ext_base ..] -> sp[sp_base ..]), ST (dir = 1: sp -> ext) and
// LDX (ldx = 1, dir = 0: the embedding lookup, ext[ext_base + tok*len ..] -> sp[sp_base ..]).
// One word per cycle: word i is read at busy cycle i and written at cycle i+1 (both
// memories have one cycle of read latency), so LD and ST are busy exactly len+1 cycles.
// LDX first reads the index word tok = sp[idx] (busy cycle 0), then forms the row's
// address ext_base + tok*len and compares tok (unsigned 32 bits) with rows (cycle 1),
// then runs as an LD of len words: busy len + 3 = len + 1 + GA2_LDX_EXTRA. A row index
// tok >= rows (error 6, ERR_INDEX) makes no external access and no scratchpad write, the
// busy cycles unchanged; idx_err is high in that LDX's last busy cycle (the sequencer
// keeps the first such LDX for done). The address is formed modulo the external memory:
// for tok < rows it is exact, as the decoder checked ext_base + rows*len <= EXT_WORDS.
// ext_base is the full external address (xhi * 2^16 + src or dst, GA2_EXT_ADDR_W = 29
// bits); a transfer may cross a 2^16 boundary: ep_q is as wide as the memory's addresses.
// Two pointers, one per memory: sp_q (the scratchpad: read for ST, written for LD/LDX)
// and ep_q (the external memory: read for LD/LDX, written for ST), each as wide as its
// memory's addresses (docs/rtl.md "Register widths").
module ga2_dma #(
  parameter SP_WORDS  = `GA2_SP_WORDS,        // the scratchpad's words: sp_q's width
  parameter EXT_WORDS = `GA2_EXT_WORDS        // the external memory's words: ep_q's width
) (
  input  wire                      clk,
  input  wire                      rst,
  input  wire                      start,
  /* verilator lint_off UNUSEDSIGNAL */
  // the instruction word (ga2_decode has range-checked it): only LD's, ST's and LDX's fields count
  input  wire [`GA2_INSTR_W-1:0]   instr,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire                      busy,
  output wire                      last,
  output wire                      idx_err,      // LDX with tok >= rows: its last busy cycle
  // scratchpad
  output wire                      sp_rd_en,
  output wire [`GA2_ADDR_W-1:0]    sp_rd_addr,
  input  wire [31:0]               sp_rd_data,
  output wire                      sp_wr_en,
  output wire [`GA2_ADDR_W-1:0]    sp_wr_addr,
  output wire [31:0]               sp_wr_data,
  // external memory
  output wire                      ext_en,
  output wire                      ext_we,
  output wire [`GA2_EXT_ADDR_W-1:0] ext_addr,
  output wire [31:0]               ext_wdata,
  input  wire [31:0]               ext_rdata
);
  // the instruction's fields (model/ops/ld.py, st.py, ldx.py; rtl/ga2_isa.vh): LDX's dst,
  // src and len sit at LD's bits (checked below), ST's src and dst swap LD's
  wire [`GA2_OP_W-1:0] op = instr[`GA2_OP_W-1:0];
  wire dir = (op == `GA2_OP_ST);               // 0 = LD or LDX, 1 = ST
  wire ldx = (op == `GA2_OP_LDX);              // 1 = LDX (with dir = 0)
  /* verilator lint_off UNUSEDSIGNAL */
  // ISA-width: the decoder has range-checked them, only the low SAW / EAW bits are kept
  wire [`GA2_ADDR_W-1:0] ld_dst = instr[`GA2_LD_DST_LSB +: `GA2_LD_DST_W];
  wire [`GA2_ADDR_W-1:0] ld_src = instr[`GA2_LD_SRC_LSB +: `GA2_LD_SRC_W];
  wire [`GA2_ADDR_W-1:0] st_src = instr[`GA2_ST_SRC_LSB +: `GA2_ST_SRC_W];
  wire [`GA2_ADDR_W-1:0] st_dst = instr[`GA2_ST_DST_LSB +: `GA2_ST_DST_W];
  wire [`GA2_EXT_ADDR_W-`GA2_ADDR_W-1:0] ld_xhi  = instr[`GA2_LD_XHI_LSB +: `GA2_LD_XHI_W];
  wire [`GA2_EXT_ADDR_W-`GA2_ADDR_W-1:0] st_xhi  = instr[`GA2_ST_XHI_LSB +: `GA2_ST_XHI_W];
  wire [`GA2_EXT_ADDR_W-`GA2_ADDR_W-1:0] ldx_xhi = instr[`GA2_LDX_XHI_LSB +: `GA2_LDX_XHI_W];
  wire [`GA2_ADDR_W-1:0]    sp_base  = dir ? st_src : ld_dst;
  wire [`GA2_EXT_ADDR_W-1:0] ext_base = dir ? {st_xhi, st_dst} : {ldx ? ldx_xhi : ld_xhi, ld_src};
  wire [`GA2_ADDR_W-1:0]    idx      = instr[`GA2_LDX_IDX_LSB +: `GA2_LDX_IDX_W];   // LDX: the index word's address
  /* verilator lint_on UNUSEDSIGNAL */
  wire [`GA2_LDX_ROWS_W-1:0] rows    = instr[`GA2_LDX_ROWS_LSB +: `GA2_LDX_ROWS_W];  // LDX: the table's rows
  wire [`GA2_LD_LEN_W-1:0]  len      = dir ? instr[`GA2_ST_LEN_LSB +: `GA2_ST_LEN_W]
                                           : instr[`GA2_LD_LEN_LSB +: `GA2_LD_LEN_W];
  initial begin
    if (`GA2_LDX_DST_LSB != `GA2_LD_DST_LSB || `GA2_LDX_SRC_LSB != `GA2_LD_SRC_LSB ||
        `GA2_LDX_LEN_LSB != `GA2_LD_LEN_LSB || `GA2_LDX_LEN_W != `GA2_LD_LEN_W ||
        `GA2_ST_LEN_W != `GA2_LD_LEN_W) begin
      $error("%m: LDX's dst, src, len are not LD's bits, or ST's len is not LD's width");
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (`GA2_LDX_EXTRA != 2) begin
      $error("%m: LDX's two cycles before its LD (index, address) are not GA2_LDX_EXTRA=%0d",
             `GA2_LDX_EXTRA);
      $finish;
    end
  end

  localparam LW  = `GA2_LD_LEN_W;
  localparam SAW = $clog2(SP_WORDS);                          // scratchpad address width
  localparam EAW = (EXT_WORDS > 1) ? $clog2(EXT_WORDS) : 1;   // external address width

  reg           busy_q, ix_q, ad_q;   // ad_q: datapath (used only while busy)
  reg           dir_q, bad_q;
  reg [LW-1:0]  cnt_q, len_q;
  reg [SAW-1:0] sp_q;          // the scratchpad pointer
  reg [SAW-1:0] ia_q;          // LDX: the index word's address
  reg [`GA2_LDX_ROWS_W-1:0] rows_q;
  reg [EAW-1:0] ep_q;          // the external pointer

  // LDX's two first cycles: ix_q reads the index word, ad_q forms the address; the
  // transfer's counter waits for them (cnt_q stays 0, so no write can start early)
  wire pre     = ix_q || ad_q;
  // one compare ends the transfer: the read enable and last are its two sides, so the
  // unit reads exactly len words and finishes in the cycle after the last read
  wire at_end  = (cnt_q == len_q);
  wire reading = busy_q && !pre && !at_end;
  wire writing = busy_q && (cnt_q != {LW{1'b0}});
  // LDX's row index, the word read in ix_q's cycle, and its row's offset tok*len (only its
  // low EAW bits: the address is exact modulo the memory, above)
  wire          tok_bad = (sp_rd_data >= {{(32-`GA2_LDX_ROWS_W){1'b0}}, rows_q});
  /* verilator lint_off WIDTH */
  // the product modulo 2^EAW: the low EAW bits of tok times len
  wire [EAW-1:0] row_off  = sp_rd_data[EAW-1:0] * len_q;
  /* verilator lint_on WIDTH */
  wire           sp_read  = reading && dir_q;            // ST's word reads

  // control: reset. ep_q keeps its reset: ext_addr (a chip output) is ep_q, and it is 0
  // from reset to the first start (docs/host.md "Per-cycle rules", rule 3)
  always @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      ix_q   <= 1'b0;
      ep_q   <= {EAW{1'b0}};
    end else if (start) begin
      busy_q <= 1'b1;
      ix_q   <= ldx;
      ep_q   <= ext_base[EAW-1:0];
    end else if (busy_q) begin
      ix_q   <= 1'b0;
      if (ad_q) ep_q <= ep_q + row_off;
      if (ext_en) ep_q <= ep_q + 1'b1;
      if (last) busy_q <= 1'b0;
    end
  end

  // datapath: no reset (docs/rtl.md "Reset and X policy"): start loads them; every use
  // is gated by busy_q (reading, writing, last; dir_q and bad_q only select between
  // enables that are low while idle; ad_q acts only in the busy branches), sp_q reaches
  // the scratchpad only with sp_rd_en / sp_wr_en, ia_q only with ix_q
  always @(posedge clk) begin
    if (start) begin
      ad_q   <= 1'b0;
      dir_q  <= dir;
      bad_q  <= 1'b0;
      cnt_q  <= {LW{1'b0}};
      len_q  <= len;
      sp_q   <= sp_base[SAW-1:0];
      ia_q   <= idx[SAW-1:0];
      rows_q <= rows;
    end else if (busy_q) begin
      ad_q <= ix_q;
      if (ad_q) bad_q <= tok_bad;
      if (!pre) cnt_q <= cnt_q + 1'b1;
      if (sp_read || sp_wr_en) sp_q <= sp_q + 1'b1;
    end
  end

  assign busy       = busy_q;
  assign last       = busy_q && at_end;
  assign idx_err    = last && bad_q;
  assign sp_rd_en   = sp_read || ix_q;
  assign sp_wr_en   = writing && !dir_q && !bad_q;
  assign sp_wr_data = ext_rdata;
  assign ext_en     = dir_q ? writing : (reading && !bad_q);
  assign ext_we     = writing && dir_q;
  assign ext_wdata  = sp_rd_data;
  /* verilator lint_off WIDTH */
  // zero extension of the pointers to the ISA-width (external: GA2_EXT_ADDR_W) ports
  assign sp_rd_addr = ix_q ? ia_q : sp_q;
  assign sp_wr_addr = sp_q;
  assign ext_addr   = ep_q;
  /* verilator lint_on WIDTH */
endmodule
`resetall
