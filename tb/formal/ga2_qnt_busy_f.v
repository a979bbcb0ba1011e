`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_qnt_busy_f: ga2_qnt (QNT) busy for exactly its record's formula, 2 len + TAIL_PLAIN
// (rms = 0) or 2 len + TAIL_RMS (rms = 1) cycles after each start (model/ops/qnt.py:
// tb/formal/props.py passes its TAIL_PLAIN and TAIL_RMS), for 1 <= len <= LMAX = 15 (the
// unit elaborated with SP_WORDS = 16, where the decoder's dst + len + 1 <= 16 allows len
// 15 at most: len_q 4 bits, the phase counter 7), every other field and every read value, a start free in every cycle after the reset (a
// start while busy is a restart), by k-induction (yosys-smtbmc with z3): abc pdr on the
// generated wrapper needs about a frame per busy cycle (208 at len 16) and had reached 62
// in 900 s. The check is busy_chk.vh's (busy exactly in cycles 1..L of the latest start,
// last exactly in cycle L); the lemmas that make the induction close are asserted too
// (so proven, not assumed), over ga2_qnt's exposed registers: while the check's count
// el is within 1..L the unit is in a phase of its FSM with the latched len and rms (the
// square root's phases only with rms), its phase counter at most the phase's last count, and el = 1 + the phase's first cycle +
// cnt (the phases' offsets below: the unit's structure, rtl/ga2_qnt.v); after L it is
// idle.
module ga2_qnt_busy_f #(
  parameter LMAX = 15, parameter TAIL_PLAIN = 62, parameter TAIL_RMS = 176, parameter CW = 9
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] src,
  input wire [12:0] len, input wire [4:0] q, input wire b16, input wire rms,
  input wire [31:0] rd_data
);
  wire busy, last, rd_en, wr_en;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data;
  wire [3:0] state_q;
  wire [6:0] cnt_q;
  wire [3:0] len_q;
  wire rms_q;
  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_QNT_WORD(dst, src, len, q, b16, rms);
  ga2_qnt dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en),
    .rd_addr(rd_addr), .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .rms_q(rms_q)
  );
  wire legal = len >= 13'd1 && len <= LMAX;
  localparam [3:0] S_IDLE = 4'd0, S_P1 = 4'd1, S_N1 = 4'd2, S_DL = 4'd3, S_N2 = 4'd4,
                   S_SQ = 4'd5, S_LR = 4'd6, S_DR = 4'd7, S_P2 = 4'd8, S_LM = 4'd9,
                   S_DM = 4'd10, S_WS = 4'd11;

  reg init_q = 1'b1;
  reg act_q  = 1'b0;                 // a start has happened since the reset
  reg [CW-1:0] el_q = {CW{1'b0}};    // cycles since it (1 in the first busy cycle, saturating)
  reg [CW-1:0] L_q = {CW{1'b0}};     // the record's formula for its fields
  reg [12:0] ln_q = 13'd0;
  reg rm_q = 1'b0;
  wire [31:0] L_new = 32'd2 * {19'd0, len} + (rms ? TAIL_RMS : TAIL_PLAIN);
  always @(posedge clk) begin
    init_q <= 1'b0;
    if (rst) begin
      act_q <= 1'b0;
      el_q  <= {CW{1'b0}};
    end else if (start) begin
      act_q <= 1'b1;
      el_q  <= {{(CW-1){1'b0}}, 1'b1};
      L_q   <= L_new[CW-1:0];
      ln_q  <= len;
      rm_q  <= rms;
    end else if (el_q != {CW{1'b1}}) begin
      el_q <= el_q + 1'b1;
    end
  end

  // the lemmas' phase model: each state's first cycle after the start (0-based) and its
  // phase counter's last value
  wire [31:0] ln = {19'd0, ln_q};
  wire [31:0] lr = rm_q ? ln + 32'd121 : ln + 32'd7;      // S_LR's first cycle
  reg  [31:0] off, last_cnt;
  always @* begin
    case (state_q)
      S_P1:    begin off = 32'd0;             last_cnt = ln;     end
      S_N1:    begin off = ln + 32'd1;        last_cnt = 32'd5;  end
      S_DL:    begin off = ln + 32'd7;        last_cnt = 32'd75; end
      S_N2:    begin off = ln + 32'd83;       last_cnt = 32'd5;  end
      S_SQ:    begin off = ln + 32'd89;       last_cnt = 32'd31; end
      S_LR:    begin off = lr;                last_cnt = 32'd0;  end
      S_DR:    begin off = lr + 32'd1;        last_cnt = 32'd31; end
      S_P2:    begin off = lr + 32'd33;       last_cnt = ln;     end
      S_LM:    begin off = lr + ln + 32'd34;  last_cnt = 32'd0;  end
      S_DM:    begin off = lr + ln + 32'd35;  last_cnt = 32'd18; end
      S_WS:    begin off = lr + ln + 32'd54;  last_cnt = 32'd0;  end
      default: begin off = 32'hFFFF_FFFF;     last_cnt = 32'd0;  end
    endcase
  end
  wire [31:0] el = {{(32-CW){1'b0}}, el_q};
  wire [31:0] L  = {{(32-CW){1'b0}}, L_q};

  always @* begin
    if (init_q) assume (rst);
    assume (!start || legal);
    if (!rst && !init_q) begin
      if (start) assert (L_new < (1 << CW) - 1);
      assert (busy == (act_q && el_q <= L_q));
      assert (last == (act_q && el_q == L_q));
    end
    if (!init_q) begin
      // the lemmas
      if (!act_q) assert (state_q == S_IDLE);
      if (act_q) begin
        assert (ln >= 32'd1 && ln <= LMAX && L == 32'd2 * ln + (rm_q ? TAIL_RMS : TAIL_PLAIN));
        if (el >= 32'd1 && el <= L)
          assert (state_q != S_IDLE && state_q <= S_WS && {9'd0, len_q} == ln_q && rms_q == rm_q
                  && (rm_q || (state_q != S_DL && state_q != S_N2 && state_q != S_SQ))
                  && {25'd0, cnt_q} <= last_cnt && el == 32'd1 + off + {25'd0, cnt_q});
        else
          assert (state_q == S_IDLE);
      end
    end
  end
endmodule
`resetall
