`resetall
`timescale 1ns/1ps
`default_nettype none
`include "restart_ports.vh"
// restart_mm: the restart check's (restart_chk.v) pair of mm_ctrl units (ga2_systolic and
// ga2_pe inside): A and B, each with its own memory model per read port (restart_rd: the
// low byte of each port's word, and port 0's full word), started by st_a and st_b with the
// same job fields, compared every cycle. Why a pair: a start while A is busy must leave A
// from the next cycle on exactly as B, started from idle in that cycle (docs/rtl.md
// "Start while busy").
// mis[s], with !==: 0 busy, 1 last, 2 rd_en (the 2 * ARRAY ports), 3 rd_addr (each port
// B enables), 4 wr_en, 5 wr_addr, 6 wr_data (where B's wr_en is high), 13 x/z on busy,
// last or an enable (A or B), or on B's address or data where its enable is high.
module restart_mm #(
  parameter SP_WORDS = `GA2_SP_WORDS       // the scratchpad size (pointer widths)
) (
  `RESTART_PAIR_IN                         // clk, rst, st_a, st_b (restart_ports.vh)
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] a_base,
  input  wire [`GA2_ADDR_W-1:0] b_base,
  input  wire [2:0]             m,
  input  wire [7:0]             k,
  input  wire [2:0]             n,
  input  wire                   tb,
  input  wire [11:0]            lda,
  input  wire [11:0]            ldb,
  input  wire [11:0]            ldc,
  input  wire                   acc,
  input  wire                   a16,       // 16-bit A operands (the depth's khi stays 0 here)
  `RESTART_PAIR_OUT                        // busy_a, busy_b, last_b, mis, obs_a, obs_b
);
  localparam AW = `GA2_ADDR_W;
  localparam NP = 2 * `GA2_ARRAY;          // mm_ctrl's read ports

  wire             ma_busy, ma_last, ma_wr_en, mb_busy, mb_last, mb_wr_en;
  wire [NP-1:0]    ma_rd_en, mb_rd_en;
  wire [NP*AW-1:0] ma_rd_addr, mb_rd_addr;
  wire [AW-1:0]    ma_wr_addr, mb_wr_addr;
  wire [31:0]      ma_wr_data, mb_wr_data;
  wire [NP*8-1:0]  ma_byte, mb_byte;       // the low byte of each port's read data
  wire [NP*16-1:0] ma_half, mb_half;       // the low half (A's ports: a16)
  wire [NP*4-1:0]  ma_ahi, mb_ahi;           // bits 15:8 of the A ports (the first NP / 2)
  wire [31:0]      ma_w0, mb_w0;           // port 0's full word
  genvar g;
  generate
    for (g = 0; g < NP; g = g + 1) begin : g_port
      restart_rd #(.AW(AW), .W(16)) u_rd_a (.clk(clk), .en(ma_rd_en[g]), .addr(ma_rd_addr[AW*g +: AW]), .q(ma_half[16*g +: 16]));
      restart_rd #(.AW(AW), .W(16)) u_rd_b (.clk(clk), .en(mb_rd_en[g]), .addr(mb_rd_addr[AW*g +: AW]), .q(mb_half[16*g +: 16]));
      assign ma_byte[8*g +: 8] = ma_half[16*g +: 8];
      assign mb_byte[8*g +: 8] = mb_half[16*g +: 8];
    end
    for (g = 0; g < NP / 2; g = g + 1) begin : g_ahi
      assign ma_ahi[8*g +: 8] = ma_half[16*g + 8 +: 8];
      assign mb_ahi[8*g +: 8] = mb_half[16*g + 8 +: 8];
    end
  endgenerate
  restart_rd #(.AW(AW)) u_w0_a (.clk(clk), .en(ma_rd_en[0]), .addr(ma_rd_addr[AW-1:0]), .q(ma_w0));
  restart_rd #(.AW(AW)) u_w0_b (.clk(clk), .en(mb_rd_en[0]), .addr(mb_rd_addr[AW-1:0]), .q(mb_w0));
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .dst(dst), .a_base(a_base), .b_base(b_base),
    .m(m), .k(k), .khi(3'd0), .a16(a16), .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc),
    .acc(acc), .busy(ma_busy), .last(ma_last), .rd_en(ma_rd_en), .rd_addr(ma_rd_addr),
    .rd_byte(ma_byte), .rd_ahi(ma_ahi), .rd_word0(ma_w0), .wr_en(ma_wr_en), .wr_addr(ma_wr_addr),
    .wr_data(ma_wr_data)
  );
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .dst(dst), .a_base(a_base), .b_base(b_base),
    .m(m), .k(k), .khi(3'd0), .a16(a16), .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc),
    .acc(acc), .busy(mb_busy), .last(mb_last), .rd_en(mb_rd_en), .rd_addr(mb_rd_addr),
    .rd_byte(mb_byte), .rd_ahi(mb_ahi), .rd_word0(mb_w0), .wr_en(mb_wr_en), .wr_addr(mb_wr_addr),
    .wr_data(mb_wr_data)
  );

  assign busy_a = ma_busy;
  assign busy_b = mb_busy;
  assign last_b = mb_last;
  integer pp;
  always @* begin
    mis = 16'd0;
    mis[0] = (ma_busy !== mb_busy);
    mis[1] = (ma_last !== mb_last);
    mis[2] = (ma_rd_en !== mb_rd_en);
    for (pp = 0; pp < NP; pp = pp + 1) begin
      if (mb_rd_en[pp] === 1'b1 && ma_rd_addr[AW*pp +: AW] !== mb_rd_addr[AW*pp +: AW])
        mis[3] = 1'b1;
    end
    mis[4] = (ma_wr_en !== mb_wr_en);
    mis[5] = (mb_wr_en === 1'b1) && (ma_wr_addr !== mb_wr_addr);
    mis[6] = (mb_wr_en === 1'b1) && (ma_wr_data !== mb_wr_data);
    for (pp = 0; pp < NP; pp = pp + 1) begin
      if ((^({AW{mb_rd_en[pp]}} & mb_rd_addr[AW*pp +: AW])) === 1'bx) mis[13] = 1'b1;
    end
    if ((^{ma_busy, ma_last, ma_rd_en, ma_wr_en, mb_busy, mb_last, mb_rd_en, mb_wr_en,
           {AW{mb_wr_en}} & mb_wr_addr, {32{mb_wr_en}} & mb_wr_data}) === 1'bx)
      mis[13] = 1'b1;
  end
  // the observed read addresses: the first four ports (64 bits)
  assign obs_a = {ma_busy, ma_last, ma_wr_en, 5'd0, ma_rd_en, ma_wr_addr, ma_wr_data, ma_rd_addr[63:0]};
  assign obs_b = {mb_busy, mb_last, mb_wr_en, 5'd0, mb_rd_en, mb_wr_addr, mb_wr_data, mb_rd_addr[63:0]};
endmodule
`resetall
