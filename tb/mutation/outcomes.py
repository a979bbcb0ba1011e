"""A mutation run's outcomes: the statuses, one mutant (Mutant) and one result (Result).

Why a module of its own: every judge (the text judge, tb/mutation/text.py; the RTL judge,
tb/mutation/rtl/runner.py), the journal and the reports speak of the same statuses and
the same two records, and nothing else. Only "caught" counts as caught
(tb/mutation/__init__.py lists the statuses and the score).
"""
from collections import namedtuple

CAUGHT, SURVIVED, CRASHED, REFUSED = "caught", "survived", "crashed", "refused"
TIMED_OUT, INCOMPETENT, EQUIVALENT, BAD_ANCHOR = "timed out", "incompetent", "equivalent", "bad anchor"
NOT_CAUGHT = SURVIVED
STATUSES = (CAUGHT, SURVIVED, CRASHED, REFUSED, TIMED_OUT, INCOMPETENT, EQUIVALENT, BAD_ANCHOR)
STOPPED = (CRASHED, REFUSED, TIMED_OUT)          # ended abnormally without a reported problem
NOT_RUN = (EQUIVALENT, INCOMPETENT, BAD_ANCHOR)  # outside the score's denominator


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


def by_label(mutants, label, what):
    """The one mutant of mutants called label (KeyError naming it, a `what` mutant, otherwise):
    for the apps' tests that build a broken engine from its text edit."""
    for m in mutants:
        if m.label == label:
            return m
    raise KeyError(f"no {what} mutant {label!r}")


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
