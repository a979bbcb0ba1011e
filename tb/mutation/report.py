"""A mutation run's score and reports: counts per outcome, the score, tables, the JSON.

score = caught / (total - equivalent - incompetent - bad anchor); the crashed, refused
and timed-out mutants are listed in their own columns and never counted as caught.
exit_code is the run's rule: non-zero when a must_catch mutant is not caught or an
anchor is bad.
"""
import json
import os
import pathlib
import sys

from tb.mutation.outcomes import (
    BAD_ANCHOR,
    CAUGHT,
    CRASHED,
    EQUIVALENT,
    INCOMPETENT,
    NOT_RUN,
    REFUSED,
    STATUSES,
    STOPPED,
    SURVIVED,
    TIMED_OUT,
    key,
)


def uncaught(results, labels):
    """What keeps a run of a fast subset from passing (the apps' tests assert it empty): the
    results not one for each label of labels, each result not caught (label: status)."""
    ran = sorted(r.label for r in results)
    out = [] if ran == sorted(labels) else [f"ran {ran}, not the subset {sorted(labels)}"]
    return out + [f"{r.label}: {r.status}" for r in results if not r.caught]


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
