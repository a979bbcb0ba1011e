#!/usr/bin/env python3
"""Lint the GA-2 RTL with `verilator --lint-only -Wall`: the chip and each unit as top.

Why: the RTL must be warning-free under -Wall; every waiver is an inline
`/* verilator lint_off ... */` in rtl/ with a comment giving its reason. Prints one
line; exits 1 on any warning or error (the verilator output is printed then).
"""
import subprocess
import sys
import time

from tools import ROOT
from tools.sim.files import rtl_files
RTL = ROOT / "rtl"
# ga2_top covers everything it instantiates; the units are linted alone as well, so a
# unit's own parameters/ports are checked outside the chip's constant context.
TOPS = ("ga2_top", "ga2_decode", "ga2_seq", "ga2_perf", "ga2_sp_xbar", "sram", "dma", "mm_ctrl", "systolic", "pe", "requant", "vec_rq",
        "exp_lut", "divu", "softmax")


def lint(top):
    """(ok, output) of verilator --lint-only -Wall with top as the top module."""
    srcs = [str(p) for p in rtl_files(RTL)]
    p = subprocess.run(["verilator", "--lint-only", "-Wall", f"-I{RTL}", "--top-module", top] + srcs,
                       capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip()
    return p.returncode == 0 and "%Warning" not in out and "%Error" not in out, out


def main():
    t0 = time.perf_counter()
    bad = []
    for top in TOPS:
        ok, out = lint(top)
        if not ok:
            bad.append(top)
            print(f"--- {top}\n{out}")
    nfiles = len(rtl_files(RTL))
    secs = time.perf_counter() - t0
    if bad:
        print(f"lint: FAIL ({', '.join(bad)}) -- verilator -Wall, {nfiles} files, {secs:.1f} s")
        return 1
    print(f"lint: clean -- verilator --lint-only -Wall, {nfiles} files, {len(TOPS)} tops, {secs:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
