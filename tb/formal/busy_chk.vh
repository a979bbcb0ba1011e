// Shared body of the busy-length wrappers (tb/formal/ga2_*_busy_f.v): the unit was reset
// in the first cycle; start is free in every later cycle (a start while busy is a
// restart: docs/rtl.md "Start while busy"). L_q is the formula's value for the fields
// of the latest start, cnt_q the cycles since it (1 in the first busy cycle, saturating).
// Asserted in every cycle: busy exactly in cycles 1..L of the latest start, last exactly
// in cycle L; never busy before the first start.
  reg init_q = 1'b1;
  reg act_q  = 1'b0;                 // a start has happened since the reset
  reg [CW-1:0] cnt_q = {CW{1'b0}};
  reg [CW-1:0] L_q = {CW{1'b0}};
  always @(posedge clk) begin
    init_q <= 1'b0;
    if (rst) begin
      act_q <= 1'b0;
      cnt_q <= {CW{1'b0}};
    end else if (start) begin
      act_q <= 1'b1;
      cnt_q <= {{(CW-1){1'b0}}, 1'b1};
      L_q   <= L_new;
    end else if (cnt_q != {CW{1'b1}}) begin
      cnt_q <= cnt_q + 1'b1;
    end
  end
  always @* begin
    if (init_q) assume (rst);
    assume (!start || legal);
    if (!rst && !init_q) begin
      assert (busy == (act_q && cnt_q <= L_q));
      assert (last == (act_q && cnt_q == L_q));
    end
  end
