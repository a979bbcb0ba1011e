`default_nettype none
`include "ga2_isa.vh"
// ga2_top_f: the whole chip (ga2_top) for any program and any data, with the host
// contract (docs/host.md "Per-cycle rules", docs/contract.md) and the overlap mode's
// scratchpad safety as assertions. Read by tb/formal/engine.py after ga2_top was
// elaborated, flattened and its nets below exposed as outputs (tb/formal/props.py `pre`):
//   u_xbar.miss  ga2_sp_xbar's missed-hazard check (the simulation check, proven here)
//   sp_wr_en     the scratchpad's write enables {dma, mm, vec}
//   issue        the sequencer starts a unit this cycle
//   fault_code   ga2_decode's verdict on the instruction in DECODE
// Every input of this module is free in every cycle (yosys-smtbmc): start, reset after
// the first cycle, the instruction-memory word a FETCH reads (so every program, even one
// whose words change between runs), the external memory's read data. The scratchpad's
// contents and the datapath (array, requant, exp table) are cut points (props.py), so
// the data are free too: the properties hold for every data value.
module ga2_top_f #(
  parameter OVERLAP = 1
) (
  input wire         clk,
  input wire         rst,
  input wire         start,
  input wire [127:0] imem_word,
  input wire [31:0]  ext_word
);
  wire         done, error, imem_en, ext_en, ext_we;
  wire [2:0]   error_code;
  wire [`GA2_PC_W-1:0] error_pc, imem_addr;
  wire [`GA2_EXT_ADDR_W-1:0] ext_addr;
  wire [31:0]  cnt_cycles, cnt_mm, cnt_dma, cnt_vec, cnt_instret, cnt_fetch, ext_wdata, retire_cycle;
  wire [3:0]   retire;
  wire [4*`GA2_PC_W-1:0] retire_pc;
  wire [2:0]   miss, sp_wr_en, fault_code;
  wire         issue;
  reg  [127:0] imem_rdata;
  reg  [31:0]  ext_rdata;

  ga2_top dut (
    .clk(clk), .rst(rst), .start(start), .done(done), .error(error),
    .error_code(error_code), .error_pc(error_pc),
    .cnt_cycles(cnt_cycles), .cnt_mm(cnt_mm), .cnt_dma(cnt_dma), .cnt_vec(cnt_vec),
    .cnt_instret(cnt_instret), .cnt_fetch(cnt_fetch),
    .imem_addr(imem_addr), .imem_en(imem_en), .imem_rdata(imem_rdata),
    .ext_addr(ext_addr), .ext_en(ext_en), .ext_we(ext_we), .ext_wdata(ext_wdata),
    .ext_rdata(ext_rdata),
    .retire(retire), .retire_pc(retire_pc), .retire_cycle(retire_cycle),
    .\u_xbar.miss (miss), .sp_wr_en(sp_wr_en), .issue(issue), .fault_code(fault_code)
  );

  // the memories as the harness has them (tb/hdl/ga2_harness.v): synchronous reads, one
  // cycle of latency, the data held while the enable is low; the data themselves free
  always @(posedge clk) begin
    if (imem_en) imem_rdata <= imem_word;
    if (ext_en) ext_rdata <= ext_word;
  end

  // ------------------------------------------------------------------ the host's view
  reg init_q = 1'b1;       // the first cycle: reset is asserted there
  reg run_q  = 1'b0;       // a run: from the cycle after an accepted start until done
  reg pre_q  = 1'b0;       // from reset to the first start (rule 3), the start cycle included
  reg first_q = 1'b0;      // the first cycle of a run
  reg past_ok = 1'b0;      // the previous cycle exists and had reset low
  reg done_p, start_p;
  reg [31:0] cycles_p;
  always @(posedge clk) begin
    init_q  <= 1'b0;
    past_ok <= !rst;
    done_p  <= done;
    start_p <= start;
    cycles_p <= cnt_cycles;
    first_q <= 1'b0;
    if (rst) begin
      run_q <= 1'b0;
      pre_q <= 1'b1;
    end else if (start && (!run_q || done)) begin
      run_q   <= 1'b1;
      pre_q   <= 1'b0;
      first_q <= 1'b1;
    end else if (done) begin
      run_q <= 1'b0;
    end
  end
  wire idle = !run_q || done;

  always @* begin
    if (init_q) assume (rst);
    if (!rst) begin
      // the overlap mode's scratchpad safety: ga2_sp_xbar's check never fires
      assert (miss == 3'd0);
      // rule 1: done holds, and cycles with it, until the next start
      if (past_ok && done_p && !start_p) begin
        assert (done);
        assert (cnt_cycles == cycles_p);
      end
      // rule 2: no instruction or external-memory access while idle
      if (idle) begin
        assert (!imem_en);
        assert (!ext_en);
      end
      // rule 3: every host-visible output 0 from reset to the first start
      if (pre_q) begin
        assert (!done && !error && error_code == 3'd0 && error_pc == {`GA2_PC_W{1'b0}} && retire == 4'd0);
        assert (cnt_cycles == 32'd0 && cnt_mm == 32'd0 && cnt_dma == 32'd0 && cnt_vec == 32'd0
                && cnt_instret == 32'd0 && cnt_fetch == 32'd0);
        assert (imem_addr == {`GA2_PC_W{1'b0}} && ext_addr == {`GA2_EXT_ADDR_W{1'b0}});
      end
      // rule 4: error_code and error_pc are 0 whenever error is 0
      if (!error) assert (error_code == 3'd0 && error_pc == {`GA2_PC_W{1'b0}});
      // rule 5: retire only in a run, with retire_cycle = cycles + 1
      if (retire != 4'd0) begin
        assert (run_q && !done);
        assert (retire_cycle == cnt_cycles + 32'd1);
      end
      // rule 6 (and rule 1's start): a start clears the counters
      if (first_q) assert (cnt_cycles == 32'd0 && cnt_mm == 32'd0 && cnt_dma == 32'd0
                           && cnt_vec == 32'd0 && cnt_instret == 32'd0 && cnt_fetch == 32'd0);
      // a fault writes nothing: a faulting instruction starts no unit, and from the
      // fault to the next start no scratchpad write and no external access
      if (issue) assert (fault_code == 3'd0);
      if (error) begin
        assert (sp_wr_en == 3'd0);
        assert (!ext_en);
      end
    end
  end

  // reachability: what the bounded proof must be able to see within its depth
  reg [2:0] busy_seen;
  always @* begin
    if (!rst) begin
      cover (done && !error);                          // a program that halts
      cover (done && error);                           // a program that faults
      cover (issue && sp_wr_en != 3'd0);               // a start while another unit writes
    end
  end
endmodule
