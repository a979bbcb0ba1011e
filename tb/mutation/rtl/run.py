"""RTL mutation testing of the GA-2 Verilog: does the co-simulation suite notice a broken chip?

What: parse every file of rtl/ga2.f with pyverilog, enumerate mutation sites by class, make
each mutant as ONE textual change in a temporary copy of rtl/, compile it with iverilog
and judge it with the lean suite of tb/mutation/rtl/suite.py (unit checks + seeded
random programs + the five chapter-9 programs, all compared against the reference model).

This file is the command line; the parts:
  tokenizer.py    the Verilog tokenizer (where a token is in the original text)
  sites.py        pyverilog walk, site classes, literal variants, mutant directories
  equivalents.py  the keys and lines of tb/mutation/rtl/equivalents.txt
  runner.py       judging a site through suite.py on the engine's job pool, the report
  prove.py        the formal step: each survivor's miter (tb/formal/miter.py)
  ../             the engine: outcomes, job pool, timeouts, score, tables, JSON (shared with chapter 9)

CLI: python -m tb.mutation.rtl.run --jobs 2 (full) | --sample N --seed S | --list
     | --module NAME | --lines FILE:A-B[,C-D...] (only sites on those lines) | --classes all (or a comma list: the
     structural classes of structural.py are not in the default run) | --prove (the formal step on the survivors of
     the last run) | --no-formal | --work DIR
Writes out/mut_rtl.json (key "score") and prints the per-module table with the engine's
columns (caught, hang, survived, crashed, timed out, incompetent, equivalent); every
surviving mutant must be caught by a sharper test or listed in equivalents.txt. The bench
is tb/hdl/mut_rtl_tb.v; docs/mutation_rtl.md describes the whole method and the results.
"""
import argparse
import fcntl
import json
import os
import sys
from collections import Counter

from tb import ROOT, cli
from tb.mutation.rtl import equivalents, prove, runner, source, structural
from tb.mutation.rtl import sites as sites_mod
from tb.mutation.rtl.sites import one_line
from tb.sim.files import rtl_files


def line_ranges(text):
    """type=: FILE:A-B[,C[-D]...] (FILE a name of rtl/, e.g. ga2_dma.v or rtl/ga2_dma.v, or
    a part a module's body includes, e.g. ga2_decode_ops.vh; the ranges inclusive, 1-based)
    -> (file name, ((A, B), ...))."""
    fn, sep, spec = str(text).rpartition(":")
    fn = os.path.basename(fn.strip())
    if not sep or not fn.endswith((".v", ".vh")) or not spec.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: not FILE.v:A-B[,C-D...] (or FILE.vh)")
    out = []
    for part in spec.split(","):
        a, _, b = part.strip().partition("-")
        try:
            lo, hi = int(a), int(b or a)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: {part.strip()!r} is not A or A-B") from None
        if lo < 1 or hi < lo:
            raise argparse.ArgumentTypeError(f"{text!r}: {part.strip()!r} is not a range of lines >= 1")
        out.append((lo, hi))
    return fn, tuple(out)


def on_lines(sites, ranges):
    """The sites whose line lies in one of ranges ((file, ((A, B), ...)), ...); all when none."""
    if not ranges:
        return list(sites)
    want = {}
    for fn, rs in ranges:
        want.setdefault(fn, []).extend(rs)
    return [s for s in sites if any(a <= s.line <= b for a, b in want.get(s.file, ()))]


def main(argv=None):
    ap = cli.Parser(prog="tb.mutation.rtl.run", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=cli.jobs, default=2)
    ap.add_argument("--scheduler", default=None, type=cli.scheduler,
                    help="judge mutants on Dask: a scheduler address (tcp://...) or local:N "
                         "(workers must share this file system)")
    ap.add_argument("--sample", type=cli.integer(0), default=0, help="a seeded random sample of N mutants")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--list", action="store_true", help="print the sites and exit")
    ap.add_argument("--module", action="append", help="only this module (repeatable)")
    ap.add_argument("--lines", action="append", type=line_ranges, default=[],
                    help="only the sites on these lines: FILE:A-B[,C-D...] (repeatable; e.g. "
                         "the lines a commit changed); its file's module only, unless --module")
    ap.add_argument("--classes", default="all",
                    help="comma list of mutation classes (default 'all': the token classes "
                         f"{','.join(sites_mod.DEFAULT_CLASSES)} and the structural "
                         f"{','.join(structural.NEW_CLASSES)}; 'token' for the first only)")
    ap.add_argument("--rtl", default=sites_mod.RTL_DIR, type=cli.in_dir)
    ap.add_argument("--out", default=runner.OUT_JSON, type=cli.out_file())
    ap.add_argument("--equiv", default=equivalents.EQUIV_FILE, type=cli.in_file,
                    help="the checked-in list of equivalent mutants")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "mut_rtl"), type=cli.out_dir,
                    help="scratch directory")
    ap.add_argument("--prove", action="store_true",
                    help="the formal step (miters) on the survivors of the last run (--out)")
    ap.add_argument("--no-formal", dest="formal", action="store_false",
                    help="skip the formal step (each survivor's miter, tb/mutation/rtl/prove.py)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mutant's verdict")
    ap.add_argument("--journal", default=None, type=cli.out_file(regular=True),
                    help="append each verdict here as it arrives (default: the --out path, .journal.jsonl)")
    ap.add_argument("--resume", action="store_true",
                    help="take the mutants the journal already judged (same design, bench and classes)")
    args = ap.parse_args(argv)
    args.work, args.out = os.path.abspath(args.work), os.path.abspath(args.out)   # judges run elsewhere
    stats = {}
    try:                          # everything checked before the snapshot and the self-checks
        if not args.classes.strip():
            raise ValueError("--classes '': an empty list (all, token, or a comma list of classes)")
        args.classes = sites_mod.parse_classes(args.classes)
        try:
            known = [p.stem for p in rtl_files(args.rtl)]
        except (OSError, ValueError) as e:
            raise ValueError(f"--rtl {args.rtl}: {e}") from None
        owners = source.body_include_owners(args.rtl)        # a .vh: the module including it
        owner = {fn: owners.get(fn) if fn.endswith(".vh") else fn[:-2] for fn, _ in args.lines}
        bad = [fn for fn, m in owner.items() if m not in known]
        if bad:
            raise ValueError(f"--lines {', '.join(bad)}: no such file in {args.rtl}"
                             + (f" (the included parts: {', '.join(sorted(owners))})" if owners else ""))
        if args.lines and not args.module:
            args.module = sorted(set(owner.values()))
        bad = [m for m in args.module or () if m not in known]
        if bad:
            raise ValueError(f"--module {', '.join(bad)}: no such module in {args.rtl} "
                             f"(modules: {', '.join(known)})")
        if not args.list and not args.prove:
            cli.text_file(args.equiv, f"--equiv {args.equiv}")
            equivalents.load_equivalents(args.equiv)
        if args.prove:                # the survivors of the last run
            try:
                last = json.loads(cli.text_file(args.out, f"--out {args.out}"))
            except json.JSONDecodeError as e:
                raise ValueError(f"--out {args.out}: not JSON ({e})") from None
            if not isinstance(last, dict) or not isinstance(last.get("survivors"), list):
                raise ValueError(f"--out {args.out}: not a mutation run's results (no survivors list)")
        if not args.list and not args.prove:
            from tb.mutation import journal, tree
            args.journal = os.path.abspath(args.journal or journal.journal_path(args.out))
            if args.resume:
                journal.Journal.read(args.journal)   # a bad file is refused before the trees are read
            # one run per scratch directory, taken after the input's checks and before the
            # journal is opened: a second run would remove the first's snapshot and builds
            # (held until this process ends)
            os.makedirs(args.work, exist_ok=True)
            args.work_lock = open(os.path.join(args.work, ".lock"), "w")
            try:
                fcntl.flock(args.work_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise ValueError(f"--work {args.work}: another mutation run is using it "
                                 "(give this run a --work of its own)") from None
            args.journal_log = journal.Journal(args.journal, {"design": tree.tree_digest(args.rtl),
                                                              "bench": tree.tree_digest(os.path.join(ROOT, "tb")),
                                                              "classes": list(args.classes)}, args.resume)
    except ValueError as e:
        return cli.refuse(ap.prog, f"--classes {e}" if str(e).startswith("unknown mutation class") else e)
    if args.prove:
        return prove.prove_survivors(args)
    if not args.list:
        # a snapshot of rtl/: the design may be edited while a run is going on
        snap = os.path.join(args.work, "rtl_snapshot")
        sites_mod.make_mutant_dir(None, snap, args.rtl)
        args.rtl = snap
    try:
        sites = on_lines(sites_mod.enumerate_sites(args.rtl, args.module, stats, args.classes), args.lines)
    except RuntimeError as e:     # the tools failed (not the input): one line, exit 1
        print(f"{ap.prog}: FAULT: {cli.one_line(str(e))}", file=sys.stderr)
        return 1
    if args.list:
        for s in sites:
            print(f"{s.file}:{s.line}  {s.cls:<6} {one_line(s.desc)}")
        per = Counter(s.module for s in sites)
        print(f"{len(sites)} sites: " + ", ".join(f"{m} {n}" for m, n in sorted(per.items())))
        per_cls = Counter(s.cls for s in sites)
        print("per class: " + ", ".join(f"{c} {per_cls[c]}" for c in args.classes))
        print("unmapped AST events (no site made): " + json.dumps(stats.get("unmapped", {})))
        return 0
    return runner.run(args, sites, stats)


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
