"""One suite: does the pytest suite reach the same verdict as the RTL mutation bench?

The mutation bench (tb/hdl/mut_rtl_tb.v through suite.py) is a fast, fail-fast
route to a verdict on a mutant; the project's claim is that it is not a STRONGER one:
whatever the bench catches, `make test`'s co-simulation tests catch too. This measures
it on a seeded sample of mutants: each is judged by the bench (runner.judge, both
suites, as `make mutants-rtl` does) and, independently, by pytest run in a fresh copy of
the repository whose rtl/ holds the mutant (the co-simulation tests on Icarus, the
simulator the bench uses; every build made fresh from the mutant's text). A mutant the
bench catches and pytest misses is a gap in the suite; the reverse is the bench's.

    python -m tb.mutation.rtl.agree --sample 12 --seed 1     # out/mut_agree.json

It is slow by nature (a full Icarus co-simulation run per mutant, about a minute on 2
cores), so it is a measurement behind a command, not a CI test.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from tb import ROOT, cli
from tb.mutation import outcomes
from tb.mutation.rtl import runner, suite
from tb.mutation.rtl.sites import ALL_CLASSES, RTL_DIR, enumerate_sites, make_mutant_dir, one_line

# the pytest selection: every co-simulation test, Icarus only (the bench's simulator)
PYTEST_ARGS = ["tests/tb", "tests/tools/ch09/test_ch09_cosim.py", "tests/tools/serve", "tests/tools/prefix", "-x", "-q",
               "-p", "no:cacheprovider", "-k", "not verilator"]
PYTEST_LIMIT = 900          # seconds per mutant


def repo_copy(dest):
    """The committed tree of the repository (git archive HEAD) in dest, .venv linked."""
    os.makedirs(dest)
    tar = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=tar, check=True)
    os.symlink(os.path.join(ROOT, ".venv"), os.path.join(dest, ".venv"))
    return dest


def pytest_verdict(site, work):
    """(caught, summary line, seconds): pytest's verdict on the mutant in a fresh copy."""
    repo = repo_copy(os.path.join(work, "repo"))
    rtl = os.path.join(repo, "rtl")
    make_mutant_dir(site, rtl + ".mut", RTL_DIR)
    shutil.rmtree(rtl)
    os.rename(rtl + ".mut", rtl)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # -m: the copy first
    t = time.time()
    try:
        p = subprocess.run([os.path.join(repo, ".venv", "bin", "python"), "-m", "pytest", *PYTEST_ARGS],
                           cwd=repo, env=env, capture_output=True, text=True, timeout=PYTEST_LIMIT)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        return True, f"timeout after {PYTEST_LIMIT} s (a hang counts as caught)", time.time() - t
    last = [ln for ln in out.strip().splitlines() if ln.strip()][-1:] or [""]
    failed = [ln for ln in out.splitlines() if ln.startswith("FAILED") or ln.startswith("ERROR")]
    if rc == 0:
        return False, last[0], time.time() - t
    if rc == 1:
        return True, (failed[0] if failed else last[0])[:200], time.time() - t
    return None, f"pytest exit {rc}: {last[0][:200]}", time.time() - t


def main(argv=None):
    ap = cli.Parser(prog="tb.mutation.rtl.agree", description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=cli.integer(lo=1), default=12, help="mutants in the sample (default 12)")
    ap.add_argument("--seed", type=cli.seed, default=1, help="the sample's seed (default 1)")
    ap.add_argument("--json", type=cli.out_file(regular=True), default=os.path.join(ROOT, "out", "mut_agree.json"),
                    help="where the rows go (default out/mut_agree.json)")
    a = ap.parse_args(argv)
    work = tempfile.mkdtemp(prefix="ga2-agree-")
    manifests = suite.build_suites(work)
    sites = enumerate_sites(RTL_DIR, classes=ALL_CLASSES)   # token and structural, as make mutants-rtl
    pick = sorted(random.Random(a.seed).sample(range(len(sites)), min(a.sample, len(sites))))
    rows = []
    t0 = time.time()
    for n, i in enumerate(pick):
        s = sites[i]
        w = os.path.join(work, f"m{n}")
        b = runner.judge(s, w, manifests, 120)
        caught, why, sec = pytest_verdict(s, w)
        shutil.rmtree(w, ignore_errors=True)
        agree = None if caught is None or b.status in outcomes.STOPPED else (b.caught == caught)
        row = {"site": f"{s.file}:{s.line}", "cls": s.cls, "change": one_line(s.desc)[:90],
               "bench": b.status, "bench_check": b.info.get("check", ""), "pytest_caught": caught,
               "pytest": why, "pytest_s": round(sec, 1), "agree": agree}
        rows.append(row)
        print(f"[{n + 1}/{len(pick)}] {row['site']} {row['cls']} {row['change'][:50]}: bench {b.status} "
              f"({row['bench_check']}), pytest {'caught' if caught else 'passed' if caught is False else 'error'}"
              f" ({sec:.0f} s): {'agree' if agree else 'DISAGREE' if agree is False else 'n/a'}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    gaps = [r for r in rows if r["agree"] is False and r["bench"] == outcomes.CAUGHT]
    extra = [r for r in rows if r["agree"] is False and r["bench"] != outcomes.CAUGHT]
    n_agree = sum(1 for r in rows if r["agree"])
    print(f"{n_agree}/{len(rows)} agree; caught by the bench only: {len(gaps)}; by pytest only: {len(extra)}; "
          f"{time.time() - t0:.0f} s")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"sample": a.sample, "seed": a.seed, "rows": rows, "agree": n_agree,
                   "bench_only": len(gaps), "pytest_only": len(extra),
                   "pytest_args": PYTEST_ARGS, "seconds": round(time.time() - t0, 1)}, f, indent=1)
    print(f"wrote {a.json}")
    return 1 if gaps else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
