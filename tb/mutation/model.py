"""The reference's own mutation run: seeded one-token mutants of model/, judged by the tests.

Why: the chip is held to the reference (model/), so a wrong reference that the tests miss
would let a wrong chip pass. The other runs mutate the RTL (tb/mutation/rtl) or an
application's builders with hand-written mistakes (tools/*/mutants.py); this one draws its
mutants at random, so it measures the tests rather than a list written to be caught.

A mutant changes one token of model/*.py or model/ops/*.py (tokenize: docstrings and
comments are not tokens): an operator into its neighbour (SWAP) or an integer literal n
into n + 1. Each is applied to a fresh copy of the project (tb/mutation/text.judge_text)
and judged in two stages, the cheaper first:
  1. the reference's own tests, `pytest -x tests/model` (seconds);
  2. for the mutants stage 1 leaves, make test's whole selection, `pytest -x -n 2 -m "not
     long" tests` (minutes: the copy builds its simulators again).
Caught: pytest fails (exit 1) or cannot collect (exit 2: the mutant breaks an import);
a mutant whose file no longer compiles is incompetent and not judged.
A survivor of both is either a hole in the tests or an equivalent mutant (the same
behaviour); the report lists each with its line, for a reader to tell which.

    python -m tb.mutation.model --sample 60 --seed 1 [--jobs 1] [--out out/mut_model.json]
    python -m tb.mutation.model --list          (every site, no run)
"""
import glob
import io
import os
import random
import sys
import time
import tokenize

from tb import ROOT
from tb.mutation.outcomes import CAUGHT, CRASHED, INCOMPETENT, SURVIVED, TIMED_OUT, Mutant, Result
from tb.mutation.report import print_table, score_line, write_json
from tb.mutation.text import run_mutants

FILES = ("model/*.py", "model/ops/*.py")
# each operator into the one a slip of the hand gives (a neighbour, not a random one)
SWAP = {"+": "-", "-": "+", "*": "+", "//": "*", "%": "//", "<<": ">>", ">>": "<<", "&": "|",
        "|": "&", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
PY = sys.executable
# (name, check, timeout s): tests/model takes about 10 s, the whole selection about 3 min and
# the copy's simulator builds about 1 min; a mutant that loops times out (not counted caught)
STAGES = (("tests/model", [PY, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "tests/model"], 180),
          ("make test's selection", [PY, "-m", "pytest", "-x", "-q", "-n", "2", "-m", "not long",
                                     "-p", "no:cacheprovider", "tests"], 1800))


def sites(root=ROOT, files=FILES):
    """[Mutant]: one per operator token in SWAP and per decimal integer literal of the
    files, each anchored on its whole line, with the lines after it (at the file's end:
    before it) until the text is unique in its file (tb/mutation/tree.anchor_problem)."""
    out = []
    paths = sorted({os.path.relpath(p, root) for g in files for p in glob.glob(os.path.join(root, g))})
    for rel in paths:
        text = open(os.path.join(root, rel)).read()
        lines = text.splitlines(keepends=True)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in SWAP:
                new = SWAP[tok.string]
            elif tok.type == tokenize.NUMBER and tok.string.isdigit():
                new = str(int(tok.string) + 1)
            else:
                continue
            (row, col), (_, end) = tok.start, tok.end
            line = lines[row - 1]
            lo, hi, changed = row - 1, row, line[:col] + new + line[end:]
            while text.count("".join(lines[lo:hi])) > 1 and (lo > 0 or hi < len(lines)):
                if hi < len(lines):
                    hi += 1
                else:
                    lo -= 1
            old = "".join(lines[lo:hi])
            if text.count(old) != 1:
                continue
            mutated = "".join(lines[lo:row - 1]) + changed + "".join(lines[row:hi])
            label = f"{rel}:{row}:{col + 1} {tok.string} -> {new}"
            out.append(Mutant(label, rel, old, mutated, tags=(line.strip()[:100],)))
    return out


def pytest_outcome(rc, output):
    """pytest's exit code as a mutant's status: 0 survived; 1 (a test failed) and 2 (a
    collection error: the mutant breaks an import) caught; None timed out; any other
    (pytest's own error, no tests) crashed."""
    if rc is None:
        return TIMED_OUT
    return {0: SURVIVED, 1: CAUGHT, 2: CAUGHT}.get(rc, CRASHED)


def _check(cmd):
    def check(copy_dir, _mutant):
        # ./ga2 (tests/flow/test_bad_input.py) runs the copy's .venv: the project's own
        venv = os.path.join(copy_dir, ".venv")
        if not os.path.lexists(venv) and os.path.isdir(os.path.join(ROOT, ".venv")):
            os.symlink(os.path.join(ROOT, ".venv"), venv, target_is_directory=True)
        return cmd
    return check


def syntax_error(mutant, root=ROOT):
    """The SyntaxError's text when the mutated file does not compile (a token that is not
    an operator there, such as the star of `*rest`), else None: such a mutant is
    incompetent, not judged."""
    text = open(os.path.join(root, mutant.file)).read().replace(mutant.old, mutant.new, 1)
    try:
        compile(text, mutant.file, "exec")
    except SyntaxError as e:
        return f"{e.msg} (line {e.lineno})"
    return None


def run(mutants, jobs=1, stages=STAGES, root=ROOT, progress=True):
    """{label: (Result, stage name or None)}: each mutant through the stages in turn, a
    stage judging only those the previous ones left (each stage checks its baseline); a
    mutant whose file does not compile is incompetent (stage None)."""
    verdict, left = {}, []
    for m in mutants:
        why = syntax_error(m, root)
        if why:
            verdict[m.label] = (Result(m.label, m.file, INCOMPETENT, m.must_catch, m.tags, detail=why), None)
        else:
            left.append(m)
    for name, cmd, timeout in stages:
        if not left:
            break
        print(f"stage {name}: {len(left)} mutants", flush=True)
        res = run_mutants(left, _check(cmd), root, timeout=timeout, jobs=jobs, classify=pytest_outcome,
                          progress=progress)
        for m, r in zip(left, res):
            verdict[m.label] = (r, name)
        left = [m for m, r in zip(left, res) if r.status == SURVIVED]
    return verdict


def main(argv=None):
    from tb import cli
    ap = cli.Parser(prog="python -m tb.mutation.model", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=cli.integer(1, None), default=60, help="mutants drawn (default 60)")
    ap.add_argument("--seed", type=cli.integer(0, None), default=1, help="the draw's seed (default 1)")
    ap.add_argument("--jobs", type=cli.jobs, default=1,
                    help="copies judged at once (default 1; each stage-2 check uses 2 cores)")
    ap.add_argument("--out", type=cli.out_file(), default=os.path.join(ROOT, "out", "mut_model.json"),
                    help="the JSON written (default out/mut_model.json)")
    ap.add_argument("--list", action="store_true", help="print every site and stop")
    a = ap.parse_args(argv)
    every = sites()
    if a.list:
        for m in every:
            print(m.label, "|", m.tags[0])
        print(f"{len(every)} sites")
        return 0
    if a.sample > len(every):
        return cli.refuse(ap.prog, f"--sample must be at most {len(every)} (the sites), got {a.sample}")
    pick = random.Random(a.seed).sample(every, a.sample)
    t0 = time.monotonic()
    verdict = run(pick, jobs=a.jobs)
    wall = time.monotonic() - t0
    results = [verdict[m.label][0] for m in pick]
    print_table(results, "reference mutant")
    for m in pick:
        r, stage = verdict[m.label]
        if r.status != SURVIVED:
            continue
        print(f"SURVIVED {m.label} | {m.tags[0]}")
    caught_at = {}
    for m in pick:
        r, stage = verdict[m.label]
        if r.status == CAUGHT:
            caught_at[stage] = caught_at.get(stage, 0) + 1
    print(score_line(results))
    print("caught by stage: " + ", ".join(f"{k} {v}" for k, v in caught_at.items()))
    print(f"{a.sample} mutants in {wall:.0f} s")
    write_json(a.out, results, {"sample": a.sample, "seed": a.seed, "sites": len(every), "caught_by_stage": caught_at,
                                "wall_s": round(wall, 1)})
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
