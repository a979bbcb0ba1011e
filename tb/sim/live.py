"""A live simulator session (Live): the host chooses each program after the previous
one's outcome, as a server does (tools/serve), in one simulator process
(tb/drivers/ga2_live.py); every outcome judged against one reference Machine run over the
same sequence before the host sees it. The batch runs are tb/sim/run.py's.
"""
import os
import shutil
import threading
import time
import uuid

from model import config, timing
from model.machine import Machine
from tb import coverage, protocol
from tb.judge import keeps_ext, make_result, references
from tb.sim.build import DRIVERS, build, check_sim, cocotb_test
from tb.sim.process import Process
from tb.sim.run import (
    SimulatorFault,
    _after,
    check_outcomes,
    check_window,
    prepare_jobs,
    read_raw,
    route_to_console,
    unroute,
)

LIVE_MODULE = "ga2_live"
LIVE_MAX_CYCLES = 2_000_000   # a live run's cycle limit per program (the programs are not known ahead)
LIVE_IDLE = 900               # seconds the live driver waits for a host that has gone quiet


class ChipMismatch(RuntimeError):
    """A live run's program whose outcome on the chip differs from the reference chip's:
    the run stops there (nothing is decided from a wrong outcome). k: the program's index
    in the run; result: its ProgResult (ok False, mismatch the judge's words)."""

    def __init__(self, sim, k, result):
        self.sim, self.k, self.result = sim, k, result
        super().__init__(f"{sim}: program {k} of the live run: chip != reference chip: {result.mismatch}")


class Live:
    """A simulator session whose next program is chosen after the last one's outcome, as a
    host serving requests chooses it (with Live(sim, cfg=...) as chip: chip.run(item)).

    One simulator process (tb/drivers/ga2_live.py) waits for each program: run(item)
    writes the program's files and pK_go.txt (tb/protocol.py), waits for its outcome, hands
    the raw outcome to on_outcome(k, raw) (as run()'s: what the simulator left, unjudged;
    here a callback that returns a dict replaces the outcome, so a test can fake one),
    judges it against ONE reference Machine run over the same sequence (tb/judge.py: the
    scratchpad carries over, KEEP_EXT keeps the external memory, the host contract across
    programs), and returns the ProgResult. A program the judge rejects raises ChipMismatch
    and the run ends there; a simulator that dies, hangs or leaves a torn outcome raises
    SimulatorFault (DesignAssertion for the design's own $error), as run() does. The
    results so far: .results. max_cycles is every program's cycle limit (default
    LIVE_MAX_CYCLES; a program the timing model puts past half of it is refused); the run
    directory is removed when every program passed (keep=True / GA2_KEEP_RUNS=1 keep it).
    window=(first, end): run()'s read-back window, for every program of the session.
    """

    def __init__(self, sim, cfg=None, rtl_dir=None, build_dir=None, max_cycles=LIVE_MAX_CYCLES,
                 on_outcome=None, keep=None, idle_limit=LIVE_IDLE, poll=0.002, window=None):
        check_sim(sim)
        if isinstance(max_cycles, bool) or int(max_cycles) < 1:
            raise ValueError(f"max_cycles must be >= 1, got {max_cycles}")
        self.sim, self.cfg, self.max_cycles = sim, config.resolve(cfg), int(max_cycles)
        self.window = check_window(window, self.cfg)
        self.rtl_dir, self.build_dir, self.on_outcome, self.poll = rtl_dir, build_dir, on_outcome, poll
        self.keep = keep if keep is not None else os.environ.get("GA2_KEEP_RUNS", "") not in ("", "0")
        self.idle_limit = idle_limit
        self.results, self.prepared = [], []
        self.run_dir = self._thread = None
        self._prev = None
        self._queue = []
        self._refs = references(Machine(self.cfg), self._feed())
        self._ended = None              # the simulator thread's (failed, log), once it has ended
        self._proc = {}
        self._cov = coverage.enabled()

    def _feed(self):
        while True:
            yield self._queue.pop(0)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, kind, exc, tb):
        self.close(failed=kind is not None)
        return False

    def start(self):
        """Build (or reuse the build), make the run directory, start the simulator."""
        bdir = build(self.sim, cfg=self.cfg, rtl_dir=self.rtl_dir, build_dir=self.build_dir)
        self.run_dir = bdir / "runs" / f"{os.getpid()}-live-{uuid.uuid4().hex[:8]}"
        self.run_dir.mkdir(parents=True)
        plusargs = [f"+max_cycles={self.max_cycles}", f"+live_idle={self.idle_limit}",
                    f"+live_host={os.getpid()}"] + (
            ["+cov"] if self._cov else []) + (
            [f"+ext_from={self.window[0]}", f"+ext_to={self.window[1]}"] if self.window else [])
        # the simulator's output goes to its log; ours, line by line, to the console
        self._owner = threading.current_thread()
        self._console = route_to_console(self._owner, line_buffered=True)

        def simulate():
            try:
                _, failed, log = cocotb_test(self.sim, bdir, self.run_dir, LIVE_MODULE, module_dirs=[DRIVERS],
                                             plusargs=plusargs, pytest=False, process=self._proc)
            except BaseException as e:   # noqa: BLE001 -- reported by run() or close()
                failed, log = f"{type(e).__name__}: {e}", self.run_dir / "sim.log"
            self._ended = (failed, log)
        self._thread = threading.Thread(target=simulate, daemon=True)
        self._thread.start()

    def _fault(self):
        """The simulator has ended without program len(results)'s outcome: raise why."""
        failed, log = self._ended
        proc = Process(**self._proc) if self._proc else None
        check_outcomes(self.sim, self.run_dir, self.prepared, proc, failed, log)
        raise SimulatorFault(self.sim, proc.program if proc else self.sim, len(self.prepared) - 1, 0,
                             len(self.prepared) - 1, len(self.prepared), proc,
                             "the simulator ended before the program's outcome", log)

    def run(self, item):
        """Run one program (an Item, or (prog, image[, sp])) after the previous ones; its
        judged ProgResult (ChipMismatch if the chip disagrees with the reference chip)."""
        if self.run_dir is None:
            raise RuntimeError("Live.run before start()")
        k = len(self.prepared)
        if k >= 0xFFFF:
            raise ValueError(f"a live run holds at most {0xFFFF} programs")
        it = prepare_jobs([[item]], self.cfg)[0][0]
        pred = timing.schedule(it.prog, self.cfg).cycles
        if 2 * pred + 1000 > self.max_cycles:
            raise ValueError(f"program {k}: {pred} cycles predicted, past half the live run's "
                             f"cycle limit {self.max_cycles}")
        self.prepared.append([it])
        protocol.write_program(self.run_dir, k, it.prog, self.cfg.imem_depth,
                               ext=None if keeps_ext(it.image) else it.image, sp=it.sp,
                               gap=it.gap, abort_at=it.abort_at)
        protocol.write_go(self.run_dir, k)
        while protocol.outcome_problem(self.run_dir, k):
            if self._ended is not None:
                if not protocol.outcome_problem(self.run_dir, k):
                    break
                self._fault()
            time.sleep(self.poll)
        try:
            raw = read_raw(self.run_dir, self.cfg.ext_words, k, self.window)
        except (OSError, ValueError, RuntimeError, KeyError) as e:
            raise SimulatorFault(self.sim, self._proc.get("program", self.sim), k, 0, k, k + 1, None,
                                 f"program {k}'s result files unreadable ({type(e).__name__}: {e})") from None
        if self.on_outcome is not None:
            fake = self.on_outcome(k, raw)
            if isinstance(fake, dict):
                raw = fake
        raw["limit"] = self.max_cycles
        raw["host"]["pre_expected"], raw["host"]["pre_after"] = _after(self._prev)
        self._queue.append((it.prog, it.image, it.sp))
        res = make_result(raw, next(self._refs))
        if self._cov:
            coverage.sample(it.prog, raw, res.ok, self.cfg, protocol.program_file(self.run_dir, k, "cov"))
        self.results.append(res)
        self._prev = raw
        if not res.ok:
            raise ChipMismatch(self.sim, k, res)
        return res

    def close(self, failed=False):
        """End the run: end.txt, wait for the simulator; a fault of its end is raised unless
        the run is already failing. The run directory goes unless kept or failed."""
        if self._thread is None:
            return
        protocol.write_end(self.run_dir)
        self._thread.join()
        self._thread = None
        unroute(self._owner, self._console)
        self._console = None
        if self._cov:
            coverage.save(self._cov)
        failed_sim, log = self._ended
        proc = Process(**self._proc) if self._proc else None
        if not failed and (proc is None or proc.hung or proc.returncode != 0):
            check_outcomes(self.sim, self.run_dir, self.prepared, proc, failed_sim, log)
        ok = not failed and all(r.ok for r in self.results)
        if ok and not self.keep:
            shutil.rmtree(self.run_dir, ignore_errors=True)
