`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// restart_chk: the units' "start while busy" contract (docs/rtl.md "Start while busy"),
// checked differentially. A start while a unit is busy abandons the running job: from
// the next cycle on, the unit's outputs are exactly those of the same unit started from
// idle in that cycle.
//
// Per unit two instances, A and B, each with its own read-only memory model: per read
// port a register that loads f(addr) at the clock edge of a cycle with that port's
// enable high (one cycle of read latency, as rtl/ga2_sram.v) and holds otherwise; f (mix) is
// addr * 32'h9E3779B1 with its high half folded into the low, XOR a salt, so every byte
// varies; writes go nowhere. So the read data of an instance is a function of its own
// read enables and addresses, and its outputs a function of its own state.
//
// A scenario (unit, first job P1, second job P2, restart cycle c): reset both instances
// (2 cycles), start A with P1; in P1's busy cycle c (0-based as in the units' headers,
// c = t - 1 for a second start t cycles after the first) start A and B with P2 in the
// same cycle; from the next cycle compare A with B every cycle with !== until B's last
// plus 2 cycles (in those 2 both must be idle): busy, last, every enable, each address
// and write data where its enable is high. The units: dma (LD, ST and ldx, mixed, ldx
// with a good and a bad row index), vec_rq (relu 0 and 1), mm_ctrl (ga2_systolic + ga2_pe
// inside), softmax FAST = 0 and FAST = 1, divu (quotient and remainder in its last
// cycle), vec_add, argmax, norm, pack4 (packing and unpacking after each other); the restart
// cycles: the first cycles, every phase (ldx's
// index read and address; feed, old-C pre-read, drain; max / exp pass, divider load,
// division, write / output; vec_add's two reads; the norm's sum, square root, divider load,
// division, scaling) and the job's last busy cycle. The dma's scratchpad words at
// 0xF00..0xFFF read as one byte (mix8), so a lookup there has a row index below 256.
//
// The parts (tb/hdl/restart/, listed in restart.f, tb.sim.files.restart_files): the
// scenario table (restart_scn.v), the jobs' fields (restart_jobs.v), one pair of
// instances per unit with its memory models and its comparison (restart_dma.v,
// restart_rq.v, restart_mm.v, restart_sm.v for both FAST, restart_divu.v, restart_add.v,
// restart_amx.v, restart_norm.v, restart_pack4.v; the read port model restart_rd.v, the
// one-port units' comparison restart_cmp1.v) and the codes they share
// (tb/hdl/restart_codes.vh). This top runs the sequence and reports.
//
// Protocol: a rising go (sampled on the falling edge of clk) runs the scenarios in order;
// done rises after the last one, or at the first mismatch with fail = 1, fail_id =
// scenario * 16 + signal, fail_unit and the names (ASCII, zero-padded on the left). The
// units run on clk gated by the run flag (set at go, cleared at done), so an idle
// checker costs a simulation nothing. Signals (fail_id[3:0]):
//   dma:            0 busy, 1 last, 2 sp_rd_en, 3 sp_rd_addr, 4 sp_wr_en, 5 sp_wr_addr,
//                   6 sp_wr_data, 7 ext_en, 8 ext_we, 9 ext_addr, 10 ext_wdata, 11 idx_err
//   vec_rq, mm_ctrl, softmax, vec_add, argmax, norm:
//                   0 busy, 1 last, 2 rd_en (mm_ctrl: the 8 ports), 3 rd_addr (each
//                   enabled port), 4 wr_en, 5 wr_addr, 6 wr_data
//   divu:           0 busy, 1 last, 2 quotient, 3 remainder (in the last cycle)
//   every unit:     12 A not busy in the restart cycle (the scenario is no restart),
//                   13 x/z on busy, last or an enable (A or B), or on B's address or
//                   data where its enable is high (x in both would compare equal),
//                   14 busy in the 2 cycles after B's last, 15 no last of B within
//                   LIMIT cycles of its start
module restart_chk #(
  parameter SP_WORDS  = `GA2_SP_WORDS,      // the units' scratchpad size (pointer widths)
  parameter EXT_WORDS = `GA2_EXT_WORDS,     // dma's external memory size
  parameter VERBOSE   = 0,                  // 1: $display the first mismatch
  parameter LIMIT     = 600                 // cycles for B's last (softmax len 7: 254)
) (
  input  wire            clk,
  input  wire            go,
  output reg             done,
  output reg             fail,
  output reg  [15:0]     fail_id,
  output reg  [3:0]      fail_unit,
  output reg  [8*8-1:0]  fail_unit_name,
  output reg  [8*12-1:0] fail_sig_name
);
`include "restart_codes.vh"
  localparam AW = `GA2_ADDR_W;
  localparam [11:0] LIM = LIMIT;

  // ------------------------------------------------------------------ control
  reg        run_q, rst_u, st_a, st_b, go_q, jsel;
  reg [2:0]  ph;
  reg [9:0]  scn;
  reg [11:0] cnt;
  reg [4:0]  job;
  wire       uclk = clk & run_q;      // run_q changes on the falling edge only

  localparam [2:0] P_IDLE = 3'd0, P_RST = 3'd1, P_RUN1 = 3'd2, P_CMP = 3'd3, P_TAIL = 3'd4;

  // ------------------------------------------------------------------ the job, the scenario
  wire          f_dir, f_tb, f_acc, f_a16, f_ldx;
  wire [AW-1:0] f_idx, f_dst, f_a, f_b;
  wire [15:0]   f_rows;
  wire [12:0]   f_len;
  wire [2:0]    f_m, f_n;
  wire [7:0]    f_k;
  wire [11:0]   f_lda, f_ldb, f_ldc;
  wire [31:0]   f_dvd, f_dvs;
  restart_jobs #(.AW(AW)) u_jobs (
    .job(job), .f_dir(f_dir), .f_tb(f_tb), .f_acc(f_acc), .f_a16(f_a16), .f_ldx(f_ldx),
    .f_idx(f_idx), .f_rows(f_rows), .f_dst(f_dst), .f_a(f_a), .f_b(f_b),
    .f_len(f_len), .f_m(f_m), .f_n(f_n), .f_k(f_k), .f_lda(f_lda), .f_ldb(f_ldb), .f_ldc(f_ldc),
    .f_dvd(f_dvd), .f_dvs(f_dvs)
  );
  // scenarios 0 .. N_HAND-1: the hand table (dma, mm_ctrl, divu); then the vector units'
  // (restart_vec, generated from the op records: scenario N_HAND + k is its k)
  wire [3:0] sh_unit;
  wire [4:0] sc_j1, sc_j2;
  wire [8:0] sh_c, sv_c;
  restart_scn u_scn (.scn(scn), .sc_unit(sh_unit), .sc_j1(sc_j1), .sc_j2(sc_j2), .sc_c(sh_c));
  wire       vec_scn = (scn >= N_HAND);
  wire [9:0] vk = scn - N_HAND;
  wire [9:0] n_vec;
  wire [9:0] n_scn = N_HAND + n_vec;
  wire [3:0] sc_unit = vec_scn ? U_VEC : sh_unit;
  wire [8:0] sc_c    = vec_scn ? sv_c : sh_c;

  // ------------------------------------------------------------------ the units' pairs
  // unit u's pair starts only in u's scenarios; its outputs (o_*[u]) are chosen below
  wire [15:0]  on = vec_scn ? 16'd0 : (16'd1 << sh_unit);
  wire [15:0]  o_busy_a, o_busy_b, o_last_b;
  wire [15:0]  o_mis [0:15];
  wire [127:0] o_obs_a [0:15];
  wire [127:0] o_obs_b [0:15];
  restart_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_dma (
    .clk(uclk), .rst(rst_u), .st_a(st_a && on[U_DMA]), .st_b(st_b && on[U_DMA]), .dir(f_dir),
    .ldx(f_ldx), .sp_base(f_a), .ext_base(f_b), .idx(f_idx), .rows(f_rows), .len(f_len),
    .busy_a(o_busy_a[U_DMA]), .busy_b(o_busy_b[U_DMA]), .last_b(o_last_b[U_DMA]),
    .mis(o_mis[U_DMA]), .obs_a(o_obs_a[U_DMA]), .obs_b(o_obs_b[U_DMA])
  );
  restart_mm #(.SP_WORDS(SP_WORDS)) u_mm (
    .clk(uclk), .rst(rst_u), .st_a(st_a && on[U_MM]), .st_b(st_b && on[U_MM]), .dst(f_dst),
    .a_base(f_a), .b_base(f_b), .m(f_m), .k(f_k), .n(f_n), .tb(f_tb), .lda(f_lda),
    .ldb(f_ldb), .ldc(f_ldc), .acc(f_acc), .a16(f_a16),
    .busy_a(o_busy_a[U_MM]), .busy_b(o_busy_b[U_MM]), .last_b(o_last_b[U_MM]),
    .mis(o_mis[U_MM]), .obs_a(o_obs_a[U_MM]), .obs_b(o_obs_b[U_MM])
  );
  restart_divu u_div (
    .clk(uclk), .rst(rst_u), .st_a(st_a && on[U_DIV]), .st_b(st_b && on[U_DIV]),
    .dividend(f_dvd), .divisor(f_dvs),
    .busy_a(o_busy_a[U_DIV]), .busy_b(o_busy_b[U_DIV]), .last_b(o_last_b[U_DIV]),
    .mis(o_mis[U_DIV]), .obs_a(o_obs_a[U_DIV]), .obs_b(o_obs_b[U_DIV])
  );
  wire [8*8-1:0] vec_name;
  restart_vec #(.SP_WORDS(SP_WORDS)) u_vec (
    .clk(uclk), .rst(rst_u), .st_a(st_a && vec_scn), .st_b(st_b && vec_scn), .k(vk), .j2(jsel),
    .n_scn(n_vec), .c(sv_c), .name(vec_name),
    .busy_a(o_busy_a[U_VEC]), .busy_b(o_busy_b[U_VEC]), .last_b(o_last_b[U_VEC]),
    .mis(o_mis[U_VEC]), .obs_a(o_obs_a[U_VEC]), .obs_b(o_obs_b[U_VEC])
  );
  genvar gu;
  generate
    for (gu = 0; gu < 16; gu = gu + 1) begin : g_unused
      if (gu != U_DMA && gu != U_MM && gu != U_DIV && gu != U_VEC) begin : g_none
        assign o_busy_a[gu] = 1'b0;
        assign o_busy_b[gu] = 1'b0;
        assign o_last_b[gu] = 1'b0;
        assign o_mis[gu] = 16'd0;
        assign o_obs_a[gu] = 128'd0;
        assign o_obs_b[gu] = 128'd0;
      end
    end
  endgenerate

  // ------------------------------------------------------------------ comparison
  // the unit under test's: mis[s] (signal s of A differs from B's this cycle), busy, last
  reg [15:0]  mis;
  reg         busy_a, busy_b, last_b;
  reg [127:0] obs_a, obs_b;              // VERBOSE: the unit's outputs, for the message
  always @* begin
    mis    = o_mis[sc_unit];
    busy_a = o_busy_a[sc_unit];
    busy_b = o_busy_b[sc_unit];
    last_b = o_last_b[sc_unit];
    obs_a  = o_obs_a[sc_unit];
    obs_b  = o_obs_b[sc_unit];
  end

  // the first signal that differs
  reg [3:0] first;
  integer   k;
  always @* begin
    first = 4'd0;
    for (k = 15; k >= 0; k = k - 1) begin
      if (mis[k]) first = k[3:0];
    end
  end

  function [8*8-1:0] unit_name;
    input [3:0] u;
    begin
      case (u)
        U_DMA:   unit_name = "dma";
        U_MM:    unit_name = "mm_ctrl";
        U_DIV:   unit_name = "divu";
        U_VEC:   unit_name = vec_name;
        default: unit_name = "?";
      endcase
    end
  endfunction

  function [8*12-1:0] sig_name;
    input [3:0] u;
    input [3:0] s;
    begin
      case (s)
        4'd0:  sig_name = "busy";
        4'd1:  sig_name = "last";
        4'd12: sig_name = "not_busy";      // A idle in the restart cycle
        4'd13: sig_name = "xz";
        4'd14: sig_name = "not_idle";      // busy after B's last
        4'd15: sig_name = "no_last";
        default: begin
          if (u == U_DMA) begin
            case (s)
              4'd2:    sig_name = "sp_rd_en";
              4'd3:    sig_name = "sp_rd_addr";
              4'd4:    sig_name = "sp_wr_en";
              4'd5:    sig_name = "sp_wr_addr";
              4'd6:    sig_name = "sp_wr_data";
              4'd7:    sig_name = "ext_en";
              4'd8:    sig_name = "ext_we";
              4'd9:    sig_name = "ext_addr";
              4'd10:   sig_name = "ext_wdata";
              4'd11:   sig_name = "idx_err";
              default: sig_name = "?";
            endcase
          end else if (u == U_DIV) begin
            case (s)
              4'd2:    sig_name = "quotient";
              4'd3:    sig_name = "remainder";
              default: sig_name = "?";
            endcase
          end else begin
            case (s)
              4'd2:    sig_name = "rd_en";
              4'd3:    sig_name = "rd_addr";
              4'd4:    sig_name = "wr_en";
              4'd5:    sig_name = "wr_addr";
              4'd6:    sig_name = "wr_data";
              default: sig_name = "?";
            endcase
          end
        end
      endcase
    end
  endfunction

  // ------------------------------------------------------------------ the sequence
  // Everything changes on the falling edge; the units sample on the rising edge of uclk.
  initial begin
    done = 1'b0;
    fail = 1'b0;
    fail_id = 16'd0;
    fail_unit = 4'd0;
    fail_unit_name = {8{8'd0}};
    fail_sig_name = {12{8'd0}};
    run_q = 1'b0;
    rst_u = 1'b1;
    st_a = 1'b0;
    st_b = 1'b0;
    go_q = 1'b0;
    ph = P_IDLE;
    scn = 10'd0;
    cnt = 12'd0;
    job = J_LD6;
    jsel = 1'b0;
  end

  // the end of the run: at the first mismatch (sig) or after the last scenario
  task stop_run;
    input       bad;
    input [3:0] sig;
    begin
      if (bad) begin
        fail           <= 1'b1;
        fail_id        <= {2'd0, scn, sig};
        fail_unit      <= sc_unit;
        fail_unit_name <= unit_name(sc_unit);
        fail_sig_name  <= sig_name(sc_unit, sig);
        if (VERBOSE != 0)
          $display("restart_chk: scenario %0d (%0s, restart in busy cycle %0d, %0d cycles after): %0s differs: A %h, B %h",
                   scn, unit_name(sc_unit), sc_c, cnt, sig_name(sc_unit, sig), obs_a, obs_b);
      end
      done  <= 1'b1;
      run_q <= 1'b0;
      rst_u <= 1'b1;
      st_a  <= 1'b0;
      st_b  <= 1'b0;
      ph    <= P_IDLE;
    end
  endtask

  always @(negedge clk) begin
    go_q <= go;
    case (ph)
      P_IDLE: begin
        if (go === 1'b1 && go_q !== 1'b1) begin
          done  <= 1'b0;
          fail  <= 1'b0;
          scn   <= 10'd0;
          cnt   <= 12'd0;
          run_q <= 1'b1;
          rst_u <= 1'b1;
          ph    <= P_RST;
        end
      end
      P_RST: begin                       // rst high for two rising edges, then P1's start
        if (cnt == 12'd1) begin
          rst_u <= 1'b0;
          st_a  <= 1'b1;
          job   <= sc_j1;
          jsel  <= 1'b0;
          cnt   <= 12'd0;
          ph    <= P_RUN1;
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      P_RUN1: begin                      // in P1's busy cycle cnt
        if (cnt == {3'd0, sc_c}) begin
          if (busy_a !== 1'b1) begin
            stop_run(1'b1, 4'd12);
          end else begin
            st_a <= 1'b1;
            st_b <= 1'b1;
            job  <= sc_j2;
            jsel <= 1'b1;
            cnt  <= 12'd0;
            ph   <= P_CMP;
          end
        end else begin
          st_a <= 1'b0;
          cnt  <= cnt + 12'd1;
        end
      end
      P_CMP: begin                       // in P2's busy cycle cnt
        st_a <= 1'b0;
        st_b <= 1'b0;
        if (mis != 16'd0) begin
          stop_run(1'b1, first);
        end else if (last_b === 1'b1) begin
          cnt <= 12'd0;
          ph  <= P_TAIL;
        end else if (cnt == LIM) begin
          stop_run(1'b1, 4'd15);
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      P_TAIL: begin                      // the 2 cycles after B's last: both idle
        if (mis != 16'd0) begin
          stop_run(1'b1, first);
        end else if (busy_a !== 1'b0 || busy_b !== 1'b0) begin
          stop_run(1'b1, 4'd14);
        end else if (cnt == 12'd1) begin
          if (scn == n_scn - 10'd1) begin
            stop_run(1'b0, 4'd0);
          end else begin
            scn   <= scn + 10'd1;
            cnt   <= 12'd0;
            rst_u <= 1'b1;
            ph    <= P_RST;
          end
        end else begin
          cnt <= cnt + 12'd1;
        end
      end
      default: ph <= P_IDLE;
    endcase
  end
endmodule
`resetall
