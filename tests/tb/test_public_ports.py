"""The unit and decoder benches on Verilator make only their ports public (tb/sim/build.py
_public_ports_vlt): every signal their cocotb drivers touch must be among those ports, or
the driver would find no handle on a Verilator build."""
import re
from pathlib import Path

import pytest

from tb.sim import build

ROOT = Path(__file__).resolve().parents[2]


# each bench's driver and the library it drives the bench through
DRIVERS = [("units_tb", "units_job.py units_bench.py"), ("decode_tb", "decode_job.py")]


@pytest.mark.parametrize("toplevel,driver", DRIVERS)
def test_every_signal_the_driver_touches_is_a_public_port(toplevel, driver):
    vlt = build._public_ports_vlt(toplevel, [ROOT / "tb" / "hdl" / f"{toplevel}.v"]).read_text()
    public = set(re.findall(r'-var "(\w+)"', vlt))
    texts = [(ROOT / "tb" / "drivers" / f).read_text() for f in driver.split()]
    used = {u for t in texts for u in re.findall(r"\bdut\.(\w+)", t)} - {"_log"}
    assert used and not used - public, sorted(used - public)
    # the ports, and nothing else: no wildcard, no internal name
    assert "*" not in vlt and all(f'-module "{toplevel}"' in ln for ln in vlt.splitlines()[1:])


def test_a_file_without_a_port_list_is_refused(tmp_path):
    f = tmp_path / "empty_tb.v"
    f.write_text("module empty_tb; endmodule\n")
    with pytest.raises(RuntimeError, match="no ANSI port list"):
        build._public_ports_vlt("empty_tb", [f])
