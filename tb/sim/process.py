"""How the simulation library runs a tool and reports its end: run_process (a simulator or
build in its own process group, bound to this process, killed at a wall-clock limit),
Process and describe (how it ended, in words), ToolFault (a tool that failed: one line,
its log), error_line and tail (what a log says), locked (one process at a time on a build
directory: the builds, the gate-level netlist)."""
import contextlib
import fcntl
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path


class ToolFault(RuntimeError):
    """A tool the run needs failed or made nothing -- a simulator's build (its compiler, a
    design that does not elaborate), yosys, iverilog's preprocessor -- so nothing was
    simulated: nothing can be said of the chip, and the input was not at fault. A
    command ends on it with one FAULT line and exit 4 (tb.cli.guard), never a traceback
    and never a FAIL of the chip; tb.sim.run.SimulatorFault (the simulator failed while
    running) is one too. log: the tool's log, when there is one."""

    def __init__(self, message, log=None):
        self.log = log
        super().__init__(message + (f"; log {log}" if log else ""))


def error_line(text):
    """The line of a tool's output that says what went wrong: the last naming an error,
    else the last line (one line, at most 300 characters)."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    hits = [ln for ln in lines if re.search(r"error|not found|no such|ended|%Error", ln, re.I)]
    return ((hits or lines or ["no output"])[-1])[:300]


def _last_error(path):
    """error_line of a log file ('no log' when it cannot be read)."""
    try:
        return error_line(Path(path).read_text(errors="replace")[-20000:])
    except OSError:
        return "no log"


def tail(path, n=40):
    """The last n lines of a log file."""
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


Process = namedtuple("Process", "program returncode signal hung seconds")
Process.__doc__ = """How a simulator (or build) process ended: program (the executable's
name), returncode (None when killed by a signal or hung), signal (its number, or None),
hung (killed at the wall-clock limit), seconds (wall)."""


def parent_bound(cmd):
    """cmd, run so that it is killed when the process that started it dies (util-linux's
    setpriv --pdeathsig KILL, then exec: the same process). Its own process group lets the
    caller kill it and its children on a limit; this covers the caller being killed itself
    (SIGKILL, the OOM killer, a CI timeout), which would otherwise leave simulators and
    checks running as orphans. Without setpriv, or with GA2_PARENT_BOUND=0 in the
    environment, cmd as it is (then the live driver still ends a simulation whose host is
    gone, by itself: tb/drivers/ga2_live.py)."""
    bound = _SETPRIV and os.environ.get("GA2_PARENT_BOUND", "1") != "0"
    return (["setpriv", "--pdeathsig", "KILL", "--"] if bound else []) + [str(c) for c in cmd]


_SETPRIV = shutil.which("setpriv") is not None and sys.platform.startswith("linux")


def run_process(cmd, cwd=None, env=None, wall_limit=None):
    """Run cmd (its output on this process's stdout/stderr) to its end: a Process.

    The process gets its own process group, killed whole when wall_limit seconds pass
    (hung=True) or when this process is interrupted, so no simulator outlives its run.
    """
    t0 = time.monotonic()
    p = subprocess.Popen(parent_bound(cmd), cwd=cwd, env=env, start_new_session=True)
    hung = False
    try:
        hung = not wait_exit(p, wall_limit)
    except BaseException:
        _kill_group(p)
        raise
    if hung:
        _kill_group(p)
    rc = p.returncode
    return Process(os.path.basename(str(cmd[0])), None if hung or rc < 0 else rc,
                   -rc if rc is not None and rc < 0 and not hung else None, hung,
                   round(time.monotonic() - t0, 3))


POLL_MAX = 24 * 3600      # seconds one poll waits at most (its timeout is an int of milliseconds)


def wait_exit(p, limit=None):
    """Wait for the Popen p to end, at most limit seconds (None: no limit): True when it
    ended. Woken by the exit itself (a pidfd), not by polling: Popen.wait(timeout) sleeps
    in steps of up to 50 ms, so a short simulator run left its core idle for about 25 ms
    on average after it ended, some hundreds of times in make test."""
    if not limit:
        p.wait()
        return True
    try:
        fd = os.pidfd_open(p.pid)
    except (AttributeError, OSError):        # no pidfd (an old kernel): Popen's own wait
        try:
            p.wait(timeout=limit)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        ready = select.poll()
        ready.register(fd, select.POLLIN)
        end = time.monotonic() + limit
        while not ready.poll(min(max(end - time.monotonic(), 0), POLL_MAX) * 1000):
            if time.monotonic() >= end:      # poll takes at most 2^31 - 1 ms: long limits in steps
                return False
    finally:
        os.close(fd)
    p.wait()
    return True


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    p.wait()


def describe(proc):
    """How a Process ended, in words: 'exit code 3', 'killed by signal 9 (SIGKILL)', ..."""
    if proc.hung:
        return f"no end after {proc.seconds:.1f} s of wall clock (the limit): killed"
    if proc.signal:
        try:
            name = signal.Signals(proc.signal).name
        except ValueError:
            name = "?"
        return f"killed by signal {proc.signal} ({name})"
    return f"exit code {proc.returncode}"


@contextlib.contextmanager
def locked(path):
    """An exclusive file lock on path for the block."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def stale(out, product, stamp, digest):
    """A build into directory out that stamp (a file) says is current when it holds digest
    and product exists: yields False when so (looked at before and again under the lock
    .<out>.lock beside out, which a build by another process holds), else True with the
    lock held, out made and the old stamp removed; the caller builds and writes the stamp
    last."""
    def fresh():
        return stamp.exists() and product.exists() and stamp.read_text() == digest
    if fresh():
        yield False
        return
    with locked(out.parent / f".{out.name}.lock"):
        if fresh():
            yield False
            return
        out.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        yield True
