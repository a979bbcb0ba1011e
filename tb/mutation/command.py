"""The mutation scripts' command line and report over one check (tools/*/mutants.py).

cli(argv, ...) parses --fast, --quick, --jobs, --timeout, --json, --journal and --resume
(bad input: exit 2 and one line, tb/cli.py), runs the text mutants, prints the table and
the score and writes the JSON; run_and_report does the same for a library caller.
"""
import sys
import time

from tb.mutation.journal import journal_path, open_journal
from tb.mutation.report import exit_code, failures, print_table, write_json
from tb.mutation.text import run_mutants


def timed_run(mutants, check, quick=False, timeout=120, jobs=2):
    """(results, wall seconds): run_mutants over root ROOT, the check with --quick if quick
    (the apps' run() for their tests)."""
    from tb import ROOT
    t0 = time.time()
    res = run_mutants(mutants, list(check) + (["--quick"] if quick else []), ROOT, timeout, jobs)
    return res, time.time() - t0


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
    ap.add_argument("--journal", default=None, type=tbcli.out_file(regular=True),
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
