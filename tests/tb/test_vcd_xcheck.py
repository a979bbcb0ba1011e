"""The X check's VCD reading (tb/sim/plain_check.x_signals, through vcdvcd): a signal
counts when it holds x/z at or after the time limit, not when it only did before."""
from tb.plain_check import x_signals

VCD = """$timescale 1ps $end
$scope module tb $end
$scope module dut $end
$var wire 1 ! clean $end
$var wire 4 " early_x [3:0] $end
$var wire 1 # late_z $end
$var wire 8 $ held_x [7:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
x!
bxxxx "
0#
bxxxxxxxx $
#100
0!
b0101 "
#300
1#
#500
z#
"""


def test_x_signals_after_the_limit(tmp_path):
    f = tmp_path / "t.vcd"
    f.write_text(VCD)
    got = x_signals(f, 200)
    assert [g.split("[")[0] for g in got] == ["tb.dut.held_x", "tb.dut.late_z"]
    assert x_signals(f, 600) == got            # the z in force since 500 still counts at 600
    assert len(x_signals(f, 0)) == 4          # x at 0 (clean, early_x, held_x), z later (late_z)


POLICY_VCD = """$timescale 1ps $end
$scope module tb_plain $end
$scope module u_h $end
$scope module dut $end
$var wire 16 ! ext_addr [15:0] $end
$scope module u_dma $end
$var wire 1 " start $end
$var reg 1 # busy_q $end
$var reg 12 $ sp_q [11:0] $end
$upscope $end
$scope module u_rq $end
$var wire 1 % start $end
$var reg 16 & m_q [15:0] $end
$upscope $end
$scope module u_mm $end
$var wire 1 ' start $end
$var reg 10 ( cyc_q [9:0] $end
$upscope $end
$scope module u_sp $end
$scope module g_rd[0] $end
$var integer 32 ) k [31:0] $end
$upscope $end
$upscope $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
bx !
x"
x#
bx $
x%
bx &
x'
bx (
bx )
#100
b0 !
0"
0#
0%
0'
#300
1"
#400
0"
1#
b101 $
#500
bx !
1%
#600
0%
x#
"""


def test_x_policy_allow_list(tmp_path):
    """docs/rtl.md "Reset and X policy": a listed datapath register may be x until the
    clock edge that ends its unit's first start (u_dma.sp_q, loaded at 400), or for ever
    if the unit never starts (u_mm.cyc_q); a loop variable is ignored; a ga2_top port
    (ext_addr), a control register (busy_q) and a datapath register after its unit's
    first start (u_rq.m_q, still x at 600) are not."""
    from tb.plain_check import xcheck_limits
    f = tmp_path / "p.vcd"
    f.write_text(POLICY_VCD)
    got = [g.split("[")[0] for g in x_signals(f, 200, limits=xcheck_limits(200))]
    assert got == ["tb_plain.u_h.dut.ext_addr", "tb_plain.u_h.dut.u_dma.busy_q",
                   "tb_plain.u_h.dut.u_rq.m_q"]
    # the old rule (every signal from 200) also lists the allowed ones
    assert len(x_signals(f, 200)) == 6
