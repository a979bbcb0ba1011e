"""Fuzz every command's options: each option its --help lists, given each of ~50 odd values.

    python tests/flow/fuzz_options.py [--limit S] [--parallel N] [--only MODULE]   (make fuzz-options)

Where tests/flow/test_bad_input.py holds a table of inputs someone chose per command, this
tries every option of every command of that table (and each `ga2` subcommand) with the
same list of values: numbers at and past every limit (0, -1, 1e999, nan, a 400-digit
integer, 0x10), empty and blank strings, separators, a 400-character name, and the
table's files of every wrong kind (a directory, binary garbage, empty files, JSON of the
wrong shape, a truncated .npz, a .hex with a bad word...). Simulators and yosys are the
table's shims (they fail at once), each row runs at most --limit seconds (a row still
running then had accepted its input: fine), and the rows run forked from one process
that imported every command (tests/flow/forkrun.py). A row that takes a file as an output
may overwrite one of the input files (a journal over garbage.csv): later rows then read
that, which is one more wrong kind of file.

A row is a problem when it prints a Python traceback, ends with an exit code outside the
project's (0 to 4), or refuses (exit 2) on more than one line. Rows that reached a shim
(accepted input that went on to simulate) and FAULT lines (a tool failed, not the input)
are counted apart. Prints the count per kind and every problem; exit 1 when there is one.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import test_bad_input as T

SUBCOMMANDS = {"tools.ga2": ["asm", "disasm", "cycles", "run", "serve", "generate"]}
FILES = ("adir", "garbage.txt", "empty.txt", "empty.json", "garbage.json", "garbage.npz", "empty.npz",
         "garbage.csv", "notworkload.json", "ints.json", "negative.json", "bad.csv", "floats.npy",
         "matrix.npy", "objects.npy", "truncated_int8.npz", "foreign.npz", "badword.hex", "wide.hex",
         "ext_bad.txt", "prog.s", "bad.s")
WORDS = ("", "-1", "0", "1e999", "nan", "inf", "abc", "9" * 20, "-0", "0x10", "1.5", " ", "--",
         "1,2", "-5,3", "1e3", "0,0", ",", "A:1:1", ":::", "1" * 400, "-", "%s", "\u00e9", "/dev/null")


def values(d):
    return list(WORDS) + [str(d / f) for f in FILES] + [str(d / "no" / "such")]


def positional(mod, sub, d):
    """The arguments a subcommand needs before its options (a valid program, a prompt)."""
    if mod != "tools.ga2":
        return []
    return {"asm": [str(d / "prog.s")], "cycles": [str(d / "prog.s")], "run": [str(d / "prog.s")],
            "disasm": [str(d / "badword.hex")], "generate": ["12+3"]}.get(sub, [])


def options(mod, pre, env, cwd):
    p = subprocess.run([sys.executable, "-m", mod] + pre + ["--help"], capture_output=True, text=True,
                       env=env, cwd=cwd, timeout=120)
    return sorted(set(re.findall(r"(--[a-z][a-z0-9-]+)", p.stdout + p.stderr)) - {"--help"})


def kind(r):
    """The kind of a row's outcome."""
    err = r["stderr"]
    if "Traceback" in err:
        return "traceback"
    if r["timed_out"]:
        return "accepted (still running at the limit)"
    if "a shim of tests/flow/test_bad_input.py" in err + r["stdout"]:
        return "accepted (reached a simulator shim)"
    if "FAULT" in err + r["stdout"]:
        return "a tool fault (FAULT line)"
    if r["rc"] not in (0, 1, 2, 3, 4):
        return f"exit {r['rc']}"
    if r["rc"] == 2 and len([x for x in err.strip().splitlines() if x.strip()]) != 1:
        return "refused on several lines"
    return {0: "accepted (exit 0)", 2: "refused (exit 2, one line)"}.get(r["rc"], f"exit {r['rc']}")


PROBLEMS = ("traceback", "refused on several lines")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="fuzz_options", description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=4.0, help="seconds a row may run (default 4)")
    ap.add_argument("--parallel", type=int, default=2, help="rows at once (default 2)")
    ap.add_argument("--only", action="append", help="only this module (repeatable)")
    a = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ga2-fuzz-"))
    d = T.make_files(tmp / "in")
    shims = T.shim_dir(tmp)
    env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ['PATH']}", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MPLBACKEND="Agg", GA2_BAD_INPUT_TEST="1", GA2_VERILATOR=str(shims / "verilator"))
    cwd = tmp / "cwd"
    cwd.mkdir()
    mods = sorted({m for m, _ in T.TABLE.values()} - {"tools.ga2"}) + ["tools.ga2"]
    jobs, where = [], []
    for mod in mods:
        if a.only and mod not in a.only:
            continue
        for sub in SUBCOMMANDS.get(mod, [None]):
            pre = [sub] if sub else []
            for opt in options(mod, pre, env, cwd):
                for v in values(d):
                    argv = pre + positional(mod, sub, d) + [opt, v]
                    jobs.append({"module": mod, "argv": argv, "cwd": str(cwd), "timeout": a.limit})
                    where.append((mod, argv))
    print(f"{len(jobs)} rows over {len({m for m, _ in where})} commands", file=sys.stderr, flush=True)
    p = subprocess.run([sys.executable, str(T.FORKRUN)],
                       input=json.dumps({"preload": T.PRELOAD, "jobs": jobs, "parallel": a.parallel}),
                       capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        print(p.stderr[-3000:], file=sys.stderr)
        return 1
    res = json.loads(p.stdout)
    kinds = Counter(kind(r) for r in res)
    for k, n in kinds.most_common():
        print(f"{n:6d}  {k}")
    bad = [(w, r) for w, r in zip(where, res) if kind(r) in PROBLEMS]
    for (mod, argv), r in bad:
        last = (r["stderr"].strip().splitlines() or [""])[-1]
        print(f"PROBLEM {mod} {' '.join(x[:60] for x in argv)}: {kind(r)}: {last[:200]}")
    print(f"{len(res)} rows, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
