"""The one mutation engine: outcomes, the job pool, timeouts, score, tables and JSON.

A mutation run judges each mutant with a JUDGE, a function judge(mutant, slot) -> Result
(slot: the worker's number 0..jobs-1, for a per-worker scratch directory). The engine
runs the judges on a pool of worker threads (run_pool), scores the results and writes
the tables and the JSON. Two judges exist:
  text mutants + a check command   (this module: judge_text, run_mutants; tools/mut_ch09.py)
  RTL sites + compile / run bench  (tb/mutation/rtl/runner.py)

Outcomes (STATUSES):
  caught       the check REPORTED a problem: a `PROBLEM ...` line and a non-zero exit
               (classify_output), for RTL the bench's `MUT FAIL`; a caught mutant whose
               problem was a hang detected by the check itself (the RTL bench's
               per-program cycle limit) is caught AND counted in the "hang" column,
  survived     the check passed (the mutant was not noticed),
  crashed      the check died without reporting a problem (a traceback, a non-zero
               exit without a PROBLEM line, an RTL simulation ending with no verdict),
  refused      the check stopped because the builder refused the mutated input
               (`REFUSED ...` lines and no PROBLEM line),
  timed out    the runner's wall-clock limit fired (the check's process group is killed),
  incompetent  the mutant could not be built (an RTL mutant iverilog does not compile),
  equivalent   it survived and is listed as an equivalent mutant (RTL),
  bad anchor   a text mutant could not be applied (file missing, old text missing or
               not unique, or old == new); the check does not run.
Only "caught" counts as caught: crashes, refusals and timeouts are listed in their own
columns, and the report says how many mutants ended that way (they would have counted
as caught under a rule "non-zero exit = caught").

    score = caught / (total - equivalent - incompetent - bad anchor)

Library use for text mutants:

    from tb.mutation import engine as mutation
    ms = [mutation.Mutant("off by one", "model/x.py", "i < n", "i <= n")]
    results = mutation.run_mutants(ms, [sys.executable, "-m", "model.x", "--check"], ROOT,
                                   timeout=60)
    print(mutation.format_table(results))
    mutation.write_json("out/mut.json", results, {"check": "model.x --check"})
    sys.exit(mutation.exit_code(results))

The check is a command (list of arguments) run with cwd = the copy and PYTHONPATH = the
copy (so `python -m model.x` imports the mutated code, never the original), or a callable
check(copy_dir, mutant) returning such a command. Before any mutant counts, the check runs
once on an unmutated copy (the baseline): if that does not pass, run_mutants raises
BaselineError. Exit code rule (exit_code): non-zero when a must_catch mutant is not
caught (survived, crashed, refused or timed out), or any anchor is bad. A check that
died by a signal (killed, or crashed in the interpreter) is "crashed" with the signal
named in its detail; one past its wall-clock limit is "timed out": neither is a catch.

Resuming (Journal): run_mutants(journal=Journal(path, run, resume)) appends every result
to a JSON-lines file as it arrives; a run that was killed resumes from it (resume=True:
the mutants already judged in the same run -- the same project tree, mutant and check --
are taken from the journal, the others judged). The command lines' --journal/--resume.
"""
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import namedtuple
from functools import partial

CAUGHT, SURVIVED, CRASHED, REFUSED = "caught", "survived", "crashed", "refused"
TIMED_OUT, INCOMPETENT, EQUIVALENT, BAD_ANCHOR = "timed out", "incompetent", "equivalent", "bad anchor"
NOT_CAUGHT = SURVIVED
STATUSES = (CAUGHT, SURVIVED, CRASHED, REFUSED, TIMED_OUT, INCOMPETENT, EQUIVALENT, BAD_ANCHOR)
STOPPED = (CRASHED, REFUSED, TIMED_OUT)          # ended abnormally without a reported problem
NOT_RUN = (EQUIVALENT, INCOMPETENT, BAD_ANCHOR)  # outside the score's denominator
COPY_IGNORE = (".venv", "build", "out", ".git", "__pycache__", "*.pyc", ".pytest_cache")
EMPTY_DIRS = ("out", "build")      # recreated empty in the copy when the project has them
OUTPUT_TAIL = 2000                 # characters of the check's output kept per result
PROBLEM_RE = re.compile(r"^PROBLEM\b", re.M)
REFUSED_RE = re.compile(r"^REFUSED\b", re.M)


def key(status):
    """A status as a JSON / score key: "timed out" -> "timed_out"."""
    return status.replace(" ", "_")


class Mutant(namedtuple("Mutant", "label file old new must_catch tags")):
    """One text mutation: replace the single occurrence of old by new in file (relative to root).

    must_catch=False marks a mutant allowed to survive (e.g. an equivalent mutant, or one
    the chapter shows a weaker check missing); tags are free-form strings for the caller.
    """
    __slots__ = ()

    def __new__(cls, label, file, old, new, must_catch=True, tags=()):
        return super().__new__(cls, str(label), str(file), old, new, bool(must_catch), tuple(tags))


class Result(namedtuple("Result", "label file status must_catch tags returncode seconds detail hang info")):
    """The outcome of one mutant.

    detail: the anchor problem or the check's output tail; hang: caught through a hang the
    check itself detected; info: the judge's own fields (RTL: line, module, cls, change...).
    """
    __slots__ = ()

    def __new__(cls, label, file, status, must_catch=True, tags=(), returncode=None, seconds=0.0,
                detail="", hang=False, info=None):
        if status not in STATUSES:
            raise ValueError(f"Result: unknown status {status!r}")
        return super().__new__(cls, str(label), file, status, bool(must_catch), tuple(tags),
                               returncode, seconds, detail, bool(hang), dict(info or {}))

    @property
    def caught(self):
        """True only when the check reported a problem."""
        return self.status == CAUGHT

    @property
    def problem(self):
        """Why this result fails the run (exit_code rule), or None."""
        if self.status == BAD_ANCHOR:
            return f"bad anchor: {self.label}: {self.detail}"
        if self.must_catch and self.status in (SURVIVED,) + STOPPED:
            what = "survived" if self.status == SURVIVED else f"{self.status}, no problem reported"
            return f"{what} (must be caught): {self.label}"
        return None

    def as_dict(self):
        d = self._asdict()
        info = d.pop("info")
        d["tags"] = list(self.tags)
        d["caught"] = self.caught
        d.update(info)
        return d


class BaselineError(RuntimeError):
    """The check fails (or times out) on the unmutated project: mutation results would lie."""


# ------------------------------------------------------------------ the journal (resuming)
JOURNAL_HEAD = "mutation_journal"


def result_of(d):
    """The Result of Result._asdict()'s JSON form (tags back to a tuple)."""
    d = dict(d)
    d["tags"] = tuple(d.get("tags", ()))
    return Result(**d)


def digest(*parts):
    """A short stable digest of JSON-able parts."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def tree_digest(root, copy_ignore=COPY_IGNORE):
    """sha256 of every file a mutant's copy of root holds (names and contents): a journal
    of a run on another tree is never resumed."""
    root = os.path.abspath(root)
    ignore = shutil.ignore_patterns(*copy_ignore)
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        skip = ignore(dirpath, dirnames + filenames)
        dirnames[:] = sorted(d for d in dirnames if d not in skip and not os.path.islink(os.path.join(dirpath, d)))
        for fn in sorted(f for f in filenames if f not in skip):
            p = os.path.join(dirpath, fn)
            h.update(os.path.relpath(p, root).encode() + b"\0")
            if not os.path.islink(p):
                with open(p, "rb") as f:
                    h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


class Journal:
    """An append-only JSON-lines file of results, one line as each arrives, so a run that
    was killed can resume without judging again what it judged.

    The first line names the run ({"mutation_journal": run}, run any JSON value: the
    project tree's digest and what else fixes the results). resume=False starts the file
    afresh; resume=True reads it (ValueError naming the file when it is missing, not a
    journal, or a journal of another run -- another tree) and get(key) gives the Result
    already judged for key. A torn last line (the run was killed while writing it) is
    dropped. add(key, result) is thread-safe.
    """

    def __init__(self, path, run, resume=False):
        self.path, self.run, self.done = pathlib.Path(path), run, {}
        self._lock = threading.Lock()
        if resume:
            from tb import cli
            self.done = self.read(self.path, run)
            cli.drop_torn_tail(self.path)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({JOURNAL_HEAD: run}) + "\n")

    @staticmethod
    def read(path, run=None):
        """{key: Result} of a journal (run: the run it must be of; None: any)."""
        from tb import cli
        path = pathlib.Path(path)
        if not path.exists():
            raise ValueError(f"--journal {path}: no journal to resume from")
        text = cli.text_file(path, f"--journal {path}")
        lines = text.split("\n")
        out, head = {}, None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
            except json.JSONDecodeError:
                if head is not None and n == len(lines) and not text.endswith("\n"):
                    break                                # torn: the run died writing it
                raise ValueError(f"--journal {path}:{n}: not a mutation journal line (not JSON)") from None
            if head is None:
                if not isinstance(e, dict) or set(e) != {JOURNAL_HEAD}:
                    raise ValueError(f"--journal {path}: not a mutation journal (first line {line[:60]!r})")
                head = e[JOURNAL_HEAD]
                if run is not None and head != run:
                    raise ValueError(f"--journal {path}: the journal of another run (the project, the "
                                     "mutants or the check changed since): run without --resume")
                continue
            try:
                out[e["key"]] = result_of(e["result"])
            except (KeyError, TypeError, ValueError) as why:
                raise ValueError(f"--journal {path}:{n}: not a mutation journal line ({why})") from None
        if head is None:
            raise ValueError(f"--journal {path}: empty, not a mutation journal")
        return out

    def get(self, key):
        return self.done.get(key)

    def reset(self):
        """Forget every result (the run's results are void: e.g. its baseline failed)."""
        with self._lock:
            self.path.write_text(json.dumps({JOURNAL_HEAD: self.run}) + "\n")
            self.done = {}

    def add(self, key, result):
        line = json.dumps({"key": key, "result": {**result._asdict(), "tags": list(result.tags)}}) + "\n"
        with self._lock, open(self.path, "a") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.done[key] = result


def mutant_key(mutant, check):
    """The journal key of a text mutant judged by check (a command, or a callable's name)."""
    cmd = [str(c) for c in check] if isinstance(check, (list, tuple)) else getattr(check, "__qualname__", str(check))
    return digest(mutant.label, mutant.file, mutant.old, mutant.new, mutant.must_catch, list(mutant.tags),
                  cmd[1:] if isinstance(cmd, list) else cmd)          # not the interpreter's path


# ------------------------------------------------------------------ the job pool
def _in_slot(judge, item):
    """judge(item, slot) inside a Dask worker: the slot is the worker process's own number."""
    from tb import parallel
    return judge(item, parallel.worker_slot())


def run_pool(items, judge, jobs=None, on_result=None, scheduler=None, progress=False, desc="mutants"):
    """judge(item, slot) for every item on `jobs` worker threads; the results in item order.

    slot is the worker's number (0..jobs-1): a worker judges one item at a time, so a
    judge may keep per-slot scratch space. on_result(index, result, done) is called (under
    a lock) as each result arrives. An exception in a judge is raised here.
    scheduler (tb/parallel.py: "local:N" or a Dask scheduler address) runs the judges
    on Dask workers instead (the judge is pickled; the slot is the worker process's
    number). progress shows one tqdm bar on stderr.
    """
    from tqdm import tqdm
    items = list(items)
    jobs = max(1, min(int(jobs or os.cpu_count() or 1), len(items) or 1))
    results = [None] * len(items)
    bar = tqdm(total=len(items), desc=desc, unit="mutant", disable=not progress, file=sys.stderr)
    if scheduler:
        import concurrent.futures as cf
        from tb import parallel
        with bar, parallel.executor(scheduler, jobs) as ex:
            futs = {ex.submit(_in_slot, judge, item): i for i, item in enumerate(items)}
            for n, f in enumerate(cf.as_completed(futs), 1):
                i = futs[f]
                results[i] = f.result()
                bar.update(1)
                if on_result:
                    on_result(i, results[i], n)
        return results
    todo = list(enumerate(items))
    lock = threading.Lock()
    errors = []
    done = [0]

    def worker(slot):
        while not errors:
            with lock:
                if not todo:
                    return
                i, item = todo.pop(0)
            try:
                r = judge(item, slot)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller
                errors.append(e)
                return
            with lock:
                results[i] = r
                done[0] += 1
                bar.update(1)
                if on_result:
                    on_result(i, r, done[0])

    with bar:
        threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    return results


def limit_from_baseline(seconds, factor=3, slack=10):
    """A per-mutant wall-clock limit from the unmutated run's time."""
    return factor * seconds + slack


# ------------------------------------------------------------------ text mutants + a check command
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
    """Run cmd in cwd: (returncode or None on timeout, output, seconds). A check is a
    `python -m` command, so the copy in cwd comes first on sys.path (before the editable
    install of the original tree).

    The check gets its own process group, killed whole on a timeout (a check that starts
    simulators or subprocesses leaves nothing behind).
    """
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
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


# ------------------------------------------------------------------ score and reports
def score(results):
    """Counts per status (keys as key(status)), hangs, and the score.

    score = caught / (total - equivalent - incompetent - bad anchor); "stopped" counts the
    crashed, refused and timed-out mutants (not caught: no problem was reported), and
    score_if_stopped_counted what the score would be if they counted as caught.
    """
    results = list(results)
    counts = {key(s): sum(1 for r in results if r.status == s) for s in STATUSES}
    valid = len(results) - sum(counts[key(s)] for s in NOT_RUN)
    stopped = sum(counts[key(s)] for s in STOPPED)
    caught = counts[key(CAUGHT)]
    return {"total": len(results), **counts, "hang": sum(1 for r in results if r.caught and r.hang),
            "stopped": stopped, "valid": valid,
            "score": round(caught / valid, 4) if valid else None,
            "score_if_stopped_counted": round((caught + stopped) / valid, 4) if valid else None}


def _pct(x):
    return f"{100 * x:.1f}%" if x is not None else "n/a"


SUMMARY_COLUMNS = ("total", CAUGHT, "hang", SURVIVED, CRASHED, REFUSED, TIMED_OUT, INCOMPETENT,
                   EQUIVALENT, BAD_ANCHOR)


def format_summary(groups, title="", total="all"):
    """A table with one row per group ({name: results}) and a total row: the count of each
    outcome, hang (caught through a detected hang, included in caught) and the score."""
    groups = dict(groups)
    names = list(groups) + ([total] if total and len(groups) > 1 else [])
    w = max([len(title), 5] + [len(str(n)) for n in names])
    cw = [max(6, len(c)) for c in SUMMARY_COLUMNS]
    lines = [f"{title:<{w}}" + "".join(f"  {c:>{n}}" for c, n in zip(SUMMARY_COLUMNS, cw)) + "    score"]
    everything = [r for rs in groups.values() for r in rs]
    for name in names:
        s = score(everything if name == total and name not in groups else groups[name])
        lines.append(f"{str(name):<{w}}" + "".join(f"  {s[key(c)]:>{n}}" for c, n in zip(SUMMARY_COLUMNS, cw))
                     + f"  {_pct(s['score']):>7}")
    return "\n".join(lines)


def score_line(results):
    """The score as one sentence, with the mutants that stopped without a reported problem."""
    s = score(results)
    text = (f"score: {s['caught']}/{s['valid']} caught ({_pct(s['score'])}) = caught / (total {s['total']}"
            f" - equivalent {s['equivalent']} - incompetent {s['incompetent']} - bad anchor {s['bad_anchor']})"
            f"; {s['hang']} of the caught through a detected hang")
    if s["stopped"]:
        text += (f"\n{s['stopped']} not counted as caught: ended without a reported problem "
                 f"({s['crashed']} crashed, {s['refused']} refused, {s['timed_out']} timed out); "
                 f"counting them the score would be {_pct(s['score_if_stopped_counted'])}")
    return text


def format_table(results, title="mutant"):
    """The results one per line, then the score line."""
    results = list(results)
    w = max([len(title)] + [len(r.label) for r in results])
    fw = max([4] + [len(r.file) for r in results])
    lines = [f"{title:<{w}}  {'file':<{fw}}  {'outcome':<11}  {'must':<4}  {'secs':>7}"]
    for r in results:
        mark = "" if not r.problem else "   <-- " + ("BAD ANCHOR: " + r.detail if r.status == BAD_ANCHOR
                                                   else "NOT CAUGHT")
        lines.append(f"{r.label:<{w}}  {r.file:<{fw}}  {r.status + (' (hang)' if r.hang else ''):<11}  "
                     f"{'yes' if r.must_catch else 'no':<4}  {r.seconds:7.1f}{mark}")
    lines.append(score_line(results))
    return "\n".join(lines)


def print_table(results, title="mutant", file=None):
    """Print format_table(results) (to stdout by default) and return the text."""
    text = format_table(results, title)
    print(text, file=file or sys.stdout)
    return text


def failures(results):
    """The problems that make the run fail: must_catch mutants not caught, bad anchors."""
    return [r.problem for r in results if r.problem]


def exit_code(results):
    """0 when every must_catch mutant is caught and every anchor is good, else 1."""
    return 1 if failures(results) else 0


def write_json(path, results, extra=None):
    """Write {"score": score, "counts": score(results), "results": [...], "failures": [...],
    "exit_code", **extra} to path.

    write_json(results, path) is accepted too (argument order used by some callers).
    """
    if isinstance(path, (list, tuple)) and isinstance(results, (str, os.PathLike)):
        path, results = results, path
    results = list(results)
    counts = score(results)
    doc = {"score": counts["score"], "counts": counts, "failures": failures(results),
           "exit_code": exit_code(results), "results": [r.as_dict() for r in results]}
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


def journal_path(json_path):
    """out/mut_x.json -> out/mut_x.journal.jsonl"""
    p = pathlib.Path(json_path)
    return p.with_name(p.stem + ".journal.jsonl")


def open_journal(path, root, resume, **run):
    """The Journal of a text-mutant run on root (its tree's digest and run's fields name
    the run); ValueError naming the file when --resume cannot resume from it."""
    if resume:
        Journal.read(path)                  # a bad file is refused before the tree is read
    return Journal(path, {"tree": tree_digest(root), **run}, resume)


def cli(argv, description, mutants, check, json_path, title="mutant", quick_help="the check's quick subset"):
    """The command line of a mutation script over one check: --fast (the CI subset:
    mutants(fast=True)), --quick (the check's own quick subset), --jobs, --timeout, --json.
    Prints the table and the score, writes the JSON; returns the exit code."""
    from tb import cli as tbcli
    main = sys.modules.get("__main__")
    prog = getattr(getattr(main, "__spec__", None), "name", None)     # python -m tools.serve.mutants
    ap = tbcli.Parser(prog=prog, description=description)
    ap.add_argument("--fast", action="store_true", help="CI subset")
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--jobs", type=tbcli.jobs, default=2)
    ap.add_argument("--timeout", type=tbcli.seconds, default=120)
    ap.add_argument("--json", default=json_path, type=tbcli.out_file())
    ap.add_argument("--journal", default=None, type=tbcli.out_file(),
                    help="append each result here as it arrives (default: the --json path, .journal.jsonl)")
    ap.add_argument("--resume", action="store_true",
                    help="take the mutants the journal already judged (same tree, mutant and check)")
    a = ap.parse_args(argv)
    cmd = list(check) + (["--quick"] if a.quick else [])
    from tb import ROOT
    try:
        journal = open_journal(a.journal or journal_path(a.json), ROOT, a.resume)
    except ValueError as e:
        return tbcli.refuse(ap.prog, e)
    results = run_mutants(mutants(a.fast), cmd, ROOT, a.timeout, a.jobs, journal=journal)
    print_table(results, title)
    write_json(a.json, results, {"check": " ".join(cmd[1:])})
    bad = failures(results)
    for b in bad:
        print("FAIL", b)
    print(f"{'PASS' if not bad else 'FAIL'}: {len(results)} mutants, {sum(r.caught for r in results)} caught")
    return exit_code(results)
