"""The suite an RTL mutant is judged by: inputs for tb/hdl/mut_rtl_tb.v, compile and run.

What: build_suite(dir) writes, once per mutation run, every input of the mutation bench:
unit vectors for requant, divu and ga2_perf (tb/stimulus/vectors.py, with their expected
values), then chip programs in the order cheapest-most-killing first: a few
seeded random programs (tb/stimulus/randprog.py), one bad program per error code 1..5 with its
follow-up (error outputs, counters up to the fault, "the next program runs normally"),
a crafted softmax / requant program (data random programs rarely make), the decode checks at their
edges (boundary_programs), more random programs, the five chapter-9 programs (B = 1..4
at token 16 and the ragged 3,9,1,14; config.CH09) and resets while busy.
Expected memory, the six counters, error/code/pc, the retire trace and the number of
scratchpad words read are the judge's (tb/judge.py references() over the same sequence on
ONE model.machine.Machine, the scratchpad carrying over on both sides; expected();
cut_trace() for a cut program), written by tb/protocol.py, so the bench's in-Verilog
comparison checks what the judge defines.
compile_mutant(rtl_dir, build_dir) builds one mutant (iverilog, once); run_mutant(vvp,
manifest, timeout) runs every check in ONE simulator process that stops at the first
failure.

Why a bench of its own rather than tb/hw.py: a mutant must be cheap (one cocotb run,
0.86 s for one small program, costs about four median kills of this bench); the comparison is still
against the judge's values, which the Python side writes and the bench only compares
(see docs/mutation_rtl.md for the measured costs).
tests/tb/test_bench_suite.py runs the same program lists (suite_programs(),
overlap_programs()) through cocotb (tb/sim/run.py) on Icarus and Verilator, and
tests/tb/test_units_cosim.py checks requant, divu and ga2_perf on the same vectors with
the bench's divu contract, so the bench is not a stronger check.
"""
import os
import re
import subprocess
import time

from tb import ROOT, judge, protocol
from tb.sim import build
from tb.sim.files import HARNESS, restart_files, rtl_files
from tb.stimulus import vectors
from tb.stimulus.programs import overlap_programs, suite_programs
from tb.stimulus.suitecfg import CFG

TB = os.path.join(ROOT, "tb", "hdl", "mut_rtl_tb.v")


def _entries(programs):
    """(label, words, image, abort_at, light) of each suite entry (programs.py's forms)."""
    from model import isa
    for entry in programs:
        label, prog, img = entry[:3]
        abort_at = int(entry[3]) if len(entry) > 3 else 0
        light = int(entry[4]) if len(entry) > 4 else 0
        yield label, isa.as_words(prog), img, abort_at, light


def build_suites(work):
    """The manifests of a mutation run, in the order a mutant meets them, each in its own
    folder of work: the in-order suite (suitecfg.CFG), the overlap suite (CFG_OVERLAP) and
    the sp64k suite (CFG_SP64K: programs.sp64k_programs, without the unit vectors and the
    restart check, which the first two run)."""
    from tb.stimulus import suitecfg
    from tb.stimulus.programs import sp64k_programs
    return [build_suite(os.path.join(work, "suite"), cfg=suitecfg.CFG),
            build_suite(os.path.join(work, "suite-overlap"), cfg=suitecfg.CFG_OVERLAP),
            build_suite(os.path.join(work, "suite-sp64k"), programs=sp64k_programs(), cfg=suitecfg.CFG_SP64K,
                        name="sp64k", units=False)]


def build_suite(suite_dir, programs=None, cfg=CFG, name=None, units=True):
    """Write every input of the bench into suite_dir for the chip cfg (programs default:
    suite_programs() in-order, overlap_programs() in the overlap mode); returns the
    manifest (a dict; "cfg" holds the Config, "name" the suite's name (default the timing
    mode; a mutant's build of each suite is build-<name>)). units=False: the bench runs no
    unit vectors and no restart check for this suite (a later suite on another chip: the
    first one ran them).

    Every expected value is the judge's (tb/judge.py): judge.references runs ONE Machine
    over the sequence (a light program on the external memory the previous one left, as
    the bench keeps it), judge.expected gives what the chip must show, judge.cut_trace
    the retires of a cut program; tb/protocol.py writes them in the bench's layout."""
    from model.machine import Machine
    os.makedirs(suite_dir, exist_ok=True)
    rq, dv, pf = (vectors.requant_vectors(), vectors.divu_vectors(), vectors.perf_vectors()) if units else ([], [], [])
    protocol.write_unit_vectors(suite_dir, rq, dv, pf)
    if programs is None:
        programs = overlap_programs() if cfg.mode == "overlap" else suite_programs()
    machine = Machine(cfg)
    entries = list(_entries(programs))
    images = [judge.KEEP_EXT if light else machine.image(img) for _, _, img, _, light in entries]
    refs = judge.references(machine, ((words, image, None) for (_, words, *_), image in zip(entries, images)))
    out = []
    for p, ((label, words, _, abort_at, light), image, ref) in enumerate(zip(entries, images, refs)):
        exp = judge.expected(ref)
        cnt = exp["counters"]
        trace = exp["trace"]
        need = len(trace)
        if abort_at:       # the retires before the cut must show, those in its cycle may
            must, trace = judge.cut_trace(trace, abort_at)
            need = len(must)
        meta = {"limit": cnt.cycles + cnt.cycles // 4 + 200, "abort_at": abort_at,
                "error": int(exp["error"]), "code": exp["error_code"], "pc": exp["error_pc"],
                "cycles": cnt.cycles, "mm": cnt.mm, "dma": cnt.dma, "vec": cnt.vec,
                "instret": cnt.instret, "ntrace": len(trace), "light": light,
                "reads": exp["sp_reads"], "nneed": need, "fetch": cnt.fetch}
        protocol.write_mut_program(suite_dir, p, words, meta, trace,
                                   image=None if light else image, exp=None if light else exp["ext"])
        out.append({"label": label, "cycles": abort_at or cnt.cycles, "instructions": len(words),
                    "error": exp["error_code"], "light": light})
    manifest = {"dir": suite_dir, "cfg": cfg, "mode": cfg.mode, "name": name or cfg.mode, "restart": units,
                "nprog": len(out), "rq_n": len(rq),
                "dv_n": len(dv), "pf_n": len(pf), "programs": out,
                "total_cycles": sum(e["cycles"] for e in out)}
    return manifest


def compile_mutant(rtl_dir, build_dir, timeout=120, tb=None, cfg=CFG):
    """iverilog the bench (tb, default tb/hdl/mut_rtl_tb.v) with the harness, the
    restart check (tb/hdl/restart_chk.v and its parts: tb.sim.files.restart_files) and
    the files of rtl_dir/ga2.f for the chip cfg (tb/sim/build.py compile_binary):
    (ok, seconds, log, vvp path)."""
    tb = TB if tb is None else tb
    srcs = [tb, str(HARNESS)] + [str(p) for p in restart_files() + rtl_files(rtl_dir)]
    t = time.time()
    params = build.cfg_parameters(cfg)
    ok, log, cmd = build.compile_binary("icarus", "mut_rtl_tb", srcs, build_dir, rtl_dir,
                                        parameters=params, timeout=timeout)
    return ok, time.time() - t, log, cmd[-1]


_FAIL_RE = re.compile(r"^MUT FAIL (\S+)\s*(.*)$", re.M)
_PASS_RE = re.compile(r"^MUT PASS (\d+)", re.M)
_ASSERT_RE = re.compile(r"^ERROR: (.*)$", re.M)       # how Icarus prints a design's $error


def run_mutant(vvp, manifest, timeout, nprog=None, restart=True):
    """Run the suite on a compiled mutant: (verdict, check, detail, seconds).

    verdict: "pass", "fail" (a check disagreed, or an assertion inside the design fired:
    check "assertion"), "timeout" (a program hit its cycle limit, or the process its
    wall-clock limit), "crash" (no verdict line). restart=False leaves out the units'
    start-while-busy check (+restart=0), about 5 CPU seconds of Icarus a run: for runs that
    judge only the chip programs (tests/tb/test_one_judge.py); a mutant is always judged
    with it, in the suites whose manifest has "restart" (the first two).
    """
    n = manifest["nprog"] if nprog is None else nprog
    cmd = ["vvp", "-n", vvp, f"+dir={manifest['dir']}", f"+nprog={n}",
           f"+rq_n={manifest['rq_n']}", f"+dv_n={manifest['dv_n']}", f"+pf_n={manifest.get('pf_n', 0)}"]
    if not (restart and manifest.get("restart", True)):
        cmd.append("+restart=0")
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(vvp))
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "wall", f"no verdict within {timeout:.0f} s", time.time() - t
    dt = time.time() - t
    m = _FAIL_RE.search(out)
    if m:
        check, detail = m.group(1), m.group(2)
        return ("timeout" if check == "timeout" else "fail"), check, detail, dt
    if _PASS_RE.search(out):
        return "pass", "", "", dt
    m = _ASSERT_RE.search(out)
    if m:       # a check inside the design ($error, e.g. the scratchpad grant check) fired
        return "fail", "assertion", m.group(1).strip()[:300], dt
    tail = " / ".join(out.strip().splitlines()[-3:])
    return "crash", "crash", tail[:300], dt
