"""rtl/ga2_sig_lut.v is generated from the sigmoid table's definition and must not be stale.

The table is read back out of the Verilog text and compared with round(2^15 sigmoid(-16 +
k/8)) evaluated here in 40-digit decimals, independently of model/wide.py; the generator's
--check must pass (tests/flow/test_exp_lut.py runs it with the exponential tables').
"""
import decimal
import re

from tb import ROOT


def test_verilog_table_equals_the_definition():
    text = (ROOT / "rtl" / "ga2_sig_lut.v").read_text()
    rows = re.findall(r"8'd(\d+)\s*:\s*begin s = 16'd(\d+); d = 10'd(\d+); end", text)
    got = {int(k): (int(s), int(d)) for k, s, d in rows}
    assert sorted(got) == list(range(256)), "every k in 0..255 needs exactly one case item"
    ctx = decimal.Context(prec=40)

    def sig(k):
        v = decimal.Decimal(32768) / (1 + ctx.exp(decimal.Decimal(16) - decimal.Decimal(k) / 8))
        return int((v + decimal.Decimal("0.5")).to_integral_value(decimal.ROUND_FLOOR))
    want = [sig(k) for k in range(257)]
    for k in range(256):
        assert got[k] == (want[k], want[k + 1] - want[k]), k
    assert got[0] == (0, 0) and got[128][0] == 16384 and got[255] == (32768, 0)
