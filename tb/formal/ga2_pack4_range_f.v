`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_pack4_range_f: ga2_pack4 (un 0, packing: reads 2 len words at src, writes len at dst; un 1: reads len, writes 2 len);
// every scratchpad access lies in the range ga2_decode reports for the started
// instruction (the range ga2_hazard reserves for it), and happens only while the unit is
// busy (range_chk.vh). The unit sits behind the chip's own decoder on a free instruction
// word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data free.
module ga2_pack4_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [7:0] rd_byte
);
  localparam UNIT = `GA2_U_PACK4;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_pack4 elaborated with SP_WORDS
  // = 16 and its registers made ports (`expose`) before this file is read
  localparam LW = 4;                         // ga2_pack4's LW at SP_WORDS = 16
  wire ph_q, un_q;
  wire [LW-1:0] cnt_q, len_q;
  wire [SAW-1:0] rp_q, wp_q;
  ga2_pack4 dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data), .ph_q(ph_q), .un_q(un_q),
    .cnt_q(cnt_q), .len_q(len_q), .rp_q(rp_q), .wp_q(wp_q)
  );
`else
  ga2_pack4 #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len, 2 len <= SP_WORDS, cnt <= len; packing (un 0): the read range is src ..
  // src + 2 len - 1, the write range dst .. dst + len - 1, the read pointer src + 2 cnt +
  // ph, the write pointer dst + cnt (ph 1) or dst + cnt - 1 (ph 0, cnt >= 1); unpacking (un 1):
  // the read range src .. src + len - 1, the write range dst .. dst + 2 len - 1, the read
  // pointer src + cnt + ph, the write pointer dst (cnt 0) or dst + 2 cnt - 1 + ph.
  wire [SAW:0] l5 = {1'b0, len_q};
  // the pointers' expected values, modulo 2^SAW like the pointers themselves
  wire [SAW-1:0] c2 = {cnt_q[SAW-2:0], 1'b0};
  wire [SAW-1:0] rp_pk = r0f_q + c2 + ph_q;
  wire [SAW-1:0] wp_pk = wf_q + cnt_q - (!ph_q && cnt_q != 0);
  wire [SAW-1:0] rp_up = r0f_q + cnt_q + ph_q;
  wire [SAW-1:0] wp_up = (cnt_q == 0) ? wf_q : wf_q + c2 - 1'b1 + ph_q;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && 2 * l5 <= SP_WORDS && cnt_q <= len_q);
      if (!un_q) begin
        assert ({1'b0, r0f_q} + 2 * l5 - 1'b1 == {1'b0, r0l_q});
        assert ({1'b0, wf_q} + l5 - 1'b1 == {1'b0, wl_q});
        assert (rp_q == rp_pk);
        assert (wp_q == wp_pk);
      end else begin
        assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
        assert ({1'b0, wf_q} + 2 * l5 - 1'b1 == {1'b0, wl_q});
        assert (rp_q == rp_up);
        assert (wp_q == wp_up);
      end
    end
  end
`endif
endmodule
`resetall
