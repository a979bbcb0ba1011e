// The FAST = 1 softmax's busy length as a sequence of phases (ga2_softmax_busy_f.v with
// PHASES = 1, ga2_softmax_fast_busy_f.v): after each start the model runs phase 1 for
// len + 1 cycles, phase 2 for len + 1, phases 3, 4, 5 for 1, SM_FAST_TAIL - 2 and 1,
// phase 6 for len, then stops (ph_q 0); pc_q (CW bits) counts 0 .. length - 1 in each
// phase but phase 4, which counts down from SM_FAST_TAIL - 3 to 0; ph_end marks a
// phase's last cycle. The wrapper provides clk, rst, start, len, CW and SM_FAST_TAIL, and
// asserts busy while ph_q != 0 and last in phase 6's last cycle.
  reg init_q = 1'b1;
  reg [2:0] ph_q = 3'd0;               // 0: stopped, 1..6: the phase
  reg [CW-1:0] pc_q = {CW{1'b0}};      // the cycle within the phase (phase 4 counts down)
  reg [6:0] ln_q = 7'd0;
  reg [31:0] plen;                     // the current phase's length
  always @* begin
    case (ph_q)
      3'd1, 3'd2: plen = ln_q + 1;
      3'd3, 3'd5: plen = 1;
      3'd4:       plen = SM_FAST_TAIL - 2;
      default:    plen = ln_q;
    endcase
  end
  // phases 1, 2, 3, 5, 6 count 0 .. plen - 1; phase 4 counts plen - 1 .. 0
  wire ph_end = (ph_q == 3'd4) ? (pc_q == {CW{1'b0}}) : (pc_q == plen - 1);
  wire [31:0] tail3 = SM_FAST_TAIL - 3;      // phase 4's first pc
  always @(posedge clk) begin
    init_q <= 1'b0;
    if (rst) begin
      ph_q <= 3'd0;
    end else if (start) begin
      ph_q <= 3'd1;
      pc_q <= {CW{1'b0}};
      ln_q <= len;
    end else if (ph_q != 3'd0) begin
      if (ph_end) begin
        ph_q <= (ph_q == 3'd6) ? 3'd0 : ph_q + 1'b1;
        pc_q <= (ph_q == 3'd3) ? tail3[CW-1:0] : {CW{1'b0}};
      end else begin
        pc_q <= (ph_q == 3'd4) ? pc_q - 1'b1 : pc_q + 1'b1;
      end
    end
  end
