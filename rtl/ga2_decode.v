`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
// ga2_decode: the GA-2 instruction decoder and fault checks, combinational.
// instr (the 128-bit instruction word) -> the op one-hot, every op's fields, the unit an
// issued instruction starts (unit_sel) and fault_code: 0 none, else the first of opcode
// (1), shape (4), scratchpad range (2), external range (3) in that priority
// (docs/isa.md), exactly model/isa.py decode() + check() on a chip with these sizes.
// Range arithmetic is exactly as wide as its largest sum (17 bits, 21 for MM B with
// tb = 0, 25 for an external address xhi * 2^16 + src + len, 30 for LDX's table
// xhi * 2^16 + src + rows * len): no wrap, so a field sum reaching past the memory
// faults, and no unused top bit. (Error 6, an LDX row index not below rows, comes
// from data: ga2_dma finds it in EXEC.)
module ga2_decode #(
  parameter SP_WORDS   = `GA2_SP_WORDS,
  parameter EXT_WORDS  = `GA2_EXT_WORDS,
  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN
) (
  /* verilator lint_off UNUSEDSIGNAL */
  // Bits above the widest op's last field (MM acc, bit 103) carry nothing; the decoder
  // ignores them, like model/isa.decode.
  input  wire [127:0]               instr,
  /* verilator lint_on UNUSEDSIGNAL */
  // bit k is opcode k + 1: {UNPACK4, PACK4, NORM, ARGMAX, ADD, LDX, HALT, SM, RQ, MM, ST,
  // LD}; 0: illegal
  output wire [11:0]                op_oh,
  // {ga2_pack4, ga2_norm, ga2_argmax, ga2_vec_add, ga2_softmax, ga2_vec_rq, ga2_mm_ctrl,
  // ga2_dma}
  output wire [7:0]                 unit_sel,
  output reg  [2:0]                 fault_code,
  // LD / ST / LDX (the DMA unit): dir 0 = LD or LDX, 1 = ST; ldx 1 = LDX (sp_base its dst,
  // ext_base its table's full address xhi * 2^16 + src, len its row length, idx the index
  // word, rows the table's rows; ext_base is the full external address: xhi above src/dst)
  output wire                       dma_dir,
  output wire [`GA2_ADDR_W-1:0]     dma_sp_base,
  output wire [`GA2_EXT_ADDR_W-1:0] dma_ext_base,
  output wire [`GA2_LD_LEN_W-1:0]   dma_len,
  output wire                       dma_ldx,
  output wire [`GA2_ADDR_W-1:0]     dma_idx,
  output wire [`GA2_LDX_ROWS_W-1:0] dma_rows,
  // MM
  output wire [`GA2_ADDR_W-1:0]     mm_dst,
  output wire [`GA2_ADDR_W-1:0]     mm_a,
  output wire [`GA2_ADDR_W-1:0]     mm_b,
  output wire [`GA2_MM_M_W-1:0]     mm_m,
  output wire [`GA2_MM_K_W-1:0]     mm_k,
  output wire [`GA2_MM_N_W-1:0]     mm_n,
  output wire                       mm_tb,
  output wire [`GA2_MM_LDA_W-1:0]   mm_lda,
  output wire [`GA2_MM_LDB_W-1:0]   mm_ldb,
  output wire [`GA2_MM_LDC_W-1:0]   mm_ldc,
  output wire                       mm_acc,
  // RQ
  output wire [`GA2_ADDR_W-1:0]     rq_dst,
  output wire [`GA2_ADDR_W-1:0]     rq_src,
  output wire [`GA2_RQ_LEN_W-1:0]   rq_len,
  output wire [`GA2_RQ_M_W-1:0]     rq_m,
  output wire [`GA2_RQ_S_W-1:0]     rq_s,
  output wire                       rq_relu,
  // SM
  output wire [`GA2_ADDR_W-1:0]     sm_dst,
  output wire [`GA2_ADDR_W-1:0]     sm_src,
  output wire [`GA2_SM_LEN_W-1:0]   sm_len,
  // ADD
  output wire [`GA2_ADDR_W-1:0]     add_dst,
  output wire [`GA2_ADDR_W-1:0]     add_src,
  output wire [`GA2_ADD_LEN_W-1:0]  add_len,
  output wire [`GA2_ADDR_W-1:0]     add_src2,
  // ARGMAX
  output wire [`GA2_ADDR_W-1:0]     amax_dst,
  output wire [`GA2_ADDR_W-1:0]     amax_src,
  output wire [`GA2_ARGMAX_LEN_W-1:0] amax_len,
  // NORM
  output wire [`GA2_ADDR_W-1:0]     norm_dst,
  output wire [`GA2_ADDR_W-1:0]     norm_src,
  output wire [`GA2_NORM_LEN_W-1:0] norm_len,
  output wire [`GA2_NORM_M_W-1:0]   norm_m,
  output wire [`GA2_NORM_S_W-1:0]   norm_s,
  // PACK4 / UNPACK4 (one unit, ga2_pack4: pk_unpack 1 = UNPACK4; their fields share bits)
  output wire                       pk_unpack,
  output wire [`GA2_ADDR_W-1:0]     pk_dst,
  output wire [`GA2_ADDR_W-1:0]     pk_src,
  output wire [`GA2_PACK4_LEN_W-1:0] pk_len,
  // the scratchpad ranges of the instruction (model/func.py reads() / writes(); the
  // overlap mode's hazard check, ga2_hazard): first..last inclusive, each with a valid
  // bit. rd0: ST, RQ, SM, ADD, ARGMAX, NORM src, MM A's hull, LDX's index word, PACK4's
  // 2*len and UNPACK4's len words at src; rd1: MM B's hull, ADD src2; wr: LD, LDX, RQ, SM,
  // ADD, NORM dst, ARGMAX's one word, MM dst's hull, PACK4's len and UNPACK4's 2*len words
  // at dst. Exact (16 bits) only for an instruction without fault, the only kind issued.
  output wire                       rd0_v,
  output wire [`GA2_ADDR_W-1:0]     rd0_first,
  output wire [`GA2_ADDR_W-1:0]     rd0_last,
  output wire                       rd1_v,
  output wire [`GA2_ADDR_W-1:0]     rd1_first,
  output wire [`GA2_ADDR_W-1:0]     rd1_last,
  output wire                       wr_v,
  output wire [`GA2_ADDR_W-1:0]     wr_first,
  output wire [`GA2_ADDR_W-1:0]     wr_last
);
  localparam AW = `GA2_ADDR_W;

  initial begin
    // LDX's dst, src and len sit where LD's do (the DMA takes them through LD's wires)
    if (`GA2_LDX_DST_LSB != `GA2_LD_DST_LSB || `GA2_LDX_SRC_LSB != `GA2_LD_SRC_LSB ||
        `GA2_LDX_LEN_LSB != `GA2_LD_LEN_LSB || `GA2_LDX_LEN_W != `GA2_LD_LEN_W) begin
      $error("%m: LDX's dst, src, len are not LD's bits");
      $finish;
    end
    // PACK4's and UNPACK4's dst, src, len sit at the same bits (one set of wires)
    if (`GA2_UNPACK4_DST_LSB != `GA2_PACK4_DST_LSB || `GA2_UNPACK4_SRC_LSB != `GA2_PACK4_SRC_LSB ||
        `GA2_UNPACK4_LEN_LSB != `GA2_PACK4_LEN_LSB || `GA2_UNPACK4_LEN_W != `GA2_PACK4_LEN_W) begin
      $error("%m: UNPACK4's dst, src, len are not PACK4's bits");
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (SM_MAX_LEN < 1 || SM_MAX_LEN > `GA2_SM_LEN_LIMIT) begin
      $error("%m: SM_MAX_LEN=%0d outside 1..%0d", SM_MAX_LEN, `GA2_SM_LEN_LIMIT);
      $finish;
    end
  end

  // ------------------------------------------------------------------ opcode and fields
  wire [3:0]   op = instr[`GA2_OP_W-1:0];
  wire is_ld   = (op == `GA2_OP_LD);
  wire is_st   = (op == `GA2_OP_ST);
  wire is_mm   = (op == `GA2_OP_MM);
  wire is_rq   = (op == `GA2_OP_RQ);
  wire is_sm   = (op == `GA2_OP_SM);
  wire is_halt = (op == `GA2_OP_HALT);
  wire is_ldx  = (op == `GA2_OP_LDX);
  wire is_add  = (op == `GA2_OP_ADD);
  wire is_amax = (op == `GA2_OP_ARGMAX);
  wire is_norm = (op == `GA2_OP_NORM);
  wire is_pk   = (op == `GA2_OP_PACK4);
  wire is_upk  = (op == `GA2_OP_UNPACK4);
  wire op_ok   = is_ld | is_st | is_mm | is_rq | is_sm | is_halt | is_ldx | is_add | is_amax |
                 is_norm | is_pk | is_upk;

  wire [AW-1:0]                ld_dst = instr[`GA2_LD_DST_LSB +: `GA2_LD_DST_W];
  wire [AW-1:0]                ld_src = instr[`GA2_LD_SRC_LSB +: `GA2_LD_SRC_W];
  wire [`GA2_LD_LEN_W-1:0]     ld_len = instr[`GA2_LD_LEN_LSB +: `GA2_LD_LEN_W];
  wire [AW-1:0]                st_src = instr[`GA2_ST_SRC_LSB +: `GA2_ST_SRC_W];
  wire [AW-1:0]                st_dst = instr[`GA2_ST_DST_LSB +: `GA2_ST_DST_W];
  wire [`GA2_ST_LEN_W-1:0]     st_len = instr[`GA2_ST_LEN_LSB +: `GA2_ST_LEN_W];
  wire [`GA2_LD_XHI_W-1:0]     ld_xhi  = instr[`GA2_LD_XHI_LSB +: `GA2_LD_XHI_W];
  wire [`GA2_ST_XHI_W-1:0]     st_xhi  = instr[`GA2_ST_XHI_LSB +: `GA2_ST_XHI_W];
  wire [`GA2_LDX_XHI_W-1:0]    ldx_xhi = instr[`GA2_LDX_XHI_LSB +: `GA2_LDX_XHI_W];
  assign mm_dst = instr[`GA2_MM_DST_LSB +: `GA2_MM_DST_W];
  assign mm_a   = instr[`GA2_MM_A_LSB +: `GA2_MM_A_W];
  assign mm_b   = instr[`GA2_MM_B_LSB +: `GA2_MM_B_W];
  assign mm_m   = instr[`GA2_MM_M_LSB +: `GA2_MM_M_W];
  assign mm_k   = instr[`GA2_MM_K_LSB +: `GA2_MM_K_W];
  assign mm_n   = instr[`GA2_MM_N_LSB +: `GA2_MM_N_W];
  assign mm_tb  = instr[`GA2_MM_TB_LSB];
  assign mm_lda = instr[`GA2_MM_LDA_LSB +: `GA2_MM_LDA_W];
  assign mm_ldb = instr[`GA2_MM_LDB_LSB +: `GA2_MM_LDB_W];
  assign mm_ldc = instr[`GA2_MM_LDC_LSB +: `GA2_MM_LDC_W];
  assign mm_acc = instr[`GA2_MM_ACC_LSB];
  assign rq_dst = instr[`GA2_RQ_DST_LSB +: `GA2_RQ_DST_W];
  assign rq_src = instr[`GA2_RQ_SRC_LSB +: `GA2_RQ_SRC_W];
  assign rq_len = instr[`GA2_RQ_LEN_LSB +: `GA2_RQ_LEN_W];
  assign rq_m   = instr[`GA2_RQ_M_LSB +: `GA2_RQ_M_W];
  assign rq_s   = instr[`GA2_RQ_S_LSB +: `GA2_RQ_S_W];
  assign sm_dst = instr[`GA2_SM_DST_LSB +: `GA2_SM_DST_W];
  assign sm_src = instr[`GA2_SM_SRC_LSB +: `GA2_SM_SRC_W];
  assign sm_len = instr[`GA2_SM_LEN_LSB +: `GA2_SM_LEN_W];
  assign rq_relu  = instr[`GA2_RQ_RELU_LSB];
  assign dma_idx  = instr[`GA2_LDX_IDX_LSB +: `GA2_LDX_IDX_W];
  assign dma_rows = instr[`GA2_LDX_ROWS_LSB +: `GA2_LDX_ROWS_W];
  assign add_dst  = instr[`GA2_ADD_DST_LSB +: `GA2_ADD_DST_W];
  assign add_src  = instr[`GA2_ADD_SRC_LSB +: `GA2_ADD_SRC_W];
  assign add_len  = instr[`GA2_ADD_LEN_LSB +: `GA2_ADD_LEN_W];
  assign add_src2 = instr[`GA2_ADD_SRC2_LSB +: `GA2_ADD_SRC2_W];
  assign amax_dst = instr[`GA2_ARGMAX_DST_LSB +: `GA2_ARGMAX_DST_W];
  assign amax_src = instr[`GA2_ARGMAX_SRC_LSB +: `GA2_ARGMAX_SRC_W];
  assign amax_len = instr[`GA2_ARGMAX_LEN_LSB +: `GA2_ARGMAX_LEN_W];
  assign norm_dst = instr[`GA2_NORM_DST_LSB +: `GA2_NORM_DST_W];
  assign norm_src = instr[`GA2_NORM_SRC_LSB +: `GA2_NORM_SRC_W];
  assign norm_len = instr[`GA2_NORM_LEN_LSB +: `GA2_NORM_LEN_W];
  assign norm_m   = instr[`GA2_NORM_M_LSB +: `GA2_NORM_M_W];
  assign norm_s   = instr[`GA2_NORM_S_LSB +: `GA2_NORM_S_W];
  assign pk_dst   = instr[`GA2_PACK4_DST_LSB +: `GA2_PACK4_DST_W];
  assign pk_src   = instr[`GA2_PACK4_SRC_LSB +: `GA2_PACK4_SRC_W];
  assign pk_len   = instr[`GA2_PACK4_LEN_LSB +: `GA2_PACK4_LEN_W];
  assign pk_unpack = is_upk;

  assign op_oh        = {is_upk, is_pk, is_norm, is_amax, is_add, is_ldx, is_halt, is_sm, is_rq,
                         is_mm, is_st, is_ld};
  assign unit_sel     = {is_pk || is_upk, is_norm, is_amax, is_add, is_sm, is_rq, is_mm,
                         is_ld || is_st || is_ldx};
  // LDX's dst, src and len are LD's bits (checked above): the LD arms carry them; its xhi
  // is its own (after rows)
  wire [`GA2_EXT_ADDR_W-1:0] ld_xa  = {is_ldx ? ldx_xhi : ld_xhi, ld_src};
  wire [`GA2_EXT_ADDR_W-1:0] st_xa  = {st_xhi, st_dst};
  assign dma_dir      = is_st;
  assign dma_ldx      = is_ldx;
  assign dma_sp_base  = is_st ? st_src : ld_dst;
  assign dma_ext_base = is_st ? st_xa : ld_xa;
  assign dma_len      = is_st ? st_len : ld_len;

  // ------------------------------------------------------------------ fault checks
  // Each range sum is exactly as wide as its largest value (no wrap, no unused top bit):
  // 16-bit base + 13-bit length, or + 3 * 4095 + 255 for MM, fits in RW = 17 bits; MM B
  // with tb = 0 adds (K-1) * ldb < 2^20 and needs RWB = 21 bits. A range's last word is
  // base + extent - 1 (a length or shape of 0 is a shape fault, which comes first).
  localparam RW  = AW + 1;
  localparam RWB = 21;
  /* verilator lint_off WIDTH */
  // the size parameters (integers; overridden ones are 32 bits) in the compares' widths:
  // their values fit (checked above)
  localparam [RW-1:0] SP_END   = SP_WORDS;
  // an external address + len: 24 + 13 bits -> EW = 25 bits (2^24 - 1 + 8191 < 2^25)
  localparam EW  = `GA2_EXT_ADDR_W + 1;
  localparam [EW-1:0] EXT_END  = EXT_WORDS;
  localparam [RWB-1:0] SP_ENDB = SP_WORDS;
  localparam [`GA2_SM_LEN_W-1:0] SM_LIMIT = SM_MAX_LEN;   // compared with len - 1
  localparam [`GA2_NORM_LEN_W-1:0] NORM_LIMIT = `GA2_NORM_MAX_LEN;   // compared with len - 1
  // LDX's table: xhi * 2^16 + src + rows * len <= (2^24 - 1) + (2^16 - 1) * (2^13 - 1) < 2^30
  localparam XW = 30;
  localparam [XW-1:0] EXT_ENDX = EXT_WORDS;
  /* verilator lint_on WIDTH */

  // n * x for n = 0..3 (M-1 or N-1 once the shape check has passed): < 3 * 2^12 < 2^14
  function [13:0] mul03;
    input [1:0]  n;
    input [11:0] x;
    begin
      case (n)
        2'd0:    mul03 = 14'd0;
        2'd1:    mul03 = {2'd0, x};
        2'd2:    mul03 = {1'b0, x, 1'b0};
        default: mul03 = {2'd0, x} + {1'b0, x, 1'b0};
      endcase
    end
  endfunction

  // a 16-bit field, a 13-bit length, a 14-bit product, an 8-bit K, a 3-bit N as RW bits
  function [RW-1:0] zr;
    input [15:0] v;
    begin
      zr = {1'b0, v};
    end
  endfunction

  wire [RW-1:0] ld_lenr = {4'd0, ld_len};
  wire [RW-1:0] st_lenr = {4'd0, st_len};
  wire [RW-1:0] rq_lenr = {4'd0, rq_len};
  wire [RW-1:0] sm_lenr = {4'd0, sm_len};
  wire [RW-1:0] add_lenr  = {4'd0, add_len};
  wire [RW-1:0] amax_lenr = {4'd0, amax_len};
  wire [RW-1:0] norm_lenr = {4'd0, norm_len};
  wire [RW-1:0] pk_lenr   = {4'd0, pk_len};
  wire [RW-1:0] pk_len2r  = {3'd0, pk_len, 1'b0};       // 2*len: PACK4's input, UNPACK4's output
  wire [`GA2_SM_LEN_W-1:0] sm_len1 = sm_len - {{(`GA2_SM_LEN_W-1){1'b0}}, 1'b1};   // SM: 1 <= len <= max
  wire [`GA2_NORM_LEN_W-1:0] norm_len1 = norm_len - {{(`GA2_NORM_LEN_W-1){1'b0}}, 1'b1};
  wire [1:0]  mm_m1    = mm_m[1:0] - 2'd1;                // M-1 once 1 <= M <= 4
  wire [1:0]  mm_n1    = mm_n[1:0] - 2'd1;
  wire [RW-1:0] mm_kr  = {9'd0, mm_k};
  wire [RW-1:0] mm_nr  = {14'd0, mm_n};
  wire [7:0]  mm_k1    = mm_k - 8'd1;                     // K-1 once K >= 1
  wire [19:0] mm_kldb  = {12'd0, mm_k1} * {8'd0, mm_ldb};  // (K-1)*ldb <= 254*4095 < 2^20
  wire [RW-1:0]  mm_a_last  = zr(mm_a) + {3'd0, mul03(mm_m1, mm_lda)} + mm_kr - 17'd1;
  wire [RW-1:0]  mm_bt_last = zr(mm_b) + {3'd0, mul03(mm_n1, mm_ldb)} + mm_kr - 17'd1;   // tb = 1
  wire [RWB-1:0] mm_bn_last = {5'd0, mm_b} + {1'b0, mm_kldb} + {18'd0, mm_n} - 21'd1;      // tb = 0
  wire [RW-1:0]  mm_d_last  = zr(mm_dst) + {3'd0, mul03(mm_m1, mm_ldc)} + mm_nr - 17'd1;
  wire           mm_b_bad   = mm_tb ? (mm_bt_last >= SP_END) : (mm_bn_last >= SP_ENDB);

  // ------------------------------------------------------------------ scratchpad ranges
  // the last word of each range; only its low AW bits leave the decoder, as the hull of an
  // instruction without fault (< SP_WORDS)
  /* verilator lint_off UNUSEDSIGNAL */
  wire [RW-1:0] ld_last  = zr(ld_dst) + ld_lenr - 17'd1;
  wire [EW-1:0] ld_xlast = {1'b0, ld_xhi, ld_src} + {12'd0, ld_len} - 25'd1;
  wire [RW-1:0] st_last  = zr(st_src) + st_lenr - 17'd1;
  wire [EW-1:0] st_xlast = {1'b0, st_xa} + {12'd0, st_len} - 25'd1;
  wire [RW-1:0] rq_rlast = zr(rq_src) + rq_lenr - 17'd1;
  wire [RW-1:0] rq_wlast = zr(rq_dst) + rq_lenr - 17'd1;
  wire [RW-1:0] sm_rlast = zr(sm_src) + sm_lenr - 17'd1;
  wire [RW-1:0] sm_wlast = zr(sm_dst) + sm_lenr - 17'd1;
  wire [RW-1:0] add_rlast  = zr(add_src) + add_lenr - 17'd1;
  wire [RW-1:0] add_r2last = zr(add_src2) + add_lenr - 17'd1;
  wire [RW-1:0] add_wlast  = zr(add_dst) + add_lenr - 17'd1;
  wire [RW-1:0] amax_rlast = zr(amax_src) + amax_lenr - 17'd1;
  wire [RW-1:0] norm_rlast = zr(norm_src) + norm_lenr - 17'd1;
  wire [RW-1:0] norm_wlast = zr(norm_dst) + norm_lenr - 17'd1;
  // PACK4 reads 2*len and writes len words; UNPACK4 reads len and writes 2*len
  wire [RW-1:0] pk_rlast   = zr(pk_src) + (is_upk ? pk_lenr : pk_len2r) - 17'd1;
  wire [RW-1:0] pk_wlast   = zr(pk_dst) + (is_upk ? pk_len2r : pk_lenr) - 17'd1;
  /* verilator lint_on UNUSEDSIGNAL */
  // LDX: its index word and its table's last word (dst..dst+len-1 is ld_last's: LD's bits)
  wire [XW-1:0] ldx_xlast = {6'd0, ldx_xhi, ld_src} + {14'd0, dma_rows} * {17'd0, ld_len} - 30'd1;

  // the opcode is one-hot (op_oh), so the hull multiplexers are AND-OR, not priority chains
  // (LDX writes LD's range: is_ld | is_ldx selects ld_dst / ld_last; ARGMAX writes one word)
  wire is_pku = is_pk | is_upk;
  assign rd0_v     = is_st || is_mm || is_rq || is_sm || is_ldx || is_add || is_amax || is_norm ||
                     is_pku;
  assign rd0_first = ({AW{is_st}} & st_src) | ({AW{is_mm}} & mm_a) | ({AW{is_rq}} & rq_src) |
                     ({AW{is_sm}} & sm_src) | ({AW{is_ldx}} & dma_idx) | ({AW{is_add}} & add_src) |
                     ({AW{is_amax}} & amax_src) | ({AW{is_norm}} & norm_src) |
                     ({AW{is_pku}} & pk_src);
  assign rd0_last  = ({AW{is_st}} & st_last[AW-1:0]) | ({AW{is_mm}} & mm_a_last[AW-1:0]) |
                     ({AW{is_rq}} & rq_rlast[AW-1:0]) | ({AW{is_sm}} & sm_rlast[AW-1:0]) |
                     ({AW{is_ldx}} & dma_idx) | ({AW{is_add}} & add_rlast[AW-1:0]) |
                     ({AW{is_amax}} & amax_rlast[AW-1:0]) | ({AW{is_norm}} & norm_rlast[AW-1:0]) |
                     ({AW{is_pku}} & pk_rlast[AW-1:0]);
  assign rd1_v     = is_mm || is_add;
  assign rd1_first = ({AW{is_mm}} & mm_b) | ({AW{is_add}} & add_src2);
  assign rd1_last  = ({AW{is_mm}} & (mm_tb ? mm_bt_last[AW-1:0] : mm_bn_last[AW-1:0])) |
                     ({AW{is_add}} & add_r2last[AW-1:0]);
  assign wr_v      = is_ld || is_mm || is_rq || is_sm || is_ldx || is_add || is_amax || is_norm ||
                     is_pku;
  assign wr_first  = ({AW{is_ld | is_ldx}} & ld_dst) | ({AW{is_mm}} & mm_dst) | ({AW{is_rq}} & rq_dst) |
                     ({AW{is_sm}} & sm_dst) | ({AW{is_add}} & add_dst) | ({AW{is_amax}} & amax_dst) |
                     ({AW{is_norm}} & norm_dst) | ({AW{is_pku}} & pk_dst);
  assign wr_last   = ({AW{is_ld | is_ldx}} & ld_last[AW-1:0]) | ({AW{is_mm}} & mm_d_last[AW-1:0]) |
                     ({AW{is_rq}} & rq_wlast[AW-1:0]) | ({AW{is_sm}} & sm_wlast[AW-1:0]) |
                     ({AW{is_add}} & add_wlast[AW-1:0]) | ({AW{is_amax}} & amax_dst) |
                     ({AW{is_norm}} & norm_wlast[AW-1:0]) | ({AW{is_pku}} & pk_wlast[AW-1:0]);

  reg shape_bad, sp_bad, ext_bad;
  always @* begin
    sp_bad    = 1'b0;
    ext_bad   = 1'b0;
    case (op)
      `GA2_OP_LD: begin
        shape_bad = (ld_len == {`GA2_LD_LEN_W{1'b0}});
        sp_bad    = (ld_last >= SP_END);
        ext_bad   = (ld_xlast >= EXT_END);
      end
      `GA2_OP_ST: begin
        shape_bad = (st_len == {`GA2_ST_LEN_W{1'b0}});
        sp_bad    = (st_last >= SP_END);
        ext_bad   = (st_xlast >= EXT_END);
      end
      `GA2_OP_MM: begin
        shape_bad = (mm_m == 3'd0) || (mm_m > 3'd4) || (mm_n == 3'd0) || (mm_n > 3'd4) ||
                    (mm_k == 8'd0);
        sp_bad    = (mm_a_last >= SP_END) || mm_b_bad || (mm_d_last >= SP_END);
      end
      `GA2_OP_RQ: begin
        shape_bad = (rq_len == {`GA2_RQ_LEN_W{1'b0}});
        sp_bad    = (rq_rlast >= SP_END) || (rq_wlast >= SP_END);
      end
      `GA2_OP_SM: begin
        shape_bad = (sm_len1 >= SM_LIMIT);          // len = 0 wraps to the largest value
        sp_bad    = (sm_rlast >= SP_END) || (sm_wlast >= SP_END);
      end
      `GA2_OP_LDX: begin
        shape_bad = (ld_len == {`GA2_LD_LEN_W{1'b0}}) || (dma_rows == {`GA2_LDX_ROWS_W{1'b0}});
        sp_bad    = (zr(dma_idx) >= SP_END) || (ld_last >= SP_END);
        ext_bad   = (ldx_xlast >= EXT_ENDX);
      end
      `GA2_OP_ADD: begin
        shape_bad = (add_len == {`GA2_ADD_LEN_W{1'b0}});
        sp_bad    = (add_rlast >= SP_END) || (add_r2last >= SP_END) || (add_wlast >= SP_END);
      end
      `GA2_OP_ARGMAX: begin
        shape_bad = (amax_len == {`GA2_ARGMAX_LEN_W{1'b0}});
        sp_bad    = (amax_rlast >= SP_END) || (zr(amax_dst) >= SP_END);
      end
      `GA2_OP_NORM: begin
        shape_bad = (norm_len1 >= NORM_LIMIT);      // len = 0 wraps to the largest value
        sp_bad    = (norm_rlast >= SP_END) || (norm_wlast >= SP_END);
      end
      `GA2_OP_PACK4, `GA2_OP_UNPACK4: begin
        shape_bad = (pk_len == {`GA2_PACK4_LEN_W{1'b0}});
        sp_bad    = (pk_rlast >= SP_END) || (pk_wlast >= SP_END);
      end
      default: begin
        shape_bad = 1'b0;
      end
    endcase
  end

  // the first failing check of a legal op, in the order shape > scratchpad > external; an
  // illegal opcode (whose op has no checks) faults with the opcode code
  reg [2:0] chk_code;
  always @* begin
    if (shape_bad)      chk_code = `GA2_ERR_SHAPE;
    else if (sp_bad)    chk_code = `GA2_ERR_SP_RANGE;
    else if (ext_bad)   chk_code = `GA2_ERR_EXT_RANGE;
    else                chk_code = 3'd0;
    fault_code = op_ok ? chk_code : `GA2_ERR_OPCODE;
  end
endmodule
`resetall
