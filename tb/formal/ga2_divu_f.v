`resetall
`timescale 1ns/1ps
`default_nettype none
// ga2_divu_f: ga2_divu's contract (tb/formal/props.py divu()), for every input sequence:
// from a start with dividend N and divisor D, in the cycle `last` and in every later
// cycle until the next start, with no step running (a reset only stops the steps):
//   D != 0: N == QD + remainder and remainder < D, where QD = Horner's sum of D over the
//           quotient's bits (QD = 2 QD + bit * D a step), i.e. QD = quotient * D;
//   D == 0: quotient is all ones.
// With QD = quotient * D (asserted too when MUL = 1) that is quotient = floor(N / D),
// remainder = N mod D (Euclid's division is unique). The wrapper holds its own copy of
// the last start's operands (n_q, d_q) and QD (qd_q); the strengthening invariant that
// makes k-induction close (asserted in every step cycle, k = steps done = WIDTH-1-cnt_q):
// the divider holds D; quo_q's top WIDTH-k bits are N's low WIDTH-k bits (still to be
// shifted in), its low k bits the quotient so far; QD + rem_q = N >> (WIDTH-k) (the
// dividend's top k bits), rem_q < D (D == 0: every quotient bit so far 1).
// The divider's registers and its `ge` are ports of ga2_divu after `expose` (props.py).
module ga2_divu_f #(
  parameter WIDTH = 32,
  parameter MUL   = 0          // 1: also assert QD == quotient * D (a multiplier)
) (
  input wire             clk,
  input wire             rst,
  input wire             start,
  input wire [WIDTH-1:0] dividend,
  input wire [WIDTH-1:0] divisor
);
  localparam W   = WIDTH;
  localparam CNW = $clog2(W);
  wire             busy, last, step_q, last_q, ge;
  wire [W-1:0]     quotient, remainder, quo_q, rem_q, dsr_q;
  wire [CNW-1:0]   cnt_q;

  ga2_divu dut (
    .clk(clk), .rst(rst), .start(start), .dividend(dividend), .divisor(divisor),
    .busy(busy), .last(last), .quotient(quotient), .remainder(remainder),
    .step_q(step_q), .last_q(last_q), .cnt_q(cnt_q), .quo_q(quo_q), .rem_q(rem_q),
    .dsr_q(dsr_q), .ge(ge)
  );

  // the wrapper's copy: a start seen, a division finished since it, its operands, QD
  reg         started = 1'b0;
  reg         done = 1'b0;
  reg [W-1:0] n_q, d_q;
  reg [W:0]   qd_q;
  always @(posedge clk) begin
    if (start) begin
      started <= 1'b1;
      done    <= 1'b0;
      n_q     <= dividend;
      d_q     <= divisor;
      qd_q    <= {(W+1){1'b0}};
    end else begin
      if (step_q) qd_q <= {qd_q[W-1:0], 1'b0} + (ge ? {1'b0, dsr_q} : {(W+1){1'b0}});
      if (last_q) done <= 1'b1;
    end
  end

  /* verilator lint_off WIDTH */
  wire [7:0]   k     = (W - 1) - cnt_q;                            // steps done
  wire [W:0]   one   = {{W{1'b0}}, 1'b1};
  wire [W:0]   kmask = (one << k) - one;                           // the low k bits
  wire [W:0]   lmask = (one << (W - k)) - one;                     // the low W-k bits
  wire [W:0]   top_k = {1'b0, n_q} >> (W - k);                     // N's top k bits
  wire [W-1:0] qsofar = quo_q & kmask[W-1:0];
  /* verilator lint_on WIDTH */
  wire [2*W-1:0] prod_k = {{W{1'b0}}, qsofar} * {{W{1'b0}}, d_q};
  wire [2*W-1:0] prod   = {{W{1'b0}}, quo_q} * {{W{1'b0}}, d_q};

  always @* begin
    if (started && step_q) begin
      assert (cnt_q <= W - 1);
      assert (!done && !last_q);            // a result is claimed only after its steps
      assert (dsr_q == d_q);
      assert ((quo_q >> k) == (n_q & lmask[W-1:0]));
      assert ({1'b0, qd_q} + {2'b0, rem_q} == {1'b0, top_k});   // no wrap
      if (d_q != {W{1'b0}}) assert (rem_q < d_q);
      else                  assert (qsofar == kmask[W-1:0]);
      if (MUL) assert (prod_k == {{(W-1){1'b0}}, qd_q});
    end
    // the contract: from `last` until the next start, while no step runs
    if (started && !step_q && (last_q || done)) begin
      assert (dsr_q == d_q);
      if (d_q != {W{1'b0}}) begin
        assert ({1'b0, qd_q} + {2'b0, rem_q} == {2'b0, n_q});
        assert (rem_q < d_q);
        if (MUL) assert (prod == {{(W-1){1'b0}}, qd_q});
      end else begin
        assert (quo_q == {W{1'b1}});
      end
    end
    if (started && last) assert (!step_q && quotient == quo_q && remainder == rem_q);
  end
endmodule
`resetall
