"""The text-mutant judge: a mutant applied to a copy of the project, a check command run there.

judge_text copies the tree (tb/mutation/tree.py), applies the mutant, runs the check
(run_check: its own process group, killed whole on a timeout) and classifies its exit
code and output (classify_output: a PROBLEM line and a non-zero exit is caught, REFUSED
lines refused, any other non-zero exit crashed). run_mutants runs the baseline and every
mutant on the pool (tb/mutation/pool.py), with an optional journal.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from functools import partial

from tb.mutation.journal import mutant_key
from tb.mutation.outcomes import (
    BAD_ANCHOR,
    CAUGHT,
    CRASHED,
    REFUSED,
    SURVIVED,
    TIMED_OUT,
    BaselineError,
    Mutant,
    Result,
)
from tb.mutation.pool import run_pool
from tb.mutation.tree import COPY_IGNORE, anchor_problem, apply_mutant, copy_project
from tb.sim.process import parent_bound

OUTPUT_TAIL = 2000                 # characters of the check's output kept per result
PROBLEM_RE = re.compile(r"^PROBLEM\b", re.M)
REFUSED_RE = re.compile(r"^REFUSED\b", re.M)


def run_check(cmd, cwd, timeout, env_extra=None):
    """Run cmd in cwd: (returncode or None on timeout, output, seconds). A check is a
    `python -m` command, so the copy in cwd comes first on sys.path (before the editable
    install of the original tree).

    The check gets its own process group, killed whole on a timeout (a check that starts
    simulators or subprocesses leaves nothing behind), and dies with this process
    (tb/sim/process.py parent_bound: a killed run leaves no check running).
    """
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update(env_extra or {})
    t0 = time.monotonic()
    proc = subprocess.Popen(parent_bound(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        rc = None
    except BaseException:             # interrupted: nothing of the check outlives the run
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise
    text = out.decode("utf-8", "replace") if out else ""
    return rc, text, time.monotonic() - t0


def ended(rc):
    """How a check ended, in words ('exit code 1', 'killed by signal 9 (SIGKILL)', 'timed out')."""
    if rc is None:
        return "timed out (its process group killed)"
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "?"
        return f"killed by signal {-rc} ({name})"
    return f"exit code {rc}"


def classify_output(rc, output):
    """A check command's outcome from its exit code (None: timed out) and whole output.

    Exit 0: survived. Non-zero with a `PROBLEM` line: caught. Non-zero with `REFUSED`
    lines but no PROBLEM line: refused. Any other non-zero exit (a traceback): crashed.
    """
    if rc is None:
        return TIMED_OUT
    if rc == 0:
        return SURVIVED
    if PROBLEM_RE.search(output):
        return CAUGHT
    if REFUSED_RE.search(output):
        return REFUSED
    return CRASHED


def judge_text(mutant, slot, check, root, timeout, copy_ignore=COPY_IGNORE, tmp_root=None,
               keep=False, classify=classify_output):
    """The text-mutant judge: apply mutant (None: the baseline) to a fresh copy of root,
    run the check there, classify its exit code and output."""
    label = "(baseline)" if mutant is None else mutant.label
    tmp = tempfile.mkdtemp(prefix="ga2mut_", dir=tmp_root)
    copy_dir = os.path.join(tmp, "tree")
    try:
        copy_project(root, copy_dir, copy_ignore)
        if mutant is not None:
            apply_mutant(copy_dir, mutant)
        cmd = check(copy_dir, mutant) if callable(check) else check
        rc, out, secs = run_check(cmd, copy_dir, timeout, {"GA2_MUTANT": label})
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    m = mutant or Mutant(label, "", "", "", False)
    status = classify(rc, out)
    tail = out[-OUTPUT_TAIL:]
    if status in (CRASHED, TIMED_OUT):      # say how the check ended, not only what it printed
        tail = (f"the check ({' '.join(str(c) for c in cmd[1:])}) {ended(rc)}\n" + tail)[-OUTPUT_TAIL:]
    return Result(m.label, m.file, status, m.must_catch, m.tags, rc, round(secs, 3), tail)


def run_mutants(mutants, check, root, timeout=120, jobs=None, copy_ignore=COPY_IGNORE,
                baseline=True, tmp_root=None, keep=False, classify=classify_output,
                scheduler=None, progress=False, journal=None):
    """Run every text mutant through judge_text on the pool; a list of Result in order.

    check: a command (list of args) or a callable check(copy_dir, mutant) -> command
    (mutant is None for the baseline). root: the project tree to copy. timeout: seconds
    per check. jobs: parallel checks (default os.cpu_count()). baseline: first make sure
    the check passes on an unmutated copy (BaselineError otherwise). keep: leave the
    temporary copies in tmp_root for debugging. classify(rc, output) -> status.
    scheduler / progress: as run_pool's (Dask workers; a tqdm bar). journal: a Journal
    every result is appended to as it arrives; the mutants it already holds (resumed) are
    taken from it, not judged again (the baseline always runs).
    """
    mutants = list(mutants)
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        raise ValueError(f"run_mutants: root {root!r} is not a directory")
    if not (callable(check) or (isinstance(check, (list, tuple)) and check)):
        raise ValueError("run_mutants: check must be a non-empty command list or a callable")
    if timeout is None or not 0 < timeout < float("inf"):
        raise ValueError(f"run_mutants: timeout must be positive and finite, got {timeout!r}")
    labels = [m.label for m in mutants]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise ValueError(f"run_mutants: duplicate mutant labels: {', '.join(dup)}")

    results = [None] * len(mutants)
    todo = []
    for i, m in enumerate(mutants):
        why = anchor_problem(root, m)
        if why:
            results[i] = Result(m.label, m.file, BAD_ANCHOR, m.must_catch, m.tags, None, 0.0, why)
        elif journal is not None and journal.get(mutant_key(m, check)) is not None:
            results[i] = journal.get(mutant_key(m, check))
        else:
            todo.append(i)
    judge = partial(judge_text, check=check, root=root, timeout=timeout, copy_ignore=copy_ignore,
                    tmp_root=tmp_root, keep=keep, classify=classify)
    items = [None] + [mutants[i] for i in todo] if baseline else [mutants[i] for i in todo]

    def journaled(i, result, _done):
        if journal is not None and items[i] is not None:      # the baseline is not journaled
            journal.add(mutant_key(items[i], check), result)
    # the baseline is the pool's first item (None), judged beside the mutants
    done = run_pool(items, judge, jobs, on_result=journaled, scheduler=scheduler, progress=progress)
    if baseline:
        b, done = done[0], done[1:]
        if b.status != SURVIVED:
            if journal is not None:
                journal.reset()
            raise BaselineError(f"the check fails on the unmutated project ({b.status}, exit "
                                f"{b.returncode}); output tail:\n{b.detail[-800:]}")
    for i, r in zip(todo, done):
        results[i] = r
    return results
