"""The related shared-state miter and yosys's equivalence flow (tb/formal/miter.py: RELATION,
wrapper(relation=...), equiv_check), each shown to prove what it should and to refuse a
planted difference, so neither proves by vacuity.

Fast (make test): toy units. Long (make test-long): the listed entries they prove, with a
wrong relation for each (one phase off, any value, none, 13 for 14) and a mutant the suite
catches, all refuted. make formal proves the listed entries themselves."""
import shutil

import pytest

from tb.formal import engine, miter

pytestmark = pytest.mark.skipif(not (shutil.which("yosys") and shutil.which("yosys-abc")),
                                reason="yosys and yosys-abc (make setup)")

# a pointer read in phase 0 of two; the gold steps it after phase 0, a mutant after phase
# 1: one behind in phase 1, where the read is off
TOY_PH = """module toy (input wire clk, input wire rst, input wire start, input wire [3:0] src,
            output wire busy, output wire rd_en, output wire [3:0] rd_addr);
  reg b_q; reg ph_q; reg [3:0] p_q;
  always @(posedge clk) begin
    if (rst) b_q <= 1'b0; else if (start) b_q <= 1'b1;
    if (start) begin ph_q <= 1'b0; p_q <= src; end
    else if (b_q) begin ph_q <= ~ph_q; if (%s) p_q <= p_q + 4'd1; end
  end
  assign busy = b_q;
  assign rd_en = b_q && !ph_q;
  assign rd_addr = rd_en ? p_q : 4'd0;
endmodule
"""
BEHIND = "T == (G(ph_q) ? G(p_q) - 4'd1 : G(p_q))"


def _dirs(tmp_path, gold_text, gate_text, template):
    gold, gate = tmp_path / "gold", tmp_path / "gate"
    for d, text in ((gold, gold_text), (gate, gate_text)):
        d.mkdir(parents=True)
        (d / "toy.v").write_text(template % text)
        (d / "ga2.f").write_text("toy.v\n")
    return gold, gate


def _related(tmp_path, gate_cond, relation, name):
    gold, gate = _dirs(tmp_path, "!ph_q", gate_cond, TOY_PH)
    got = miter.build_sides("toy", gold, gate, tmp_path / "sides", shared=True)
    text, labels = miter.wrapper(*got[:2], state=got[2], relation=relation)
    (tmp_path / "miter.v").write_text(text)
    front = (f"read_rtlil {tmp_path / 'sides' / 'gold.il'}\nread_rtlil {tmp_path / 'sides' / 'gate.il'}\n"
             f"read_verilog -formal {tmp_path / 'miter.v'}\nhierarchy -top ga2_miter\n")
    c = engine.Check(name, "ga2_miter", [], 0, "pdr", front=front, post=miter.ZERO_INIT, timeout=120)
    c.labels = labels
    return engine.run(c)


def test_the_related_miter_proves_a_pointer_one_phase_behind(tmp_path):
    v = _related(tmp_path, "ph_q", {"p_q": BEHIND}, "test/related-toy")
    assert v.result == "proven", v


@pytest.mark.parametrize("relation", ["T == G(p_q)", "T == (G(ph_q) ? G(p_q) + 4'd1 : G(p_q))", "1'b1", "1'b0"],
                         ids=["equal", "ahead", "any value", "none"])
def test_the_related_miter_refuses_a_wrong_relation(tmp_path, relation):
    v = _related(tmp_path, "ph_q", {"p_q": relation}, "test/related-toy-wrong")
    assert v.result == "FAILED", v


def test_the_related_miter_refuses_a_pointer_that_is_read_while_behind(tmp_path):
    # the read in phase 1 too: the pointer one behind is seen
    g, t = _dirs(tmp_path, "!ph_q", "ph_q", TOY_PH.replace("assign rd_en = b_q && !ph_q", "assign rd_en = b_q"))
    got = miter.build_sides("toy", g, t, tmp_path / "sides", shared=True)
    text, _ = miter.wrapper(*got[:2], state=got[2], relation={"p_q": BEHIND})
    (tmp_path / "miter.v").write_text(text)
    front = (f"read_rtlil {tmp_path / 'sides' / 'gold.il'}\nread_rtlil {tmp_path / 'sides' / 'gate.il'}\n"
             f"read_verilog -formal {tmp_path / 'miter.v'}\nhierarchy -top ga2_miter\n")
    v = engine.run(engine.Check("test/related-toy-seen", "ga2_miter", [], 0, "pdr", front=front,
                                post=miter.ZERO_INIT, timeout=120))
    assert v.result == "FAILED", v


def test_a_relation_must_name_registers_of_the_state():
    ports = {"clk": ("input", 1), "y": ("output", 2), "r.q": ("input", 3), "r.d": ("output", 3)}
    state = miter.state_of(ports, {})
    with pytest.raises(ValueError, match="not in the state"):
        miter.wrapper(ports, ports, state=state, relation={"x": "T == G(r)"})
    with pytest.raises(ValueError, match="not a register"):
        miter.wrapper(ports, ports, state=state, relation={"r": "T == G(x)"})


# a selector behind a multiplier: the order of two exclusive tests, a real difference, an
# initial value
TOY_SEL = """module toy (input wire clk, input wire rst, input wire start, input wire [1:0] s,
            input wire [7:0] x, output wire [15:0] y);
  reg [1:0] s_q%s;
  always @(posedge clk) if (rst) s_q <= 2'd0; else if (start) s_q <= s;
  wire [7:0] b = %s;
  assign y = x * b;
endmodule
"""
GOLD_SEL = "(s_q == 2'd1) ? x : ((s_q == 2'd2) ? ~x : 8'd3)"


def _equiv(tmp_path, gate_sel, gate_init=""):
    gold, gate = tmp_path / "gold", tmp_path / "gate"
    for d, init, sel in ((gold, "", GOLD_SEL), (gate, gate_init, gate_sel)):
        d.mkdir(parents=True)
        (d / "toy.v").write_text(TOY_SEL % (init, sel))
        (d / "ga2.f").write_text("toy.v\n")
    return miter.equiv_dirs("toy", gold, gate, tmp_path / "sides", timeout=120, name="test/yosys-equiv-toy")


def test_yosys_equiv_proves_two_exclusive_tests_swapped(tmp_path):
    v = _equiv(tmp_path, "(s_q == 2'd2) ? ~x : ((s_q == 2'd1) ? x : 8'd3)")
    assert v.result == "proven", v


def test_yosys_equiv_refuses_tests_that_overlap(tmp_path):
    # s_q[0] also holds for 3, a value the register takes
    v = _equiv(tmp_path, "s_q[0] ? x : ((s_q == 2'd2) ? ~x : 8'd3)")
    assert v.result == "FAILED", v


def test_yosys_equiv_refuses_a_changed_initial_value(tmp_path):
    with pytest.raises(ValueError, match="initial value"):
        _equiv(tmp_path, GOLD_SEL, " = 2'd1")


# the listed entries (long): proven, and a wrong relation or a caught mutant refuted
def _site(module, code, change):
    from tb.mutation.rtl import equivalents
    from tb.mutation.rtl.sites import ALL_CLASSES, enumerate_sites
    for s in enumerate_sites(modules=[module], classes=ALL_CLASSES):
        k = equivalents.equiv_key(s)
        if k[2] == code and k[3] == change:
            return s
    raise LookupError((module, code, change))


AP = ("ga2_swiglu", "if (ph_q == P_G) ap_q <= ap_q + 1'b1;")
ST = ("ga2_smw", "if (step) st_q <= st_q + 4'd1; // 15 wraps to 0: the next element's first step")


@pytest.mark.long
@pytest.mark.parametrize("where,change,relation,result", [
    (AP, "== x -> == x+1", None, "proven"),
    (AP, "== x -> == x+1", {"ap_q": "T == ((G(ph_q) == 3'd2) ? G(ap_q) - 1'b1 : G(ap_q))"}, "FAILED"),
    (AP, "== x -> == x+1", {"ap_q": "1'b1"}, "FAILED"),
    (AP, "== x -> == x+1", {"ap_q": "1'b0"}, "FAILED"),
    (AP, "== x -> == x-1", "listed", "FAILED"),
    (ST, "+ -> -", None, "proven"),
    (ST, "+ -> -", {"st_q": "(G(state_q) != 2'd2) || (T == 4'd13 - G(st_q))"}, "FAILED"),
], ids=["ap proven", "ap one phase off", "ap any", "ap none", "ap caught mutant", "st proven", "st 13"])
def test_the_listed_relations(tmp_path, where, change, relation, result):
    site = _site(where[0], where[1], change)
    if relation is None:
        relation = miter.relation_of(site)
    elif relation == "listed":
        relation = miter.relation_of(_site(where[0], where[1], "== x -> == x+1"))
    c = miter.site_check(site, tmp_path, "pdr", 300, shared=True, relation=relation, name=f"test/related {where[0]}")
    assert engine.run(c).result == result


@pytest.mark.long
def test_yosys_equiv_proves_the_listed_prio_and_refuses_a_caught_mutant(tmp_path):
    code = "wire [31:0] mul_b = p1 ? ax : ((state_q == S_LM) ? (b16_q ? KQ16 : KQ8) : ss_q[31:0]);"
    v = miter.equiv_check(_site("ga2_qnt", code, "?: arms swapped: p1 <-> (state_q == S_LM)"), tmp_path / "p")
    assert v.result == "proven", v
    v = miter.equiv_check(_site("ga2_qnt", "wire [1:0] j = {qm[18] | qm[17], !qm[17]};", "18 -> 17"), tmp_path / "c")
    assert v.result == "FAILED", v
