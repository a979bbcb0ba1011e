#!/usr/bin/env python3
"""Synthesize the GA-2 RTL with yosys 0.23 and report cells and flip-flops per module.

Why: a size figure for the chip that comes from a real synthesis run, not an estimate.
Reads the files of rtl/ga2.f and runs tools/flow/synth.ys (generic gates, hierarchy kept, memories kept as $mem
cells), parses yosys's `stat -json` and the $mem cell dump, and writes out/synth.txt: per module the
instances, its own cells and flip-flops, the same including submodules, and the
memories (words x bits, ports). Prints a summary; exits 1 when yosys fails.
`--overlap` synthesizes the chip with OVERLAP = 1 (the overlap timing mode: ga2_hazard and
the per-unit retire pcs) into out/synth_overlap.txt (build dir build/synth_overlap).
`--sm-max-len N` sets ga2_top's SM_MAX_LEN (the longest softmax, 1..1024; the default chip's
64 when absent; the language model's remedies chip has 1024) and adds `_smN` to the
output and build names (out/synth_sm1024.txt, out/synth_overlap_sm1024.txt).
`--coarse` stops after synth's coarse steps (hierarchy, proc, the FSM and memory inference,
the word-level opt: `synth -run begin:fine`) and requires yosys's `check -assert` clean: what
yosys must accept of the RTL (a module or construct it cannot synthesize fails there), at a
tenth of the CPU of the gate mapping (about 5 CPU-s, not 35 to 45). It writes
out/synth_coarse.txt: per module its word-level cells and its flip-flop bits (the widths of
its $dff-family cells), the memories as above. `make test` runs it; the gate-level figures
come from the full run (`make synth`, `make test-long`).
"""
import json
import re
import subprocess
import sys
import time

from model.config import SM_LEN_LIMIT
from tb import ROOT, cli
from tb.hw import rtl_files

SCRIPT = ROOT / "tools" / "flow" / "synth.ys"
BUILD = ROOT / "build" / "synth"
OUT = ROOT / "out" / "synth.txt"
TOP = "ga2_top"
# --coarse: synth's word-level steps, a check that must be clean, the same stat and memory dump
# (stat -width: a word-level cell's type carries its width, so flip-flop bits can be counted)
COARSE = """hierarchy -check -top ga2_top
synth -top ga2_top -run begin:fine
hierarchy -check
check -assert
stat -width
tee -q -o build/synth/stat.json stat -json -width
tee -q -o build/synth/mems.txt dump t:$mem_v2
"""


def clean_name(raw):
    """'$paramod$<hash>\\ga2_sram', '$paramod\\ga2_divu\\WIDTH=..', '\\ga2_pe' -> 'ga2_sram', 'ga2_divu', 'ga2_pe';
    a parameter that yosys names and that differs from the module's integer default in
    rtl/ stays in the name, so two builds of one module are two rows: ga2_norm's divider
    is 'ga2_divu(WIDTH=30)' next to softmax's 'ga2_divu'."""
    raw = raw.lstrip("\\")
    if not raw.startswith("$paramod"):
        return raw
    parts = raw.split("\\")
    name, extra = parts[1], []
    for p in parts[2:]:
        m = re.match(r"^(\w+)=s?\d+'([01]+)$", p)
        if m and _defaults(name).get(m.group(1), int(m.group(2), 2)) != int(m.group(2), 2):
            extra.append(f"{m.group(1)}={int(m.group(2), 2)}")
    return name + (f"({','.join(extra)})" if extra else "")


_DEFAULTS = {}


def _defaults(module):
    """{parameter: integer default} of rtl/<module>.v (parameters with a literal default)."""
    if module not in _DEFAULTS:
        f = ROOT / "rtl" / f"{module}.v"
        text = f.read_text() if f.exists() else ""
        _DEFAULTS[module] = {k: int(v) for k, v in re.findall(r"parameter\s+(\w+)\s*=\s*(\d+)\b", text)}
    return _DEFAULTS[module]


def is_ff(cell_type):
    """Flip-flop cell types of yosys's internal gate library ($_DFF_P_, $_SDFFE_PP0P_, ...)."""
    return re.match(r"^\$_(S?DFFE?|DFFSRE?|ALDFFE?|SDFFCE|DLATCH)", cell_type) is not None


def ff_bits(cell_type):
    """Flip-flop bits of a cell type as `stat -width` names it: a gate-level flip-flop 1, a
    word-level one ($dff_32, $sdffe_12, $adff_1, ...: the coarse run's) its width, else 0."""
    if is_ff(cell_type):
        return 1
    m = re.match(r"^\$(?:s?dffe?|adffe?|aldffe?|dffsre?|sdffce|dlatch)_(\d+)$", cell_type)
    return int(m.group(1)) if m else 0


def load_stat(path):
    """stat -json output; yosys 0.23 prints the hierarchy tree inside it, so drop lines
    that are not JSON (their first character is not a quote or a bracket)."""
    lines = [ln for ln in path.read_text().split("\n") if ln.strip()[:1] in ('"', "{", "}", "[", "]")]
    return json.loads("\n".join(lines))


def load_mems(path):
    """[(module, cell, words, width, read ports, write ports)] from the $mem_v2 dump."""
    mems, mod, cur = [], None, None
    for ln in path.read_text().split("\n"):
        m = re.match(r"^module (\S+)", ln)
        if m:
            mod = clean_name(m.group(1))
            continue
        m = re.match(r"^\s+cell \$mem_v2 (\S+)", ln)
        if m:
            cur = {"module": mod, "cell": m.group(1).lstrip("\\")}
            mems.append(cur)
            continue
        m = re.match(r"^\s+parameter \\(SIZE|WIDTH|RD_PORTS|WR_PORTS) (\d+)", ln)
        if m and cur is not None:
            cur[m.group(1)] = int(m.group(2))
    return mems


def summarize(stat):
    """Per module: own cells/FFs, submodule instances, and the totals including submodules."""
    mods = {}
    for raw, info in stat["modules"].items():
        name = clean_name(raw)
        cells = info["num_cells_by_type"]
        sub = [t for t in cells if t.startswith("$paramod") or not t.startswith("$")]
        subs = {clean_name(t): cells[t] for t in sub}
        prim = {t: n for t, n in cells.items() if t not in sub}
        mods[name] = {"cells": sum(prim.values()), "ffs": sum(n * ff_bits(t) for t, n in prim.items()),
                      "mems": prim.get("$mem_v2", 0), "subs": subs}

    def incl(name, key):
        m = mods[name]
        return m[key] + sum(n * incl(s, key) for s, n in m["subs"].items())

    for name in mods:
        mods[name]["cells_incl"] = incl(name, "cells")
        mods[name]["ffs_incl"] = incl(name, "ffs")
    return mods


def instances(mods, name, mult=1, out=None):
    """How many times each module is instantiated under name."""
    out = {} if out is None else out
    out[name] = out.get(name, 0) + mult
    for s, n in mods[name]["subs"].items():
        instances(mods, s, mult * n, out)
    return out


def parse(argv=None):
    """The options, with the build directory and the report they give (build, out)."""
    ap = cli.Parser(prog="tools.flow.synth", description=__doc__.splitlines()[0])
    ap.add_argument("--overlap", action="store_true", help="OVERLAP = 1 (the overlap timing mode)")
    ap.add_argument("--sm-max-len", type=cli.integer(1, SM_LEN_LIMIT), default=None,
                    help=f"ga2_top's SM_MAX_LEN (1..{SM_LEN_LIMIT}; default: the headers' 64)")
    ap.add_argument("--coarse", action="store_true",
                    help="only synth's coarse (word-level) steps and check -assert (make test's run)")
    a = ap.parse_args(argv)
    name = ("synth" + ("_overlap" if a.overlap else "") + (f"_sm{a.sm_max_len}" if a.sm_max_len else "")
            + ("_coarse" if a.coarse else ""))
    a.build, a.out = BUILD.parent / name, OUT.parent / f"{name}.txt"
    return a


def main(argv=None):
    global BUILD, OUT
    a = parse(argv)
    overlap, BUILD, OUT = a.overlap, a.build, a.out
    BUILD.mkdir(parents=True, exist_ok=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    srcs = " ".join(str(f.relative_to(ROOT)) for f in rtl_files())
    script = (COARSE if a.coarse else SCRIPT.read_text()).replace("build/synth/", f"{BUILD.relative_to(ROOT)}/")
    (BUILD / "synth.ys").write_text(script)
    chparam = (f"chparam -set OVERLAP 1 {TOP}; " if overlap else "") + \
        (f"chparam -set SM_MAX_LEN {a.sm_max_len} {TOP}; " if a.sm_max_len else "")
    cmds = (f"read_verilog -DGA2_NO_MEM_INIT -Irtl {srcs}; {chparam}"
            f"script {(BUILD / 'synth.ys').relative_to(ROOT)}")
    p = subprocess.run(["yosys", "-q", "-l", str(BUILD / "yosys.log"), "-p", cmds], cwd=ROOT,
                       capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        print(p.stdout[-3000:] + p.stderr[-3000:])
        print(f"synth: FAIL (yosys exit {p.returncode}; log in {BUILD / 'yosys.log'})")
        return 1
    stat = load_stat(BUILD / "stat.json")
    mods = summarize(stat)
    mems = load_mems(BUILD / "mems.txt")
    design = stat["design"]["num_cells_by_type"]
    tot_cells = sum(design.values())
    tot_ffs = sum(n * ff_bits(t) for t, n in design.items())
    if mods[TOP]["cells_incl"] != tot_cells or mods[TOP]["ffs_incl"] != tot_ffs:
        print(f"synth: FAIL (per-module sums {mods[TOP]['cells_incl']} cells / {mods[TOP]['ffs_incl']} FFs "
              f"disagree with yosys's design totals {tot_cells} / {tot_ffs})")
        return 1
    inst = instances(mods, TOP)
    mem_bits = sum(m["SIZE"] * m["WIDTH"] for m in mems)
    lines = [("GA-2 coarse synthesis (yosys 0.23, synth -run begin:fine and check -assert: word-level cells, "
              "flip-flop bits, hierarchy kept, memories as $mem)" if a.coarse else
              "GA-2 synthesis (yosys 0.23, tools/flow/synth.ys: generic gates, hierarchy kept, memories as $mem)")
             + (", OVERLAP = 1" if overlap else ", OVERLAP = 0")
             + (f", SM_MAX_LEN = {a.sm_max_len}" if a.sm_max_len else ""),
             f"yosys wall time {secs:.1f} s", "",
             f"{'module':<10} {'inst':>5} {'cells':>8} {'FFs':>6} {'cells incl. sub':>16} {'FFs incl. sub':>14}"]
    for name in sorted(mods, key=lambda n: -mods[n]["cells_incl"]):
        m = mods[name]
        lines.append(f"{name:<10} {inst.get(name, 0):>5} {m['cells']:>8} {m['ffs']:>6} "
                     f"{m['cells_incl']:>16} {m['ffs_incl']:>14}")
    lines += ["", f"total ({TOP}, all instances): {tot_cells} cells, {tot_ffs} flip-flops "
                  f"(cells include the {sum(m['mems'] for m in mods.values() if m['mems'])} $mem cells below)",
              "", "memories ($mem_v2 cells, not counted as flip-flops):"]
    for m in mems:
        lines.append(f"  {m['module']}.{m['cell']}: {m['SIZE']} x {m['WIDTH']} bits, "
                     f"{m['RD_PORTS']} read / {m['WR_PORTS']} write ports")
    lines.append(f"  total {mem_bits} bits")
    lines += ["", "cell types (whole design):"]
    for t, n in sorted(design.items()):
        lines.append(f"  {t:<16} {n}")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[3:3 + len(mods) + 4]))
    print(f"synth: OK -- {tot_cells} cells, {tot_ffs} flip-flops, {len(mems)} memories "
          f"({mem_bits} bits); {secs:.1f} s; wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
