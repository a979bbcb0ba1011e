`resetall
`timescale 1ns/1ps
`default_nettype none
// restart_jobs: the restart check's jobs of the DMA, the matrix unit and the divider
// (restart_chk.v; the vector units' are instruction words from their records,
// tb/restart.py): the fields of job J_* (the codes
// in restart_codes.vh) for whichever unit runs it, every other field 0 (divisor 1). Why a
// table of its own: the scenarios (restart_scn.v) name a first and a second job by code,
// and each unit's pair (restart_<unit>.v) takes the fields it needs from here; the busy
// lengths beside each job are those the scenarios' restart cycles are chosen from.
module restart_jobs #(
  parameter AW = 16                       // the scratchpad address width
) (
  input  wire [4:0]    job,
  output reg           f_dir,             // dma: 1 ST
  output reg           f_tb,              // MM: B transposed
  output reg           f_acc,             // MM: accumulate
  output reg           f_a16,             // MM: 16-bit A operands
  output reg           f_ldx,             // dma: the lookup (ldx)
  output reg  [AW-1:0] f_idx,             // ldx: the index word's address
  output reg  [15:0]   f_rows,            // ldx: the rows
  output reg  [AW-1:0] f_dst,
  output reg  [AW-1:0] f_a,               // dma sp_base, MM A
  output reg  [AW-1:0] f_b,               // dma ext_base, MM B
  output reg  [12:0]   f_len,
  output reg  [2:0]    f_m,
  output reg  [2:0]    f_n,
  output reg  [7:0]    f_k,
  output reg  [11:0]   f_lda,
  output reg  [11:0]   f_ldb,
  output reg  [11:0]   f_ldc,
  output reg  [31:0]   f_dvd,             // divu: the dividend
  output reg  [31:0]   f_dvs              // divu: the divisor
);
`include "restart_codes.vh"
  always @* begin
    f_dir = 1'b0; f_tb = 1'b0; f_acc = 1'b0; f_a16 = 1'b0;
    f_dst = {AW{1'b0}}; f_a = {AW{1'b0}}; f_b = {AW{1'b0}};
    f_len = 13'd0; f_m = 3'd0; f_n = 3'd0; f_k = 8'd0;
    f_lda = 12'd0; f_ldb = 12'd0; f_ldc = 12'd0;
    f_dvd = 32'd0; f_dvs = 32'd1;
    f_ldx = 1'b0; f_idx = {AW{1'b0}}; f_rows = 16'd0;
    case (job)
      // dma: dir, sp_base (f_a), ext_base (f_b), len; busy len + 1
      J_LD6: begin f_dir = 1'b0; f_a = 16'd100; f_b = 16'd200;  f_len = 13'd6; end
      J_ST6: begin f_dir = 1'b1; f_a = 16'd300; f_b = 16'd40;   f_len = 13'd6; end
      J_LD5: begin f_dir = 1'b0; f_a = 16'd520; f_b = 16'd900;  f_len = 13'd5; end
      J_ST7: begin f_dir = 1'b1; f_a = 16'd7;   f_b = 16'd1000; f_len = 13'd7; end
      // ldx: busy len + 3 (index 0, address 1, then an LD); LX1's index is a byte
      // (< rows 256), LX2's a full word (>= rows: error 6, no ext access, no write)
      J_LX1: begin f_ldx = 1'b1; f_a = 16'd100; f_b = 16'd300; f_len = 13'd5; f_idx = 16'hF05; f_rows = 16'd256; end
      J_LX2: begin f_ldx = 1'b1; f_a = 16'd40;  f_b = 16'd20;  f_len = 13'd4; f_idx = 16'd77;  f_rows = 16'd256; end
      // mm_ctrl: busy K + 7 + M*N (A, C: 32; B: 18; D: 26)
      J_MMA: begin f_dst = 16'd800; f_a = 16'd100; f_b = 16'd300; f_m = 3'd4; f_k = 8'd9; f_n = 3'd4;
                   f_tb = 1'b0; f_lda = 12'd9;  f_ldb = 12'd4; f_ldc = 12'd4; f_acc = 1'b1; end
      J_MMB: begin f_dst = 16'd50;  f_a = 16'd400; f_b = 16'd450; f_m = 3'd3; f_k = 8'd5; f_n = 3'd2;
                   f_tb = 1'b1; f_lda = 12'd7;  f_ldb = 12'd5; f_ldc = 12'd3; f_acc = 1'b1; f_a16 = 1'b1; end
      J_MMC: begin f_dst = 16'd900; f_a = 16'd130; f_b = 16'd200; f_m = 3'd4; f_k = 8'd9; f_n = 3'd4;
                   f_tb = 1'b0; f_lda = 12'd10; f_ldb = 12'd5; f_ldc = 12'd6; f_acc = 1'b0; end
      J_MMD: begin f_dst = 16'd700; f_a = 16'd20;  f_b = 16'd60;  f_m = 3'd4; f_k = 8'd7; f_n = 3'd3;
                   f_tb = 1'b1; f_lda = 12'd8;  f_ldb = 12'd7; f_ldc = 12'd3; f_acc = 1'b0; f_a16 = 1'b1; end
      // divu: busy 33
      J_DV1: begin f_dvd = 32'hDEADBEEF; f_dvs = 32'd12345; end
      J_DV2: begin f_dvd = 32'h12345678; f_dvs = 32'd7; end
      default: ;
    endcase
  end
endmodule
`resetall
