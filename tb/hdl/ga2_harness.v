`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_cfg.vh"
`include "ga2_checks.vh"
`ifndef GA2_MON_N
`define GA2_MON_N 9   // the host-contract monitors (below)
`endif
// ga2_harness: the one test-bench harness of the GA-2 chip, shared by the cocotb wrapper
// (tb/hdl/ga2_tb.v), the plain bench (tb/hdl/tb_plain.v) and the RTL mutation bench
// (tb/hdl/mut_rtl_tb.v).
//
// Holds ga2_top (instance `dut`) with its two memory models:
//   imem  IMEM_DEPTH x 128 (up to 2^21 - 1 words), synchronous read, one cycle of latency;
//   ext   EXT_WORDS  x 32,  synchronous read, one cycle of latency, read-first on a
//         same-address write. Verilator refuses an unpacked array of more than 2^28
//         elements ("vector of over 1 billion bits"), so past `GA2_TB_EXT_BANK words the
//         memory is two arrays: ext (its first EXT_LO = GA2_TB_EXT_BANK words) and ext_hi
//         (the rest); load_bin and write_ext take both.
// A read outside a memory returns 0 and a write outside ext is dropped; such accesses
// are counted (imem_oob, ext_rd_oob, ext_wr_oob), as are the cycles with x/z on the
// chip's control outputs (xz_events). The four counters clear at a start and count while
// rst is low; everything is sampled at the rising edge, like the memories themselves.
// The benches reach the memories by hierarchical name (u_h.imem, u_h.ext) for
// $readmemh/$writememh (u_h.write_ext past GA2_TB_EXT_BANK words) and preload the
// scratchpad with load_sp (the one place that knows where ga2_top keeps it, with
// mon_sp_reads, the count of its read accesses).
// The clock, reset and start come from the bench.
module ga2_harness #(`GA2_TOP_PARAMS) (                // its parameters: rtl/ga2_cfg.vh
  `GA2_HOST_PORTS,                         // clk, rst, start, done, error, error_pc, the counters
  output wire [3:0]  retire,          // slots: 0 dma, 1 mm, 2 vec, 3 HALT
  output wire [4*`GA2_PC_W-1:0] retire_pc,   // slot i's pc at [GA2_PC_W*i +: GA2_PC_W]
  output wire [31:0] retire_cycle,
  output reg  [31:0] imem_oob,
  output reg  [31:0] ext_rd_oob,
  output reg  [31:0] ext_wr_oob,
  output reg  [31:0] xz_events,
  // the per-cycle host-contract monitors (below): MON_N counts, 32 bits each, counted
  // since the last start and including the current cycle, then the cycles of the run
  output wire [`GA2_MON_N*32-1:0] mon,
  output wire [31:0] mon_run_cycles,
  // the scratchpad words read since the last start, including the current cycle (below)
  output wire [31:0] mon_sp_reads
);
  initial begin
    `GA2_CHECK_EXT_WORDS(EXT_WORDS);
    if (IMEM_DEPTH < 1 || IMEM_DEPTH > (1 << `GA2_PC_W) - 1) begin
      $error("%m: IMEM_DEPTH=%0d outside 1..%0d", IMEM_DEPTH, (1 << `GA2_PC_W) - 1);
      $finish;
    end
    `GA2_CHECK_SP_WORDS(SP_WORDS);
  end

  wire        imem_en, ext_en, ext_we;
  wire [`GA2_PC_W-1:0] imem_addr;
  wire [`GA2_EXT_ADDR_W-1:0] ext_addr;     // the full external address (29 bits)
  wire [31:0] ext_wdata;
  reg  [127:0] imem_rdata;
  reg  [31:0]  ext_rdata;

  ga2_top #(.EXT_WORDS(EXT_WORDS), .IMEM_DEPTH(IMEM_DEPTH), .SP_WORDS(SP_WORDS),
            .OVERLAP(OVERLAP), .SM_MAX_LEN(SM_MAX_LEN)) dut (
    `GA2_TOP_CONNECT                       // every port on the wire of its name (ga2_isa.vh)
  );

  // ------------------------------------------------------------------ memories
  reg [127:0] imem [0:IMEM_DEPTH-1];
  localparam integer EXT_LO = (EXT_WORDS > `GA2_TB_EXT_BANK) ? `GA2_TB_EXT_BANK : EXT_WORDS;
  localparam integer EXT_HI = (EXT_WORDS > `GA2_TB_EXT_BANK) ? EXT_WORDS - `GA2_TB_EXT_BANK : 1;
  reg [31:0]  ext    [0:EXT_LO-1];
  reg [31:0]  ext_hi [0:EXT_HI-1];      // words EXT_LO.. (one unused word when there are none)

  wire imem_in = {{(32-`GA2_PC_W){1'b0}}, imem_addr} < IMEM_DEPTH;
  wire [31:0] ext_a32 = {{(32-`GA2_EXT_ADDR_W){1'b0}}, ext_addr};
  wire ext_in  = ext_a32 < EXT_WORDS;
  wire ext_up  = ext_a32 >= EXT_LO;     // in ext_hi (only when EXT_WORDS > EXT_LO)
  wire [31:0] ext_hi_a = ext_a32 - EXT_LO;

  integer i;
  initial begin
    for (i = 0; i < IMEM_DEPTH; i = i + 1) imem[i] = 128'd0;
    for (i = 0; i < EXT_LO; i = i + 1) ext[i] = 32'd0;
    for (i = 0; i < EXT_HI; i = i + 1) ext_hi[i] = 32'd0;
    imem_rdata = 128'd0;
    ext_rdata = 32'd0;
    imem_oob = 32'd0;
    ext_rd_oob = 32'd0;
    ext_wr_oob = 32'd0;
    xz_events = 32'd0;
  end

  always @(posedge clk) begin
    if (imem_en) begin
      if (imem_in) imem_rdata <= imem[imem_addr];
      else imem_rdata <= 128'd0;
    end
  end

  always @(posedge clk) begin
    if (ext_en) begin
      if (ext_in && ext_up) begin
        ext_rdata <= ext_hi[ext_hi_a];
        if (ext_we) ext_hi[ext_hi_a] <= ext_wdata;
      end else if (ext_in) begin
        ext_rdata <= ext[ext_addr];
        if (ext_we) ext[ext_addr] <= ext_wdata;
      end else begin
        ext_rdata <= 32'd0;
      end
    end
  end

  // ------------------------------------------------------------------ access checks
  always @(posedge clk) begin
    if (start === 1'b1) begin
      imem_oob <= 32'd0;
      ext_rd_oob <= 32'd0;
      ext_wr_oob <= 32'd0;
      xz_events <= 32'd0;
    end else if (rst === 1'b0) begin
      if (imem_en === 1'b1 && !imem_in) imem_oob <= imem_oob + 32'd1;
      if (ext_en === 1'b1 && !ext_in) begin
        if (ext_we === 1'b1) ext_wr_oob <= ext_wr_oob + 32'd1;
        else ext_rd_oob <= ext_rd_oob + 32'd1;
      end
      if (^{done, error, retire, imem_en, ext_en, ext_we} === 1'bx) xz_events <= xz_events + 32'd1;
    end
  end

  // ------------------------------------------------------------------ host-contract monitors
  // Every cycle with rst low is checked against docs/host.md from the host's
  // side alone (start, done, the outputs): a run is the cycles from the one after a start
  // up to the first with done high. Each monitor counts the cycles that break its rule;
  // `mon` shows the counts since the last start INCLUDING the current cycle (so a bench
  // sampling mid-cycle, as ga2_tb does when it first sees done, sees the done cycle's
  // checks); the counts clear in the start cycle's edge. mon_run_cycles is the number of
  // cycles between the start and done (both excluded), which must be the counter's final
  // value. Rules (index in `mon`):
  //   0 count:  in a run, before done: cnt_cycles = cycles since the start - 1 (it counts
  //             every cycle of the run, from 0);
  //   1 rise:   the first done cycle is the one after the counter's last count
  //             (cnt_cycles = cycles since the start - 1 there too: it did not move);
  //   2 hold:   after done until the next start or reset: done stays high, cnt_cycles
  //             never moves;
  //   3 imem:   no instruction-memory access (imem_en) outside a run;
  //   4 ext:    no external-memory access (ext_en) outside a run;
  //   5 reset:  from reset release to the first start, every cycle: done, error,
  //             error_code, error_pc, retire, the six counters and the two address
  //             buses (imem_addr, ext_addr) are 0;
  //   6 epc:    error = 0 implies error_code = 0 and error_pc = 0;
  //   7 retire: retire (any slot) only in a run (before done), and there retire_cycle =
  //             cnt_cycles + 1;
  //   8 clear:  in the first cycle of a run the five event counters (mm, dma, vec,
  //             instret, fetch) are 0: a start clears them (cnt_cycles: rule 0).
  reg        m_run, m_held, m_started;
  reg [31:0] m_ncyc, m_hold;
  reg [`GA2_MON_N*32-1:0] m_q, m_sum;
  wire       m_on  = (rst === 1'b0);
  wire       m_in  = m_run && (done === 1'b0);          // a cycle of the run, before done
  wire [`GA2_MON_N-1:0] m_now;
  assign m_now[0] = m_on && m_in && (cnt_cycles !== m_ncyc);
  assign m_now[1] = m_on && m_run && (done === 1'b1) && (cnt_cycles !== m_ncyc);
  assign m_now[2] = m_on && m_held && ((done !== 1'b1) || (cnt_cycles !== m_hold));
  assign m_now[3] = m_on && !m_in && (imem_en !== 1'b0);
  assign m_now[4] = m_on && !m_in && (ext_en !== 1'b0);
  // (an OR of every bit: 1 or x/z breaks the rule, whatever the buses' widths)
  assign m_now[5] = m_on && !m_started &&
                    ((|{done, error, error_code, error_pc, retire, cnt_cycles, cnt_mm, cnt_dma,
                       cnt_vec, cnt_instret, cnt_fetch, imem_addr, ext_addr}) !== 1'b0);
  assign m_now[6] = m_on && (error !== 1'b1) && ((|{error_code, error_pc}) !== 1'b0);
  assign m_now[7] = m_on && (retire !== 4'd0) &&
                    (!m_in || (retire_cycle !== cnt_cycles + 32'd1));
  assign m_now[8] = m_on && m_in && (m_ncyc == 32'd0) &&
                    ({cnt_mm, cnt_dma, cnt_vec, cnt_instret, cnt_fetch} !== 160'd0);
  integer mi;
  always @* begin
    for (mi = 0; mi < `GA2_MON_N; mi = mi + 1)
      m_sum[mi*32 +: 32] = m_q[mi*32 +: 32] + {31'd0, m_now[mi]};
  end
  always @(posedge clk) begin
    if (start === 1'b1) m_q <= {`GA2_MON_N*32{1'b0}};
    else m_q <= m_sum;
  end
  assign mon = m_sum;
  assign mon_run_cycles = m_ncyc;

  initial begin
    m_q = {`GA2_MON_N*32{1'b0}};
    m_run = 1'b0;
    m_held = 1'b0;
    m_started = 1'b0;
    m_ncyc = 32'd0;
    m_hold = 32'd0;
  end

  always @(posedge clk) begin
    if (rst !== 1'b0) begin
      m_run <= 1'b0;
      m_held <= 1'b0;
      m_started <= 1'b0;
    end else if (start === 1'b1) begin
      m_run <= 1'b1;
      m_held <= 1'b0;
      m_started <= 1'b1;
      m_ncyc <= 32'd0;
    end else if (m_run) begin
      if (done === 1'b1) begin
        m_run <= 1'b0;
        m_held <= 1'b1;
        m_hold <= cnt_cycles;
      end else begin
        m_ncyc <= m_ncyc + 32'd1;
      end
    end
  end

  // ------------------------------------------------------------------ scratchpad reads
  // mon_sp_reads: the words read from the scratchpad since the last start, INCLUDING the
  // current cycle (as `mon`): in every cycle with rst low, the number of enabled read
  // ports of the ga2_sram in ga2_top (dut.u_sp.rd_en, a bit per port: the matrix unit's
  // 2*ARRAY, the dma's, the vector unit's; an x/z enable counts as a read). Cleared in the
  // start cycle's edge, like the monitors. Not a host rule: the benches compare it, at
  // done, with the count the instruction set implies for the executed instructions
  // (model/func.py sp_reads, summed by the reference Machine). A test-bench monitor, read
  // by hierarchical name: the chip has no such counter.
  localparam SP_NRD = 2 * `GA2_ARRAY + 2;     // ga2_top's read ports (ga2_sp_xbar's order)
  wire [SP_NRD-1:0] sp_re = dut.u_sp.rd_en;
  reg  [31:0] rd_q;

  function [31:0] n_read;
    input [SP_NRD-1:0] en;
    integer j;
    begin
      n_read = 32'd0;
      for (j = 0; j < SP_NRD; j = j + 1)
        if (en[j] !== 1'b0) n_read = n_read + 32'd1;
    end
  endfunction

  wire [31:0] rd_now = m_on ? n_read(sp_re) : 32'd0;
  initial rd_q = 32'd0;
  always @(posedge clk) begin
    if (start === 1'b1) rd_q <= 32'd0;
    else rd_q <= rd_q + rd_now;
  end
  assign mon_sp_reads = rd_q + rd_now;

  // ------------------------------------------------------------------ scratchpad preload
  // $readmemh into the chip's scratchpad; call only while the chip is idle.
  task load_sp;
    input [8*512-1:0] fname;
    begin
      $readmemh(fname, dut.u_sp.mem);
    end
  endtask

  // ------------------------------------------------------------------ binary loads
  // The cocotb wrapper's memory images (tb/protocol.py write_bin): raw words, big-endian,
  // 16 bytes an instruction and 4 a data word, exactly the memory's words (the host pads).
  // One $fread a memory: several times $readmemh's speed on Verilator (docs/measurements.md).
  // A file of another size is an $error naming it and its size, and the simulation ends
  // before anything is read: never a silent truncation. Call only while the chip is idle.
  integer bin_fd, bin_n;
  function bin_open;                   // 1: fname opened (bin_fd) and of words * bytes bytes
    input [8*512-1:0] fname;
    input integer words, bytes;
    begin
      bin_open = 1'b0;
      bin_fd = $fopen(fname, "rb");
      if (bin_fd == 0) begin
        $error("%m: cannot open %0s", fname);
        $finish;
      end else begin
        bin_n = $fseek(bin_fd, 0, 2);
        bin_n = $ftell(bin_fd);
        if (bin_n != words * bytes) begin
          $error("%m: %0s holds %0d bytes, expected %0d (%0d words of %0d bytes)",
                 fname, bin_n, words * bytes, words, bytes);
          $fclose(bin_fd);
          $finish;
        end else begin
          bin_n = $fseek(bin_fd, 0, 0);
          bin_open = 1'b1;
        end
      end
    end
  endfunction

  // load_bin(mem, fname): mem 0 the instruction memory (16 bytes a word), 1 the external
  // memory, 2 the scratchpad (4 bytes a word)
  task load_bin;
    input [1:0]       mem;
    input [8*512-1:0] fname;
    reg               ok;
    begin
      case (mem)
        2'd0:    begin ok = bin_open(fname, IMEM_DEPTH, 16); if (ok) bin_n = $fread(imem, bin_fd); end
        2'd1:    begin
          ok = bin_open(fname, EXT_WORDS, 4);
          if (ok) bin_n = $fread(ext, bin_fd);
          if (ok && EXT_WORDS > EXT_LO) bin_n = $fread(ext_hi, bin_fd);   // the rest of the file
        end
        default: begin ok = bin_open(fname, SP_WORDS, 4); if (ok) bin_n = $fread(dut.u_sp.mem, bin_fd); end
      endcase
      if (ok) $fclose(bin_fd);
    end
  endtask

  // write_ext(fname, fname_hi, from, to): $writememh of the external words from .. to - 1:
  // those below EXT_LO into fname (an empty file when there are none), those past it into
  // fname_hi (no file when there are none; tb/protocol.py read_outcome joins the two)
  integer wx_fd;
  task write_ext;
    input [8*512-1:0] fname, fname_hi;
    input integer from, to;
    begin
      if (from < EXT_LO) begin
        $writememh(fname, ext, from, ((to < EXT_LO) ? to : EXT_LO) - 1);
      end else begin
        wx_fd = $fopen(fname, "w");
        $fclose(wx_fd);
      end
      if (to > EXT_LO) $writememh(fname_hi, ext_hi, (from > EXT_LO) ? from - EXT_LO : 0, to - EXT_LO - 1);
    end
  endtask
endmodule
`resetall
