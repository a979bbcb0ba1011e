"""Input that never breaks a command: a table of bad inputs per command, each run as its
own process, must get exit 2 and ONE line on stderr naming the problem -- no traceback,
nothing done first (stdout empty: no simulation, no training, no file written).

Every command line of the project is here (the ga2 command and its subcommands, the
applications, the chapter scripts, the language-model tools, the soak, the mutation
runners, tb.hw, tb.plain_check, tools.flow.headers, tools/bench). The inputs are values at
and beyond their limits (0, negative, huge, non-integers, empty strings, unknown choices)
and files that are missing, directories, empty, binary garbage or of the wrong kind (a
.hex with a bad word, a .npy of floats or of the wrong shape, a truncated weights file,
the other task's weights, JSON that is not a workload).

The rows run through tests/flow/forkrun.py: one process imports the commands once and
forks a child per row that runs `python -m MODULE ARGS` as __main__ (about 12 ms a row
instead of a Python start-up and its imports, 250 ms); the first row of one command of
each kind of entry point (REAL), and the rows of the ./ga2 script, run as genuine
`sys.executable -m` (or ./ga2) subprocesses. The simulators
are shimmed (fake iverilog, vvp, verilator, yosys and fusesoc first on PATH, each failing
at once; the verilator also as GA2_VERILATOR, tb/sim/tools.py), so a command that let bad
input through to a simulation fails here quickly instead of simulating.

make test runs each command's rows 0, 4, 8, ... (SAMPLE: every command, its first row always);
the whole table is -m long (test_every_row_of_the_table_...) and the command line below.

    python tests/flow/test_bad_input.py              # every command and what each input got
    python tests/flow/test_bad_input.py --summary    # only the inputs not handled right
    python tests/flow/test_bad_input.py --doc OLD.md # docs/journal/2026-measurements.md "Bad input", OLD.md the
                                                     # first form printed on an older checkout
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bad_input_apps import GA2
from bad_input_table import FACES, FORKRUN, LIMIT, PRELOAD, REAL, ROOT, SCRIPT_ROWS, SHIMMED, TABLE, make_files


def shim_dir(d):
    """Fake simulators, first on PATH: a command that let bad input through to a build
    fails at once instead of simulating."""
    b = Path(d) / "shims"
    b.mkdir()
    for name in SHIMMED:
        (b / name).write_text("#!/bin/sh\necho \"$0: a shim of tests/flow/test_bad_input.py, no simulation\" >&2\n"
                              "exit 127\n")
        (b / name).chmod(0o755)
    return b


# make test runs every SAMPLE-th row of each command (its first row always, so every command
# and every REAL row); the whole table (707 rows) is -m long and the command line's
SAMPLE = 4


def run_table(tmp, every=1):
    """{command: [(argv, expect, result)]} of the table, run in tmp: each command's rows 0,
    every, 2 every, ... (every 1: the whole table)."""
    d = make_files(Path(tmp) / "in")
    shims = shim_dir(tmp)
    env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg",
               GA2_BAD_INPUT_TEST="1", GA2_VERILATOR=str(shims / "verilator"))   # .venv's is not on PATH
    env.pop("WAVES", None)
    cwd = Path(tmp) / "cwd"
    cwd.mkdir()
    # set-up, not a row: SmolLM2's one-time float32 cache (the GGUF fetched and dequantized,
    # 20 to 40 s on a clean clone), so the rows that tokenize a prompt time their refusal alone
    subprocess.run([sys.executable, "-c", "from tools.smollm2 import gguf_model; gguf_model.load()"],
                   cwd=ROOT, capture_output=True, timeout=600)
    jobs, where = [], []
    for name, (mod, rows) in TABLE.items():
        for k, (argv, expect) in enumerate(rows):
            if k % every:
                continue
            jobs.append({"module": mod, "argv": [a.format(d=d) for a in argv], "cwd": str(cwd),
                         "timeout": LIMIT, "real": k == 0 and name in REAL})
            where.append((name, argv, expect))
    for argv, expect in SCRIPT_ROWS:
        jobs.append({"module": GA2, "exe": str(ROOT / "ga2"), "argv": [a.format(d=d) for a in argv],
                     "cwd": str(cwd), "timeout": LIMIT, "real": True})
        where.append(("./ga2", argv, expect))
    p = subprocess.run([sys.executable, str(FORKRUN)],
                       input=json.dumps({"preload": PRELOAD, "jobs": jobs, "parallel": 2}),
                       capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = {}
    for (name, argv, expect), res in zip(where, json.loads(p.stdout)):
        for key in ("stderr", "stdout"):
            res[key] = res[key].replace(str(d), "{d}").replace(str(ROOT), "{root}")
        out.setdefault(name, []).append((argv, expect, res))
    return out


def verdict(expect, res):
    """'' when a row got what bad input must get, else what is wrong."""
    err, out = res["stderr"], res["stdout"]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if res["timed_out"]:
        return f"still running after {LIMIT} s (did work instead of refusing)"
    if res["signal"]:
        return f"killed by signal {res['signal']}"
    if "Traceback" in err or "Traceback" in out:
        return f"a traceback, exit {res['rc']}: {lines[-1][:120] if lines else ''}"
    if res["rc"] != 2:
        return f"exit {res['rc']}" + (f": {lines[-1][:120]}" if lines else " and no message")
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr, not one"
    if expect not in err:
        return f"message does not name {expect!r}"
    if out.strip():
        return f"printed on stdout before refusing: {out.strip().splitlines()[0][:80]}"
    return ""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Every SAMPLE-th row of each command (make test)."""
    return run_table(tmp_path_factory.mktemp("bad_input"), every=SAMPLE)


def _mishandled(command, rows):
    bad = [f"{' '.join(argv)!r}: {v}" for argv, expect, res in rows for v in [verdict(expect, res)] if v]
    return f"{command}: {len(bad)} of {len(rows)} bad inputs mishandled:\n" + "\n".join(bad) if bad else ""


@pytest.mark.parametrize("command", list(TABLE) + ["./ga2"])
def test_bad_input_gets_exit_2_and_one_line_naming_it(command, table):
    assert table[command], command
    problem = _mishandled(command, table[command])
    assert not problem, problem


@pytest.mark.long
def test_every_row_of_the_table_gets_exit_2_and_one_line_naming_it(tmp_path):
    """The whole table, every row of every command."""
    full = run_table(tmp_path, every=1)
    assert sum(len(rows) for rows in full.values()) == sum(len(rows) for _, rows in TABLE.values()) + len(SCRIPT_ROWS)
    problems = [p for command, rows in full.items() for p in [_mishandled(command, rows)] if p]
    assert not problems, "\n".join(problems)


def markdown(table):
    """The table of docs/journal/2026-measurements.md "Bad input": per command the inputs and what each got."""
    lines = ["| command | bad inputs | handled | input -> message (exit 2 unless said) |", "|---|---|---|---|"]
    for name, rows in table.items():
        ok = sum(not verdict(e, r) for _, e, r in rows)
        cells = []
        for argv, expect, res in rows:
            v = verdict(expect, res)
            msg = (res["stderr"].strip().splitlines() or [""])[-1]
            arg = " ".join(a if a else "''" for a in argv) or "(no arguments)"
            cells.append(f"`{arg}` -> " + (f"**{v}**" if v else f"`{msg[:110]}`").replace("|", "\\|"))
        lines.append(f"| `{name}` | {len(rows)} | {ok}/{len(rows)} | " + "<br>".join(cells) + " |")
    return "\n".join(lines)


KINDS = (("a traceback", "traceback"), ("still running", "did the work"), ("exit 0", "accepted (exit 0)"),
         ("exit ", "another exit code"), ("lines on stderr", "usage + message on several lines"),
         ("does not name", "message not naming it"), ("printed on stdout", "printed before refusing"))


def kind(v):
    """The class of a verdict ('' for a row handled right)."""
    return next((k for pre, k in KINDS if pre in v), "other") if v else ""


def read_markdown(path):
    """{command: [cell]} of a table markdown() printed (e.g. on an older checkout)."""
    out = {}
    for line in open(path).read().splitlines()[2:]:
        parts = line.split(" | ")
        out[parts[0].strip("| `")] = parts[3].rstrip(" |").split("<br>")
    return out


def cell_verdict(cell):
    """The verdict of one cell of markdown() ('' when handled right), and its message."""
    got = cell.split("` -> ", 1)[1]
    return (got.strip("*"), "") if got.startswith("**") else ("", got.strip("`"))


def doc(table, before):
    """docs/journal/2026-measurements.md "Bad input": the summary per command, then every input, with
    what it got at the earlier checkout (before: read_markdown's) and now."""
    lines = ["| command | inputs | right before | right now | what the others got before |", "|---|---|---|---|---|"]
    total = [0, 0, 0]
    for name, rows in table.items():
        old = [cell_verdict(c)[0] for c in before.get(name, [])]
        old += ["(not run)"] * (len(rows) - len(old))
        ok_now = sum(not verdict(e, r) for _, e, r in rows)
        ok_old = sum(not v for v in old)
        kinds = {}
        for v in old:
            if v:
                kinds[kind(v)] = kinds.get(kind(v), 0) + 1
        total = [total[0] + len(rows), total[1] + ok_old, total[2] + ok_now]
        lines.append(f"| `{name}` | {len(rows)} | {ok_old} | {ok_now} | "
                     + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])) + " |")
    lines.append(f"| all | {total[0]} | {total[1]} | {total[2]} | |")
    lines += ["", "| command | input | before | now (exit 2 and this one line) |", "|---|---|---|---|"]
    for name, rows in table.items():
        old = [cell_verdict(c)[0] for c in before.get(name, [])]
        for i, (argv, expect, res) in enumerate(rows):
            v = verdict(expect, res)
            msg = (res["stderr"].strip().splitlines() or [""])[-1]
            arg = " ".join(a if a else "''" for a in argv) or "(no arguments)"
            was = re.sub(r"/tmp/tmp\w+/", "{tmp}/", old[i]) if i < len(old) else "(not run)"
            was = re.sub(r"/\S*/wt-input[\w-]*/", "{root}/", was)
            now = f"**{v}**" if v else f"`{msg[:120]}`"
            lines.append(f"| `{name}` | `{arg}` | {was or 'right'} | {now} |".replace("<", "&lt;"))
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        tab = run_table(t)
    if "--summary" in sys.argv:
        for name, rows in tab.items():
            for argv, expect, res in rows:
                v = verdict(expect, res)
                if v:
                    print(f"{name}: {' '.join(argv)!r}: {v}")
        print(sum(len(r) for r in tab.values()), "rows,",
              sum(1 for r in tab.values() for _, e, x in r if verdict(e, x)), "mishandled")
    elif "--doc" in sys.argv:
        print(doc(tab, read_markdown(sys.argv[sys.argv.index("--doc") + 1])))
    else:
        print(markdown(tab))


def test_every_command_is_in_the_table():
    """Each module with a main guard (a command someone can run) has rows here, itself or
    through its face: a new command without bad-input rows fails this."""
    mods = {m for m, _ in TABLE.values()}
    mains = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                   for top in ("model", "tb", "tools") for p in (ROOT / top).rglob("*.py")
                   if re.search(r'^if __name__ == "__main__":', p.read_text(), re.M))
    assert len(mains) >= 40, mains
    missing = [m for m in mains if m not in mods and FACES.get(m) not in mods]
    assert not missing, f"commands without bad-input rows: {missing}"
