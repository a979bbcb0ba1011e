`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// ga2_top: the GA-2 chip: sequencer, fault checks, counters, units and scratchpad.
//
// Sequencer (one instruction at a time, docs/isa.md timing contract):
//   IDLE / HALTED --start--> FETCH (imem read at pc) -> DECODE (checks; start the unit)
//   -> EXEC (exactly the unit's busy cycles; retire in the last) -> FETCH ...
// HALT retires in DECODE; a fault (codes 1, 4, 2, 3 in that priority, checked in DECODE;
// code 5 when FETCH finds pc == IMEM_DEPTH) writes nothing, is not retired and halts.
// done = state HALTED. cnt_cycles counts every FETCH, DECODE and EXEC cycle; the busy
// counters count the units' busy outputs; retire is asserted in the retiring cycle with
// retire_cycle = cnt_cycles including that cycle.
// Units are started by a one-cycle start pulse and report busy/last, so a later issue
// logic could overlap them; in version 1 EXEC waits for the running unit's last cycle.
module ga2_top #(
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter IMEM_DEPTH = `GA2_IMEM_DEPTH,
  parameter SP_WORDS   = `GA2_SP_WORDS
) (
  input  wire         clk,
  input  wire         rst,
  input  wire         start,
  output wire         done,
  output wire         error,
  output wire [2:0]   error_code,
  output wire [15:0]  error_pc,
  output wire [31:0]  cnt_cycles,
  output wire [31:0]  cnt_mm,
  output wire [31:0]  cnt_dma,
  output wire [31:0]  cnt_vec,
  output wire [31:0]  cnt_instret,
  output wire [15:0]  imem_addr,
  output wire         imem_en,
  input  wire [127:0] imem_rdata,
  output wire [15:0]  ext_addr,
  output wire         ext_en,
  output wire         ext_we,
  output wire [31:0]  ext_wdata,
  input  wire [31:0]  ext_rdata,
  output wire         retire,
  output wire [15:0]  retire_pc,
  output wire [31:0]  retire_cycle
);
  // ceil(log2(SP_WORDS)), the scratchpad address width (2 <= SP_WORDS <= 65536)
  localparam SP_AW = (SP_WORDS <= 2) ? 1 :
                     (SP_WORDS <= 4) ? 2 :
                     (SP_WORDS <= 8) ? 3 :
                     (SP_WORDS <= 16) ? 4 :
                     (SP_WORDS <= 32) ? 5 :
                     (SP_WORDS <= 64) ? 6 :
                     (SP_WORDS <= 128) ? 7 :
                     (SP_WORDS <= 256) ? 8 :
                     (SP_WORDS <= 512) ? 9 :
                     (SP_WORDS <= 1024) ? 10 :
                     (SP_WORDS <= 2048) ? 11 :
                     (SP_WORDS <= 4096) ? 12 :
                     (SP_WORDS <= 8192) ? 13 :
                     (SP_WORDS <= 16384) ? 14 :
                     (SP_WORDS <= 32768) ? 15 :
                     (SP_WORDS <= 65536) ? 16 : 17;
  localparam NA    = `GA2_ARRAY;
  localparam AW    = `GA2_ADDR_W;
  localparam NRD   = 2 * NA;                  // scratchpad read ports (MM: A rows, B columns)

  initial begin
    if (EXT_WORDS < 1 || EXT_WORDS > 65536) begin
      $error("ga2_top: EXT_WORDS=%0d outside 1..65536", EXT_WORDS);
      $finish;
    end
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > 65535) begin
      $error("ga2_top: IMEM_DEPTH=%0d outside 1..65535 (pc is 16 bits)", IMEM_DEPTH);
      $finish;
    end
    if (SP_WORDS < 2 || SP_WORDS > 65536) begin
      $error("ga2_top: SP_WORDS=%0d outside 2..65536", SP_WORDS);
      $finish;
    end
    if (NA != 4) begin
      $error("ga2_top: the matrix unit is built for a 4 x 4 array, ARRAY=%0d", NA);
      $finish;
    end
  end

  localparam [2:0] S_IDLE = 3'd0, S_FETCH = 3'd1, S_DECODE = 3'd2, S_EXEC = 3'd3, S_HALTED = 3'd4;

  // ------------------------------------------------------------------ decode
  /* verilator lint_off UNUSEDSIGNAL */
  // Bits above the widest op's last field (MM ldc, bit 102) carry nothing; the decoder
  // ignores them, like model/isa.decode.
  wire [127:0] iw = imem_rdata;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [3:0]   op = iw[`GA2_OP_W-1:0];
  wire is_ld   = (op == `GA2_OP_LD);
  wire is_st   = (op == `GA2_OP_ST);
  wire is_mm   = (op == `GA2_OP_MM);
  wire is_rq   = (op == `GA2_OP_RQ);
  wire is_sm   = (op == `GA2_OP_SM);
  wire is_halt = (op == `GA2_OP_HALT);
  wire op_ok   = is_ld | is_st | is_mm | is_rq | is_sm | is_halt;

  wire [AW-1:0]                ld_dst = iw[`GA2_LD_DST_LSB +: `GA2_LD_DST_W];
  wire [AW-1:0]                ld_src = iw[`GA2_LD_SRC_LSB +: `GA2_LD_SRC_W];
  wire [`GA2_LD_LEN_W-1:0]     ld_len = iw[`GA2_LD_LEN_LSB +: `GA2_LD_LEN_W];
  wire [AW-1:0]                st_src = iw[`GA2_ST_SRC_LSB +: `GA2_ST_SRC_W];
  wire [AW-1:0]                st_dst = iw[`GA2_ST_DST_LSB +: `GA2_ST_DST_W];
  wire [`GA2_ST_LEN_W-1:0]     st_len = iw[`GA2_ST_LEN_LSB +: `GA2_ST_LEN_W];
  wire [AW-1:0]                mm_dst = iw[`GA2_MM_DST_LSB +: `GA2_MM_DST_W];
  wire [AW-1:0]                mm_a   = iw[`GA2_MM_A_LSB +: `GA2_MM_A_W];
  wire [AW-1:0]                mm_b   = iw[`GA2_MM_B_LSB +: `GA2_MM_B_W];
  wire [`GA2_MM_M_W-1:0]       mm_m   = iw[`GA2_MM_M_LSB +: `GA2_MM_M_W];
  wire [`GA2_MM_K_W-1:0]       mm_k   = iw[`GA2_MM_K_LSB +: `GA2_MM_K_W];
  wire [`GA2_MM_N_W-1:0]       mm_n   = iw[`GA2_MM_N_LSB +: `GA2_MM_N_W];
  wire                         mm_tb  = iw[`GA2_MM_TB_LSB];
  wire [`GA2_MM_LDA_W-1:0]     mm_lda = iw[`GA2_MM_LDA_LSB +: `GA2_MM_LDA_W];
  wire [`GA2_MM_LDB_W-1:0]     mm_ldb = iw[`GA2_MM_LDB_LSB +: `GA2_MM_LDB_W];
  wire [`GA2_MM_LDC_W-1:0]     mm_ldc = iw[`GA2_MM_LDC_LSB +: `GA2_MM_LDC_W];
  wire [AW-1:0]                rq_dst = iw[`GA2_RQ_DST_LSB +: `GA2_RQ_DST_W];
  wire [AW-1:0]                rq_src = iw[`GA2_RQ_SRC_LSB +: `GA2_RQ_SRC_W];
  wire [`GA2_RQ_LEN_W-1:0]     rq_len = iw[`GA2_RQ_LEN_LSB +: `GA2_RQ_LEN_W];
  wire [`GA2_RQ_M_W-1:0]       rq_m   = iw[`GA2_RQ_M_LSB +: `GA2_RQ_M_W];
  wire [`GA2_RQ_S_W-1:0]       rq_s   = iw[`GA2_RQ_S_LSB +: `GA2_RQ_S_W];
  wire [AW-1:0]                sm_dst = iw[`GA2_SM_DST_LSB +: `GA2_SM_DST_W];
  wire [AW-1:0]                sm_src = iw[`GA2_SM_SRC_LSB +: `GA2_SM_SRC_W];
  wire [`GA2_SM_LEN_W-1:0]     sm_len = iw[`GA2_SM_LEN_LSB +: `GA2_SM_LEN_W];

  // ------------------------------------------------------------------ fault checks
  // All range arithmetic in 32 bits (no wrap): a field sum reaching past the memory
  // faults. Priority: opcode (1), shape (4), scratchpad range (2), external range (3).
  localparam [31:0] SP_END   = SP_WORDS;
  localparam [31:0] EXT_END  = EXT_WORDS;
  localparam [31:0] SM_LIMIT = `GA2_SM_MAX_LEN;

  // n * x for n = 0..3 (M-1 or N-1 once the shape check has passed)
  function [31:0] mul03;
    input [1:0]  n;
    input [11:0] x;
    begin
      case (n)
        2'd0:    mul03 = 32'd0;
        2'd1:    mul03 = {20'd0, x};
        2'd2:    mul03 = {19'd0, x, 1'b0};
        default: mul03 = {20'd0, x} + {19'd0, x, 1'b0};
      endcase
    end
  endfunction

  // a 16-bit field as 32 bits
  function [31:0] z32;
    input [15:0] v;
    begin
      z32 = {16'd0, v};
    end
  endfunction

  wire [31:0] ld_len32 = {19'd0, ld_len};
  wire [31:0] st_len32 = {19'd0, st_len};
  wire [31:0] rq_len32 = {19'd0, rq_len};
  wire [31:0] sm_len32 = {19'd0, sm_len};
  wire [1:0]  mm_m1    = mm_m[1:0] - 2'd1;                // M-1 once 1 <= M <= 4
  wire [1:0]  mm_n1    = mm_n[1:0] - 2'd1;
  wire [31:0] mm_k32   = {24'd0, mm_k};
  wire [7:0]  mm_k1    = mm_k - 8'd1;
  wire [19:0] mm_kldb20 = {12'd0, mm_k1} * {8'd0, mm_ldb};  // (K-1)*ldb < 2^20
  wire [31:0] mm_kldb  = {12'd0, mm_kldb20};
  wire [31:0] mm_n32   = {29'd0, mm_n};
  wire [31:0] mm_a_last = z32(mm_a) + mul03(mm_m1, mm_lda) + mm_k32 - 32'd1;
  wire [31:0] mm_b_last = mm_tb ? z32(mm_b) + mul03(mm_n1, mm_ldb) + mm_k32 - 32'd1
                                : z32(mm_b) + mm_kldb + mm_n32 - 32'd1;
  wire [31:0] mm_d_last = z32(mm_dst) + mul03(mm_m1, mm_ldc) + mm_n32 - 32'd1;

  reg shape_bad, sp_bad, ext_bad;
  always @* begin
    shape_bad = 1'b0;
    sp_bad    = 1'b0;
    ext_bad   = 1'b0;
    case (op)
      `GA2_OP_LD: begin
        shape_bad = (ld_len == {`GA2_LD_LEN_W{1'b0}});
        sp_bad    = (z32(ld_dst) + ld_len32 > SP_END);
        ext_bad   = (z32(ld_src) + ld_len32 > EXT_END);
      end
      `GA2_OP_ST: begin
        shape_bad = (st_len == {`GA2_ST_LEN_W{1'b0}});
        sp_bad    = (z32(st_src) + st_len32 > SP_END);
        ext_bad   = (z32(st_dst) + st_len32 > EXT_END);
      end
      `GA2_OP_MM: begin
        shape_bad = (mm_m == 3'd0) || (mm_m > 3'd4) || (mm_n == 3'd0) || (mm_n > 3'd4) ||
                    (mm_k == 8'd0);
        sp_bad    = (mm_a_last >= SP_END) || (mm_b_last >= SP_END) || (mm_d_last >= SP_END);
      end
      `GA2_OP_RQ: begin
        shape_bad = (rq_len == {`GA2_RQ_LEN_W{1'b0}});
        sp_bad    = (z32(rq_src) + rq_len32 > SP_END) || (z32(rq_dst) + rq_len32 > SP_END);
      end
      `GA2_OP_SM: begin
        shape_bad = (sm_len == {`GA2_SM_LEN_W{1'b0}}) || (sm_len32 > SM_LIMIT);
        sp_bad    = (z32(sm_src) + sm_len32 > SP_END) || (z32(sm_dst) + sm_len32 > SP_END);
      end
      default: begin
        shape_bad = 1'b0;
      end
    endcase
  end

  reg [2:0] fault_code;                                 // 0: no fault
  always @* begin
    if (!op_ok)         fault_code = `GA2_ERR_OPCODE;
    else if (shape_bad) fault_code = `GA2_ERR_SHAPE;
    else if (sp_bad)    fault_code = `GA2_ERR_SP_RANGE;
    else if (ext_bad)   fault_code = `GA2_ERR_EXT_RANGE;
    else                fault_code = 3'd0;
  end

  // ------------------------------------------------------------------ sequencer
  reg [2:0]  state_r, state_n;
  reg [15:0] pc_r, pc_n;
  reg [31:0] c_cyc_r, c_cyc_n, c_mm_r, c_mm_n, c_dma_r, c_dma_n, c_vec_r, c_vec_n, c_ret_r, c_ret_n;
  reg        err_r, err_n;
  reg [2:0]  code_r, code_n;
  reg [15:0] epc_r, epc_n;

  wire dma_busy, dma_last, mm_busy, mm_last, rq_busy, rq_last, sm_busy, sm_last;
  wire unit_last = dma_last | mm_last | rq_last | sm_last;
  wire in_decode = (state_r == S_DECODE);
  wire issue     = in_decode && (fault_code == 3'd0) && !is_halt;
  wire pc_end    = ({16'd0, pc_r} == IMEM_DEPTH);
  wire running   = (state_r == S_FETCH) || (state_r == S_DECODE) || (state_r == S_EXEC);

  always @* begin
    state_n = state_r;
    pc_n    = pc_r;
    c_cyc_n = running ? c_cyc_r + 32'd1 : c_cyc_r;
    c_mm_n  = mm_busy ? c_mm_r + 32'd1 : c_mm_r;
    c_dma_n = dma_busy ? c_dma_r + 32'd1 : c_dma_r;
    c_vec_n = (rq_busy | sm_busy) ? c_vec_r + 32'd1 : c_vec_r;
    c_ret_n = retire ? c_ret_r + 32'd1 : c_ret_r;
    err_n   = err_r;
    code_n  = code_r;
    epc_n   = epc_r;
    case (state_r)
      S_IDLE, S_HALTED: begin
        if (start) begin
          state_n = S_FETCH;
          pc_n    = 16'd0;
          c_cyc_n = 32'd0;
          c_mm_n  = 32'd0;
          c_dma_n = 32'd0;
          c_vec_n = 32'd0;
          c_ret_n = 32'd0;
          err_n   = 1'b0;
          code_n  = 3'd0;
          epc_n   = 16'd0;
        end
      end
      S_FETCH: begin
        if (pc_end) begin
          state_n = S_HALTED;
          err_n   = 1'b1;
          code_n  = `GA2_ERR_PC;
          epc_n   = pc_r;
        end else begin
          state_n = S_DECODE;
        end
      end
      S_DECODE: begin
        if (fault_code != 3'd0) begin
          state_n = S_HALTED;
          err_n   = 1'b1;
          code_n  = fault_code;
          epc_n   = pc_r;
        end else if (is_halt) begin
          state_n = S_HALTED;
        end else begin
          state_n = S_EXEC;
        end
      end
      S_EXEC: begin
        if (unit_last) begin
          state_n = S_FETCH;
          pc_n    = pc_r + 16'd1;
        end
      end
      default: state_n = S_IDLE;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      state_r <= S_IDLE;
      pc_r    <= 16'd0;
      c_cyc_r <= 32'd0;
      c_mm_r  <= 32'd0;
      c_dma_r <= 32'd0;
      c_vec_r <= 32'd0;
      c_ret_r <= 32'd0;
      err_r   <= 1'b0;
      code_r  <= 3'd0;
      epc_r   <= 16'd0;
    end else begin
      state_r <= state_n;
      pc_r    <= pc_n;
      c_cyc_r <= c_cyc_n;
      c_mm_r  <= c_mm_n;
      c_dma_r <= c_dma_n;
      c_vec_r <= c_vec_n;
      c_ret_r <= c_ret_n;
      err_r   <= err_n;
      code_r  <= code_n;
      epc_r   <= epc_n;
    end
  end

  assign done         = (state_r == S_HALTED);
  assign error        = err_r;
  assign error_code   = code_r;
  assign error_pc     = epc_r;
  assign cnt_cycles   = c_cyc_r;
  assign cnt_mm       = c_mm_r;
  assign cnt_dma      = c_dma_r;
  assign cnt_vec      = c_vec_r;
  assign cnt_instret  = c_ret_r;
  assign imem_addr    = pc_r;
  assign imem_en      = (state_r == S_FETCH) && !pc_end;
  assign retire       = (in_decode && is_halt) || ((state_r == S_EXEC) && unit_last);
  assign retire_pc    = pc_r;
  assign retire_cycle = c_cyc_r + 32'd1;

  // ------------------------------------------------------------------ units
  wire [NRD*32-1:0] sp_rd_bus;

  wire          dma_sp_re, dma_sp_we;
  wire [AW-1:0] dma_sp_ra, dma_sp_wa;
  wire [31:0]   dma_sp_wd;

  dma u_dma (
    .clk(clk),
    .rst(rst),
    .start(issue && (is_ld || is_st)),
    .dir(is_st),
    .sp_base(is_st ? st_src : ld_dst),
    .ext_base(is_st ? st_dst : ld_src),
    .len(is_st ? st_len : ld_len),
    .busy(dma_busy),
    .last(dma_last),
    .sp_rd_en(dma_sp_re),
    .sp_rd_addr(dma_sp_ra),
    .sp_rd_data(sp_rd_bus[31:0]),
    .sp_wr_en(dma_sp_we),
    .sp_wr_addr(dma_sp_wa),
    .sp_wr_data(dma_sp_wd),
    .ext_en(ext_en),
    .ext_we(ext_we),
    .ext_addr(ext_addr),
    .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata)
  );

  wire [NRD-1:0]    mm_re;
  wire [NRD*AW-1:0] mm_ra;
  wire [NRD*8-1:0]  mm_rbyte;
  wire              mm_we;
  wire [AW-1:0]     mm_wa;
  wire [31:0]       mm_wd;

  mm_ctrl u_mm (
    .clk(clk),
    .rst(rst),
    .start(issue && is_mm),
    .dst(mm_dst),
    .a_base(mm_a),
    .b_base(mm_b),
    .m(mm_m),
    .k(mm_k),
    .n(mm_n),
    .tb(mm_tb),
    .lda(mm_lda),
    .ldb(mm_ldb),
    .ldc(mm_ldc),
    .busy(mm_busy),
    .last(mm_last),
    .rd_en(mm_re),
    .rd_addr(mm_ra),
    .rd_byte(mm_rbyte),
    .wr_en(mm_we),
    .wr_addr(mm_wa),
    .wr_data(mm_wd)
  );

  wire          rq_re, rq_we;
  wire [AW-1:0] rq_ra, rq_wa;
  wire [31:0]   rq_wd;

  vec_rq u_rq (
    .clk(clk),
    .rst(rst),
    .start(issue && is_rq),
    .dst(rq_dst),
    .src(rq_src),
    .len(rq_len),
    .m(rq_m),
    .s(rq_s),
    .busy(rq_busy),
    .last(rq_last),
    .rd_en(rq_re),
    .rd_addr(rq_ra),
    .rd_data(sp_rd_bus[31:0]),
    .wr_en(rq_we),
    .wr_addr(rq_wa),
    .wr_data(rq_wd)
  );

  wire          sm_re, sm_we;
  wire [AW-1:0] sm_ra, sm_wa;
  wire [31:0]   sm_wd;

  softmax u_sm (
    .clk(clk),
    .rst(rst),
    .start(issue && is_sm),
    .dst(sm_dst),
    .src(sm_src),
    .len(sm_len[6:0]),
    .busy(sm_busy),
    .last(sm_last),
    .rd_en(sm_re),
    .rd_addr(sm_ra),
    .rd_byte(sp_rd_bus[7:0]),
    .wr_en(sm_we),
    .wr_addr(sm_wa),
    .wr_data(sm_wd)
  );

  // ------------------------------------------------------------------ scratchpad ports
  // Read port 0 is shared by every unit (one runs at a time in version 1; the first
  // requester wins); ports 1..7 belong to the matrix unit. One write port, same rule.
  /* verilator lint_off UNUSEDSIGNAL */
  // Addresses are ISA-width (16 bits); after the DECODE range checks the bits above
  // SP_AW are zero, so the scratchpad takes only the low SP_AW bits.
  wire [NRD*AW-1:0] rd_addr_mux;
  wire [AW-1:0]     wr_addr_mux;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [NRD-1:0]    rd_en_mux;
  wire [NRD*SP_AW-1:0] sp_rd_addr;

  assign rd_en_mux[0] = dma_sp_re | mm_re[0] | rq_re | sm_re;
  assign rd_addr_mux[0 +: AW] = dma_sp_re ? dma_sp_ra :
                                mm_re[0]  ? mm_ra[0 +: AW] :
                                rq_re     ? rq_ra : sm_ra;
  assign rd_en_mux[NRD-1:1]        = mm_re[NRD-1:1];
  assign rd_addr_mux[NRD*AW-1:AW]  = mm_ra[NRD*AW-1:AW];

  wire          wr_en_mux = dma_sp_we | mm_we | rq_we | sm_we;
  wire [31:0]   wr_data_mux;
  assign wr_addr_mux = dma_sp_we ? dma_sp_wa : mm_we ? mm_wa : rq_we ? rq_wa : sm_wa;
  assign wr_data_mux = dma_sp_we ? dma_sp_wd : mm_we ? mm_wd : rq_we ? rq_wd : sm_wd;

  genvar p;
  generate
    for (p = 0; p < NRD; p = p + 1) begin : g_port
      assign sp_rd_addr[p*SP_AW +: SP_AW] = rd_addr_mux[p*AW +: SP_AW];
      assign mm_rbyte[p*8 +: 8]           = sp_rd_bus[p*32 +: 8];
    end
  endgenerate

  /* verilator lint_off UNUSEDSIGNAL */
  // Ports 1..7 feed only the matrix unit, which reads s8(): their high 24 bits are unused.
  wire [NRD*32-1:0] sp_rd_bus_all = sp_rd_bus;
  /* verilator lint_on UNUSEDSIGNAL */

  sram #(.WORDS(SP_WORDS), .AW(SP_AW), .DW(32), .NUM_RD(NRD)) u_sp (
    .clk(clk),
    .rd_en(rd_en_mux),
    .rd_addr(sp_rd_addr),
    .rd_data(sp_rd_bus),
    .wr_en(wr_en_mux),
    .wr_addr(wr_addr_mux[SP_AW-1:0]),
    .wr_data(wr_data_mux)
  );
endmodule
`resetall
