`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_qnt_range_f: ga2_qnt (QNT): reads src..src+len-1 (twice), writes dst..dst+len (the
// q_i and the scale word); every scratchpad access lies in the range ga2_decode reports
// for the started instruction (the range ga2_hazard reserves for it), and happens only
// while the unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a
// free instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad,
// all data free.
module ga2_qnt_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] rd_data
);
  localparam UNIT = `GA2_U_QNT;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_qnt elaborated with SP_WORDS
  // = 16, its datapath cut and its registers made ports (`expose`) before this file is read
  wire [3:0] state_q;
  wire [6:0] cnt_q;                 // SP_WORDS = 16: the phase counter 7 bits, len_q 4
  wire [3:0] len_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
  ga2_qnt dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .src_q(src_q), .rp_q(rp_q), .wp_q(wp_q)
  );
`else
  ga2_qnt #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, a valid state, cnt <= len in the two passes, the latched
  // src is the read range's first word, the read range is src .. src + len - 1 and the
  // write range dst .. dst + len; the read pointer is src + cnt in the passes, src
  // between them and src + len after the second; the write pointer dst + cnt - 1 in
  // S_P2 once cnt >= 1, dst before it and dst + len after it (the scale word's word).
  localparam [3:0] S_P1 = 4'd1, S_P2 = 4'd8, S_LM = 4'd9, S_DM = 4'd10, S_WS = 4'd11;
  wire [SAW:0] l5 = {1'b0, len_q};
  wire [SAW-1:0] c4 = cnt_q[SAW-1:0];
  wire pass  = (state_q == S_P1 || state_q == S_P2);
  wire after = (state_q == S_LM || state_q == S_DM || state_q == S_WS);
  wire [SAW-1:0] rp_x = pass ? r0f_q + c4 : (after ? r0f_q + l5[SAW-1:0] : r0f_q);
  wire [SAW-1:0] wp_x = (state_q == S_P2 && cnt_q != 7'd0) ? wf_q + c4 - 1'b1 :
                        (after ? wf_q + l5[SAW-1:0] : wf_q);
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 4'd1 && state_q <= S_WS);
      if (pass) assert (cnt_q <= {3'd0, len_q});
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + l5 - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + l5 == {1'b0, wl_q});
      assert (rp_q == rp_x && wp_q == wp_x);
    end
  end
`endif
endmodule
`resetall
