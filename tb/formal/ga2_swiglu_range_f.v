`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_swiglu_range_f: ga2_swiglu (SWIGLU): reads src..src+len-1 and src2..src2+len-1,
// writes dst..dst+len-1; every scratchpad access lies in the range ga2_decode reports for
// the started instruction (the range ga2_hazard reserves for it), and happens only while
// the unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a free
// instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all data
// free (the datapath cut: tb/formal/props.py LINK_CUTS).
module ga2_swiglu_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] rd_data
);
  localparam UNIT = `GA2_U_SWIGLU;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py link(..., induction=True)): ga2_swiglu elaborated
  // with SP_WORDS = 16 and its registers made ports (`expose`) before this file is read
  wire [2:0] ph_q;
  wire [`GA2_SWIGLU_LEN_W-1:0] cnt_q, len_q;
  wire [SAW-1:0] ap_q, bp_q, wp_q;
  ga2_swiglu dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data), .ph_q(ph_q), .cnt_q(cnt_q),
    .len_q(len_q), .ap_q(ap_q), .bp_q(bp_q), .wp_q(wp_q)
  );
`else
  ga2_swiglu #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len, the phase 0..5 and 0 when cnt = len; each
  // latched range is base .. base + len - 1 (no wrap); src's pointer is src + cnt, plus
  // one after phase 0 (it steps in every phase 0); src2's src2 + cnt, plus one after
  // phase 1; dst's dst + cnt, less one in a phase 0 after the first element (that
  // phase's write is still to come).
  wire [SAW:0] len5 = len_q[SAW:0];
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (ph_q <= 3'd5 && (cnt_q != len_q || ph_q == 3'd0));
      assert ({1'b0, r0f_q} + len5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, r1f_q} + len5 - 1'b1 == {1'b0, r1l_q});
      assert ({1'b0, wf_q} + len5 - 1'b1 == {1'b0, wl_q});
      assert (ap_q == r0f_q + cnt_q[SAW-1:0] + (ph_q != 3'd0));
      assert (bp_q == r1f_q + cnt_q[SAW-1:0] + (ph_q >= 3'd2));
      assert (wp_q == wf_q + cnt_q[SAW-1:0] - (ph_q == 3'd0 && cnt_q != 0));
    end
  end
`endif
endmodule
`resetall
