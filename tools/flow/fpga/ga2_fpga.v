`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
// ga2_fpga: the GA-2 chip (ga2_top, unchanged) with its instruction and external memories
// on the FPGA's block RAM and a narrow host port, the top of `make fpga`
// (tools/flow/fpga.py: yosys synth_ice40 / synth_ecp5, nextpnr-ice40 / nextpnr-ecp5).
// Not part of the chip's RTL (rtl/ga2.f): the board around it, so that the chip's ~500
// ports become ~95 pins. The chip's parameters pass through unchanged; the board's
// memories may be smaller than the chip's address ranges (a block RAM cannot hold the
// language model's 2^28-word external memory: a board would put it in DRAM):
//   imem  IMEM_RAM_DEPTH (default IMEM_DEPTH) x 128 bits as four 32-bit lanes,
//         synchronous read, one cycle of latency, 0 outside the memory (as
//         tb/hdl/ga2_harness.v);
//   ext   EXT_RAM_WORDS (default EXT_WORDS) x 32 bits, synchronous read, one cycle of
//         latency, read-first, 0 outside the memory; a write outside it is dropped.
// The host port writes a lane of an imem word (host_imem = 1, host_lane) or an ext word
// (host_imem = 0) with host_we, and reads back through host_rdata one registered cycle
// later: host_rsel 0 ext[host_addr], 1..5 the counters (cycles, mm, dma, vec, instret),
// 6 {error_code, error_pc}, 7..8 retire_pc[63:0], 9 retire, 10 retire_cycle, 11 the fetch
// counter, 12 retire_pc[83:64] (pcs are GA2_PC_W = 21 bits). The host uses the
// port while the chip is idle (done, or before the first start); a chip access to ext
// wins over the host's in the same cycle.
module ga2_fpga #(
  parameter EXT_WORDS  = 256,
  parameter IMEM_DEPTH = 256,
  parameter SP_WORDS   = 16,
  parameter OVERLAP    = 0,
  parameter SM_MAX_LEN = 64,
  parameter EXT_RAM_WORDS  = EXT_WORDS,
  parameter IMEM_RAM_DEPTH = IMEM_DEPTH
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        start,
  input  wire        host_we,
  input  wire        host_imem,
  input  wire [1:0]  host_lane,
  input  wire [15:0] host_addr,
  input  wire [31:0] host_wdata,
  input  wire [3:0]  host_rsel,
  output wire [31:0] host_rdata,
  output wire        done,
  output wire        error
);
  initial begin
    if (EXT_RAM_WORDS < 1 || EXT_RAM_WORDS > 65536 || EXT_RAM_WORDS > EXT_WORDS ||
        IMEM_RAM_DEPTH < 1 || IMEM_RAM_DEPTH > IMEM_DEPTH) begin
      $error("%m: EXT_RAM_WORDS=%0d must be 1..min(65536, EXT_WORDS=%0d), IMEM_RAM_DEPTH=%0d 1..IMEM_DEPTH=%0d",
             EXT_RAM_WORDS, EXT_WORDS, IMEM_RAM_DEPTH, IMEM_DEPTH);
      $finish;
    end
  end

  localparam IAW = (IMEM_RAM_DEPTH > 1) ? $clog2(IMEM_RAM_DEPTH) : 1;
  localparam EAW = (EXT_RAM_WORDS > 1) ? $clog2(EXT_RAM_WORDS) : 1;

  wire [2:0]   error_code;
  wire [`GA2_PC_W-1:0] error_pc, imem_addr;
  wire [31:0]  cnt_cycles, cnt_mm, cnt_dma, cnt_vec, cnt_instret, cnt_fetch, retire_cycle;
  wire [`GA2_EXT_ADDR_W-1:0] ext_addr;   // the chip's full external address (xhi above 16 bits)
  wire         imem_en, ext_en, ext_we;
  wire [31:0]  ext_wdata;
  wire [127:0] imem_rdata;
  wire [31:0]  ext_rdata;
  wire [3:0]   retire;
  wire [4*`GA2_PC_W-1:0] retire_pc;

  ga2_top #(.EXT_WORDS(EXT_WORDS), .IMEM_DEPTH(IMEM_DEPTH), .SP_WORDS(SP_WORDS),
            .OVERLAP(OVERLAP), .SM_MAX_LEN(SM_MAX_LEN)) u_chip (
    `GA2_TOP_CONNECT                       // every port on the wire of its name (ga2_isa.vh)
  );

  // ------------------------------------------------------------------ imem: four lanes
  wire imem_in = {{(32-`GA2_PC_W){1'b0}}, imem_addr} < IMEM_RAM_DEPTH;
  reg  imem_in_q;
  always @(posedge clk) begin
    if (imem_en) imem_in_q <= imem_in;
  end

  genvar l;
  generate
    for (l = 0; l < 4; l = l + 1) begin : g_lane
      reg [31:0] mem [0:IMEM_RAM_DEPTH-1];
      reg [31:0] q;
      always @(posedge clk) begin
        if (host_we && host_imem && host_lane == l[1:0] && {16'd0, host_addr} < IMEM_RAM_DEPTH)
          mem[host_addr[IAW-1:0]] <= host_wdata;
        if (imem_en) q <= mem[imem_addr[IAW-1:0]];
      end
      assign imem_rdata[32*l +: 32] = imem_in_q ? q : 32'd0;
    end
  endgenerate

  // ------------------------------------------------------------------ ext: one word a cycle
  reg  [31:0] ext [0:EXT_RAM_WORDS-1];
  reg  [31:0] ext_q;
  reg         ext_in_q;
  wire [`GA2_EXT_ADDR_W-1:0] e_addr = ext_en ? ext_addr : {{(`GA2_EXT_ADDR_W-16){1'b0}}, host_addr};
  wire        e_in   = {{(32-`GA2_EXT_ADDR_W){1'b0}}, e_addr} < EXT_RAM_WORDS;
  wire        e_we   = ext_en ? ext_we : (host_we && !host_imem);
  wire [31:0] e_data = ext_en ? ext_wdata : host_wdata;
  always @(posedge clk) begin
    if (e_we && e_in) ext[e_addr[EAW-1:0]] <= e_data;
    ext_q <= ext[e_addr[EAW-1:0]];
    ext_in_q <= e_in;
  end
  assign ext_rdata = ext_in_q ? ext_q : 32'd0;

  // ------------------------------------------------------------------ host read-back
  reg [3:0]  rsel_q;
  reg [31:0] rdata_q;
  always @(posedge clk) begin
    rsel_q <= host_rsel;
    case (rsel_q)
      4'd0:    rdata_q <= ext_rdata;
      4'd1:    rdata_q <= cnt_cycles;
      4'd2:    rdata_q <= cnt_mm;
      4'd3:    rdata_q <= cnt_dma;
      4'd4:    rdata_q <= cnt_vec;
      4'd5:    rdata_q <= cnt_instret;
      4'd6:    rdata_q <= {{(29-`GA2_PC_W){1'b0}}, error_code, error_pc};
      4'd7:    rdata_q <= retire_pc[31:0];
      4'd8:    rdata_q <= retire_pc[63:32];
      4'd9:    rdata_q <= {28'd0, retire};
      4'd10:   rdata_q <= retire_cycle;
      4'd11:   rdata_q <= cnt_fetch;
      4'd12:   rdata_q <= {{(96-4*`GA2_PC_W){1'b0}}, retire_pc[4*`GA2_PC_W-1:64]};
      default: rdata_q <= 32'd0;
    endcase
  end
  assign host_rdata = rdata_q;
endmodule
`resetall
