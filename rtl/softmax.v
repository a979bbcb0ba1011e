`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
`include "ga2_cfg.vh"
// softmax: the SM unit: sp[dst+i] = floor(e_i * 65536 / S), e_i = LUT[max - x_i],
// S = sum e_i, x_i = s8(sp[src+i]), 1 <= len <= 64. Busy exactly 2*(len+1) + 34*len:
//  - pass 1 (len+1 cycles): read x_i at cycle i, track the maximum;
//  - pass 2 (len+1 cycles): read x_i again, e_i = LUT[max - x_i] into a 64-entry
//    buffer, S += e_i;
//  - pass 3 (34 cycles per element): load the divider with e_i*65536 and S, 32 divide
//    steps, write the quotient in the cycle the divider reports done.
// All reads (both passes) happen before the first write.
module softmax (
  input  wire                   clk,
  input  wire                   rst,
  input  wire                   start,
  input  wire [`GA2_ADDR_W-1:0] dst,
  input  wire [`GA2_ADDR_W-1:0] src,
  input  wire [6:0]             len,       // 1..64, checked by the sequencer
  output wire                   busy,
  output wire                   last,
  output wire                   rd_en,
  output wire [`GA2_ADDR_W-1:0] rd_addr,
  input  wire [7:0]             rd_byte,   // s8(): only the low byte of a word counts
  output wire                   wr_en,
  output wire [`GA2_ADDR_W-1:0] wr_addr,
  output wire [31:0]            wr_data
);
  localparam AW = `GA2_ADDR_W;
  localparam [2:0] S_IDLE = 3'd0, S_MAX = 3'd1, S_EXP = 3'd2, S_LOAD = 3'd3, S_DIV = 3'd4;

  reg [2:0]    st_r;
  reg [6:0]    cnt_r, len_r;
  reg [5:0]    ew_r, idx_r;
  reg [AW-1:0] src_r, rp_r, wp_r;
  reg [7:0]    mx_r;
  reg [31:0]   sum_r;
  reg [15:0]   ebuf [0:`GA2_SM_MAX_LEN-1];

  wire        pass    = (st_r == S_MAX) || (st_r == S_EXP);
  wire        reading = pass && (cnt_r != len_r);
  wire        have_x  = pass && (cnt_r != 7'd0);
  wire [7:0]  x       = rd_byte;
  wire        x_gt    = $signed(x) > $signed(mx_r);
  wire [7:0]  d       = mx_r - x;                     // 0..255 since mx >= x
  wire [15:0] e;
  wire        div_done;
  wire [31:0] quot;
  /* verilator lint_off UNUSEDSIGNAL */
  // The divider's busy and remainder outputs are not needed: done marks the write cycle.
  wire        div_busy;
  wire [31:0] div_rem;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        elem_end = (st_r == S_DIV) && div_done;
  wire        is_last  = ({1'b0, idx_r} + 7'd1 == len_r);

  exp_lut u_lut (
    .d(d),
    .e(e)
  );

  divu #(.WIDTH(32)) u_div (
    .clk(clk),
    .rst(rst),
    .start(st_r == S_LOAD),
    .dividend({ebuf[idx_r], 16'd0}),
    .divisor(sum_r),
    .busy(div_busy),
    .done(div_done),
    .quotient(quot),
    .remainder(div_rem)
  );

  // the buffer powers up zero (data only: every entry is written before it is read)
  integer b;
  initial begin
    for (b = 0; b < `GA2_SM_MAX_LEN; b = b + 1) ebuf[b] = 16'd0;
  end

  always @(posedge clk) begin
    if (have_x && st_r == S_EXP) ebuf[ew_r] <= e;
  end

  always @(posedge clk) begin
    if (rst) begin
      st_r  <= S_IDLE;
      cnt_r <= 7'd0;
      len_r <= 7'd0;
      ew_r  <= 6'd0;
      idx_r <= 6'd0;
      src_r <= {AW{1'b0}};
      rp_r  <= {AW{1'b0}};
      wp_r  <= {AW{1'b0}};
      mx_r  <= 8'h80;
      sum_r <= 32'd0;
    end else if (start) begin
      st_r  <= S_MAX;
      cnt_r <= 7'd0;
      len_r <= len;
      ew_r  <= 6'd0;
      idx_r <= 6'd0;
      src_r <= src;
      rp_r  <= src;
      wp_r  <= dst;
      mx_r  <= 8'h80;                                  // -128, the smallest int8
      sum_r <= 32'd0;
    end else begin
      case (st_r)
        S_MAX: begin
          if (have_x && x_gt) mx_r <= x;
          if (cnt_r == len_r) begin
            st_r  <= S_EXP;
            cnt_r <= 7'd0;
            rp_r  <= src_r;
          end else begin
            cnt_r <= cnt_r + 7'd1;
            rp_r  <= rp_r + 1'b1;
          end
        end
        S_EXP: begin
          if (have_x) begin
            sum_r <= sum_r + {16'd0, e};
            ew_r  <= ew_r + 6'd1;
          end
          if (cnt_r == len_r) begin
            st_r <= S_LOAD;
          end else begin
            cnt_r <= cnt_r + 7'd1;
            rp_r  <= rp_r + 1'b1;
          end
        end
        S_LOAD: st_r <= S_DIV;
        S_DIV: begin
          if (div_done) begin
            wp_r <= wp_r + 1'b1;
            if (is_last) begin
              st_r <= S_IDLE;
            end else begin
              idx_r <= idx_r + 6'd1;
              st_r  <= S_LOAD;
            end
          end
        end
        default: st_r <= S_IDLE;
      endcase
    end
  end

  assign busy    = (st_r != S_IDLE);
  assign last    = elem_end && is_last;
  assign rd_en   = reading;
  assign rd_addr = rp_r;
  assign wr_en   = elem_end;
  assign wr_addr = wp_r;
  assign wr_data = quot;
endmodule
`resetall
