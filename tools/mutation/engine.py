"""A small mutation engine: does a check notice a deliberately broken copy of the project?

A mutant is (label, file, old text, new text). Each one is applied to its own temporary
copy of the project tree (old must occur exactly once in file), the check command runs
in that copy with a timeout, and the outcome is one of
  caught       the check exited non-zero (it noticed),
  not caught   the check exited 0 (the mutant survived),
  timed out    the check ran past the timeout (its process group is killed); counts as
               caught, since a hang is noticed,
  bad anchor   the mutant could not be applied (file missing, old text missing or not
               unique, or old == new); the check does not run.
Mutants run in parallel (default: all cores). Before any mutant counts, the check runs
once on an unmutated copy (the baseline): if that fails, every "caught" would be
meaningless, so run_mutants raises BaselineError.

Library use (tools/mut_ch09.py, tools/mutation/rtl/run.py):

    from tools.mutation import engine as mutation
    ms = [mutation.Mutant("off by one", "model/x.py", "i < n", "i <= n")]
    results = mutation.run_mutants(ms, [sys.executable, "-m", "model.x", "--check"], ROOT,
                                   timeout=60)
    mutation.print_table(results)
    mutation.write_json("out/mut.json", results, {"check": "model.x --check"})
    sys.exit(mutation.exit_code(results))

The check is a command (list of arguments) run with cwd = the copy and PYTHONPATH = the
copy (so `python -m model.x` imports the mutated code, never the original), or a callable
check(copy_dir, mutant) returning such a command. Exit code rule (exit_code): non-zero
when a must_catch mutant is not caught, or any anchor is bad.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

CAUGHT, NOT_CAUGHT, TIMED_OUT, BAD_ANCHOR = "caught", "not caught", "timed out", "bad anchor"
STATUSES = (CAUGHT, NOT_CAUGHT, TIMED_OUT, BAD_ANCHOR)
COPY_IGNORE = (".venv", "build", "out", ".git", "__pycache__", "*.pyc", ".pytest_cache")
EMPTY_DIRS = ("out", "build")      # recreated empty in the copy when the project has them
OUTPUT_TAIL = 2000                 # characters of the check's output kept per result


class Mutant(namedtuple("Mutant", "label file old new must_catch tags")):
    """One mutation: replace the single occurrence of old by new in file (relative to root).

    must_catch=False marks a mutant allowed to survive (e.g. an equivalent mutant, or one
    the chapter shows a weaker check missing); tags are free-form strings for the caller.
    """
    __slots__ = ()

    def __new__(cls, label, file, old, new, must_catch=True, tags=()):
        return super().__new__(cls, str(label), str(file), old, new, bool(must_catch), tuple(tags))


class Result(namedtuple("Result", "label file status must_catch tags returncode seconds detail")):
    """The outcome of one mutant; detail is the anchor problem or the check's output tail."""
    __slots__ = ()

    @property
    def caught(self):
        """True when the check noticed the mutant (non-zero exit or a timeout)."""
        return self.status in (CAUGHT, TIMED_OUT)

    @property
    def problem(self):
        """Why this result fails the run (exit_code rule), or None."""
        if self.status == BAD_ANCHOR:
            return f"bad anchor: {self.label}: {self.detail}"
        if self.status == NOT_CAUGHT and self.must_catch:
            return f"survived (must be caught): {self.label}"
        return None

    def as_dict(self):
        d = self._asdict()
        d["tags"] = list(self.tags)
        d["caught"] = self.caught
        return d


class BaselineError(RuntimeError):
    """The check fails (or times out) on the unmutated project: mutation results would lie."""


def anchor_problem(root, mutant):
    """Why mutant cannot be applied to root (a string), or None when old occurs exactly once."""
    path = pathlib.Path(root) / mutant.file
    if not path.is_file():
        return f"file {mutant.file} not found"
    if not isinstance(mutant.old, str) or not isinstance(mutant.new, str) or mutant.old == "":
        return "old and new must be strings, old non-empty"
    if mutant.old == mutant.new:
        return "old == new (the mutant changes nothing)"
    n = path.read_text().count(mutant.old)
    if n == 0:
        return f"old text not found in {mutant.file}"
    if n > 1:
        return f"old text occurs {n} times in {mutant.file} (must be unique)"
    return None


def copy_project(root, dest, copy_ignore=COPY_IGNORE):
    """Copy root into dest (which must not exist), skipping copy_ignore patterns."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*copy_ignore), symlinks=True)
    for name in EMPTY_DIRS:
        if name in copy_ignore and (pathlib.Path(root) / name).is_dir():
            (pathlib.Path(dest) / name).mkdir(exist_ok=True)


def apply_mutant(copy_dir, mutant):
    """Write the mutated file into copy_dir (anchor already checked on the original)."""
    path = pathlib.Path(copy_dir) / mutant.file
    text = path.read_text()
    assert text.count(mutant.old) == 1, mutant.label
    path.write_text(text.replace(mutant.old, mutant.new, 1))


def run_check(cmd, cwd, timeout, env_extra=None):
    """Run cmd in cwd with PYTHONPATH=cwd: (returncode or None on timeout, output, seconds).

    The check gets its own process group, killed whole on a timeout (a check that starts
    simulators or subprocesses leaves nothing behind).
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(cwd)
    env.update(env_extra or {})
    t0 = time.monotonic()
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
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
    text = out.decode("utf-8", "replace") if out else ""
    return rc, text, time.monotonic() - t0


def _one(mutant, check, root, timeout, copy_ignore, tmp_root, keep):
    """Apply one mutant (None: the baseline) to a fresh copy and run the check."""
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
    status = TIMED_OUT if rc is None else (NOT_CAUGHT if rc == 0 else CAUGHT)
    m = mutant or Mutant(label, "", "", "", False)
    return Result(m.label, m.file, status, m.must_catch, m.tags, rc, round(secs, 3),
                  out[-OUTPUT_TAIL:])


def run_mutants(mutants, check, root, timeout=120, jobs=None, copy_ignore=COPY_IGNORE,
                baseline=True, tmp_root=None, keep=False):
    """Run every mutant; a list of Result in the order of mutants.

    check: a command (list of args) or a callable check(copy_dir, mutant) -> command
    (mutant is None for the baseline). root: the project tree to copy. timeout: seconds
    per check. jobs: parallel checks (default os.cpu_count()). baseline: first make sure
    the check passes on an unmutated copy (BaselineError otherwise). keep: leave the
    temporary copies in tmp_root for debugging.
    """
    mutants = list(mutants)
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        raise ValueError(f"run_mutants: root {root!r} is not a directory")
    if not (callable(check) or (isinstance(check, (list, tuple)) and check)):
        raise ValueError("run_mutants: check must be a non-empty command list or a callable")
    if timeout is None or timeout <= 0:
        raise ValueError(f"run_mutants: timeout must be positive, got {timeout!r}")
    labels = [m.label for m in mutants]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise ValueError(f"run_mutants: duplicate mutant labels: {', '.join(dup)}")
    jobs = max(1, int(jobs or os.cpu_count() or 1))

    results = [None] * len(mutants)
    todo = []
    for i, m in enumerate(mutants):
        why = anchor_problem(root, m)
        if why:
            results[i] = Result(m.label, m.file, BAD_ANCHOR, m.must_catch, m.tags, None, 0.0, why)
        else:
            todo.append(i)
    base = None
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        args = (check, root, timeout, copy_ignore, tmp_root, keep)
        if baseline:
            base = pool.submit(_one, None, *args)
        futures = {i: pool.submit(_one, mutants[i], *args) for i in todo}
        for i, fut in futures.items():
            results[i] = fut.result()
        if base is not None:
            b = base.result()
            if b.status != NOT_CAUGHT:
                raise BaselineError(f"the check fails on the unmutated project ({b.status}, exit "
                                    f"{b.returncode}); output tail:\n{b.detail[-800:]}")
    return results


def score(results):
    """Counts per status and the score: caught (incl. timed out) / mutants with good anchors."""
    counts = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
    valid = len(results) - counts[BAD_ANCHOR]
    killed = counts[CAUGHT] + counts[TIMED_OUT]
    return {"total": len(results), **{s.replace(" ", "_"): n for s, n in counts.items()},
            "killed": killed, "valid": valid,
            "score": round(killed / valid, 4) if valid else None}


def failures(results):
    """The problems that make the run fail: surviving must_catch mutants, bad anchors."""
    return [r.problem for r in results if r.problem]


def exit_code(results):
    """0 when every must_catch mutant is caught and every anchor is good, else 1."""
    return 1 if failures(results) else 0


def format_table(results, title="mutant"):
    """The results as a text table with a score line."""
    w = max([len(title)] + [len(r.label) for r in results])
    fw = max([4] + [len(r.file) for r in results])
    lines = [f"{title:<{w}}  {'file':<{fw}}  {'outcome':<10}  {'must':<4}  {'secs':>7}"]
    for r in results:
        mark = "" if not r.problem else "   <-- " + ("BAD ANCHOR: " + r.detail if r.status == BAD_ANCHOR
                                                   else "SURVIVED")
        lines.append(f"{r.label:<{w}}  {r.file:<{fw}}  {r.status:<10}  "
                     f"{'yes' if r.must_catch else 'no':<4}  {r.seconds:7.1f}{mark}")
    s = score(results)
    pct = f"{100 * s['score']:.1f}%" if s["score"] is not None else "n/a"
    lines.append(f"score: {s['killed']}/{s['valid']} caught ({pct}); {s['not_caught']} not caught, "
                 f"{s['timed_out']} timed out, {s['bad_anchor']} bad anchors")
    return "\n".join(lines)


def print_table(results, title="mutant", file=None):
    """Print format_table(results) (to stdout by default) and return the text."""
    text = format_table(results, title)
    print(text, file=file or sys.stdout)
    return text


def write_json(path, results, extra=None):
    """Write {"results": [...], "score": {...}, "failures": [...], **extra} to path.

    write_json(results, path) is accepted too (argument order used by some callers).
    """
    if isinstance(path, (list, tuple)) and isinstance(results, (str, os.PathLike)):
        path, results = results, path
    doc = {"results": [r.as_dict() for r in results], "score": score(results),
           "failures": failures(results), "exit_code": exit_code(results)}
    doc.update(extra or {})
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def run_and_report(mutants, check, root, json_path=None, extra=None, title="mutant", **kw):
    """run_mutants, print the table, write the JSON; returns exit_code (for sys.exit)."""
    t0 = time.monotonic()
    results = run_mutants(mutants, check, root, **kw)
    wall = time.monotonic() - t0
    print_table(results, title)
    for p in failures(results):
        print("FAIL", p)
    print(f"{'PASS' if not failures(results) else 'FAIL'}: {len(results)} mutants, wall {wall:.1f} s")
    if json_path:
        write_json(json_path, results, {"wall_s": round(wall, 2), **(extra or {})})
    return exit_code(results)
