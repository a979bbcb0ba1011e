"""The RTL filelist rtl/ga2.f, read once for every tool (simulators, lint, synthesis, mutation).

rtl_files(rtl_dir) gives the chip's Verilog files in the list's order; a mutant's copy of
the RTL folder carries its own ga2.f, so the same call works there.
"""
from pathlib import Path

from tb import ROOT

RTL_DIR = ROOT / "rtl"
FILELIST = "ga2.f"


def rtl_files(rtl_dir=None):
    """The files named by rtl_dir/ga2.f (default rtl/), as absolute Paths, in order."""
    rtl_dir = Path(rtl_dir) if rtl_dir else RTL_DIR
    flist = rtl_dir / FILELIST
    if not flist.exists():
        raise FileNotFoundError(f"no filelist {flist}")
    out = []
    for n, line in enumerate(flist.read_text().splitlines(), 1):
        line = line.split("//", 1)[0].strip()
        if not line:
            continue
        p = (rtl_dir / line).resolve()
        if not p.exists():
            raise FileNotFoundError(f"{flist}:{n}: {line} does not exist")
        if p in out:
            raise ValueError(f"{flist}:{n}: {line} listed twice")
        out.append(p)
    return out


def top_file(rtl_dir=None):
    """The last file of the list: the chip's top."""
    return rtl_files(rtl_dir)[-1]
