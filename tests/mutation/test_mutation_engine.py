"""tools/mutation/engine.py on a toy project generated in tmp: every outcome and the exit rule.

The toy: toy/mod.py (add, hook, a constant nobody checks, a line written twice) and
check.py (exit 0 when add works). Mutants: caught, survived (must and may), bad anchors
(missing, not unique, missing file, no-op), a hang (timed out, its process group killed).
"""
import json
import os
import sys
import textwrap
import time

import pytest

from tools.mutation import engine as mutation
from tools.mutation.engine import Mutant

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
    mod.hook()
    sys.exit(0 if mod.add(2, 3) == 5 else 3)
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
        Mutant("equivalent", "toy/mod.py", "UNUSED = 1", "UNUSED = 2", must_catch=False,
               tags=("equiv",)),
        Mutant("missing", "toy/mod.py", "return a * b", "return a"),
        Mutant("not unique", "toy/mod.py", "# twice", "# once"),
        Mutant("no file", "toy/nope.py", "x", "y"),
        Mutant("no-op", "toy/mod.py", "return a + b", "return a + b"),
        Mutant("hang", "toy/mod.py", "def hook():\n    return None", HANG),
    ]
    t0 = time.monotonic()
    res = mutation.run_mutants(ms, CMD, toy, timeout=3, jobs=2)
    wall = time.monotonic() - t0
    assert [r.label for r in res] == [m.label for m in ms]
    r = by_label(res)
    assert r["minus"].status == "caught" and r["minus"].returncode == 3 and r["minus"].caught
    assert r["crash"].status == "caught" and "boom" in r["crash"].detail
    assert r["equivalent"].status == "not caught" and not r["equivalent"].caught
    assert r["equivalent"].tags == ("equiv",) and r["equivalent"].problem is None
    assert r["missing"].status == "bad anchor" and "not found" in r["missing"].detail
    assert r["not unique"].status == "bad anchor" and "2 times" in r["not unique"].detail
    assert r["no file"].status == "bad anchor" and "not found" in r["no file"].detail
    assert r["no-op"].status == "bad anchor" and "changes nothing" in r["no-op"].detail
    assert r["hang"].status == "timed out" and r["hang"].returncode is None and r["hang"].caught
    assert 3 <= r["hang"].seconds < 10 and wall < 12
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
    # bad anchors fail the run even though every must_catch mutant was caught
    assert mutation.exit_code(res) == 1
    assert sorted(p.split(":")[1].strip() for p in mutation.failures(res)) == \
        ["missing", "no file", "no-op", "not unique"]
    s = mutation.score(res)
    assert (s["total"], s["caught"], s["timed_out"], s["not_caught"], s["bad_anchor"]) == (8, 2, 1, 1, 4)
    assert s["score"] == pytest.approx(3 / 4)
    text = mutation.print_table(res)
    assert capsys.readouterr().out.strip() == text.strip()
    assert "score: 3/4 caught (75.0%)" in text and "BAD ANCHOR" in text
    out = mutation.write_json(tmp_path / "o" / "mut.json", res, {"check": "toy"})
    doc = json.loads(out.read_text())
    assert doc["check"] == "toy" and doc["exit_code"] == 1 and doc["score"]["killed"] == 3
    assert [d["status"] for d in doc["results"]] == [x.status for x in res]
    assert doc["results"][0]["caught"] is True and doc["results"][2]["tags"] == ["equiv"]
    # the other argument order works too
    mutation.write_json(res, tmp_path / "swapped.json")
    assert json.loads((tmp_path / "swapped.json").read_text())["score"] == doc["score"]


def test_exit_code_rule(toy):
    caught = Mutant("minus", "toy/mod.py", "return a + b", "return a - b")
    may = Mutant("equivalent", "toy/mod.py", "UNUSED = 1", "UNUSED = 2", must_catch=False)
    must = Mutant("must", "toy/mod.py", "UNUSED = 1", "UNUSED = 3")
    res = mutation.run_mutants([caught, may], CMD, toy, timeout=20, jobs=2)
    assert [x.status for x in res] == ["caught", "not caught"]
    assert mutation.exit_code(res) == 0 and mutation.failures(res) == []
    res = mutation.run_mutants([caught, must], CMD, toy, timeout=20, jobs=2)
    assert mutation.exit_code(res) == 1
    assert mutation.failures(res) == ["survived (must be caught): must"]


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
    res = mutation.run_mutants(ms, check, toy, timeout=20, jobs=5, tmp_root=tmp_path)
    wall = time.monotonic() - t0
    assert all(x.status == "not caught" for x in res)
    assert sum(x.seconds for x in res) >= 4.0
    assert wall < 3.5, f"5 checks of >= 1 s each on 5 jobs took {wall:.1f} s"
    assert sorted(lab or "" for _, lab in seen) == ["", "m0", "m1", "m2", "m3"]
    assert not any(os.path.exists(d) for d, _ in seen)          # copies removed
    assert not list(tmp_path.glob("ga2mut_*"))


def test_baseline_failure_raises(toy):
    (toy / "check.py").write_text("import sys; sys.exit(1)\n")
    with pytest.raises(mutation.BaselineError, match="fails on the unmutated project"):
        mutation.run_mutants([Mutant("x", "toy/mod.py", "UNUSED = 1", "UNUSED = 2")], CMD, toy,
                             timeout=20, jobs=2)


def test_bad_arguments(toy):
    m = Mutant("x", "toy/mod.py", "UNUSED = 1", "UNUSED = 2")
    with pytest.raises(ValueError, match="duplicate"):
        mutation.run_mutants([m, m], CMD, toy)
    with pytest.raises(ValueError, match="check"):
        mutation.run_mutants([m], [], toy)
    with pytest.raises(ValueError, match="timeout"):
        mutation.run_mutants([m], CMD, toy, timeout=0)
    with pytest.raises(ValueError, match="not a directory"):
        mutation.run_mutants([m], CMD, toy / "nope")


def test_mutant_defaults():
    m = Mutant("l", "f.py", "a", "b")
    assert m.must_catch is True and m.tags == ()
    assert Mutant("l", "f.py", "a", "b", False, ["t"]).tags == ("t",)


def test_run_and_report(toy, tmp_path, capsys):
    ms = [Mutant("minus", "toy/mod.py", "return a + b", "return a - b")]
    rc = mutation.run_and_report(ms, CMD, toy, json_path=tmp_path / "r.json", timeout=20, jobs=2)
    assert rc == 0
    out = capsys.readouterr().out
    assert "score: 1/1 caught (100.0%)" in out and "PASS" in out
    assert json.loads((tmp_path / "r.json").read_text())["exit_code"] == 0
