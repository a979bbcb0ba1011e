// The harness instance u_h and the wires of the chip's host outputs, as every bench
// uses them: `include this inside a bench module that declares clk, rst and start and
// the parameters EXT_WORDS, IMEM_DEPTH, SP_WORDS, OVERLAP and SM_MAX_LEN.
  wire        done, error;
  wire [3:0]  retire;          // slots: 0 dma, 1 mm, 2 vec, 3 HALT (model/timing.py SLOT)
  wire [2:0]  error_code;
  wire [`GA2_PC_W-1:0]   error_pc;
  wire [4*`GA2_PC_W-1:0] retire_pc;   // slot i's pc at [GA2_PC_W*i +: GA2_PC_W]
  wire [31:0] cnt_cycles, cnt_mm, cnt_dma, cnt_vec, cnt_instret, cnt_fetch, retire_cycle;
  wire [31:0] imem_oob, ext_rd_oob, ext_wr_oob, xz_events, mon_run_cycles, mon_sp_reads;
`ifndef GA2_MON_N
`define GA2_MON_N 9
`endif
  wire [`GA2_MON_N*32-1:0] mon;

  ga2_harness #(.EXT_WORDS(EXT_WORDS), .IMEM_DEPTH(IMEM_DEPTH), .SP_WORDS(SP_WORDS),
                .OVERLAP(OVERLAP), .SM_MAX_LEN(SM_MAX_LEN)) u_h (
    .clk(clk), .rst(rst), .start(start),
    .done(done), .error(error), .error_code(error_code), .error_pc(error_pc),
    .cnt_cycles(cnt_cycles), .cnt_mm(cnt_mm), .cnt_dma(cnt_dma), .cnt_vec(cnt_vec),
    .cnt_instret(cnt_instret), .cnt_fetch(cnt_fetch), .retire(retire), .retire_pc(retire_pc),
    .retire_cycle(retire_cycle), .imem_oob(imem_oob), .ext_rd_oob(ext_rd_oob),
    .ext_wr_oob(ext_wr_oob), .xz_events(xz_events),
    .mon(mon), .mon_run_cycles(mon_run_cycles), .mon_sp_reads(mon_sp_reads)
  );
