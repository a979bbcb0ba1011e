"""One formal check through yosys 0.23 and yosys-smtbmc with z3: a verdict and its cost.

Why here and not in tools/: the RTL mutation run (tb/mutation/rtl) uses the same engine
for its miters, and tb/ never imports tools/ (tests/flow/test_layers.py).

A Check is a wrapper module (tb/formal/*_f.v, or a generated miter) over RTL files; the
flow is `read_verilog -formal` (FORMAL defined, SYNTHESIS not), optional yosys commands
before the wrapper is read (`pre`: e.g. `expose` of internal nets of a flattened unit, so
a wrapper can see them without a line of RTL changing), `prep -top`, optional `post`
commands (e.g. `cutpoint`), `async2sync`, `dffunmap`, `write_smt2 -wires`, then:
  bmc        yosys-smtbmc -t DEPTH: every assertion in every cycle 0..DEPTH-1 from the
             initial state (a bounded proof);
  induction  the bmc above and yosys-smtbmc -i -t DEPTH: k-induction with k = DEPTH
             (together an unbounded proof);
  pdr        ABC's property-directed reachability (IC3) on an AIGER of the same design:
             an unbounded proof without hand-written invariants (yosys-abc);
  bmc3       ABC's bmc3 on that AIGER to DEPTH frames (bounded; reports the frames it
             cleared when its time runs out);
  cover      yosys-smtbmc -c -t DEPTH: every cover statement reached within DEPTH (shows
             the assumptions leave the behaviour the proof is about).
Result: 'proven' (induction closed), 'bounded' (bmc passed, induction asked and not
closed, or not asked), 'FAILED' (a counterexample: its step and a VCD in the build
dir), 'covered' / 'NOT COVERED', 'ERROR' (the tools failed; the log says why),
'TIMEOUT'.
"""
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tb import ROOT
from tb.sim.files import rtl_files

BUILD = ROOT / "build" / "formal"
WRAPPERS = Path(__file__).resolve().parent


@dataclass
class Check:
    """One property: the wrapper `top` in `files` (besides the RTL's), how deep, how."""
    name: str
    top: str
    files: list                      # the wrapper file(s), read after `pre`
    depth: int
    mode: str = "bmc"                # bmc | induction | cover
    rtl: list = None                 # RTL files (default: every file of rtl/ga2.f)
    pre: str = ""                    # yosys commands after the RTL is read, before the wrapper
    post: str = ""                   # yosys commands after prep -top
    defines: dict = field(default_factory=dict)
    inc: str = None                  # the include folder (default rtl/)
    params: dict = field(default_factory=dict)   # the wrapper's parameters (chparam)
    front: str = ""                  # yosys commands that build the design instead (a miter)
    timeout: int = 600
    what: str = ""                   # one line for the table: what is proven, on what configuration
    expect_fail: bool = False        # a planted bug: the check must find a counterexample
    solver: str = "z3"               # yosys-smtbmc's solver (z3; cvc4 where z3 4.8.12 stalls)


@dataclass
class Verdict:
    name: str
    result: str                      # proven | bounded | FAILED | covered | NOT COVERED | ERROR | TIMEOUT
    engine: str
    depth: str
    secs: float
    detail: str = ""

    @property
    def ok(self):
        return self.result in ("proven", "bounded", "covered")

    def ok_for(self, check):
        """Whether this verdict is what check asks for: a counterexample for a planted bug
        (check.expect_fail), else a proof, bound or cover."""
        return self.result == "FAILED" if check.expect_fail else self.ok


def _run(cmd, log, timeout):
    """(returncode, output) of cmd, its output also in log; None on a timeout."""
    # its own process group, so a timeout also ends the solver yosys-smtbmc started
    # (the output goes to the log as it comes: a timed-out run still shows how far it got)
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                             start_new_session=True)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            f.write(f"\ntimeout after {timeout} s: {' '.join(map(str, cmd))}\n")
            return None, log.read_text()
    return p.returncode, log.read_text()


def _front(check, rtl, defs, inc):
    """The yosys commands up to the design with its top: check.front, or read the RTL,
    run check.pre, read the wrapper, set its parameters, prep, check.post."""
    if check.front:
        return check.front + f"\nprep -top {check.top}\n{check.post}\n"
    return (f"read_verilog -formal {defs} {inc} {' '.join(map(str, rtl))}\n{check.pre}\n"
            f"read_verilog -formal {defs} {inc} {' '.join(map(str, check.files))}\n"
            f"{_chparam(check)}prep -top {check.top}\n{check.post}\n")


def _chparam(check):
    sets = " ".join(f"-set {k} {v}" for k, v in check.params.items())
    return f"chparam {sets} {check.top}\n" if sets else ""


def build_smt2(check, work):
    """Run yosys for check into work/model.smt2; (ok, message)."""
    work.mkdir(parents=True, exist_ok=True)
    rtl = check.rtl if check.rtl is not None else [str(p) for p in rtl_files()]
    defs = " ".join(f"-D{k}={v}" for k, v in check.defines.items())
    inc = f"-I{check.inc or ROOT / 'rtl'} -I{WRAPPERS}"
    script = (_front(check, rtl, defs, inc) +
              f"async2sync\ndffunmap\nwrite_smt2 -wires {work / 'model.smt2'}\n")
    (work / "model.ys").write_text(script)
    rc, out = _run(["yosys", "-q", "-l", str(work / "yosys.log"), str(work / "model.ys")],
                   work / "yosys.out", check.timeout)
    if rc != 0:
        err = [ln for ln in out.splitlines() if "ERROR" in ln] or out.splitlines()[-1:] or ["yosys failed"]
        return False, ("yosys timed out" if rc is None else err[0].strip())[:300]
    return True, ""


def build_aiger(check, work):
    """Run yosys for check into work/model.aig (AIGER, assertions as bad-state outputs,
    assumptions as constraints); (ok, message). Registers without an initial value start
    at 0 in AIGER (the smtbmc runs leave them free)."""
    work.mkdir(parents=True, exist_ok=True)
    rtl = check.rtl if check.rtl is not None else [str(p) for p in rtl_files()]
    defs = " ".join(f"-D{k}={v}" for k, v in check.defines.items())
    inc = f"-I{check.inc or ROOT / 'rtl'} -I{WRAPPERS}"
    # pre.il: the design before it is lowered to an AIG (tb/formal/witness.py replays a
    # counterexample on it)
    script = (_front(check, rtl, defs, inc) + f"async2sync\nwrite_rtlil {work / 'pre.il'}\n"
              "chformal -assume -early\nchformal -live -fair -cover -remove\nopt_clean\n"
              "setundef -anyseq\nopt -keepdc -fast\nflatten\nsetundef -undriven -anyseq\n"
              "setattr -unset keep\ndelete -output\nopt -full\nmemory_map\ndffunmap\ntechmap\n"
              "opt -fast -nodffe -nosdff\nabc -fast -g AND\nopt_clean\ndffunmap\naigmap\nopt_clean\n"
              f"write_aiger -I -B -zinit -map {work / 'model.aim'} {work / 'model.aig'}\n")
    (work / "aiger.ys").write_text(script)
    rc, out = _run(["yosys", "-q", "-l", str(work / "aiger.log"), str(work / "aiger.ys")],
                   work / "aiger.out", check.timeout)
    if rc != 0:
        err = [ln for ln in out.splitlines() if "ERROR" in ln] or out.splitlines()[-1:] or ["yosys failed"]
        return False, ("yosys timed out" if rc is None else err[0].strip())[:300]
    return True, ""


# ABC's unbounded engines: pdr (IC3), and dprove (its sequential-equivalence flow for a
# miter: signal correspondence by simulation and k-induction, `scorr`, then fraiging,
# retiming and pdr/interpolation on what is left; it proves the pairs of internal
# signals equal that the miter's two copies share, so a datapath that is equal in both
# is not re-proven bit by bit)
ABC_CMD = {"pdr": "pdr", "dprove": "dprove"}


def _pdr(work, timeout, how="pdr"):
    """(status, text) of ABC's pdr (or dprove) on work/model.aig: PASSED (the property
    holds in every reachable state), FAILED, UNDECIDED (dprove gave up), TIMEOUT, ERROR."""
    (work / "pdr.aiw").unlink(missing_ok=True)          # no stale counterexample of an earlier run
    rc, out = _run(["yosys-abc", "-c", f"read_aiger {work / 'model.aig'}; fold; strash; {ABC_CMD[how]}; "
                    f"write_cex -a {work / 'pdr.aiw'}"], work / "pdr.log", timeout)
    if rc is None:
        return "TIMEOUT", ""
    if re.search(r"Property proved|proved|Networks are equivalent", out):
        return "PASSED", out
    if re.search(r"UNDECIDED|Counter-example is not available", out):
        # dprove gave up (its last engine's limit): no verdict, no counterexample
        return "UNDECIDED", out
    if re.search(r"Output \d+ of miter .* was asserted|asserted in frame|Counter-example", out):
        return "FAILED", out
    return "ERROR", out


def _bmc3(work, depth, timeout):
    """(status, frames, text) of ABC's bmc3 to depth frames on work/model.aig: PASSED (no
    assertion fails in frames 0..depth-1), FAILED, TIMEOUT (frames: how many it cleared)."""
    (work / "bmc3.aiw").unlink(missing_ok=True)
    # line-buffered and verbose (-v: a line per frame), so a run ended by the wall-clock
    # limit still tells how many frames it cleared
    rc, out = _run(["stdbuf", "-oL", "yosys-abc", "-c", f"read_aiger {work / 'model.aig'}; fold; strash; "
                    f"bmc3 -v -F {depth} -T {timeout}; write_cex -a {work / 'bmc3.aiw'}"],
                   work / "bmc3.log", timeout + 60)
    m = re.search(r"No output asserted in (\d+) frames", out)
    if m:
        n = int(m.group(1))
        return ("PASSED" if n >= depth else "TIMEOUT"), n, out
    if rc is None and not re.search(r"was asserted in frame", out):
        # bmc3 -v: "  k + : Var = ..." once frame k is clear (no assertion can fail there)
        frames = re.findall(r"^\s*(\d+)\s*\+\s*:", out, re.M)
        return "TIMEOUT", (int(frames[-1]) + 1 if frames else None), out
    if re.search(r"was asserted in frame", out):
        return "FAILED", None, out
    return ("TIMEOUT" if rc is None else "ERROR"), None, out


def _smtbmc(args, work, tag, timeout, solver="z3"):
    """(status, step, text) of one yosys-smtbmc call: PASSED / FAILED / TIMEOUT / ERROR."""
    vcd = work / f"{tag}.vcd"
    rc, out = _run(["yosys-smtbmc", "-s", solver, "--dump-vcd", str(vcd), *args, str(work / "model.smt2")],
                   work / f"{tag}.log", timeout)
    if rc is None:
        done = re.findall(r"Checking assertions in step (\d+)", out)
        return "TIMEOUT", (int(done[-1]) if done else None), out
    if "Status: PASSED" in out:
        return "PASSED", None, out
    if "Status: FAILED" in out:
        m = re.findall(r"(?:Assert failed|BMC failed|failed) in step (\d+)|step (\d+)", out)
        steps = [int(a or b) for a, b in m] if m else []
        return "FAILED", (steps[-1] if steps else None), out
    return "ERROR", None, out


def work_dir(check):
    """check's build folder: build/formal/<name>."""
    return BUILD / re.sub(r"[^\w.-]+", "_", check.name)


def run(check):
    """The Verdict of one Check (build dir build/formal/<name>)."""
    work = work_dir(check)
    t0 = time.perf_counter()
    d = check.depth
    if check.mode not in ("pdr", "dprove", "bmc3"):
        ok, msg = build_smt2(check, work)
        if not ok:
            return Verdict(check.name, "ERROR", "yosys", "-", time.perf_counter() - t0, msg)
    if check.mode in ABC_CMD:
        ok, msg = build_aiger(check, work)
        if not ok:
            return Verdict(check.name, "ERROR", "yosys", "-", time.perf_counter() - t0, msg)
        st, out = _pdr(work, check.timeout, check.mode)
        secs = time.perf_counter() - t0
        res = {"PASSED": "proven", "FAILED": "FAILED"}.get(st, st)
        frames = re.findall(r"[Ff]rame\D{0,3}(\d+)", out) if check.mode == "pdr" else []
        depth = f"unbounded ({check.mode}{', ' + frames[-1] + ' frames' if frames else ''})"
        return Verdict(check.name, res, f"abc {check.mode}", depth if st == "PASSED" else "-", secs,
                       "" if st == "PASSED" else (f"counterexample: {work / 'pdr.aiw'}" if st == "FAILED"
                                                   else _why(out, work / "pdr.log")))
    if check.mode == "bmc3":
        ok, msg = build_aiger(check, work)
        if not ok:
            return Verdict(check.name, "ERROR", "yosys", "-", time.perf_counter() - t0, msg)
        st, n, out = _bmc3(work, d, check.timeout)
        secs = time.perf_counter() - t0
        if st in ("PASSED", "TIMEOUT") and n:
            return Verdict(check.name, "bounded", "abc bmc3",
                           f"bmc {n}" + ("" if st == "PASSED" else f" (of {d}: time limit)"), secs)
        return Verdict(check.name, st, "abc bmc3", "-", secs,
                       f"counterexample: {work / 'bmc3.aiw'}" if st == "FAILED" else _why(out, work / "bmc3.log"))
    if check.mode == "cover":
        st, step, out = _smtbmc(["-c", "-t", str(d)], work, "cover", check.timeout, check.solver)
        secs = time.perf_counter() - t0
        res = {"PASSED": "covered", "FAILED": "NOT COVERED"}.get(st, st)
        detail = "" if st == "PASSED" else _why(out, work / "cover.log")
        return Verdict(check.name, res, f"smtbmc {check.solver} cover", f"cover <= {d}", secs, detail)
    st, step, out = _smtbmc(["-t", str(d)], work, "bmc", check.timeout, check.solver)
    if st == "TIMEOUT" and step:
        # steps 0 .. step-1 were checked (and passed) before the time ran out
        return Verdict(check.name, "bounded", f"smtbmc {check.solver} bmc", f"bmc {step} (of {d}: timeout)",
                       time.perf_counter() - t0, f"time limit {check.timeout} s reached in step {step}")
    if st != "PASSED":
        secs = time.perf_counter() - t0
        detail = f"counterexample at step {step}: {work / 'bmc.vcd'}" if st == "FAILED" else _why(out, work / "bmc.log")
        return Verdict(check.name, st, f"smtbmc {check.solver} bmc", f"bmc {d}", secs, detail)
    if check.mode != "induction":
        return Verdict(check.name, "bounded", f"smtbmc {check.solver} bmc", f"bmc {d}", time.perf_counter() - t0)
    st, step, out = _smtbmc(["-i", "-t", str(d)], work, "induct", check.timeout, check.solver)
    secs = time.perf_counter() - t0
    if st == "PASSED":
        return Verdict(check.name, "proven", f"smtbmc {check.solver} bmc + k-induction", f"induction k={d}", secs)
    return Verdict(check.name, "bounded", f"smtbmc {check.solver} bmc", f"bmc {d} (induction k={d}: {st.lower()})",
                   secs,
                   "induction did not close" if st == "FAILED" else _why(out, work / "induct.log"))


def _why(out, log):
    lines = [ln for ln in out.splitlines() if "rror" in ln or "xception" in ln]
    return (lines[-1].strip() if lines else f"see {log}")[:300]
