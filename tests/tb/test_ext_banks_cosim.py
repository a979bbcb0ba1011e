"""The wrapper's external memory past GA2_TB_EXT_BANK words (tb/hdl/ga2_harness.v): two
arrays, ext and ext_hi, because Verilator refuses an unpacked array of more than 2^28
elements. The real size needs a 1 GB memory image, so this runs the same Verilog with the
bank cut to 1,024 words (a copy of rtl/ with its ga2_cfg.vh edited, tb/protocol.EXT_BANK
set to match) on Icarus: transfers that cross the bank and end at the memory's last word,
the binary image filling both arrays, and the read-back whole and through windows on
either side of the bank, each judged against the Machine (tb/judge.py)."""
import numpy as np
import pytest

from model import config, isa
from tb import hw, protocol

BANK = 1024
CFG = config.DEFAULT.replace(ext_words=4096)


def _programs(stores):
    """Loads across the bank, at the memory's last words and at ext_hi's first; then the
    stores (src, dst, len) given (the judge holds every write inside the read-back window)."""
    B = isa.build
    rng = np.random.default_rng(11)
    img = rng.integers(-(1 << 31), 1 << 31, CFG.ext_words, dtype=np.int64)
    prog = [B("LD", cfg=CFG, dst=0, src=BANK - 40, len=60),           # crosses the bank
            B("LD", cfg=CFG, dst=100, src=CFG.ext_words - 96, len=96),  # the last words
            B("LD", cfg=CFG, dst=300, src=BANK, len=1)]                 # ext_hi's first word
    prog += [B("ST", cfg=CFG, src=a, dst=d, len=n) for a, d, n in stores]
    return [hw.Item(prog + [B("HALT", cfg=CFG)], img)]


ACROSS = [(0, BANK - 10, 30), (100, 3000, 96), (300, BANK - 1, 1)]   # across, high, ext's last
BELOW = [(0, 10, 60), (300, BANK - 1, 1)]
ABOVE = [(100, CFG.ext_words - 96, 96), (0, BANK, 60)]


@pytest.mark.skipif("icarus" not in hw.available_sims(), reason="Icarus not installed")
@pytest.mark.parametrize("stores, window", [(ACROSS, None), (ACROSS, (BANK - 20, 3100)),
                                            (BELOW, (0, BANK)), (BELOW[:1], (5, BANK - 2)),
                                            (ABOVE, (BANK, CFG.ext_words)), (ABOVE, (BANK - 3, CFG.ext_words))],
                         ids=["whole", "across", "below", "below_to_bank", "above", "above_from_below"])
def test_a_memory_in_two_arrays_behaves_as_one(tmp_path_factory, monkeypatch, stores, window):
    from tb.sim.files import copy_rtl
    base = tmp_path_factory.getbasetemp() / "ext_banks"
    if not (base / "rtl").exists():
        base.mkdir(exist_ok=True)
        copy_rtl(base, ("ga2_cfg.vh", r"`define GA2_TB_EXT_BANK \d+", f"`define GA2_TB_EXT_BANK {BANK}"))
    monkeypatch.setattr(protocol, "EXT_BANK", BANK)
    (r,) = hw.run_programs("icarus", _programs(stores), cfg=CFG, rtl_dir=base / "rtl",
                           build_dir=base / "build", window=window)
    assert r.ok, r.mismatch
    if window is None:
        assert r.ext is not None and len(r.ext) == CFG.ext_words
    else:
        first, words = r.ext                    # a window: (its first word, its words)
        assert first == window[0] and len(words) == window[1] - window[0]
