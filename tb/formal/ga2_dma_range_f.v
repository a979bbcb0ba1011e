`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_dma_range_f: ga2_dma (LD writes dst..dst+len-1; ST reads src..src+len-1; the lookup (ldx) reads its index word idx and writes dst..dst+len-1), on a EXT_WORDS-word external memory;
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_dma_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] sp_rd_data, input wire [31:0] ext_rdata
);
  localparam UNIT = `GA2_U_DMA;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
  wire idx_err, ext_en, ext_we;
  wire [`GA2_EXT_ADDR_W-1:0] ext_addr;
  wire [31:0] ext_wdata;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_dma elaborated with SP_WORDS =
  // EXT_WORDS = 16 and its registers made ports (`expose`) before this file is read
  wire ix_q, ad_q, dir_q, bad_q;
  wire [`GA2_LD_LEN_W-1:0] cnt_q, len_q;
  wire [SAW-1:0] sp_q, ia_q;
  ga2_dma dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy),
    .last(last), .idx_err(idx_err), .sp_rd_en(rd_en), .sp_rd_addr(rd_addr),
    .sp_rd_data(sp_rd_data), .sp_wr_en(wr_en), .sp_wr_addr(wr_addr), .sp_wr_data(wr_data),
    .ext_en(ext_en), .ext_we(ext_we), .ext_addr(ext_addr), .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata), .ix_q(ix_q), .ad_q(ad_q), .dir_q(dir_q), .bad_q(bad_q), .cnt_q(cnt_q),
    .len_q(len_q), .sp_q(sp_q), .ia_q(ia_q)
  );

`else
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy),
    .last(last), .idx_err(idx_err), .sp_rd_en(rd_en), .sp_rd_addr(rd_addr),
    .sp_rd_data(sp_rd_data), .sp_wr_en(wr_en), .sp_wr_addr(wr_addr), .sp_wr_data(wr_data),
    .ext_en(ext_en), .ext_we(ext_we), .ext_addr(ext_addr), .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata)
  );

`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len; the lookup's two first cycles (ix, ad) come before
  // any transfer (cnt = 0) and only for a load, and in the first the index word's
  // address is the read range, one word; ST (dir 1): the read range is src .. src + len
  // - 1 and the pointer src + cnt; LD / lookup (dir 0): the write range is dst .. dst + len
  // - 1 and the pointer dst + cnt - 1 once cnt >= 1 (dst if the lookup's index was bad: no write).
  wire [SAW:0] l5 = len_q[SAW:0];
  always @* begin
    if (!init_q && busy) begin
      assert (!r1v_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (!(ix_q && ad_q));
      if (ix_q || ad_q) assert (cnt_q == 0 && !dir_q && !bad_q);
      if (ix_q) assert (r0v_q && ia_q == r0f_q && r0l_q == r0f_q);
      if (dir_q) begin
        assert (r0v_q && !wv_q && {1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
        assert (sp_q == r0f_q + cnt_q[SAW-1:0]);
      end else begin
        assert (wv_q && {1'b0, wf_q} + l5 - 1'b1 == {1'b0, wl_q});
        assert (sp_q == ((cnt_q != 0 && !bad_q) ? wf_q + cnt_q[SAW-1:0] - 1'b1 : wf_q));
      end
    end
  end
`endif
endmodule
`resetall
