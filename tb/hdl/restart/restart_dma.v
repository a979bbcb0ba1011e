`resetall
`timescale 1ns/1ps
`default_nettype none
`include "restart_ports.vh"
// restart_dma: the restart check's (restart_chk.v) pair of dma units (LD, ST and ldx): A
// and B, each with its own scratchpad and external memory models (restart_rd; the
// scratchpad's words at 0xF00..0xFFF read as one byte, so a lookup there has a row index
// below 256), started by st_a and st_b with the same job fields, compared every cycle.
// Why a pair: a start while A is busy must leave A from the next cycle on exactly as B,
// started from idle in that cycle (docs/rtl.md "Start while busy").
// mis[s], with !==: 0 busy, 1 last, 2 sp_rd_en, 3 sp_rd_addr, 4 sp_wr_en, 5 sp_wr_addr,
// 6 sp_wr_data, 7 ext_en, 8 ext_we, 9 ext_addr, 10 ext_wdata, 11 idx_err (an address or
// data only where B's enable is high), 13 x/z on busy, last, an enable or idx_err (A or
// B), or on B's address or data where its enable is high.
module restart_dma #(
  parameter SP_WORDS  = `GA2_SP_WORDS,     // the scratchpad size (pointer widths)
  parameter EXT_WORDS = `GA2_EXT_WORDS     // the external memory size
) (
  `RESTART_PAIR_IN                         // clk, rst, st_a, st_b (restart_ports.vh)
  input  wire                   dir,
  input  wire                   ldx,
  input  wire [`GA2_ADDR_W-1:0] sp_base,
  input  wire [`GA2_ADDR_W-1:0] ext_base,  // below 2^16: the jobs' external addresses
  input  wire [`GA2_ADDR_W-1:0] idx,
  input  wire [15:0]            rows,
  input  wire [12:0]            len,
  `RESTART_PAIR_OUT                        // busy_a, busy_b, last_b, mis, obs_a, obs_b
);
  localparam AW = `GA2_ADDR_W;
  localparam [31:0] SALT_EXT = 32'hC3A50F69;

  wire          da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, da_idx_err;
  wire          db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, db_idx_err;
  wire [AW-1:0] da_sp_rd_addr, da_sp_wr_addr;
  wire [AW-1:0] db_sp_rd_addr, db_sp_wr_addr;
  // the dma's external address is 29 bits (xhi above a 16-bit field); these jobs stay
  // below 2^16, so the memory model and the observed vector keep the low AW bits (mis[9]
  // compares all)
  wire [`GA2_EXT_ADDR_W-1:0] da_ext_addr, db_ext_addr;
  wire [31:0]   da_sp_wr_data, da_ext_wdata, db_sp_wr_data, db_ext_wdata;
  wire [31:0]   da_sp_q, da_ext_q, db_sp_q, db_ext_q;
  restart_rd #(.AW(AW), .BYTE_PAGE(1)) u_sp_a (.clk(clk), .en(da_sp_rd_en), .addr(da_sp_rd_addr), .q(da_sp_q));
  restart_rd #(.AW(AW), .BYTE_PAGE(1)) u_sp_b (.clk(clk), .en(db_sp_rd_en), .addr(db_sp_rd_addr), .q(db_sp_q));
  restart_rd #(.AW(AW), .SALT(SALT_EXT)) u_ext_a (.clk(clk), .en(da_ext_en), .addr(da_ext_addr[AW-1:0]), .q(da_ext_q));
  restart_rd #(.AW(AW), .SALT(SALT_EXT)) u_ext_b (.clk(clk), .en(db_ext_en), .addr(db_ext_addr[AW-1:0]), .q(db_ext_q));
  // the unit takes the instruction word: the job's fields at their record's bits (the
  // jobs' external addresses are below 2^16: xhi 0)
  wire [`GA2_INSTR_W-1:0] instr = dir ? `GA2_ST_WORD(sp_base, ext_base, len, 0) :
                                 ldx ? `GA2_LDX_WORD(sp_base, ext_base, len, idx, rows, 0) :
                                       `GA2_LD_WORD(sp_base, ext_base, len, 0);
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_a (
    .clk(clk), .rst(rst), .start(st_a), .instr(instr), .busy(da_busy), .last(da_last),
    .idx_err(da_idx_err),
    .sp_rd_en(da_sp_rd_en), .sp_rd_addr(da_sp_rd_addr), .sp_rd_data(da_sp_q),
    .sp_wr_en(da_sp_wr_en), .sp_wr_addr(da_sp_wr_addr), .sp_wr_data(da_sp_wr_data),
    .ext_en(da_ext_en), .ext_we(da_ext_we), .ext_addr(da_ext_addr), .ext_wdata(da_ext_wdata),
    .ext_rdata(da_ext_q)
  );
  ga2_dma #(.SP_WORDS(SP_WORDS), .EXT_WORDS(EXT_WORDS)) u_b (
    .clk(clk), .rst(rst), .start(st_b), .instr(instr), .busy(db_busy), .last(db_last),
    .idx_err(db_idx_err),
    .sp_rd_en(db_sp_rd_en), .sp_rd_addr(db_sp_rd_addr), .sp_rd_data(db_sp_q),
    .sp_wr_en(db_sp_wr_en), .sp_wr_addr(db_sp_wr_addr), .sp_wr_data(db_sp_wr_data),
    .ext_en(db_ext_en), .ext_we(db_ext_we), .ext_addr(db_ext_addr), .ext_wdata(db_ext_wdata),
    .ext_rdata(db_ext_q)
  );

  assign busy_a = da_busy;
  assign busy_b = db_busy;
  assign last_b = db_last;
  always @* begin
    mis = 16'd0;
    mis[0]  = (da_busy !== db_busy);
    mis[1]  = (da_last !== db_last);
    mis[2]  = (da_sp_rd_en !== db_sp_rd_en);
    mis[3]  = (db_sp_rd_en === 1'b1) && (da_sp_rd_addr !== db_sp_rd_addr);
    mis[4]  = (da_sp_wr_en !== db_sp_wr_en);
    mis[5]  = (db_sp_wr_en === 1'b1) && (da_sp_wr_addr !== db_sp_wr_addr);
    mis[6]  = (db_sp_wr_en === 1'b1) && (da_sp_wr_data !== db_sp_wr_data);
    mis[7]  = (da_ext_en !== db_ext_en);
    mis[8]  = (da_ext_we !== db_ext_we);
    mis[9]  = (db_ext_en === 1'b1) && (da_ext_addr !== db_ext_addr);
    mis[10] = (db_ext_we === 1'b1) && (da_ext_wdata !== db_ext_wdata);
    mis[11] = (da_idx_err !== db_idx_err);
    mis[13] = (^{da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, da_idx_err,
                 db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, db_idx_err,
                 {AW{db_sp_rd_en}} & db_sp_rd_addr, {AW{db_sp_wr_en}} & db_sp_wr_addr,
                 {32{db_sp_wr_en}} & db_sp_wr_data, {AW{db_ext_en}} & db_ext_addr[AW-1:0],
                 {32{db_ext_we}} & db_ext_wdata} === 1'bx);
  end
  assign obs_a = {da_busy, da_last, da_sp_rd_en, da_sp_wr_en, da_ext_en, da_ext_we, 2'b00,
                  da_sp_rd_addr, da_sp_wr_addr, da_ext_addr[AW-1:0], da_sp_wr_data, da_ext_wdata, 8'd0};
  assign obs_b = {db_busy, db_last, db_sp_rd_en, db_sp_wr_en, db_ext_en, db_ext_we, 2'b00,
                  db_sp_rd_addr, db_sp_wr_addr, db_ext_addr[AW-1:0], db_sp_wr_data, db_ext_wdata, 8'd0};
endmodule
`resetall
