"""rtl/ga2_exp_lut.v and rtl/ga2_exp2_lut.v are generated from the spec's formulas and must not be stale.

The table is read back out of the Verilog text and compared with the formula evaluated
here, independently of model/softmax_gold.py; the generator's --check must pass, and
that of rtl/ga2_sig_lut.v's generator (tests/flow/test_sig_lut.py checks its table).
"""
import math
import re
import subprocess
import sys

import pytest

from tb import ROOT


@pytest.mark.parametrize("generator", ["tools.flow.exp_lut", "tools.flow.sig_lut"])
def test_generator_check_passes_on_committed_table(generator):
    r = subprocess.run([sys.executable, "-m", generator, "--check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_verilog_table_equals_formula():
    text = (ROOT / "rtl" / "ga2_exp_lut.v").read_text()
    entries = {int(d): int(v) for d, v in re.findall(r"8'd(\d+)\s*:\s*e\s*=\s*16'd(\d+)", text)}
    assert sorted(entries) == list(range(256)), "every d in 0..255 needs exactly one case item"
    for d in range(256):
        assert entries[d] == math.floor(65535 * math.exp(-d / 16) + 0.5), d
    assert entries[0] == 65535 and entries[255] == 0


def test_verilog_exp2_table_equals_its_definition():
    """rtl/ga2_exp2_lut.v (SMW's table) holds round(2^16 * 2^(-d/256)) for every d, evaluated
    here in 50-digit decimal arithmetic (independently of model/wide.py's evaluation)."""
    import decimal
    c = decimal.Context(prec=50)
    ln2 = c.ln(decimal.Decimal(2))
    text = (ROOT / "rtl" / "ga2_exp2_lut.v").read_text()
    entries = {int(d): int(v) for d, v in re.findall(r"8'd(\d+)\s*:\s*e\s*=\s*17'd(\d+)", text)}
    assert sorted(entries) == list(range(256)), "every d in 0..255 needs exactly one case item"
    for d in range(256):
        v = 65536 * c.exp(-ln2 * d / 256)
        assert entries[d] == int((v + decimal.Decimal("0.5")).to_integral_value(decimal.ROUND_FLOOR)), d
    assert entries[0] == 65536 and entries[255] == 32857
