"""A mutation run's journal: every result appended as it arrives, so a killed run resumes.

Journal(path, run, resume) is a JSON-lines file whose first line names the run (the
project tree's digest and what else fixes the results); mutant_key is a text mutant's
key in it; open_journal / journal_path are the command lines' --journal and --resume.
"""
import hashlib
import json
import os
import pathlib
import threading

from tb.mutation.outcomes import Result
from tb.mutation.tree import tree_digest

JOURNAL_HEAD = "mutation_journal"


def result_of(d):
    """The Result of Result._asdict()'s JSON form (tags back to a tuple)."""
    d = dict(d)
    d["tags"] = tuple(d.get("tags", ()))
    return Result(**d)


def digest(*parts):
    """A short stable digest of JSON-able parts."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


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
        out, head = {}, None
        for n, line, e in cli.journal_lines(path, "mutation"):
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


def journal_path(json_path):
    """out/mut_x.json -> out/mut_x.journal.jsonl; a results path that is not a regular file
    (--json /dev/null, a pipe) -> build/journals/<its name>.journal.jsonl: never a file
    created beside a device."""
    p = pathlib.Path(json_path)
    if p.exists() and not p.is_file():
        from tb import ROOT
        return ROOT / "build" / "journals" / (p.name + ".journal.jsonl")
    return p.with_name(p.stem + ".journal.jsonl")


def open_journal(path, root, resume, **run):
    """The Journal of a text-mutant run on root (its tree's digest and run's fields name
    the run); ValueError naming the file when --resume cannot resume from it."""
    if resume:
        Journal.read(path)                  # a bad file is refused before the tree is read
    return Journal(path, {"tree": tree_digest(root), **run}, resume)
