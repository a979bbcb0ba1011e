// Shared front of the range wrappers (tb/formal/ga2_*_range_f.v): the chip's own decoder,
// ga2_decode, on a free instruction word `instr`, with the unit selects and the
// scratchpad ranges it reports as wires. The wrapper gives the unit the same instruction
// word as ga2_top does, and range_chk.vh latches the ranges (the read slots rd_v /
// rd_first / rd_last and wr: what ga2_hazard reserves for the instruction) at each start.
// Needs SP_WORDS, EXT_WORDS, SM_MAX_LEN.
  localparam AW  = `GA2_ADDR_W;
  localparam SAW = $clog2(SP_WORDS);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [`GA2_NUM_OPS-1:0]   op_oh;
  wire [`GA2_NUM_UNITS-1:0] unit_sel;
  wire [`GA2_NUM_T-1:0]     tunit_sel;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [2:0]  fault_code;
  localparam NRD = `GA2_NUM_RD;
  wire [NRD-1:0]    rd_v;
  wire [NRD*AW-1:0] rd_first, rd_last;
  wire          wr_v;
  wire [AW-1:0] wr_first, wr_last;
  ga2_decode #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS), .SM_MAX_LEN(SM_MAX_LEN)) u_dec (
    .instr(instr), .op_oh(op_oh), .unit_sel(unit_sel), .tunit_sel(tunit_sel), .fault_code(fault_code),
    .rd_v(rd_v), .rd_first(rd_first), .rd_last(rd_last),
    .wr_v(wr_v), .wr_first(wr_first), .wr_last(wr_last)
  );
