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


def _toy_check(tmp_path, gate_addr, name):
    gold, gate = tmp_path / "gold", tmp_path / "gate"
    for d, addr in ((gold, "a_q"), (gate, gate_addr)):
        d.mkdir()
        (d / "toy.v").write_text(TOY % addr)
        (d / "ga2.f").write_text("toy.v\n")
    pg, pt = miter.build_sides("toy", gold, gate, tmp_path / "sides")
    text, labels = miter.wrapper(pg, pt)
    (tmp_path / "miter.v").write_text(text)
    front = (f"read_rtlil {tmp_path / 'sides' / 'gold.il'}\nread_rtlil {tmp_path / 'sides' / 'gate.il'}\n"
             f"read_verilog -formal {tmp_path / 'miter.v'}\nhierarchy -top ga2_miter\n")
    c = engine.Check(name, "ga2_miter", [], 0, "pdr", front=front, post=miter.ZERO_INIT, timeout=120)
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
