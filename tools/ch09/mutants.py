"""Chapter 9: testing the test. Mutants of model/batch.py against check_batching.

Each mutant changes ONE line of a copy of model/batch.py (the batched program builder)
into a mistake a batched server could plausibly make. "Caught" = check_batching reports a
problem (`python -m tools.ch09.batch --check` prints a PROBLEM line and exits 1); a crash
(traceback), a builder refusal (REFUSED lines only) or a timeout is listed in its own
column and is not caught (tb/mutation/__init__.py). Three columns: the full check, the
check without the ragged batch, and the full check in the overlap timing mode (the same
builder lines, the instructions in model/reorder.py's order). The full check must catch every mutant; without the
ragged batch exactly the length-confusing ones (tag "length") survive, which is what the
ragged batch is worth.
The "stale" mutants survived the check as it was before every step ran on a garbage
scratchpad (see the comment above them in SPECS).

    python -m tools.mut_ch09                  # all mutants, both checks, out/mut_ch09.json
    python -m tools.mut_ch09 --fast           # CI subset (includes length-confusing mutants)
    python -m tools.mut_ch09 --fast --quick   # the same with check_batching's quick subset
    python -m tools.mut_ch09 --extra-mutant my_mutant.json [--extra-only]   # the chapter's exercise

An extra mutant (the exercise "add a mutant to the list") is a file: JSON {"label": ...,
"old": ..., "new": ..., "tags": ["length"]} (tags optional; "length" marks a
length-confusing mutant, expected to survive without the ragged batch), or a list of
such objects; or a text file of exactly three lines: the label, the old line, the new
line (indentation kept). It is refused (exit 2, one line) unless its old line occurs
exactly once in model/batch.py, as a whole line. --extra-only runs only the extra
mutants (all three columns); without it they are added to the list.

The mutation engine (copying the tree, applying a mutant, running the check, outcomes,
timeouts, score, tables) is tb/mutation/ (its __init__.py says which module holds what).
"""
import json
import os
import sys
import time
from pathlib import Path

from tb import ROOT, cli
from tb.cli import MAX_JOBS, MAX_SECONDS, scheduler
from tb.mutation import journal as mut_journal
from tb.mutation import outcomes
from tb.mutation import report as mut_report
from tb.mutation import text as mut_text

FILE = "model/batch.py"
PY = sys.executable
FULL = [PY, "-m", "tools.ch09.batch", "--check"]
NO_RAGGED = [PY, "-m", "tools.ch09.batch", "--check", "--no-ragged"]
OVERLAP = [PY, "-m", "tools.ch09.batch", "--check", "--mode", "overlap"]

# (label, old line, new line, tags); each old line occurs exactly once in model/batch.py.
_PROJ = ('            ins("MM", dst=proj + c, A=SP_X, B=SP_W + w * DM * D + c, M=n, K=DM, N=ARRAY, '
         'tb=0, lda=DM, ldb=D, ldc=D)')
_SCORE = '            ins("MM", dst=SP_S32 + c, A=SP_Q8 + D * j, B=sp_k(j) + D * c, M=1, K=D,'
_OUT = ('            ins("MM", dst=SP_O32 + c, A=SP_A8, B=sp_v(j) + c, M=1, K=L, N=ARRAY, '
        'tb=0, lda=L, ldb=D, ldc=D)')
SPECS = [
    ("projection with M = 1 instead of the batch", _PROJ, _PROJ.replace("M=n,", "M=1,"), ()),
    ("projection results stored with row stride 4", _PROJ, _PROJ.replace("ldc=D)", "ldc=4)"), ()),
    ("every new key taken from row 0",
     '        ins("RQ", dst=new_k, src=SP_K32 + D * j, len=D, m=P["k"][0], s=P["k"][1])',
     '        ins("RQ", dst=new_k, src=SP_K32, len=D, m=P["k"][0], s=P["k"][1])', ()),
    ("every new value taken from row 0",
     '        ins("RQ", dst=new_v, src=SP_V32 + D * j, len=D, m=P["v"][0], s=P["v"][1])',
     '        ins("RQ", dst=new_v, src=SP_V32, len=D, m=P["v"][0], s=P["v"][1])', ()),
    ("every cache in slot 0",
     "    return SP_CACHE + SLOT_WORDS * j",
     "    return SP_CACHE", ()),
    ("value caches overlapping",
     "    return slot_base(j) + LMAX * D",
     "    return SP_CACHE + LMAX * D + D * j", ()),
    ("every sequence attending with query row 0", _SCORE, _SCORE.replace("A=SP_Q8 + D * j,", "A=SP_Q8,"), ()),
    ("hidden states all loaded into slot 0",
     '        ins("LD", dst=SP_X + DM * j, src=x_row, len=DM)',
     '        ins("LD", dst=SP_X, src=x_row, len=DM)', ()),
    ("every sequence reading sequence 0's hidden state",
     "        x_row = ext_hidden(b) + DM * (ts[j] - 1)",
     "        x_row = ext_hidden(0) + DM * (ts[j] - 1)", ()),
    ("all outputs stored to sequence 0's slot",
     '        ins("ST", src=SP_O8, dst=EXT_OUT + D * b, len=D)',
     '        ins("ST", src=SP_O8, dst=EXT_OUT, len=D)', ()),
    ("the new key appended at the first sequence's position",
     "        new_k = sp_k(j) + D * (ts[j] - 1)",
     "        new_k = sp_k(j) + D * (ts[0] - 1)", ("length",)),
    ("value cache loaded from the key cache",
     '            ins("LD", dst=sp_v(j), src=ext_v(b), len=D * (ts[j] - 1))',
     '            ins("LD", dst=sp_v(j), src=ext_k(b), len=D * (ts[j] - 1))', ()),
    ("new value stored to the key cache",
     '        ins("ST", src=new_v, dst=ext_v(b) + D * (ts[j] - 1), len=D)',
     '        ins("ST", src=new_v, dst=ext_k(b) + D * (ts[j] - 1), len=D)', ()),
    ("every attention length taken from the first sequence",
     "        L = ts[j]",
     "        L = ts[0]", ("length",)),
    ("the query requantization covering one row",
     '    ins("RQ", dst=SP_Q8, src=SP_Q32, len=D * n, m=P["q"][0], s=P["q"][1])',
     '    ins("RQ", dst=SP_Q8, src=SP_Q32, len=D, m=P["q"][0], s=P["q"][1])', ()),
    ("a cache loaded with the first sequence's length",
     '            ins("LD", dst=sp_k(j), src=ext_k(b), len=D * (ts[j] - 1))',
     '            ins("LD", dst=sp_k(j), src=ext_k(b), len=D * (ts[0] - 1))', ("length",)),
    # beyond the spec's list
    ("the new value appended at the first sequence's position",
     "        new_v = sp_v(j) + D * (ts[j] - 1)",
     "        new_v = sp_v(j) + D * (ts[0] - 1)", ("length",)),
    ("the new key stored at the first sequence's external row",
     '        ins("ST", src=new_k, dst=ext_k(b) + D * (ts[j] - 1), len=D)',
     '        ins("ST", src=new_k, dst=ext_k(b) + D * (ts[0] - 1), len=D)', ("length",)),
    ("softmax over the first sequence's length",
     '        ins("SM", dst=SP_P, src=SP_S8, len=L)',
     '        ins("SM", dst=SP_P, src=SP_S8, len=ts[0])', ("length",)),
    ("a cached sequence skipped when the first one has no cache",
     "        if ts[j] > 1:",
     "        if ts[0] > 1:", ("length",)),
    ("the hidden row of the first sequence's token",
     "        x_row = ext_hidden(b) + DM * (ts[j] - 1)",
     "        x_row = ext_hidden(b) + DM * (ts[0] - 1)", ("length",)),
    # Stale-scratchpad mutants (tag "stale"). The check before issue part 6 ran each step on
    # a Machine reused from the previous step (or a fresh one, all zero), so rows an earlier
    # step left behind stood in for a load the builder forgot, and a zero word hid a read
    # of one word too many; all three survived it, full check included (measured: old
    # check "not caught" on all three). Every step now starts from a garbage scratchpad
    # (batch.fresh_machine), which catches each one, with or without the ragged batches.
    ("a cache holding one row not reloaded (the previous step left it in place)",
     "        if ts[j] > 1:",
     "        if ts[j] > 2:", ("stale",)),
    ("cache loads skipped for a slot whose length an earlier slot has",
     "        if ts[j] > 1:",
     "        if ts[j] > 1 and ts[j] not in ts[:j]:", ("stale",)),
    ("the weights x V product reading one token too many (zero on a fresh scratchpad)",
     _OUT, _OUT.replace("K=L,", "K=L + 1,"), ("stale",)),
]

# The CI subset: one ordinary mutant and two length-confusing ones.
FAST = ("every sequence attending with query row 0",
        "every attention length taken from the first sequence",
        "a cache loaded with the first sequence's length")


def mutants(fast=False, ragged=True, extra=(), extra_only=False):
    """The chapter's mutants as mutation.Mutant objects (the --fast subset if fast), then
    the extra specs (load_extra); only the extra ones with extra_only.

    Against the full check every mutant must be caught; without the ragged batch the
    length-confusing ones are expected to survive (must_catch=False)."""
    specs = [] if extra_only else [sp for sp in SPECS if not fast or sp[0] in FAST]
    return [outcomes.Mutant(label, FILE, old, new, must_catch=ragged or "length" not in tags, tags=tags)
            for label, old, new, tags in specs + list(extra)]


def _one_line(v, what, where):
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{where}: {what} must be a non-empty string")
    if "\n" in v or "\r" in v:
        raise ValueError(f"{where}: {what} must be one line")
    return v


def check_extra(label, old, new, tags=(), where="extra mutant", taken=()):
    """(label, old, new, tags) of one extra mutant, or ValueError naming the problem: the
    label new and non-empty, old and new one line each and different, old a whole line of
    the builder occurring exactly once there."""
    label = _one_line(label, "the label", where).strip()
    where = f"{where}: mutant {label!r}"
    if label in taken:
        raise ValueError(f"{where}: the label is taken (labels must be unique)")
    old, new = _one_line(old, "the old line", where), _one_line(new, "the new line", where)
    if old == new:
        raise ValueError(f"{where}: the new line equals the old line (the mutant changes nothing)")
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"{where}: tags must be a list of strings")
    text = (Path(ROOT) / FILE).read_text()
    n = text.count(old)
    if n != 1:
        raise ValueError(f"{where}: the old line occurs {n} times in {FILE} (it must occur exactly once)")
    if old not in text.splitlines():
        raise ValueError(f"{where}: the old text is not a whole line of {FILE} (copy the whole line, "
                         f"indentation included)")
    return label, old, new, tuple(tags)


def load_extra(path, taken=()):
    """The extra mutants of a file (JSON object or list of objects with label, old, new
    and optional tags; or a text file of three lines: label, old line, new line) as
    [(label, old, new, tags)]; ValueError naming the first problem."""
    where = f"--extra-mutant {path}"
    text = cli.text_file(path, where)
    taken = set(taken)
    out = []
    if str(path).lower().endswith(".json"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}: malformed JSON: {e}") from None
        items = obj if isinstance(obj, list) else [obj]
        if not items:
            raise ValueError(f"{where}: no mutants")
        for i, it in enumerate(items, 1):
            if not isinstance(it, dict) or not {"label", "old", "new"} <= set(it) or \
                    not set(it) <= {"label", "old", "new", "tags"}:
                raise ValueError(f"{where}: mutant #{i} must be an object with label, old, new (and optional tags)")
            sp = check_extra(it["label"], it["old"], it["new"], it.get("tags", ()), where, taken)
            taken.add(sp[0])
            out.append(sp)
        return out
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if len(lines) != 3:
        raise ValueError(f"{where}: a text mutant is exactly three lines (label, old line, new line), "
                         f"this file has {len(lines)}")
    return [check_extra(lines[0], lines[1], lines[2], (), where, taken)]


def run(fast=False, jobs=2, timeout=120, quick=False, scheduler=None, progress=False, extra=(),
        extra_only=False, journal=None):
    """The columns as rows {label, tags, full, no_ragged, overlap, ...}, the raw results
    (full, no ragged, overlap) and wall time.

    full / no_ragged / overlap: caught (the check reported a problem); status_*: the
    engine's outcome.
    quick: the checks use check_batching's quick subset (for a fast test of this tool).
    scheduler: run the checks on Dask workers (tb/parallel.py); progress: tqdm bars.
    extra, extra_only: as mutants(). journal: an engine Journal the three runs append to
    (and resume from)."""
    ms = mutants(fast, extra=extra, extra_only=extra_only)
    flags = ["--quick"] if quick else []
    t0 = time.time()
    kw = {"scheduler": scheduler, "progress": progress, "journal": journal}
    full = mut_text.run_mutants(ms, FULL + flags, ROOT, timeout, jobs, **kw)
    nor = mut_text.run_mutants(mutants(fast, False, extra, extra_only), NO_RAGGED + flags, ROOT, timeout, jobs, **kw)
    ovl = mut_text.run_mutants(ms, OVERLAP + flags, ROOT, timeout, jobs, **kw)
    rows = []
    for m, a, b, c in zip(ms, full, nor, ovl):
        rows.append({"label": m.label, "tags": list(m.tags), "full": a.caught, "no_ragged": b.caught,
                     "overlap": c.caught, "status_full": a.status, "status_no_ragged": b.status,
                     "status_overlap": c.status, "seconds": round(a.seconds + b.seconds + c.seconds, 2)})
    return rows, full, nor, ovl, time.time() - t0


def verdict(rows):
    """Problems with the outcome: the full check must catch all (a crash, refusal or timeout
    is not a catch); without ragged exactly the length-confusing mutants survive."""
    bad = []
    for r in rows:
        if r.get("status_full") == outcomes.BAD_ANCHOR or r.get("status_no_ragged") == outcomes.BAD_ANCHOR:
            bad.append(f"bad anchor (the mutant's line is not in {FILE}): {r['label']}")
            continue
        if not r["full"]:
            bad.append(f"full check did not catch ({r['status_full']}): {r['label']}")
        if "overlap" in r and not r["overlap"]:
            bad.append(f"full check in overlap mode did not catch ({r['status_overlap']}): {r['label']}")
        nr = r["status_no_ragged"]
        if "length" in r["tags"]:
            if nr != outcomes.SURVIVED:
                bad.append(f"length-confusing mutant not survived without the ragged batch ({nr}): {r['label']}")
        elif nr != outcomes.CAUGHT:
            bad.append(f"mutant not caught without the ragged batch ({nr}) but is not length-confusing: "
                       f"{r['label']}")
    return bad


def main(argv=None):
    ap = cli.Parser(prog="mut_ch09", description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="CI subset")
    ap.add_argument("--quick", action="store_true", help="checks use check_batching's quick subset")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json", default=os.path.join(ROOT, "out", "mut_ch09.json"), type=cli.out_file())
    ap.add_argument("--scheduler", default=None, type=scheduler,
                    help="run the checks on Dask: a scheduler address (tcp://...) or local:N")
    ap.add_argument("--extra-mutant", action="append", default=[], metavar="FILE",
                    help="add the mutant(s) of FILE (JSON label/old/new[/tags], or three text lines: "
                         "label, old line, new line); repeatable")
    ap.add_argument("--extra-only", action="store_true", help="run only the --extra-mutant mutants")
    ap.add_argument("--journal", default=None, type=cli.out_file(regular=True),
                    help="append each result here as it arrives (default: the --json path, .journal.jsonl)")
    ap.add_argument("--resume", action="store_true",
                    help="take the mutants the journal already judged (same tree, mutant and check)")
    a = ap.parse_args(argv)
    try:
        extra, taken = [], {sp[0] for sp in SPECS}
        for path in a.extra_mutant:
            got = load_extra(path, taken)
            taken |= {sp[0] for sp in got}
            extra += got
        if a.extra_only and not extra:
            raise ValueError("--extra-only without an --extra-mutant")
        if a.jobs < 1 or not a.timeout > 0:
            raise ValueError(f"--jobs {a.jobs} and --timeout {a.timeout:g} must be positive")
        if not a.timeout <= MAX_SECONDS or a.jobs > MAX_JOBS:
            raise ValueError(f"--jobs {a.jobs} and --timeout {a.timeout:g}: at most {MAX_JOBS} jobs "
                             f"and {MAX_SECONDS:g} s")
        journal = mut_journal.open_journal(a.journal or mut_journal.journal_path(a.json), ROOT, a.resume,
                                           quick=a.quick)
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    rows, full, nor, ovl, wall = run(a.fast, a.jobs, a.timeout, a.quick, a.scheduler, progress=True,
                                     extra=extra, extra_only=a.extra_only, journal=journal)
    w = max(len(r["label"]) for r in rows)
    print(f"{'mutant of model/batch.py':<{w}}  {'full check':>11}  {'no ragged':>11}  {'overlap':>11}")
    for r in rows:
        tag = "  (length-confusing)" if "length" in r["tags"] else ""
        print(f"{r['label']:<{w}}  {r['status_full']:>11}  {r['status_no_ragged']:>11}  "
              f"{r['status_overlap']:>11}{tag}")
    nf = sum(r["full"] for r in rows)
    nn = sum(r["no_ragged"] for r in rows)
    no = sum(r["overlap"] for r in rows)
    print(f"{'total caught':<{w}}  {f'{nf}/{len(rows)}':>11}  {f'{nn}/{len(rows)}':>11}  {f'{no}/{len(rows)}':>11}")
    print()
    print(mut_report.format_summary({"full check": full, "no ragged": nor, "overlap": ovl}, "check", total=None))
    for name, res in (("full check", full), ("no ragged", nor), ("overlap", ovl)):
        print(f"{name}: " + mut_report.score_line(res))
    bad = verdict(rows)
    for b in bad:
        print("FAIL", b)
    print(f"{'PASS' if not bad else 'FAIL'}: {len(rows)} mutants, wall {wall:.1f} s")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"fast": a.fast, "quick": a.quick, "extra_mutants": [
                       {"label": lab, "old": old, "new": new, "tags": list(tags)} for lab, old, new, tags in extra],
                   "extra_only": a.extra_only, "mutants": rows, "caught_full": nf, "caught_no_ragged": nn,
                   "caught_overlap": no, "score_overlap": mut_report.score(ovl),
                   "score_full": mut_report.score(full), "score_no_ragged": mut_report.score(nor),
                   "total": len(rows), "problems": bad, "wall_s": round(wall, 2)}, f, indent=1)
    base = os.path.splitext(a.json)[0]
    mut_report.write_json(base + "_full_raw.json", full, {"check": " ".join(FULL[1:])})
    mut_report.write_json(base + "_no_ragged_raw.json", nor, {"check": " ".join(NO_RAGGED[1:])})
    mut_report.write_json(base + "_overlap_raw.json", ovl, {"check": " ".join(OVERLAP[1:])})
    return 1 if bad else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
