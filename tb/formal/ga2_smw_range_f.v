`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_smw_range_f: ga2_smw: reads src..src+len-1 (three passes), writes
// dst..dst+len-1; every scratchpad access lies in the range ga2_decode reports for the
// started instruction (the range ga2_hazard reserves for it), and happens only while the
// unit is busy (range_chk.vh). The unit sits behind the chip's own decoder on a free
// instruction word (range_dec.vh), wired as in ga2_top; SP_WORDS-word scratchpad, all
// data free. ABC pdr on the generated wrapper (tb/formal/gen.py) did not close in 600 s:
// k-induction with the lemmas below (tb/formal/props.py LINK_INDUCTION).
module ga2_smw_range_f #(
  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0
) (
  input wire clk, input wire rst, input wire start, input wire [127:0] instr,
  input wire [31:0] rd_data
);
  localparam UNIT = `GA2_U_SMW;
  localparam NR = 1;
  localparam RDW = 0;
`include "range_dec.vh"
  wire busy, last, wr_en;
  wire [NR-1:0] rd_en;
  wire [NR*AW-1:0] rd_addr;
  wire [AW-1:0] wr_addr;
  wire [31:0] wr_data;
`ifdef LINK_LEMMAS
  // k-induction (tb/formal/props.py LINK_INDUCTION): ga2_smw elaborated with SP_WORDS
  // = 16, its datapath cut and its registers made ports (`expose`) before this file is read
  wire [1:0] state_q;
  wire [`GA2_SMW_LEN_W-1:0] cnt_q, len_q;
  wire [3:0] st_q;
  wire ld_q;
  wire [SAW-1:0] src_q, rp_q, wp_q;
  ga2_smw dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .st_q(st_q), .ld_q(ld_q), .src_q(src_q), .rp_q(rp_q), .wp_q(wp_q)
  );
`else
  ga2_smw #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr),
    .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
`endif
`include "range_chk.vh"
`ifdef LINK_LEMMAS
  // The lemmas that make the induction close, asserted (so proven, not assumed): while
  // busy, 1 <= len <= SP_WORDS, cnt <= len, the latched src is the read range's first
  // word, each range is base .. base + len - 1; the read pointer is src + cnt (each pass
  // restarts both); the write pointer dst until pass 3, there dst + cnt - 1 once cnt >= 1
  // (the boundary with cnt = k writes p_(k-1)); in pass 3 cnt >= 1 but at the first
  // boundary (a step with st = 15).
  localparam [1:0] S_DIV = 2'd2;
  wire [SAW:0] ln = len_q[SAW:0];
  wire [SAW-1:0] rp_x = r0f_q + cnt_q[SAW-1:0];
  wire [SAW-1:0] wp_x = (state_q == S_DIV && cnt_q != 0) ? wf_q + cnt_q[SAW-1:0] - 1'b1 : wf_q;
  always @* begin
    if (!init_q && busy) begin
      assert (r0v_q && !r1v_q && wv_q && len_q >= 1 && len_q <= SP_WORDS && cnt_q <= len_q);
      assert (src_q == r0f_q);
      assert ({1'b0, r0f_q} + ln - 1'b1 == {1'b0, r0l_q});
      assert ({1'b0, wf_q} + ln - 1'b1 == {1'b0, wl_q});
      assert (rp_q == rp_x && wp_q == wp_x);
      if (state_q == S_DIV) assert (cnt_q != 0 || (!ld_q && st_q == 4'd15));
    end
  end
`endif
endmodule
`resetall
