"""ga2_mm_ctrl's early old-C read on the scratchpad miter (tb/formal/ga2_mm_sp_miter_f.v,
tb/formal/compose.py mm_sp_check / mm_sp_inv_check; docs/formal_compose.md "ga2_mm_ctrl's early
old-C read, proven by composition"). Fast: the generated connections of the invariant
miter, and the miter itself built from today's RTL with its invariant holding at the
start (4 s). Long (make test-long; `make formal` runs the proof itself): the miter is not
vacuous -- it finds the difference when the other units may write the C hull while the MM
runs (the planted environment) and when the read comes one cycle LATE (a mutant the chip
can see: the first drain write adds a stale word)."""
import shutil

import pytest

from tb.formal import compose, engine
from tb.formal.miter import listed_sites

TOOLS = shutil.which("yosys") and shutil.which("yosys-abc")


def _site():
    """The listed entry's site: pre_drain's compare one cycle early (== x -> == x-1)."""
    got = [s for key, _, s in listed_sites() if s is not None and s.module == "ga2_mm_ctrl"]
    assert len(got) == 1 and got[0].desc == "== x -> == x-1", got
    return got[0]


def test_regs_wires_and_equality():
    """Every exposed register gets a wire pair and a connection on each side; the
    equality leaves out exactly row 0's A operands; a port of the unit is no register."""
    unit = {"clk": ("input", 1), "busy": ("output", 1)}
    regs = {"cyc_q": ("output", 9), "g_feed[0].b_v_q": ("output", 1),
            **{r: ("output", 8) for r in compose.MM_SP_FREE}}
    got = compose.mm_sp_regs(unit, {**unit, **regs})
    assert "wire [8:0] g_r_cyc_q, t_r_cyc_q;" in got["mm_sp_regs.vh"]
    assert "wire [0:0] g_r_g_feed_0__b_v_q, t_r_g_feed_0__b_v_q;" in got["mm_sp_regs.vh"]
    eq = got["mm_sp_regs.vh"].split("regs_eq = ")[1]
    assert eq == "g_r_cyc_q == t_r_cyc_q && g_r_g_feed_0__b_v_q == t_r_g_feed_0__b_v_q;\n"
    assert "busy" not in got["mm_sp_regs.vh"]
    assert got["mm_sp_conn_g.vh"].count(", .\\") == len(regs)
    assert ", .\\u_array.g_row[0].g_col[2].u_pe.a_out (t_r_u_array_g_row_0__g_col_2__u_pe_a_out)" \
        in got["mm_sp_conn_t.vh"]


def test_regs_refuses_a_missing_free_register():
    """The invariant names row 0's A registers: a build without one is refused, not
    silently compared as something else."""
    with pytest.raises(ValueError, match="not registers"):
        compose.mm_sp_regs({}, {"cyc_q": ("output", 9)})


@pytest.mark.long
@pytest.mark.skipif(not TOOLS, reason="yosys and yosys-abc (make setup)")
def test_the_miter_sees_a_write_between_the_reads(tmp_path):
    """Planted environment (XFREE = 1): another unit writes the old C word between the
    mutant's read and the original's; bmc3 finds it (the first drain write differs)."""
    v = engine.run(compose.mm_sp_check(_site(), tmp_path, "bmc3", 14, 600, xfree=1))
    assert v.result == "FAILED", v


@pytest.mark.long
@pytest.mark.skipif(not TOOLS, reason="yosys and yosys-abc (make setup)")
def test_the_miter_sees_a_late_read(tmp_path):
    """A read one cycle LATE (== x -> == x+1) leaves the first drain write with port 0's
    previous word: the miter with the chip's environment finds it."""
    late = _site()._replace(repl="1 + ", desc="== x -> == x+1")
    v = engine.run(compose.mm_sp_check(late, tmp_path, "bmc3", 14, 600))
    assert v.result == "FAILED", v


@pytest.mark.skipif(not TOOLS, reason="yosys (make setup)")
def test_the_invariant_miter_builds(tmp_path):
    """The invariant miter elaborates with the unit's registers as they are now (a renamed
    register of row 0's A operands is refused by mm_sp_regs) into its SMT-LIB model."""
    c = compose.mm_sp_inv_check(_site(), tmp_path, mode="bmc", timeout=600)
    ok, msg = engine.build_smt2(c, tmp_path / "smt2")
    assert ok, msg
    assert (tmp_path / "smt2" / "model.smt2").stat().st_size > 0


# long: with MM's 16-bit A operands (16 x 8 PEs) the base case went from about 24 s to more
# than 600 s on a loaded machine (z3's multipliers); make formal runs the induction
@pytest.mark.long
@pytest.mark.skipif(not (TOOLS and shutil.which("yosys-smtbmc") and shutil.which("z3")),
                    reason="yosys, yosys-smtbmc and z3 (make setup)")
def test_the_invariant_miter_holds_at_start(tmp_path):
    """The invariant miter's invariant holds in the base case (`make formal` runs the
    induction)."""
    c = compose.mm_sp_inv_check(_site(), tmp_path, mode="bmc", timeout=1800)
    c.name += " test"
    v = engine.run(c)
    assert v.result == "bounded" and v.depth == "bmc 2", v
