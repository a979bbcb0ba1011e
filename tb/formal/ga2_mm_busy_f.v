`default_nettype none
// ga2_mm_busy_f: ga2_mm_ctrl (with ga2_systolic) busy for exactly KE + MM_FILL + M * N
// cycles (model/timing.py busy_cycles; docs/isa.md), for 1 <= M, N <= 4, 1 <= KE = K + 256 khi
// <= KMAX and every base, stride, tb, acc and a16 value.
module ga2_mm_busy_f #(
  parameter SP_WORDS = 16, parameter MM_FILL = 7, parameter KMAX = 16
) (
  input wire clk, input wire rst, input wire start,
  input wire [`GA2_ADDR_W-1:0] dst, input wire [`GA2_ADDR_W-1:0] a_base,
  input wire [`GA2_ADDR_W-1:0] b_base, input wire [`GA2_MM_M_W-1:0] m,
  input wire [`GA2_MM_K_W-1:0] k, input wire [`GA2_MM_KHI_W-1:0] khi, input wire a16,
  input wire [`GA2_MM_N_W-1:0] n, input wire tb,
  input wire [`GA2_MM_LDA_W-1:0] lda, input wire [`GA2_MM_LDB_W-1:0] ldb,
  input wire [`GA2_MM_LDC_W-1:0] ldc, input wire acc,
  input wire [2*`GA2_ARRAY*8-1:0] rd_byte, input wire [`GA2_ARRAY*8-1:0] rd_ahi,
  input wire [31:0] rd_word0
);
  localparam CW = 20;
  wire busy, last, wr_en;
  wire [2*`GA2_ARRAY-1:0] rd_en;
  wire [2*`GA2_ARRAY*`GA2_ADDR_W-1:0] rd_addr;
  wire [`GA2_ADDR_W-1:0] wr_addr;
  wire [31:0] wr_data;
  ga2_mm_ctrl #(.SP_WORDS(SP_WORDS)) dut (
    .clk(clk), .rst(rst), .start(start), .dst(dst), .a_base(a_base), .b_base(b_base),
    .m(m), .k(k), .khi(khi), .a16(a16), .n(n), .tb(tb), .lda(lda), .ldb(ldb), .ldc(ldc),
    .acc(acc), .busy(busy), .last(last), .rd_en(rd_en), .rd_addr(rd_addr), .rd_byte(rd_byte),
    .rd_ahi(rd_ahi),
    .rd_word0(rd_word0), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data)
  );
  wire [CW-1:0] ke = {khi, k};
  wire legal = m >= 1 && m <= 4 && n >= 1 && n <= 4 && ke >= 1 && ke <= KMAX;
  wire [CW-1:0] L_new = ke + MM_FILL + m * n;
`include "busy_chk.vh"
endmodule
