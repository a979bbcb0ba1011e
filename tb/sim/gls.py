"""The gate-level source set of the GA-2 benches: the yosys netlist of ga2_top in place of the RTL.

Why: co-simulation holds the RTL to the model; this holds what yosys makes of the RTL to
the same judge, so a construct that simulates one way and synthesises another (an
initial value, a read-during-write, an x the RTL hides) shows as a mismatch.

netlist(cfg) synthesises rtl/ga2.f for cfg's parameters (EXT_WORDS, IMEM_DEPTH, SP_WORDS,
OVERLAP: a netlist is one parameter set) with yosys 0.23 -- synth's coarse steps, flatten,
techmap and abc to yosys's generic gates -- and writes it with `write_verilog -noattr`
into build/gls-<cfg.name>/ga2_top_gls.v (stamped by content, locked like the builds).
What stays above the gates, and why:
  - the scratchpad ga2_sram keeps its own module (keep_hierarchy; its logic -- the
    write-first bypass, the read registers -- is gates like the rest) and its array stays
    one $mem cell (`memory -nomap`, written as a Verilog array): mapped to flip-flops the
    4096 x 32 array would be 131,072 of them, and the harness reaches it by name
    (dut.u_sp.mem for the preload, dut.u_sp.rd_en for the read monitor) as in the RTL;
  - the softmax exp buffer likewise stays a $mem cell (inside the flattened top), and the
    exp table a constant one.
write_verilog writes the generic cells as expressions (assign, always @(posedge)),
which Icarus runs much faster than one instance of yosys's simcells.v per gate; a
netlist that still names a library cell gets simcells.v / simlib.v (`yosys-config
--datdir`) added to its sources. The netlist module gets back ga2_top's four parameters
(the benches set them) with a check that they are the ones it was synthesised for.

sources(cfg) is the source list for tb/sim/build.py (netlist, libraries, harness, bench).
Icarus only (the task's simulator for gate level).
"""
import functools
import hashlib
import re
import shutil
import subprocess
import time
from pathlib import Path

from model import config
from tb import ROOT
from tb.sim.files import HARNESS, HDL_DIR, rtl_files
from tb.sim.process import ToolFault, error_line, stale

TOP = "ga2_top"
NETLIST = "ga2_top_gls.v"
# the synthesis: as tools/flow/synth.ys (synth's coarse steps ending in memory -nomap,
# then synth's fine steps minus memory_map) but flattened, the scratchpad's module kept
SCRIPT = """\
hierarchy -check -top ga2_top
setattr -mod -set keep_hierarchy 1 *ga2_sram*
synth -top ga2_top -flatten -run begin:fine
opt -fast -full
opt -full
techmap
opt -fast
abc -fast
opt -fast
hierarchy -check
check -assert
tee -q -o {stat} stat
write_verilog -noattr {netlist}
"""


def build_dir(cfg):
    """build/gls-<config name>: the netlist of one parameter set."""
    return ROOT / "build" / f"gls-{cfg.name}"


@functools.cache
def datdir():
    """yosys's data directory (simcells.v, simlib.v): `yosys-config --datdir`, or
    <prefix>/share/yosys beside the yosys executable when yosys-config is absent."""
    cfgtool = shutil.which("yosys-config")
    if cfgtool:
        out = subprocess.run([cfgtool, "--datdir"], capture_output=True, text=True).stdout.strip()
        if out:
            return Path(out)
    exe = shutil.which("yosys")
    if not exe:
        raise ToolFault("gate-level simulation needs yosys on PATH (make setup)")
    return Path(exe).resolve().parent.parent / "share" / "yosys"


def parameters(cfg):
    """ga2_top's parameters for cfg (the ones the netlist is synthesised for)."""
    return {"EXT_WORDS": cfg.ext_words, "IMEM_DEPTH": cfg.imem_depth, "SP_WORDS": cfg.sp_words,
            "OVERLAP": int(cfg.mode == "overlap")}


def _digest(cfg, files):
    h = hashlib.sha256(repr((sorted(parameters(cfg).items()), SCRIPT)).encode())
    for p in files:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def with_parameters(text, params):
    """The netlist text with ga2_top's parameters declared in its body (yosys writes a
    module without any) and an initial check that the bench's values are these."""
    m = re.search(r"^module\s+" + TOP + r"\s*\(.*?\);\n", text, re.S | re.M)
    if not m:
        raise RuntimeError(f"no module {TOP} in the netlist")
    decl = "".join(f"  parameter {k} = {v};\n" for k, v in params.items())
    cond = " || ".join(f"{k} != {v}" for k, v in params.items())
    fmt = ", ".join(f"{k}=%0d" for k in params)
    check = ("  initial begin\n"
             f"    if ({cond}) begin\n"
             f"      $error(\"%m: netlist synthesised for {', '.join(f'{k}={v}' for k, v in params.items())}, "
             f"instantiated with {fmt}\", {', '.join(params)});\n"
             "      $finish;\n    end\n  end\n")
    return text[:m.end()] + decl + check + text[m.end():]


def netlist(cfg=None, rtl_dir=None):
    """The gate-level netlist of ga2_top for cfg (synthesised once per content): its Path."""
    cfg = config.resolve(cfg)
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    srcs = rtl_files(rtl_dir)
    files = srcs + sorted(rtl_dir.glob("*.vh"))
    out = build_dir(cfg)
    net = out / NETLIST
    stamp = out / "netlist.stamp"
    digest = _digest(cfg, files)
    with stale(out, net, stamp, digest) as todo:
        if not todo:
            return net
        raw = out / "raw_netlist.v"
        (out / "gls.ys").write_text(SCRIPT.format(stat=out / "stat.txt", netlist=raw))
        chparam = " ".join(f"-set {k} {v}" for k, v in parameters(cfg).items())
        cmds = (f"read_verilog -I{rtl_dir} {' '.join(str(s) for s in srcs)}; "
                f"chparam {chparam} {TOP}; script {out / 'gls.ys'}")
        t0 = time.perf_counter()
        p = subprocess.run(["yosys", "-q", "-l", str(out / "yosys.log"), "-p", cmds],
                           capture_output=True, text=True)
        if p.returncode != 0 or not raw.exists():
            raise ToolFault(f"gate-level synthesis failed (yosys exit {p.returncode}): "
                            f"{error_line(p.stdout + p.stderr)}", out / "yosys.log")
        text = with_parameters(raw.read_text(), parameters(cfg))
        net.write_text("`timescale 1ns/1ps\n" + text)
        raw.unlink()
        (out / "synth_seconds.txt").write_text(f"{time.perf_counter() - t0:.1f}\n")
        stamp.write_text(digest)
    return net


def library_files(text):
    """yosys's simulation libraries the netlist text needs: simcells.v when it instantiates
    a generic gate ($_..._), simlib.v when it instantiates a coarse cell ($add, $mem_v2...)."""
    libs = []
    if re.search(r"^\s*\\\$_\w+_\s", text, re.M):
        libs.append(datdir() / "simcells.v")
    if re.search(r"^\s*\\\$(?!_)\w+\s", text, re.M):
        libs.append(datdir() / "simlib.v")
    return libs


def sources(cfg=None, rtl_dir=None):
    """The gate-level source list: the netlist, the libraries it needs, the harness and the bench."""
    net = netlist(cfg, rtl_dir)
    return [net] + library_files(net.read_text()) + [HARNESS, HDL_DIR / "ga2_tb.v"]


def cells(cfg=None):
    """(cells, flip-flop bits, memories) of the netlist's yosys `stat` (whole design)."""
    text = (build_dir(config.resolve(cfg)) / "stat.txt").read_text()
    part = text.split("=== design hierarchy ===")[-1]
    n = re.search(r"Number of cells:\s+(\d+)", part)
    ffs = sum(int(k) for k in re.findall(r"\$_\w*DFF\w*_\s+(\d+)", part))
    mems = re.search(r"\$mem_v2\s+(\d+)", part)
    return int(n.group(1)) if n else None, ffs, int(mems.group(1)) if mems else 0
