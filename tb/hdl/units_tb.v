`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// units_tb: unit-level wrapper (cocotb toplevel of tb/drivers/units_job.py) around the GA-2
// units that have clean ports: mm_ctrl (systolic array), softmax (twice: FAST = 0 and
// FAST = 1, chosen by f_fast), vec_rq, requant and divu, with a behavioural scratchpad (MEM_WORDS x 32, 8 synchronous read ports with an
// enable that holds the output, one write port, WRITE-FIRST as docs/isa.md and
// rtl/ga2_sram.v specify).
//
// Protocol (like ga2_tb): Python writes mem_in.hex, sets sel and the unit's fields and
// bumps req; the wrapper loads the memory, pulses the selected unit's start, counts
// its busy cycles, records the cycle of its last read and first write, waits for last,
// writes mem_out.hex and sets ack = req. sel: 0 mm_ctrl, 1 softmax, 2 vec_rq, 3 divu
// (no memory: dividend/divisor in, quotient/remainder and latency out).
// requant is combinational: rq_a/rq_m/rq_s in, rq_y out, no protocol.
// u_div_hs: a second divu whose rst/start/operands are ports and whose busy/last/results
// are outputs, driven cycle by cycle from Python (on clk_o's falling edge) to check divu's
// handshake (busy WIDTH + 1 cycles, last in the final one, results hold until the next
// start, back-to-back start, reset at last and mid-division), as tb/hdl/mut_rtl_tb.v.
// u_rc: the start-while-busy contract of dma, vec_rq, mm_ctrl, softmax (FAST 0 and 1)
// and divu (tb/hdl/restart_chk.v, self-checking, the mutation bench's restart check):
// a rising rc_go runs it; rc_done, then rc_fail / rc_fail_id (scenario * 16 + signal) and
// the unit's and signal's names (ASCII).
module units_tb #(
  parameter MEM_WORDS = `GA2_SP_WORDS,
  parameter EXT_WORDS = `GA2_EXT_WORDS
) (
  input  wire [15:0] req,
  output reg  [15:0] ack,
  input  wire [2:0]  sel,         // 0 mm_ctrl, 1 softmax, 2 vec_rq, 3 divu, 4 by instruction
  input  wire [`GA2_INSTR_W-1:0] f_instr,   // sel 4: the instruction word
  input  wire [4:0]  f_var,       // sel 4: the vector unit variant (units_vec), or 31: the DMA
  output wire [4:0]  n_var,       // the variants units_vec has
  output wire [8*8-1:0] var_name, // the selected variant's name (ASCII)
  output reg         idx_err_seen, // sel 4, DMA: its idx_err was high in the job
  input  wire [15:0] f_dst,
  input  wire [15:0] f_src,       // MM: A base; the vector units: src
  input  wire [15:0] f_b,
  input  wire [12:0] f_len,
  input  wire        f_fast,      // softmax: 1 runs ga2_softmax #(.FAST(1)) (overlap mode), 0 FAST = 0
  input  wire [2:0]  f_m,
  input  wire [7:0]  f_k,
  input  wire [2:0]  f_khi,
  input  wire        f_a16,
  input  wire [2:0]  f_n,
  input  wire        f_tb,
  input  wire        f_acc,       // MM: acc (dst += A x B)
  input  wire [11:0] f_lda,
  input  wire [11:0] f_ldb,
  input  wire [11:0] f_ldc,
  input  wire [15:0] f_rqm,
  input  wire [5:0]  f_rqs,
  input  wire        f_relu,
  input  wire [31:0] f_dividend,
  input  wire [31:0] f_divisor,
  output reg  [31:0] busy_cycles,   // cycles with the unit's busy high
  output reg  [31:0] last_cycle,    // busy cycle (0-based) in which last was high
  output reg  [31:0] last_read,     // busy cycle of the last read (-1: none)
  output reg  [31:0] first_write,   // busy cycle of the first write (-1: none)
  output reg  [31:0] n_writes,
  output reg  [31:0] div_q,         // the last divide job's quotient and remainder
  output reg  [31:0] div_r,
  input  wire [31:0] rq_a,
  input  wire [15:0] rq_m,
  input  wire [5:0]  rq_s,
  output wire [31:0] rq_y,
  output wire        clk_o,
  input  wire        hs_rst,
  input  wire        hs_start,
  input  wire [31:0] hs_a,
  input  wire [31:0] hs_b,
  output wire        hs_busy,
  output wire        hs_last,
  output wire [31:0] hs_q,
  output wire [31:0] hs_r,
  // u_pf: ga2_perf built narrow (CW = 5), driven cycle by cycle from Python like u_div_hs
  input  wire        pf_rst,
  input  wire        pf_clear,
  input  wire        pf_running,
  input  wire [2:0]  pf_busy,
  input  wire [3:0]  pf_retire,
  input  wire        pf_fetch,
  output wire [34:0] pf_out,      // {cycles, mm, dma, vec, instret, fetch, retire_cycle}, 5 bits each
  // u_rc: the restart check
  input  wire            rc_go,
  output wire            rc_done,
  output wire            rc_fail,
  output wire [15:0]     rc_fail_id,
  output wire [3:0]      rc_fail_unit,
  output wire [8*8-1:0]  rc_unit_name,
  output wire [8*12-1:0] rc_sig_name
);
  localparam NA = `GA2_ARRAY;
  localparam AW = `GA2_ADDR_W;

  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst = 1'b1;
  reg st_mm = 1'b0, st_sm = 1'b0, st_rq = 1'b0, st_div = 1'b0, st_ins = 1'b0;

  // ------------------------------------------------------------------ scratchpad model
  reg  [31:0] mem [0:MEM_WORDS-1];
  reg  [2*NA-1:0]    rd_en;
  reg  [2*NA*AW-1:0] rd_addr;
  reg  [2*NA*32-1:0] rd_q;
  reg                wr_en;
  reg  [AW-1:0]      wr_addr;
  reg  [31:0]        wr_data;
  integer p;
  always @(posedge clk) begin
    for (p = 0; p < 2 * NA; p = p + 1)
      if (rd_en[p])
        rd_q[p*32 +: 32] <= (wr_en && wr_addr == rd_addr[p*AW +: AW]) ? wr_data
                                                                         : mem[rd_addr[p*AW +: AW] % MEM_WORDS];
    if (wr_en) mem[wr_addr % MEM_WORDS] <= wr_data;
  end

  // ------------------------------------------------------------------ units
  wire               mm_busy, mm_last, mm_wr_en;
  wire [2*NA-1:0]    mm_rd_en;
  wire [2*NA*AW-1:0] mm_rd_addr;
  wire [AW-1:0]      mm_wr_addr;
  wire [31:0]        mm_wr_data;
  wire [2*NA*8-1:0]  mm_rbyte;
  wire [NA*8-1:0]    mm_rahi;
  genvar g;
  generate
    for (g = 0; g < 2 * NA; g = g + 1) begin : g_byte
      assign mm_rbyte[g*8 +: 8] = rd_q[g*32 +: 8];
    end
    for (g = 0; g < NA; g = g + 1) begin : g_ahi
      assign mm_rahi[g*8 +: 8] = rd_q[g*32 + 8 +: 8];
    end
  endgenerate

  ga2_mm_ctrl u_mm (
    .clk(clk), .rst(rst), .start(st_mm), .dst(f_dst), .a_base(f_src), .b_base(f_b),
    .m(f_m), .k(f_k), .khi(f_khi), .a16(f_a16), .n(f_n), .tb(f_tb), .lda(f_lda), .ldb(f_ldb), .ldc(f_ldc),
    .acc(f_acc), .busy(mm_busy), .last(mm_last), .rd_en(mm_rd_en), .rd_addr(mm_rd_addr),
    .rd_byte(mm_rbyte), .rd_ahi(mm_rahi), .rd_word0(rd_q[31:0]), .wr_en(mm_wr_en), .wr_addr(mm_wr_addr), .wr_data(mm_wr_data)
  );

  // the vector units take the instruction word: the bench's fields at their record's bits
  wire [`GA2_INSTR_W-1:0] sm_instr = `GA2_SM_WORD(f_dst, f_src, f_len);
  wire [`GA2_INSTR_W-1:0] rq_instr = `GA2_RQ_WORD(f_dst, f_src, f_len, f_rqm, f_rqs, f_relu);

  // two softmax instances (FAST = 0 and 1); f_fast picks the one started and connected
  wire          s0_busy, s0_last, s0_rd_en, s0_wr_en;
  wire [AW-1:0] s0_rd_addr, s0_wr_addr;
  wire [31:0]   s0_wr_data;
  ga2_softmax #(.FAST(0)) u_sm (
    .clk(clk), .rst(rst), .start(st_sm && !f_fast), .instr(sm_instr),
    .busy(s0_busy), .last(s0_last), .rd_en(s0_rd_en), .rd_addr(s0_rd_addr),
    .rd_data(rd_q[31:0]), .wr_en(s0_wr_en), .wr_addr(s0_wr_addr), .wr_data(s0_wr_data)
  );
  wire          s1_busy, s1_last, s1_rd_en, s1_wr_en;
  wire [AW-1:0] s1_rd_addr, s1_wr_addr;
  wire [31:0]   s1_wr_data;
  ga2_softmax #(.FAST(1)) u_sm_fast (
    .clk(clk), .rst(rst), .start(st_sm && f_fast), .instr(sm_instr),
    .busy(s1_busy), .last(s1_last), .rd_en(s1_rd_en), .rd_addr(s1_rd_addr),
    .rd_data(rd_q[31:0]), .wr_en(s1_wr_en), .wr_addr(s1_wr_addr), .wr_data(s1_wr_data)
  );
  wire          sm_busy    = f_fast ? s1_busy : s0_busy;
  wire          sm_last    = f_fast ? s1_last : s0_last;
  wire          sm_rd_en   = f_fast ? s1_rd_en : s0_rd_en;
  wire          sm_wr_en   = f_fast ? s1_wr_en : s0_wr_en;
  wire [AW-1:0] sm_rd_addr = f_fast ? s1_rd_addr : s0_rd_addr;
  wire [AW-1:0] sm_wr_addr = f_fast ? s1_wr_addr : s0_wr_addr;
  wire [31:0]   sm_wr_data = f_fast ? s1_wr_data : s0_wr_data;

  wire          vr_busy, vr_last, vr_rd_en, vr_wr_en;
  wire [AW-1:0] vr_rd_addr, vr_wr_addr;
  wire [31:0]   vr_wr_data;
  ga2_vec_rq u_rq (
    .clk(clk), .rst(rst), .start(st_rq), .instr(rq_instr), .busy(vr_busy), .last(vr_last), .rd_en(vr_rd_en),
    .rd_addr(vr_rd_addr), .rd_data(rd_q[31:0]), .wr_en(vr_wr_en), .wr_addr(vr_wr_addr),
    .wr_data(vr_wr_data)
  );

  // sel 4: a job given as an instruction word: any vector unit of the op records
  // (units_vec, generated by tb/vecunits.py) on read port 0, or the DMA (f_var 31) with
  // an external memory model of EXT_WORDS words (ext_in.hex / ext_out.hex)
  localparam [4:0] V_DMA = 5'd31;
  wire          iv_busy, iv_last, iv_rd_en, iv_wr_en;
  wire [AW-1:0] iv_rd_addr, iv_wr_addr;
  wire [31:0]   iv_wr_data;
  units_vec #(.SP_WORDS(MEM_WORDS)) u_vec (
    .clk(clk), .rst(rst), .start(st_ins && f_var != V_DMA), .f_var(f_var), .instr(f_instr),
    .rd_data(rd_q[31:0]), .n_var(n_var), .name(var_name), .busy(iv_busy), .last(iv_last),
    .rd_en(iv_rd_en), .rd_addr(iv_rd_addr), .wr_en(iv_wr_en), .wr_addr(iv_wr_addr),
    .wr_data(iv_wr_data)
  );
  reg  [31:0] ext [0:EXT_WORDS-1];
  reg  [31:0] ext_q;
  wire        dx_busy, dx_last, dx_idx_err, dx_sp_re, dx_sp_we, dx_ext_en, dx_ext_we;
  wire [AW-1:0] dx_sp_ra, dx_sp_wa;
  wire [31:0] dx_sp_wd, dx_ext_wd;
  wire [`GA2_EXT_ADDR_W-1:0] dx_ext_addr;
  ga2_dma #(.SP_WORDS(MEM_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma (
    .clk(clk), .rst(rst), .start(st_ins && f_var == V_DMA), .instr(f_instr),
    .busy(dx_busy), .last(dx_last), .idx_err(dx_idx_err),
    .sp_rd_en(dx_sp_re), .sp_rd_addr(dx_sp_ra), .sp_rd_data(rd_q[31:0]),
    .sp_wr_en(dx_sp_we), .sp_wr_addr(dx_sp_wa), .sp_wr_data(dx_sp_wd),
    .ext_en(dx_ext_en), .ext_we(dx_ext_we), .ext_addr(dx_ext_addr), .ext_wdata(dx_ext_wd),
    .ext_rdata(ext_q)
  );
  always @(posedge clk) begin
    if (dx_ext_en && dx_ext_we) ext[dx_ext_addr % EXT_WORDS] <= dx_ext_wd;
    else if (dx_ext_en) ext_q <= ext[dx_ext_addr % EXT_WORDS];
  end
  wire          in_busy = (f_var == V_DMA) ? dx_busy : iv_busy;
  wire          in_last = (f_var == V_DMA) ? dx_last : iv_last;

  wire        dv_busy, dv_last;
  wire [31:0] dv_q, dv_r;
  ga2_divu #(.WIDTH(32)) u_div (
    .clk(clk), .rst(rst), .start(st_div), .dividend(f_dividend), .divisor(f_divisor),
    .busy(dv_busy), .last(dv_last), .quotient(dv_q), .remainder(dv_r)
  );

  ga2_requant u_requant (.a(rq_a), .m(rq_m), .s(rq_s), .y(rq_y));

  assign clk_o = clk;
  ga2_divu #(.WIDTH(32)) u_div_hs (
    .clk(clk), .rst(hs_rst), .start(hs_start), .dividend(hs_a), .divisor(hs_b),
    .busy(hs_busy), .last(hs_last), .quotient(hs_q), .remainder(hs_r)
  );

  ga2_perf #(.CW(5)) u_pf (
    .clk(clk), .rst(pf_rst), .clear(pf_clear), .running(pf_running), .busy(pf_busy),
    .retire(pf_retire), .fetch(pf_fetch), .cnt_cycles(pf_out[34:30]), .cnt_mm(pf_out[29:25]),
    .cnt_dma(pf_out[24:20]), .cnt_vec(pf_out[19:15]), .cnt_instret(pf_out[14:10]),
    .cnt_fetch(pf_out[9:5]), .retire_cycle(pf_out[4:0])
  );

  restart_chk #(.SP_WORDS(MEM_WORDS), .VERBOSE(1)) u_rc (
    .clk(clk), .go(rc_go), .done(rc_done), .fail(rc_fail), .fail_id(rc_fail_id),
    .fail_unit(rc_fail_unit), .fail_unit_name(rc_unit_name), .fail_sig_name(rc_sig_name)
  );

  always @* begin
    rd_en = {2*NA{1'b0}};
    rd_addr = {2*NA*AW{1'b0}};
    wr_en = 1'b0;
    wr_addr = {AW{1'b0}};
    wr_data = 32'd0;
    case (sel)
      3'd0: begin
        rd_en = mm_rd_en; rd_addr = mm_rd_addr;
        wr_en = mm_wr_en; wr_addr = mm_wr_addr; wr_data = mm_wr_data;
      end
      3'd1: begin
        rd_en[0] = sm_rd_en; rd_addr[AW-1:0] = sm_rd_addr;
        wr_en = sm_wr_en; wr_addr = sm_wr_addr; wr_data = sm_wr_data;
      end
      3'd2: begin
        rd_en[0] = vr_rd_en; rd_addr[AW-1:0] = vr_rd_addr;
        wr_en = vr_wr_en; wr_addr = vr_wr_addr; wr_data = vr_wr_data;
      end
      3'd4: begin
        if (f_var == V_DMA) begin
          rd_en[0] = dx_sp_re; rd_addr[AW-1:0] = dx_sp_ra;
          wr_en = dx_sp_we; wr_addr = dx_sp_wa; wr_data = dx_sp_wd;
        end else begin
          rd_en[0] = iv_rd_en; rd_addr[AW-1:0] = iv_rd_addr;
          wr_en = iv_wr_en; wr_addr = iv_wr_addr; wr_data = iv_wr_data;
        end
      end
      default: begin
        rd_en = {2*NA{1'b0}};
      end
    endcase
  end

  wire u_busy = (sel == 3'd0) ? mm_busy : (sel == 3'd1) ? sm_busy : (sel == 3'd2) ? vr_busy :
                (sel == 3'd3) ? dv_busy : in_busy;
  wire u_last = (sel == 3'd0) ? mm_last : (sel == 3'd1) ? sm_last : (sel == 3'd2) ? vr_last :
                (sel == 3'd3) ? dv_last : in_last;

  // ------------------------------------------------------------------ run control
  // Everything is sampled mid-cycle (falling edge) in this one process, so the order of
  // events at the rising edge cannot matter.
  integer i, cyc;
  reg seen_last;
  initial begin
    ack = 16'd0;
    seen_last = 1'b0;
    busy_cycles = 32'd0; last_cycle = 32'd0; last_read = 32'hFFFFFFFF; first_write = 32'hFFFFFFFF;
    n_writes = 32'd0; div_q = 32'd0; div_r = 32'd0; cyc = 0; idx_err_seen = 1'b0;
    for (i = 0; i < MEM_WORDS; i = i + 1) mem[i] = 32'd0;
    rd_q = {2*NA*32{1'b0}};
    repeat (3) @(negedge clk);
    rst = 1'b0;
    forever begin
      @(negedge clk);
      if (req != ack) begin
        if (sel != 3'd3) $readmemh("mem_in.hex", mem);
        if (sel == 3'd4 && f_var == V_DMA) $readmemh("ext_in.hex", ext);
        idx_err_seen = 1'b0;
        busy_cycles = 32'd0; last_cycle = 32'd0; last_read = 32'hFFFFFFFF;
        first_write = 32'hFFFFFFFF; n_writes = 32'd0; seen_last = 1'b0;
        st_mm = (sel == 3'd0); st_sm = (sel == 3'd1); st_rq = (sel == 3'd2); st_div = (sel == 3'd3);
        st_ins = (sel == 3'd4);
        @(negedge clk);                      // the unit's first busy cycle
        st_mm = 1'b0; st_sm = 1'b0; st_rq = 1'b0; st_div = 1'b0; st_ins = 1'b0;
        cyc = 0;
        while (!seen_last && cyc < 100000) begin
          if (u_busy === 1'b1) busy_cycles = busy_cycles + 32'd1;
          if (sel == 3'd4 && f_var == V_DMA && dx_idx_err === 1'b1) idx_err_seen = 1'b1;
          if (|rd_en) last_read = cyc;
          if (wr_en && first_write == 32'hFFFFFFFF) first_write = cyc;
          if (wr_en) n_writes = n_writes + 32'd1;
          if (u_last === 1'b1) begin
            last_cycle = cyc;
            seen_last = 1'b1;
            if (sel == 3'd3) begin        // the divider's outputs: only a divide job
              div_q = dv_q;                  // loads them (docs/rtl.md "Reset and X policy":
              div_r = dv_r;                  // x until the divider's first start)
            end
          end
          cyc = cyc + 1;
          @(negedge clk);
        end
        if (sel != 3'd3) $writememh("mem_out.hex", mem);
        if (sel == 3'd4 && f_var == V_DMA) $writememh("ext_out.hex", ext);
        ack = req;
      end
    end
  end
endmodule
`resetall
