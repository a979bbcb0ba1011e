"""The X check's VCD reading (tools/sim/plain_check.x_signals, through vcdvcd): a signal
counts when it holds x/z at or after the time limit, not when it only did before."""
from tools.sim.plain_check import x_signals

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
