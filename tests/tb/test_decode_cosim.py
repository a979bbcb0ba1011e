"""rtl/ga2_decode.v alone against model/isa.py (tb/drivers/decode_job.py on tb/hdl/decode_tb.v),
on Icarus and Verilator: one build per simulator holds two decoders, one with
config.DEFAULT's sizes and one with a small chip's (SMALL), so the fault checks are
compared at both chips' memory ends; and the test is shown to fail on a broken decoder.
"""
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from model import config
from tb import ROOT
from tb.sim import build, process
from tb.sim.files import copy_rtl

# another chip: a small scratchpad, an external memory just past 2^16 (xhi = 1 reaches its
# end) and a long softmax (odd sizes, so no power-of-two coincidences)
SMALL = config.DEFAULT.replace(sp_words=1000, ext_words=(1 << 16) + 300, sm_max_len=1000)
CFGS = (config.DEFAULT, SMALL)


def _params():
    p = {}
    for tag, c in zip("AB", CFGS):
        p.update({f"{tag}_SP_WORDS": c.sp_words, f"{tag}_EXT_WORDS": c.ext_words,
                  f"{tag}_SM_MAX_LEN": c.sm_max_len})
    return p


def _build_decode(sim, rtl_dir=None, build_dir=None):
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    srcs = [rtl_dir / "ga2_decode.v", ROOT / "tb" / "hdl" / "decode_tb.v"]
    return build.build(sim, toplevel="decode_tb", srcs=srcs, parameters=_params(), rtl_dir=rtl_dir,
                       build_dir=build_dir or ROOT / "build" / f"{sim}-decode")


def _run_decode(sim, rtl_dir=None, build_dir=None):
    bdir = _build_decode(sim, rtl_dir, build_dir)
    run_dir = bdir / "runs" / f"{os.getpid()}"
    run_dir.mkdir(parents=True, exist_ok=True)
    cfgs = json.dumps([{"sp_words": c.sp_words, "ext_words": c.ext_words, "sm_max_len": c.sm_max_len}
                       for c in CFGS])
    xml, err, log = build.cocotb_test(sim, bdir, run_dir, "decode_job", toplevel="decode_tb",
                                      module_dirs=[ROOT / "tb" / "drivers"], testcase="test_decode",
                                      extra_env={"GA2_DECODE_CFGS": cfgs})
    assert xml is not None and xml.exists(), f"{sim}: no results ({err}); log {log}:\n{process.tail(log)}"
    cases = list(ET.parse(xml).iter("testcase"))
    fails = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    assert len(cases) == 1, f"{sim}: ran {[c.get('name') for c in cases]}"
    assert not fails and err is None, f"{sim} test_decode failed; log {log}:\n{process.tail(log, 25)}"


# Verilator's decode bench is -m long (its build: 11 s of a clean clone's CPU; every chip
# run on Verilator decodes through the same ga2_decode)
@pytest.mark.parametrize("sim", ["icarus", pytest.param("verilator", marks=pytest.mark.long)], indirect=True)
def test_decode(sim):
    _run_decode(sim)


def test_decode_test_catches_a_broken_decoder(tmp_path):
    """The decoder test fails on a copy whose (generated) LD external-range check is off by one."""
    rtl = copy_rtl(tmp_path, ("ga2_decode_ops.vh", r"wire ld_ext_bad = \(ld_end1 > GA2P_EXT_WORDS\[29:0\]\);",
                              "wire ld_ext_bad = (ld_end1 >= GA2P_EXT_WORDS[29:0]);"))
    with pytest.raises(AssertionError, match="test_decode failed"):
        _run_decode("icarus", rtl_dir=rtl, build_dir=tmp_path / "build")
