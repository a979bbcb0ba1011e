"""The mutation engine (tb/mutation/) on a toy project generated in tmp: every outcome and the exit rule.

The toy: toy/mod.py (add, hook, a constant nobody checks, a line written twice) and
check.py (exit 0 when add works; a `PROBLEM` line and exit 1 when it does not; a
`REFUSED` line and exit 1 when hook raises ValueError). Mutants: caught (a PROBLEM line),
crashed (a traceback; a non-zero exit without a PROBLEM line), refused, survived (must and
may), bad anchors (missing, not unique, missing file, no-op), a hang (timed out, its
process group killed). Then the job pool, the classification rule and the summary table.
"""
import json
import os
import shutil
import sys
import textwrap
import time

import pytest

from tb.mutation import command, outcomes, pool, tree
from tb.mutation import report as mut_report
from tb.mutation import text as mut_text
from tb.mutation.outcomes import Mutant

MOD = textwrap.dedent('''\
    UNUSED = 1  # nobody checks this


    def add(a, b):
        return a + b


    def hook():
        return None
    # twice
    # twice
    ''')

CHECK = textwrap.dedent('''\
    import os, sys, time
    import toy.mod as mod
    time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
    try:
        mod.hook()
    except ValueError as e:
        print("REFUSED hook:", e)
        sys.exit(1)
    if mod.add(2, 3) != 5:
        print("PROBLEM add(2, 3) =", mod.add(2, 3))
        sys.exit(1)
    ''')

HANG = textwrap.dedent('''\
    def hook():
        import os, subprocess
        p = subprocess.Popen(["sleep", "60"])
        open(os.environ["TOY_PIDFILE"], "w").write(str(p.pid))
        p.wait()''')

CMD = [sys.executable, "check.py"]


@pytest.fixture
def toy(tmp_path):
    root = tmp_path / "proj"
    (root / "toy").mkdir(parents=True)
    (root / "toy" / "__init__.py").write_text("")
    (root / "toy" / "mod.py").write_text(MOD)
    (root / "check.py").write_text(CHECK)
    (root / ".venv").mkdir()
    (root / ".venv" / "big").write_text("x" * 1000)      # must not be copied
    (root / "out").mkdir()
    return root


def by_label(results):
    return {r.label: r for r in results}


def test_outcomes_table_json_and_exit_code(toy, tmp_path, monkeypatch, capsys):
    pidfile = tmp_path / "hang.pid"
    monkeypatch.setenv("TOY_PIDFILE", str(pidfile))
    ms = [
        Mutant("minus", "toy/mod.py", "return a + b", "return a - b"),
        Mutant("crash", "toy/mod.py", "return None", "raise RuntimeError('boom')"),
        Mutant("exit 2", "toy/mod.py", "UNUSED = 1", "import sys; sys.exit(2)"),
        Mutant("refuse", "toy/mod.py", "return None", "raise ValueError('no such thing')"),
        Mutant("equivalent", "toy/mod.py", "UNUSED = 1", "UNUSED = 2", must_catch=False,
               tags=("equiv",)),
        Mutant("missing", "toy/mod.py", "return a * b", "return a"),
        Mutant("not unique", "toy/mod.py", "# twice", "# once"),
        Mutant("no file", "toy/nope.py", "x", "y"),
        Mutant("no-op", "toy/mod.py", "return a + b", "return a + b"),
        Mutant("hang", "toy/mod.py", "def hook():\n    return None", HANG),
    ]
    t0 = time.monotonic()
    res = mut_text.run_mutants(ms, CMD, toy, timeout=3, jobs=2)
    wall = time.monotonic() - t0
    assert [r.label for r in res] == [m.label for m in ms]
    r = by_label(res)
    assert r["minus"].status == "caught" and r["minus"].returncode == 1 and r["minus"].caught
    assert "PROBLEM add(2, 3) = -1" in r["minus"].detail
    # a crash is not a catch, whatever its exit code
    assert r["crash"].status == "crashed" and "boom" in r["crash"].detail and not r["crash"].caught
    assert r["exit 2"].status == "crashed" and r["exit 2"].returncode == 2
    assert r["refuse"].status == "refused" and not r["refuse"].caught
    assert r["equivalent"].status == "survived" and not r["equivalent"].caught
    assert r["equivalent"].tags == ("equiv",) and r["equivalent"].problem is None
    assert r["missing"].status == "bad anchor" and "not found" in r["missing"].detail
    assert r["not unique"].status == "bad anchor" and "2 times" in r["not unique"].detail
    assert r["no file"].status == "bad anchor" and "not found" in r["no file"].detail
    assert r["no-op"].status == "bad anchor" and "changes nothing" in r["no-op"].detail
    assert r["hang"].status == "timed out" and r["hang"].returncode is None and not r["hang"].caught
    assert 3 <= r["hang"].seconds < 10 and wall < 15
    # the whole process group went: the hang's grandchild `sleep 60` is dead
    pid = int(pidfile.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as f:
                alive = f.read().split(")")[-1].split()[0] not in ("Z", "X")
        except FileNotFoundError:
            alive = False
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, f"sleep {pid} survived the timeout"
    # the original tree is untouched and no temporary copy is left behind
    assert (toy / "toy" / "mod.py").read_text() == MOD
    # bad anchors and must_catch mutants that crashed, refused or timed out fail the run
    assert mut_report.exit_code(res) == 1
    assert {p.split(": ")[1] for p in mut_report.failures(res) if p.startswith("bad anchor")} == \
        {"missing", "no file", "no-op", "not unique"}
    assert {p.split(": ")[-1] for p in mut_report.failures(res) if not p.startswith("bad anchor")} == \
        {"crash", "exit 2", "refuse", "hang"}
    s = mut_report.score(res)
    assert (s["total"], s["caught"], s["crashed"], s["refused"], s["timed_out"], s["survived"],
            s["bad_anchor"], s["stopped"], s["valid"]) == (10, 1, 2, 1, 1, 1, 4, 4, 6)
    assert s["score"] == round(1 / 6, 4) and s["score_if_stopped_counted"] == round(5 / 6, 4)
    text = mut_report.print_table(res)
    assert capsys.readouterr().out.strip() == text.strip()
    assert "score: 1/6 caught (16.7%)" in text and "BAD ANCHOR" in text
    assert "4 not counted as caught: ended without a reported problem (2 crashed, 1 refused, 1 timed out)" in text
    out = mut_report.write_json(tmp_path / "o" / "mut.json", res, {"check": "toy"})
    doc = json.loads(out.read_text())
    assert doc["check"] == "toy" and doc["exit_code"] == 1 and doc["counts"]["caught"] == 1
    assert doc["score"] == round(1 / 6, 4)
    assert [d["status"] for d in doc["results"]] == [x.status for x in res]
    assert doc["results"][0]["caught"] is True and doc["results"][4]["tags"] == ["equiv"]
    # the other argument order works too
    mut_report.write_json(res, tmp_path / "swapped.json")
    assert json.loads((tmp_path / "swapped.json").read_text())["counts"] == doc["counts"]


def test_exit_code_rule(toy):
    caught = Mutant("minus", "toy/mod.py", "return a + b", "return a - b")
    may = Mutant("equivalent", "toy/mod.py", "UNUSED = 1", "UNUSED = 2", must_catch=False)
    must = Mutant("must", "toy/mod.py", "UNUSED = 1", "UNUSED = 3")
    res = mut_text.run_mutants([caught, may], CMD, toy, timeout=20, jobs=2)
    assert [x.status for x in res] == ["caught", "survived"]
    assert mut_report.exit_code(res) == 0 and mut_report.failures(res) == []
    res = mut_text.run_mutants([caught, must], CMD, toy, timeout=20, jobs=2)
    assert mut_report.exit_code(res) == 1
    assert mut_report.failures(res) == ["survived (must be caught): must"]


def test_parallel_and_copy(toy, monkeypatch, tmp_path):
    # four slow passing-but-mutated checks: on 4 jobs they overlap
    monkeypatch.setenv("TOY_SLEEP", "1.0")
    ms = [Mutant(f"m{i}", "toy/mod.py", "UNUSED = 1", f"UNUSED = {10 + i}", must_catch=False)
          for i in range(4)]
    seen = []

    def check(copy_dir, mutant):
        seen.append((copy_dir, mutant and mutant.label))
        # the copy holds the mutated file and not the ignored .venv
        text = open(os.path.join(copy_dir, "toy", "mod.py")).read()
        if mutant is not None:
            assert f"UNUSED = {10 + int(mutant.label[1:])}" in text
        assert not os.path.exists(os.path.join(copy_dir, ".venv"))
        assert os.path.isdir(os.path.join(copy_dir, "out"))
        return CMD

    t0 = time.monotonic()
    res = mut_text.run_mutants(ms, check, toy, timeout=20, jobs=5, tmp_root=tmp_path)
    wall = time.monotonic() - t0
    assert all(x.status == "survived" for x in res)
    assert sum(x.seconds for x in res) >= 4.0
    assert wall < 3.5, f"5 checks of >= 1 s each on 5 jobs took {wall:.1f} s"
    assert sorted(lab or "" for _, lab in seen) == ["", "m0", "m1", "m2", "m3"]
    assert not any(os.path.exists(d) for d, _ in seen)          # copies removed
    assert not list(tmp_path.glob("ga2mut_*"))


def test_baseline_failure_raises(toy):
    (toy / "check.py").write_text("import sys; sys.exit(1)\n")
    with pytest.raises(outcomes.BaselineError, match="fails on the unmutated project"):
        mut_text.run_mutants([Mutant("x", "toy/mod.py", "UNUSED = 1", "UNUSED = 2")], CMD, toy,
                             timeout=20, jobs=2)


def test_bad_arguments(toy):
    m = Mutant("x", "toy/mod.py", "UNUSED = 1", "UNUSED = 2")
    with pytest.raises(ValueError, match="duplicate"):
        mut_text.run_mutants([m, m], CMD, toy)
    with pytest.raises(ValueError, match="check"):
        mut_text.run_mutants([m], [], toy)
    with pytest.raises(ValueError, match="timeout"):
        mut_text.run_mutants([m], CMD, toy, timeout=0)
    with pytest.raises(ValueError, match="not a directory"):
        mut_text.run_mutants([m], CMD, toy / "nope")


def test_mutant_defaults():
    m = Mutant("l", "f.py", "a", "b")
    assert m.must_catch is True and m.tags == ()
    assert Mutant("l", "f.py", "a", "b", False, ["t"]).tags == ("t",)


def test_run_and_report(toy, tmp_path, capsys):
    ms = [Mutant("minus", "toy/mod.py", "return a + b", "return a - b")]
    rc = command.run_and_report(ms, CMD, toy, json_path=tmp_path / "r.json", timeout=20, jobs=2)
    assert rc == 0
    out = capsys.readouterr().out
    assert "score: 1/1 caught (100.0%)" in out and "PASS" in out
    assert json.loads((tmp_path / "r.json").read_text())["exit_code"] == 0


def test_classification_rule():
    """Caught only when the check reports a problem; the rest in their own columns."""
    c = mut_text.classify_output
    assert c(1, "x\nPROBLEM wrong answer\n") == "caught"
    assert c(1, "REFUSED builder: no\nPROBLEM wrong answer\n") == "caught"
    assert c(1, "REFUSED builder: no\n") == "refused"
    assert c(1, "Traceback (most recent call last):\n  ...\nValueError: x\n") == "crashed"
    assert c(2, "") == "crashed"
    assert c(1, "a PROBLEM in the middle of a line\n") == "crashed"
    assert c(None, "PROBLEM late") == "timed out"
    assert c(0, "check: 0 problem(s)\n") == "survived"


def test_pool_order_slots_and_errors():
    import threading
    active, seen = set(), []
    lock = threading.Lock()

    def judge(item, slot):
        with lock:
            assert slot not in active            # one item at a time per slot
            active.add(slot)
            seen.append(slot)
        time.sleep(0.05 * (item % 3))
        with lock:
            active.discard(slot)
        return item * 10

    calls = []
    out = pool.run_pool(range(9), judge, jobs=3, on_result=lambda i, r, n: calls.append((i, r, n)))
    assert out == [i * 10 for i in range(9)]
    assert set(seen) == {0, 1, 2}
    assert sorted(c[0] for c in calls) == list(range(9)) and [c[2] for c in calls] == list(range(1, 10))

    def bad(item, slot):
        raise RuntimeError(f"judge broke on {item}")

    with pytest.raises(RuntimeError, match="judge broke"):
        pool.run_pool([1, 2], bad, jobs=2)


def test_summary_table_has_every_column():
    R = outcomes.Result
    groups = {"a": [R("1", "f", "caught", hang=True), R("2", "f", "crashed"), R("3", "f", "incompetent")],
              "b": [R("4", "f", "caught"), R("5", "f", "equivalent"), R("6", "f", "timed out"),
                    R("7", "f", "survived")]}
    text = mut_report.format_summary(groups, "module")
    head, a, b, tot = text.splitlines()
    for col in ("total", "caught", "hang", "survived", "crashed", "refused", "timed out",
                "incompetent", "equivalent", "bad anchor", "score"):
        assert col in head
    assert a.split() == ["a", "3", "1", "1", "0", "1", "0", "0", "1", "0", "0", "50.0%"]
    assert b.split() == ["b", "4", "1", "0", "1", "0", "0", "1", "0", "1", "0", "33.3%"]
    assert tot.split() == ["all", "7", "2", "1", "1", "1", "0", "1", "1", "1", "0", "40.0%"]
    with pytest.raises(ValueError, match="unknown status"):
        R("x", "f", "killed")


def test_the_cache_folder_is_linked_not_copied(tmp_path):
    """The project's .cache (SmolLM2's 600 MB) is a link in a mutant's copy, to the
    project's own; removing the copy removes the link only."""
    root = tmp_path / "proj"
    (root / ".cache" / "smollm2").mkdir(parents=True)
    (root / ".cache" / "smollm2" / "weights.f32").write_bytes(b"\1" * 64)
    (root / "a.py").write_text("X = 1\n")
    dest = tmp_path / "copy"
    tree.copy_project(root, dest)
    assert (dest / ".cache").is_symlink() and (dest / ".cache").resolve() == (root / ".cache").resolve()
    assert (dest / ".cache" / "smollm2" / "weights.f32").read_bytes() == b"\1" * 64
    assert (dest / "a.py").read_text() == "X = 1\n" and not (dest / "a.py").is_symlink()
    shutil.rmtree(dest)
    assert (root / ".cache" / "smollm2" / "weights.f32").read_bytes() == b"\1" * 64
