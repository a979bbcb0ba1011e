`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_softmax_recip_f: what ga2_softmax's FAST pass 3 reads (tb/formal/compose.py
// softmax_recip(); docs/formal_compose.md "The reciprocal constants, proven by composition"), at
// FAST = 1 and SM_MAX_LEN = 64 (the suites' build), for every input sequence with the
// decoder's contract (start -> 1 <= len <= 64), every read value and every reset:
//  - in S_OUT (the only state that writes at FAST = 1) the divider is idle, has shown
//    `last` since its start in S_LOAD and holds the divisor sum_q; e_rd = ebuf[idx_q]
//    <= sum_q <= 64 * 65535 and idx_q < len_q: the element read is one of the summed ones;
//  - in S_DIV the divider is stepping or in its last cycle, with the divisor sum_q.
// The strengthening invariant (1-induction): every buffer entry written in this job (the
// first cnt_q - 1 in S_EXP, all len_q after it) is <= sum_q (stated for one entry j, a
// free constant, so for each), and sum_q <= 2^16 times
// their number (so the sum never wraps); ew_q is that number modulo 64 (0 in S_MAX).
// The exp table is cut (e free: every 16-bit value, more than the table gives).
// The buffer is mapped to registers and each entry exposed (ebuf[0] .. ebuf[63]), as
// are the registers below (props: compose.softmax_recip's `pre`).
module ga2_softmax_recip_f (
  input wire                      clk,
  input wire                      rst,
  input wire                      start,
  input wire [`GA2_ADDR_W-1:0]    dst,
  input wire [`GA2_ADDR_W-1:0]    src,
  input wire [`GA2_SM_LEN_W-1:0]  len,
  input wire [7:0]                rd_byte
);
  localparam N = 64;
  localparam [2:0] S_IDLE = 3'd0, S_LOAD = 3'd1, S_MAX = 3'd2, S_EXP = 3'd3, S_DIV = 3'd4,
                   S_OUT = 3'd5;
  wire busy, last, rd_en, wr_en, div_step, div_last;
  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;
  wire [31:0] wr_data, div_dsr;
  wire [2:0]  state_q;
  wire [6:0]  cnt_q, len_q;
  wire [5:0]  ew_q, idx_q;
  wire [21:0] sum_q;
  wire [15:0] e_rd;
  wire [16*N-1:0] eb;

  // the unit takes the instruction word: the free fields at their record's bits
  wire [`GA2_INSTR_W-1:0] instr = `GA2_SM_WORD(dst, src, len);
  ga2_softmax dut (
    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({24'd0, rd_byte}),
    .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
    .state_q(state_q), .cnt_q(cnt_q), .len_q(len_q), .ew_q(ew_q), .idx_q(idx_q), .sum_q(sum_q),
    .e_rd(e_rd), .\u_div.step_q (div_step), .\u_div.last_q (div_last), .\u_div.dsr_q (div_dsr),
    .\ebuf[0] (eb[15:0]), .\ebuf[1] (eb[31:16]), .\ebuf[2] (eb[47:32]), .\ebuf[3] (eb[63:48]),
    .\ebuf[4] (eb[79:64]), .\ebuf[5] (eb[95:80]), .\ebuf[6] (eb[111:96]), .\ebuf[7] (eb[127:112]),
    .\ebuf[8] (eb[143:128]), .\ebuf[9] (eb[159:144]), .\ebuf[10] (eb[175:160]), .\ebuf[11] (eb[191:176]),
    .\ebuf[12] (eb[207:192]), .\ebuf[13] (eb[223:208]), .\ebuf[14] (eb[239:224]), .\ebuf[15] (eb[255:240]),
    .\ebuf[16] (eb[271:256]), .\ebuf[17] (eb[287:272]), .\ebuf[18] (eb[303:288]), .\ebuf[19] (eb[319:304]),
    .\ebuf[20] (eb[335:320]), .\ebuf[21] (eb[351:336]), .\ebuf[22] (eb[367:352]), .\ebuf[23] (eb[383:368]),
    .\ebuf[24] (eb[399:384]), .\ebuf[25] (eb[415:400]), .\ebuf[26] (eb[431:416]), .\ebuf[27] (eb[447:432]),
    .\ebuf[28] (eb[463:448]), .\ebuf[29] (eb[479:464]), .\ebuf[30] (eb[495:480]), .\ebuf[31] (eb[511:496]),
    .\ebuf[32] (eb[527:512]), .\ebuf[33] (eb[543:528]), .\ebuf[34] (eb[559:544]), .\ebuf[35] (eb[575:560]),
    .\ebuf[36] (eb[591:576]), .\ebuf[37] (eb[607:592]), .\ebuf[38] (eb[623:608]), .\ebuf[39] (eb[639:624]),
    .\ebuf[40] (eb[655:640]), .\ebuf[41] (eb[671:656]), .\ebuf[42] (eb[687:672]), .\ebuf[43] (eb[703:688]),
    .\ebuf[44] (eb[719:704]), .\ebuf[45] (eb[735:720]), .\ebuf[46] (eb[751:736]), .\ebuf[47] (eb[767:752]),
    .\ebuf[48] (eb[783:768]), .\ebuf[49] (eb[799:784]), .\ebuf[50] (eb[815:800]), .\ebuf[51] (eb[831:816]),
    .\ebuf[52] (eb[847:832]), .\ebuf[53] (eb[863:848]), .\ebuf[54] (eb[879:864]), .\ebuf[55] (eb[895:880]),
    .\ebuf[56] (eb[911:896]), .\ebuf[57] (eb[927:912]), .\ebuf[58] (eb[943:928]), .\ebuf[59] (eb[959:944]),
    .\ebuf[60] (eb[975:960]), .\ebuf[61] (eb[991:976]), .\ebuf[62] (eb[1007:992]), .\ebuf[63] (eb[1023:1008])
  );

  // reset in the first cycle (arm: every later one), then every reset and start free
  reg arm = 1'b0;
  reg ddone;                     // the divider has shown last since its start in S_LOAD
  always @(posedge clk) begin
    arm <= 1'b1;
    if (state_q == S_LOAD) ddone <= 1'b0;
    else if (div_last)     ddone <= 1'b1;
  end

  always @* begin
    if (!arm) assume (rst);
    assume (!start || (len >= 1 && len <= N));     // the decoder's contract
  end

  // the entries written in this job: cnt_q - 1 in S_EXP (0 in its first cycle), len_q after
  wire [6:0]  nw   = (state_q == S_EXP) ? ((cnt_q == 7'd0) ? 7'd0 : cnt_q - 7'd1) : len_q;
  wire        post = (state_q == S_LOAD) || (state_q == S_DIV) || (state_q == S_OUT);
  wire [22:0] cap  = {nw, 16'd0};        // sum_q <= 2^16 per entry written: it never wraps
  // one entry, any (a free constant j: the assertion holds for every j); e_rd is entry idx_q
  (* anyconst *) reg [5:0] j;
  wire [15:0] e_j = eb[16*j +: 16];
  always @* if (arm && (state_q == S_EXP || post) && {1'b0, j} < nw) assert (e_j <= sum_q);

  always @* if (arm) begin
    if (state_q != S_OUT && state_q != S_IDLE) assert (idx_q == 6'd0);
    if (state_q == S_MAX) assert (len_q >= 7'd1 && len_q <= N && cnt_q <= len_q && ew_q == 6'd0 && sum_q == 22'd0);
    if (state_q == S_EXP) assert (len_q >= 7'd1 && len_q <= N && cnt_q <= len_q && ew_q == nw[5:0]);
    if (post) assert (len_q >= 7'd1 && len_q <= N && idx_q < len_q);
    if (state_q == S_EXP || post) assert ({1'b0, sum_q} <= cap);
    if (state_q == S_OUT && idx_q == j) assert (e_rd == e_j);   // so e_rd <= sum_q
    // the divider: started in S_LOAD with sum_q, done (and idle) in S_OUT
    if (state_q == S_DIV) assert ((div_step || div_last) && !ddone && div_dsr == {10'd0, sum_q});
    if (state_q == S_OUT) assert (!div_step && ddone && div_dsr == {10'd0, sum_q});
    if (div_last) assert (!div_step);
  end
endmodule
`resetall
