"""Running programs on the GA-2 chip through cocotb, and the reference next to them.

run(sim, jobs, cfg=...) writes every program's hex files into a fresh run directory,
runs ALL jobs in ONE simulator process (tb/drivers/ga2_job.py drives tb/hdl/ga2_tb.v, a
request per job), then reads the chip's outcomes and runs ONE model.machine.Machine over
the same sequence (the scratchpad carries over between programs on both) to judge them
(tb/judge.py). A job is a list of items, each (prog, image), (prog, image,
sp_image) or an Item, whose sp_image preloads the scratchpad of the chip and of the
reference before that program, and whose gap/abort_at exercise the host contract. An
image of KEEP_EXT keeps the external memory the previous program left (on the chip and
on the reference; all zero before the run's first program: judge.references). The files
are tb/protocol.py's; each result's host dict holds
"bus": the run's external-memory accesses as [(kind 'r'|'w', first, last)] (the
wrapper's bus monitor, pK_bus.txt).
"""
import contextlib
import os
import re
import shutil
import sys
import threading
import uuid
from collections import namedtuple
from pathlib import Path

from model import config, hostio, isa, timing
from model.machine import Machine
from tb import coverage, protocol
from tb.judge import HOST_OUTPUTS, KEEP_EXT, MONITORS, keeps_ext, make_result, references
from tb.sim.build import DRIVERS, build, check_sim, cocotb_test, rtl_coverage_dir
from tb.sim.process import Process, ToolFault, describe, tail

JOB_MODULE = "ga2_job"
DEFAULT_GAP = 2        # cycles between a program's done (or the request) and the next start

Item = namedtuple("Item", "prog image sp gap abort_at", defaults=(None, None, DEFAULT_GAP, 0))
Item.__doc__ = """One program of a job: prog (Instr list or words), image (ext words, zero-
padded; KEEP_EXT: keep the external memory the previous program left), sp (None, or the scratchpad words to preload,
zero-padded), gap (cycles the chip idles before this start; 0 = start in the first cycle done is seen high),
abort_at (> 0: cut the program by rst after that many cycles; the next program should preload
the scratchpad, since the reference cannot know what the cut program left there)."""


MIN_RATE = 1000        # simulated cycles per second a simulator surely beats (Icarus: ~19k)
MIN_RATE_GLS = 50      # the same for the gate-level netlist on Icarus (measured: ~180 at load 19)
WALL_BASE = 300        # seconds of start-up and slack in the default wall-clock limit


class SimulatorFault(ToolFault):
    """The simulator itself failed -- crashed, was killed, hung, or stopped early (exit 0
    with a program's result missing or torn) -- so nothing can be said of the chip: never a
    pass, never a mismatch. The message: "simulator crashed|killed|hung|stopped early: job J,
    program P (program K of N in the run; SIM: EXECUTABLE): exit code C | killed by signal S
    | no end after T s ...; what is missing; log PATH".

    sim, program (the simulator's executable), job and item (the program within the job
    that was running: the first without a complete outcome; item None: after the job's
    last program), k (its index in the run) of n, process (a tb.sim.process.Process or
    None), why (what is missing), log (the simulator's log).
    """

    def __init__(self, sim, program, job, item, k, n, process=None, why="", log=None):
        self.sim, self.program, self.job, self.item, self.k, self.n = sim, program, job, item, k, n
        self.process, self.why, self.log = process, why, log
        if process is not None and process.hung:
            kind = "hung"
        elif process is not None and process.signal in (9, 15, 2, 1):   # KILL, TERM, INT, HUP
            kind = "killed"
        elif process is not None and process.returncode == 0:
            kind = "stopped early"          # exit 0, yet a program's outcome missing or torn
        else:
            kind = "crashed"
        where = (f"job {job}, program {item} (program {k} of {n} in the run" if item is not None
                 else f"job {job}, after its last program ({n} programs in the run")
        how = describe(process) if process is not None else "no process outcome"
        super().__init__(f"simulator {kind}: {where}; {sim}: {program}): "
                         f"{how}" + (f"; {why}" if why else ""), log)

    @property
    def log_tail(self):
        """The last lines of the simulator's log ('' without one)."""
        return tail(self.log) if self.log else ""


class DesignAssertion(RuntimeError):
    """A check inside the design ($error, e.g. the scratchpad's missed-hazard check) fired
    and stopped the simulation before program k: a result of the chip (its own check
    caught it), not a fault of the simulator. job, item, k; assertion: the message."""

    def __init__(self, sim, job, item, k, assertion, log=None):
        self.sim, self.job, self.item, self.k, self.assertion, self.log = sim, job, item, k, assertion, log
        super().__init__(f"{sim} simulation stopped before program {k} (job {job}, program {item}) by a check "
                         f"of the design: {assertion}" + (f"; log {log}" if log else ""))


# how a design's $error reaches the simulator's log: Icarus "ERROR: ...", Verilator "%Error: ..."
_ASSERT_RE = re.compile(r"(?:^|[\s:])(?:ERROR|%Error): (.*)$", re.M)


def design_assertion(log):
    """The first message of a design check ($error) in a simulator log, or ''."""
    try:
        m = _ASSERT_RE.search(Path(log).read_text(errors="replace"))
    except (OSError, TypeError):
        return ""
    return m.group(1).strip()[:300] if m else ""


def wall_limit_for(prepared, max_cycles, gap_total=0, rate=MIN_RATE):
    """The default wall-clock limit of a simulator process: WALL_BASE seconds, plus every
    program's cycle limit at `rate` cycles per second (MIN_RATE; MIN_RATE_GLS for the
    netlist) (GA2_SIM_WALL=seconds overrides it; 0: no limit)."""
    env = os.environ.get("GA2_SIM_WALL", "")
    if env:
        try:
            v = float(env)
        except ValueError:
            raise ValueError(f"GA2_SIM_WALL={env!r} is not a number of seconds") from None
        return v if v > 0 else None
    n = sum(len(job) for job in prepared)
    return WALL_BASE + (n * int(max_cycles) + gap_total) / rate


def check_outcomes(sim, run_dir, prepared, process, failed=None, log=None):
    """Raise SimulatorFault unless the simulator ended normally (exit code 0, in time) and
    every program of the run has a complete outcome (tb/protocol.py outcome_problem); but
    DesignAssertion when a check of the design stopped it (its $error in the log)."""
    n = sum(len(job) for job in prepared)
    k = 0
    for j, job in enumerate(prepared):
        for p in range(len(job)):
            why = protocol.outcome_problem(run_dir, k)
            if why:
                fired = design_assertion(log)
                if fired:
                    raise DesignAssertion(sim, j, p, k, fired, log)
                if failed and process is None:
                    why += f" ({failed})"
                raise SimulatorFault(sim, process.program if process else sim, j, p, k, n, process, why, log)
            k += 1
    if process is None or process.hung or process.returncode != 0:
        j = len(prepared) - 1
        raise SimulatorFault(sim, process.program if process else sim, j, None, n, n, process,
                             "" if process else (failed or "the simulator did not run"), log)


def prepare_jobs(jobs, cfg):
    """Check and normalise jobs into lists of Item with words and full-size images."""
    if not isinstance(jobs, (list, tuple)):
        raise ValueError("jobs must be a list of jobs (each a list of (prog, image) pairs)")
    out = []
    for j, job in enumerate(jobs):
        pj = []
        for p, item in enumerate(job):
            where = f"job {j} item {p}"
            if not isinstance(item, Item):
                if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                    raise ValueError(f"{where}: expected (prog, image) or (prog, image, sp_image), "
                                     f"got {type(item).__name__}")
                item = Item(*item)
            try:
                words = hostio.program_words(item.prog, cfg)
                img = (KEEP_EXT if keeps_ext(item.image)
                       else hostio.memory_image(item.image, cfg.ext_words, "external memory"))
                sp = None if item.sp is None else hostio.memory_image(item.sp, cfg.sp_words, "scratchpad")
            except ValueError as e:
                raise ValueError(f"job {j} program {p}: {e}") from None
            if int(item.gap) < 0 or int(item.abort_at) < 0:
                raise ValueError(f"{where}: gap and abort_at must be >= 0")
            pj.append(Item(words, img, sp, int(item.gap), int(item.abort_at)))
        out.append(pj)
    return out


def write_run(run_dir, prepared, cfg, predicted=None, max_cycles=None):
    """Every program's input files and the job list (the wrapper's protocol, tb/protocol.py).
    predicted: each program's cycles from the timing model (predicted_cycles), which give
    each job its wait (job_wait; max_cycles: the run's cycle limit)."""
    k = 0
    for job in prepared:
        for it in job:
            protocol.write_program(run_dir, k, it.prog, cfg.imem_depth,
                                   ext=None if keeps_ext(it.image) else it.image, sp=it.sp,
                                   gap=it.gap, abort_at=it.abort_at)
            k += 1
    predicted = predicted_cycles(prepared, cfg) if predicted is None else predicted
    protocol.write_jobs(run_dir, [len(job) for job in prepared],
                        [job_wait(job, cyc, max_cycles) for job, cyc in zip(prepared, predicted)])


def predicted_cycles(prepared, cfg):
    """Each program's cycles as the timing model (model/timing.py) predicts them, per job."""
    return [[timing.schedule(it.prog, cfg).cycles for it in job] for job in prepared]


def job_wait(job, cycles, max_cycles=None):
    """The driver's wait for a job (tb/drivers/ga2_job.py), in ns: the idle gaps and the
    predicted cycles of its programs (a cut one's up to its cut, none past the cycle
    limit), at most what the wrapper takes for them on a chip equal to the model (its
    start and done cycles come on top)."""
    def cap(it, c):
        return min([c] + ([it.abort_at] if it.abort_at else []) + ([max_cycles] if max_cycles else []))
    n = sum(it.gap + cap(it, c) for it, c in zip(job, cycles))
    return n * protocol.CLOCK_NS


def read_raw(run_dir, ext_words, k=None, window=None):
    """Program k's status, trace and ext memory as written by the wrapper, in the dict
    the judge takes (k None: the unprefixed files status.txt, trace.txt, ext_out.hex;
    window: the run's read-back window (first, end), protocol.read_outcome)."""
    out = protocol.read_outcome(run_dir, k, ext_words, *(window or (0, None)))
    val, xz, trace, ext, bus = out["status"], out["status_xz"], out["trace"], out["ext"], out["bus"]
    if out["trace_xz"]:
        xz.append(f"trace ({out['trace_xz']} entries)")
    xz_ext = out["ext_xz"]
    if xz_ext:
        xz.append(f"ext[{xz_ext[0]}]" + (f" (+{len(xz_ext) - 1} more words)" if len(xz_ext) > 1 else ""))
    val = {**dict.fromkeys(["retire", "aborted", "cut_cycles", "idle_changes"]
                           + ["pre_" + k_ for k_ in HOST_OUTPUTS], 0), **val}
    outs = {k_: val[k_] for k_ in HOST_OUTPUTS}
    return {
        "ext": ext, "ext_tail": out.get("ext_tail"),
        "counters": isa.Counters(*(val[k_] for k_ in isa.Counters._fields)),
        "done": bool(val["done"]), "error": bool(val["error"]), "error_code": val["code"],
        "error_pc": val["pc"], "trace": trace, "timeout": bool(val["timeout"]),
        "xz": ", ".join(xz),
        "oob": {"imem": val["imem_oob"], "ext_rd": val["ext_rd_oob"], "ext_wr": val["ext_wr_oob"],
                "xz_events": val["xz"]},
        "wall": val["wall"],
        "sp_reads": val.get("sp_reads"),
        "host": {"aborted": bool(val["aborted"]), "cut_cycles": val["cut_cycles"],
                 "idle_changes": val["idle_changes"],
                 "pre": {k_: val["pre_" + k_] for k_ in HOST_OUTPUTS},
                 "after_reset": outs if val["aborted"] else None,
                 "mon": {m: val["mon_" + m] for m in MONITORS if "mon_" + m in val},
                 "pre_mon": {m: val["pre_mon_" + m] for m in MONITORS if "pre_mon_" + m in val},
                 "run_cycles": val.get("run_cycles"), "bus": bus},
        "outs": outs,
    }


def _after(raw):
    """What the host must see after this program until the next start, and why."""
    if raw is None:
        return dict.fromkeys(HOST_OUTPUTS, 0), "after reset"
    if raw["host"]["aborted"] or raw["timeout"]:
        return dict.fromkeys(HOST_OUTPUTS, 0), "after a reset"
    return dict(raw["outs"], retire=0), "done holds"


def cycle_limit(prepared, cfg, margin=2, predicted=None):
    """The simulation's cycle limit when none is given: margin x the longest program's
    predicted cycles (model/timing.py) plus 1000, so a legal program never hits it and a
    hang is reported against a limit that says how far past the prediction it ran."""
    predicted = predicted_cycles(prepared, cfg) if predicted is None else predicted
    return margin * max((c for job in predicted for c in job), default=0) + 1000


def run(sim, jobs, cfg=None, rtl_dir=None, build_dir=None, max_cycles=None, waves=False,
        keep=None, waves_file=None, wall_limit=None, source_set="rtl", on_outcome=None, window=None):
    """Run every program of every job in one simulator process; list of lists of ProgResult.

    The reference is one Machine for the whole call, run in the same order. Each call gets
    its own run directory under the build dir (kept when something failed, when waves are
    on, or with keep=True / GA2_KEEP_RUNS=1; removed otherwise). waves_file=PATH turns
    waves on and copies the simulation's VCD there.

    A simulator that crashes, is killed, hangs (runs past wall_limit seconds; default
    wall_limit_for()) or leaves a program's result files torn raises SimulatorFault naming
    the job and the program: a fault of the run, not a result of the chip.

    source_set "gls" runs the gate-level netlist of ga2_top (tb/sim/gls.py; Icarus) in
    place of the RTL: the same bench, the same reference, the same judge.

    on_outcome(k, raw) is called, while the simulator still runs, as each program k's
    complete outcome lands (read_raw's dict, unjudged: the judgement comes after the run),
    in program order: what a user watching a long run sees as it happens.

    window=(first, end) reads back only the external memory's words first .. end - 1 after
    each program (a large model's weights are 160M words, read and never written): the
    judge compares those words and holds every write the bus log shows to lie among them;
    the results carry them as ext_tail (ext None) and their reference outcomes without
    their memory.
    """
    waves = waves or waves_file is not None
    check_window(window, config.resolve(cfg))
    check_sim(sim)
    cfg = config.resolve(cfg)
    if max_cycles is not None and (isinstance(max_cycles, bool) or int(max_cycles) < 1):
        raise ValueError(f"max_cycles must be >= 1, got {max_cycles}")
    waves = waves or os.environ.get("WAVES", "") not in ("", "0")
    prepared = prepare_jobs(jobs, cfg)
    predicted = predicted_cycles(prepared, cfg)
    if max_cycles is None:
        max_cycles = cycle_limit(prepared, cfg, predicted=predicted)
    bdir = build(sim, cfg=cfg, rtl_dir=rtl_dir, build_dir=build_dir, waves=waves, source_set=source_set)
    run_dir = bdir / "runs" / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    run_dir.mkdir(parents=True)
    write_run(run_dir, prepared, cfg, predicted, int(max_cycles))
    cov = coverage.enabled()
    plusargs = ([f"+max_cycles={int(max_cycles)}"] + (["+waves"] if waves and sim == "icarus" else [])
                + (["+cov"] if cov else [])
                + ([f"+ext_from={window[0]}", f"+ext_to={window[1]}"] if window else []))
    if wall_limit is None:
        wall_limit = wall_limit_for(prepared, max_cycles, sum(it.gap for job in prepared for it in job),
                                    MIN_RATE_GLS if source_set == "gls" else MIN_RATE)
    proc = {}
    with _watching(run_dir, cfg.ext_words, sum(len(job) for job in prepared), on_outcome, window):
        _, failed, log = cocotb_test(sim, bdir, run_dir, JOB_MODULE, module_dirs=[DRIVERS],
                                     plusargs=plusargs, pytest=False,   # ga2_job has no asserts
                                     wall_limit=wall_limit, process=proc)
    check_outcomes(sim, run_dir, prepared, Process(**proc) if proc else None, failed, log)
    if waves:
        vcds = sorted(run_dir.glob("*.vcd"))
        for vcd in vcds:
            print(f"hw.run: waveform {vcd} (open with gtkwave)", file=sys.stderr)
        if waves_file is not None:
            if not vcds:
                raise RuntimeError(f"{sim} simulation wrote no waveform in {run_dir}")
            Path(waves_file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vcds[0], waves_file)
    refs = references(Machine(cfg), ((it.prog, it.image, it.sp) for job in prepared for it in job))
    results, k, prev = [], 0, None
    for job in prepared:
        out = []
        for it in job:
            try:
                raw = read_raw(run_dir, cfg.ext_words, k, window)
            except (OSError, ValueError, RuntimeError, KeyError) as e:
                raise SimulatorFault(sim, proc.get("program", sim), len(results), len(out), k,
                                     sum(len(jb) for jb in prepared), Process(**proc) if proc else None,
                                     f"program {k}'s result files unreadable ({type(e).__name__}: {e})",
                                     log) from None
            raw["limit"] = int(max_cycles)
            raw["host"]["pre_expected"], raw["host"]["pre_after"] = _after(prev)
            out.append(make_result(raw, next(refs)))
            if cov:
                coverage.sample(it.prog, raw, out[-1].ok, cfg, protocol.program_file(run_dir, k, "cov"))
            prev, k = raw, k + 1
        results.append(out)
    if cov:
        coverage.save(cov)
    rtl_cov = rtl_coverage_dir() if sim == "verilator" else None
    if rtl_cov is not None and (run_dir / "coverage.dat").exists():
        rtl_cov.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run_dir / "coverage.dat", rtl_cov / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.dat")
    all_ok = all(p.ok for job in results for p in job)
    keep = keep if keep is not None else os.environ.get("GA2_KEEP_RUNS", "") not in ("", "0")
    if all_ok and not waves and not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return results


class _Router:
    """sys.stdout while some thread's prints are routed to a console: each routed thread's
    writes go to its newest console, every other thread's to the stream sys.stdout was
    before the first route (base). One router serves every overlapping run, so runs in
    several threads can start and end in any order and sys.stdout is base again after the
    last (two nested wrappers, each restoring what it found, would leave a stale one)."""

    def __init__(self, base):
        self.base, self.routes = base, {}

    def _target(self):
        consoles = self.routes.get(threading.current_thread())
        return consoles[-1] if consoles else self.base

    def write(self, text):
        return self._target().write(text)

    def flush(self):
        self._target().flush()

    def __getattr__(self, name):
        return getattr(self.base, name)


_ROUTE_LOCK = threading.Lock()


def route_to_console(thread, line_buffered=False):
    """Send what `thread` prints to the console: a copy of sys.stdout's file descriptor
    taken now, before a simulator's output is sent to its log. Returns that console (pass
    it to unroute), or None when sys.stdout has no file behind it (pytest's capsys): then
    nothing changes."""
    with _ROUTE_LOCK:
        router = sys.stdout if isinstance(sys.stdout, _Router) else None
        base = router.base if router is not None else sys.stdout
        base.flush()
        try:
            console = open(os.dup(base.fileno()), "w", buffering=1 if line_buffered else -1,
                           encoding=getattr(base, "encoding", None) or "utf-8")
        except (AttributeError, OSError, ValueError):   # a stream with no file behind it
            return None
        if router is None:
            router = sys.stdout = _Router(base)
        router.routes.setdefault(thread, []).append(console)
        return console


def unroute(thread, console):
    """Undo route_to_console(thread) (console: what it returned; None does nothing), close
    the console, and give sys.stdout back its base when no route is left."""
    if console is None:
        return
    with _ROUTE_LOCK:
        router = sys.stdout
        if isinstance(router, _Router):
            consoles = router.routes.get(thread, [])
            if console in consoles:
                consoles.remove(console)
            if not consoles:
                router.routes.pop(thread, None)
            if not router.routes:
                sys.stdout = router.base
        console.close()


@contextlib.contextmanager
def _watching(run_dir, ext_words, n, on_outcome, window=None, poll=0.05):
    """Call on_outcome(k, raw) for programs 0..n-1 as their outcomes land in run_dir (a
    thread polling the status files the wrapper writes last), the rest after the block;
    what on_outcome prints reaches the console, not the simulator's log; an exception of
    on_outcome is raised after the block."""
    if on_outcome is None:
        yield
        return
    stop, done, errors = threading.Event(), [0], []

    def deliver():
        while done[0] < n and not errors:
            k = done[0]
            if protocol.outcome_problem(run_dir, k):
                return   # not landed yet (or never: check_outcomes names that fault)
            try:
                on_outcome(k, read_raw(run_dir, ext_words, k, window))
            except Exception as e:   # noqa: BLE001 -- re-raised in the caller's thread
                errors.append(e)
            done[0] += 1

    def watch():
        while not stop.is_set():
            deliver()
            stop.wait(poll)

    t = threading.Thread(target=watch, daemon=True)
    console = route_to_console(t)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        unroute(t, console)
    deliver()
    if errors:
        raise errors[0]


def check_window(window, cfg):
    """window itself (None, or (first, end) with 0 <= first < end <= ext_words), else
    ValueError."""
    if window is not None:
        if not isinstance(window, tuple) or len(window) != 2 or \
                any(isinstance(v, bool) or not isinstance(v, int) for v in window) or \
                not 0 <= window[0] < window[1] <= cfg.ext_words:
            raise ValueError(f"window must be (first, end) with 0 <= first < end <= ext_words, got {window!r}")
    return window


def run_programs(sim, pairs, **kw):
    """One job: run(sim, [pairs], **kw)[0]."""
    return run(sim, [list(pairs)], **kw)[0]


def summary(results):
    """(programs, ok programs, total chip cycles from the counters) of run()'s results."""
    flat = [p for job in results for p in job]
    return len(flat), sum(p.ok for p in flat), sum(int(p.counters.cycles) for p in flat)


__all__ = ["Item", "run", "run_programs", "summary", "read_raw", "write_run",
           "prepare_jobs", "DEFAULT_GAP", "SimulatorFault", "DesignAssertion", "check_outcomes", "wall_limit_for"]
