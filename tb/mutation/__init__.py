"""The one mutation engine: outcomes, the job pool, timeouts, score, tables and JSON.

A mutation run judges each mutant with a JUDGE, a function judge(mutant, slot) -> Result
(slot: the worker's number 0..jobs-1, for a per-worker scratch directory). The engine
runs the judges on a pool of worker threads (run_pool), scores the results and writes
the tables and the JSON. Two judges exist:
  text mutants + a check command   (text.py: judge_text, run_mutants; tools/mut_ch09.py)
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

    from tb.mutation import outcomes, report, text
    ms = [outcomes.Mutant("off by one", "model/x.py", "i < n", "i <= n")]
    results = text.run_mutants(ms, [sys.executable, "-m", "model.x", "--check"], ROOT,
                               timeout=60)
    print(report.format_table(results))
    report.write_json("out/mut.json", results, {"check": "model.x --check"})
    sys.exit(report.exit_code(results))

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

The engine's parts (callers import each name from the module that defines it):
  outcomes.py  the statuses, Mutant, Result, BaselineError
  tree.py      the project copy (copy_project, COPY_IGNORE), its digest, a mutant's anchor
  journal.py   Journal, mutant_key, open_journal, journal_path (--journal / --resume)
  pool.py      run_pool (threads or Dask workers), limit_from_baseline
  text.py      the text judge: run_check, classify_output, judge_text, run_mutants
  report.py    score, the tables, failures, exit_code, write_json
  command.py   cli and run_and_report (the mutation scripts' command line)
"""
