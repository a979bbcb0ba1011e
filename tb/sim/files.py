"""The filelists, read once for every tool: the RTL's rtl/ga2.f (simulators, lint,
synthesis, mutation) and the restart check's tb/hdl/restart/restart.f (units_tb, the
mutation bench).

rtl_files(rtl_dir) gives the chip's Verilog files in the list's order; a mutant's copy of
the RTL folder carries its own ga2.f, so the same call works there. restart_files() gives
the restart check's parts and its top, tb/hdl/restart_chk.v, last. HDL_DIR and HARNESS
are the benches' folder and the harness every bench of the chip instantiates (the RTL's
builds and the gate-level netlist's).
"""
import os
import re
from pathlib import Path

from tb import ROOT

RTL_DIR = ROOT / "rtl"
FILELIST = "ga2.f"
HDL_DIR = ROOT / "tb" / "hdl"       # every bench, the harness and its instance include
HARNESS = HDL_DIR / "ga2_harness.v"  # the chip with its memories, under every bench of the chip
RESTART_DIR = ROOT / "tb" / "hdl" / "restart"
RESTART_TOP = ROOT / "tb" / "hdl" / "restart_chk.v"
GEN_DIR = ROOT / "build" / "gen"          # Verilog generated from the op records for the benches


def rtl_files(rtl_dir=None):
    """The files named by rtl_dir/ga2.f (default rtl/), as absolute Paths, in order."""
    rtl_dir = Path(rtl_dir) if rtl_dir else RTL_DIR
    return read_filelist(rtl_dir / FILELIST)


def restart_files():
    """The restart check's files: tb/hdl/restart/restart.f's, the vector units' pairs
    generated from the op records (tb/restart.py, written into build/gen), then its top
    restart_chk.v."""
    from tb import restart
    return read_filelist(RESTART_DIR / "restart.f") + [restart.write(GEN_DIR), RESTART_TOP]


def units_vec_file():
    """The units bench's vector units, generated from the op records (tb/vecunits.py)
    into build/gen: its path."""
    from tb import vecunits
    return vecunits.write(GEN_DIR, "units_vec", vecunits.units_text())


def read_filelist(flist):
    """The files a filelist names (one a line, // comments, relative to its folder), as
    absolute Paths, in order; a missing or twice-listed file is an error naming the line."""
    flist = Path(flist)
    folder = flist.parent
    if not flist.exists():
        raise FileNotFoundError(f"no filelist {flist}")
    out = []
    for n, line in enumerate(flist.read_text().splitlines(), 1):
        line = line.split("//", 1)[0].strip()
        if not line:
            continue
        p = (folder / line).resolve()
        if not p.exists():
            raise FileNotFoundError(f"{flist}:{n}: {line} does not exist")
        if p in out:
            raise ValueError(f"{flist}:{n}: {line} listed twice")
        out.append(p)
    return out


def top_file(rtl_dir=None):
    """The last file of the list: the chip's top."""
    return rtl_files(rtl_dir)[-1]


def copy_rtl(dest, *edits, suffixes=(".v", ".vh", ".f")):
    """A copy of rtl/ (the Verilog, the headers and ga2.f; `suffixes`) in dest/rtl, for a
    test that breaks the chip to show a check fails: its path. Each edit (file, pattern,
    repl) replaces the first match of the regular expression pattern in that file of the
    copy; ValueError when it matches nothing (the test's break no longer applies)."""
    import re
    import shutil
    rtl = Path(dest) / "rtl"
    rtl.mkdir()
    for p in RTL_DIR.iterdir():
        if p.suffix in suffixes:
            shutil.copy2(p, rtl / p.name)
    for name, pattern, repl in edits:
        src = (rtl / name).read_text()
        broken = re.sub(pattern, repl, src, count=1)
        if broken == src:
            raise ValueError(f"{name} no longer matches {pattern!r}: update this break")
        (rtl / name).write_text(broken)
    return rtl


def macro_bodies(rtl_dir=None):
    """[(name, has arguments, body)] of every `define of the .vh headers: body the text of
    a macro of several lines (its continuation backslashes dropped), None for one line."""
    rtl_dir = Path(rtl_dir) if rtl_dir else RTL_DIR
    out = []
    for fn in sorted(os.listdir(rtl_dir)):
        if not fn.endswith(".vh"):
            continue
        lines = open(os.path.join(rtl_dir, fn)).read().split("\n")
        for k, line in enumerate(lines):
            m = re.match(r"\s*`define\s+(\w+)(\()?", line)
            if not m:
                continue
            body = None
            if line.rstrip().endswith("\\"):
                j, parts = k + 1, []
                while j < len(lines):
                    parts.append(lines[j].rstrip().removesuffix("\\"))
                    if not lines[j].rstrip().endswith("\\"):
                        break
                    j += 1
                body = "\n".join(parts)
            out.append((m.group(1), bool(m.group(2)), body))
    return out


def expand_macros(text, rtl_dir=None):
    """text with each use of a macro of several lines without arguments of rtl_dir's
    headers (`GA2_TOP_PARAMS, `GA2_VEC_PORTS) replaced by its body, on lines of its own:
    for the tools that read declarations from a module's text (tools/flow/core.py)."""
    bodies = {name: b for name, args, b in macro_bodies(rtl_dir) if b is not None and not args}
    return re.sub(r"`(\w+)", lambda m: f"\n{bodies[m.group(1)]}\n" if m.group(1) in bodies else m.group(0), text)
