"""The masked miter (tb/formal/miter.py) and the counterexample trace (tb/formal/witness.py).

Small and fast (make test): the pairing of outputs with their enables, taken from port
names; and on a toy unit (a counter that writes its address once, two cycles after a
start), that the masked miter proves a mutant equivalent when it changes the address only
while the write enable is low (what the chip's contract does not observe), finds a
counterexample when the address differs with the enable high, and that the replayed trace
of that counterexample shows the difference in the cycle the design makes it.
The listed entries' proofs are `make formal` (docs/formal.md "The equivalents list").
"""
import shutil

import pytest

from tb.formal import engine, miter, witness
from tb.mutation.rtl import equivalents

needs_tools = pytest.mark.skipif(not (shutil.which("yosys") and shutil.which("yosys-abc")),
                                 reason="yosys and yosys-abc (make setup)")


def test_outputs_are_paired_with_their_enables_by_name():
    ports = {"clk": ("input", 1), "busy": ("output", 1), "wr_en": ("output", 1), "wr_addr": ("output", 16),
             "wr_data": ("output", 32), "rd_en": ("output", 8), "rd_addr": ("output", 128),
             "rd_data": ("output", 32), "ext_en": ("output", 1), "ext_we": ("output", 1),
             "ext_wdata": ("output", 32), "ext_addr": ("output", 20), "last": ("output", 1)}
    got = dict(miter.observed(ports))
    assert got == {"busy": None, "wr_en": None, "wr_addr": "wr_en", "wr_data": "wr_en", "rd_en": None,
                   "rd_addr": "rd_en", "rd_data": None, "ext_en": None, "ext_we": "ext_en",
                   "ext_wdata": "ext_en", "ext_addr": "ext_en", "last": None}


def test_a_vector_enable_masks_each_slice():
    ports = {"clk": ("input", 1), "rd_en": ("output", 2), "rd_addr": ("output", 8)}
    text, labels = miter.wrapper(ports, ports)
    assert "(!g_rd_en[1] || (g_rd_addr[7:4] == t_rd_addr[7:4]))" in text
    assert labels == ["rd_en", "rd_addr[0] while rd_en[0]", "rd_addr[1] while rd_en[1]"]


def test_only_a_tool_proof_counts_as_equivalent():
    assert equivalents.proven("equivalent (proven by abc pdr, masked miter of ga2_argmax, 3 s)")
    for why in ("NOT PROVEN (abc pdr undecided); ARGUED: ...", "ARGUED: an equal element", "equivalent"):
        assert not equivalents.proven(why)


def test_every_listed_entry_starts_with_a_tool_verdict():
    for key, why in equivalents.load_equivalents().items():
        assert why.startswith((equivalents.PROVEN, "NOT PROVEN")), (key, why[:60])


TOY = """module toy (input wire clk, input wire rst, input wire start, input wire [3:0] dst,
            output wire busy, output wire wr_en, output wire [3:0] wr_addr);
  reg [1:0] c_q; reg [3:0] a_q;
  always @(posedge clk) begin
    if (rst) c_q <= 2'd0;
    else if (start) c_q <= 2'd2;
    else if (c_q != 2'd0) c_q <= c_q - 2'd1;
    if (start) a_q <= dst;
  end
  assign busy = (c_q != 2'd0);
  assign wr_en = (c_q == 2'd1);
  assign wr_addr = %s;
endmodule
"""


def _toy_check(tmp_path, gate_addr, name, template=TOY, gold_text="a_q", shared=False, invariant=None):
    gold, gate = tmp_path / "gold", tmp_path / "gate"
    for d, text in ((gold, gold_text), (gate, gate_addr)):
        d.mkdir(parents=True)
        (d / "toy.v").write_text(template % text)
        (d / "ga2.f").write_text("toy.v\n")
    got = miter.build_sides("toy", gold, gate, tmp_path / "sides", strengthen=invariant is not None, shared=shared)
    text, labels = miter.wrapper(*got[:2], state=got[2] if shared else None, invariant=invariant)
    (tmp_path / "miter.v").write_text(text)
    front = (f"read_rtlil {tmp_path / 'sides' / 'gold.il'}\nread_rtlil {tmp_path / 'sides' / 'gate.il'}\n"
             f"read_verilog -formal {tmp_path / 'miter.v'}\nhierarchy -top ga2_miter\n")
    c = engine.Check(name, "ga2_miter", [], 0, "pdr", front=front, post=miter.ZERO_INIT, timeout=120)
    if invariant is not None:
        c.mode, c.depth = "induction", miter.INDUCTION_K
    c.labels = labels
    return c


@needs_tools
def test_an_address_changed_only_while_disabled_is_proven_equivalent(tmp_path):
    # the address reads 0 outside the write cycle: the contract does not look there
    v = engine.run(_toy_check(tmp_path, "wr_en ? a_q : 4'd0", "test/miter-toy-masked"))
    assert v.result == "proven", v


@needs_tools
def test_an_address_changed_while_enabled_is_a_counterexample_with_its_trace(tmp_path):
    c = _toy_check(tmp_path, "a_q ^ {3'd0, wr_en}", "test/miter-toy-differs")
    v = engine.run(c)
    assert v.result == "FAILED", v
    rows, failed = witness.trace(engine.work_dir(c), c.labels, ("start", "dst"))
    assert failed
    bad = [r for r in rows if r.get("failed")]
    assert bad and bad[0]["failed"] == ["wr_addr while wr_en"]
    # the write comes two cycles after a start: the first failing cycle has a start 2 cycles before
    k = bad[0]["cycle"]
    assert k >= 2 and rows[k - 2]["start"] == 1
    g, t = bad[0]["wr_addr"]
    assert g ^ t == 1


# the shared-state miter's toy: a running maximum behind a multiplier (the datapath the
# two copies share once their registers are one set)
TOY_MAX = """module toy (input wire clk, input wire rst, input wire start, input wire [3:0] x,
            output wire busy, output wire [7:0] y);
  reg b_q; reg [3:0] m_q;
  always @(posedge clk) begin
    if (rst) b_q <= 1'b0; else if (start) b_q <= 1'b1;
    if (start) m_q <= 4'd0; else if (%s) m_q <= x;
  end
  assign busy = b_q;
  assign y = b_q ? m_q * x : 8'd0;
endmodule
"""


def test_the_shared_state_wrapper_has_one_register_set_and_compares_next_values():
    ports = {"clk": ("input", 1), "a": ("input", 2), "y": ("output", 2),
             "r.q": ("input", 3), "r.d": ("output", 3), "r.c": ("output", 1)}
    state = miter.state_of(ports, {"r.q": "101"})
    assert state == {"r": (3, "101")}
    text, labels = miter.wrapper(ports, ports, state=state)
    assert "reg [2:0] s0 = 3'b101;" in text and "always @(posedge clk) s0 <= \\g_r.d ;" in text
    assert ".\\r.q (s0)" in text and "input wire [2:0] \\r.q" not in text
    assert labels == ["next r", "y"]


@needs_tools
def test_the_shared_state_miter_proves_a_tie_and_finds_a_planted_difference(tmp_path):
    # a tie (x >= m loads the value m already holds): the one state stays the gold's
    v = engine.run(_toy_check(tmp_path / "tie", "x >= m_q", "test/miter-shared-tie", TOY_MAX, "x > m_q",
                              shared=True))
    assert v.result == "proven", v
    # not a tie: x = m + 1 is not loaded; the next value of m_q differs, the trace says so
    c = _toy_check(tmp_path / "off", "x > m_q + 4'd1", "test/miter-shared-off", TOY_MAX, "x > m_q",
                   shared=True)
    v = engine.run(c)
    assert v.result == "FAILED", v
    rows, failed = witness.trace(engine.work_dir(c), c.labels, ("start", "x"))
    bad = [r for r in rows if r.get("failed")]
    assert bad and "next m_q" in bad[0]["failed"]


@needs_tools
def test_the_shared_state_miter_refuses_a_mutant_with_other_registers(tmp_path):
    # a mutant with a register one bit wider: there is no one state to share
    wide = TOY_MAX.replace("reg [3:0] m_q", "reg [4:0] m_q") % "x > m_q"
    with pytest.raises(ValueError, match="changes the registers"):
        _toy_check(tmp_path, wide, "test/miter-shared-regs", "%s", TOY_MAX % "x > m_q", shared=True)


@needs_tools
def test_the_invariant_miter_proves_by_induction_and_fails_a_planted_difference(tmp_path):
    # the running maximum compared only while busy (the stated invariant): a tie closes by
    # k-induction; a real difference (shown 3 cycles after a start, beyond the bmc's 2
    # steps) does not: the induction step fails
    inv = {"while": {"m_q": "g_b_q"}, "lemmas": ("g_b_q == t_b_q",)}
    v = engine.run(_toy_check(tmp_path / "tie", "x >= m_q", "test/miter-inv-tie", TOY_MAX, "x > m_q",
                              invariant=inv))
    assert v.result == "proven", v
    v = engine.run(_toy_check(tmp_path / "off", "x > m_q + 4'd1", "test/miter-inv-off", TOY_MAX, "x > m_q",
                              invariant=inv))
    assert v.result == "bounded" and "induction k=2: failed" in v.depth, v
