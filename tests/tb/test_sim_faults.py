"""Faults of the run itself: a simulator that crashes, is killed, hangs or leaves its result
files torn is a SimulatorFault naming the job, the program and how the process ended --
never a pass, never a mismatch of the chip. No real simulator runs: cocotb's runner is
given a fake simulator (tests/tb/fake_sim.py) in place of vvp, and the build is skipped.
Also the soak's and the mutation runs' journals (--resume) and the mutation engine's
report of a check killed by a signal."""
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from model import isa
from tb import protocol
from tb.sim import build as sim_build
from tb.sim import process as sim_process
from tb.sim import run as sim_run

FAKE = Path(__file__).with_name("fake_sim.py")
HALT = [isa.build("HALT")]


# ------------------------------------------------------------------ the process itself
def _py(code):
    return [sys.executable, "-c", code]


def test_run_process_reports_exit_code_signal_and_hang(tmp_path):
    p = sim_process.run_process(_py("import sys; sys.exit(3)"))
    assert (p.returncode, p.signal, p.hung) == (3, None, False) and sim_process.describe(p) == "exit code 3"
    p = sim_process.run_process(_py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
    assert (p.returncode, p.signal, p.hung) == (None, signal.SIGSEGV, False)
    assert sim_process.describe(p) == "killed by signal 11 (SIGSEGV)"
    pidfile = tmp_path / "grandchild"
    t0 = time.monotonic()
    p = sim_process.run_process(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], wall_limit=0.5)
    assert p.hung and p.returncode is None and time.monotonic() - t0 < 20
    assert "no end after" in sim_process.describe(p)
    gpid = int(pidfile.read_text())
    for _ in range(100):                       # the whole process group went with it
        try:
            if Path(f"/proc/{gpid}/stat").read_text().split(")")[-1].split()[0] in "ZX":
                break                          # dead, not yet reaped by init
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the simulator's child {gpid} outlived the hang")


# ------------------------------------------------------------------ outcome files
def _status(path, keys=protocol.STATUS_KEYS):
    path.write_text(" ".join(f"{k} 0" for k in keys) + "\n")


def test_a_torn_or_missing_status_is_no_outcome(tmp_path):
    status = protocol.program_file(tmp_path, 0, "status")
    assert protocol.outcome_problem(tmp_path, 0) == f"no {status.name}"
    _status(status)
    assert protocol.outcome_problem(tmp_path, 0) == ""
    text = status.read_text()
    for cut in (1, 3, len(text) // 2, len(text) - 1):
        status.write_text(text[:cut])
        assert "torn" in protocol.outcome_problem(tmp_path, 0), cut
    status.write_text(text.replace("cycles 0", "cycles 0#"))
    assert "not hex" in protocol.outcome_problem(tmp_path, 0)


# ------------------------------------------------------------------ a whole run, fake simulator
@pytest.fixture
def fake_sim(monkeypatch, tmp_path):
    """Make tb.sim.run.run use the fake simulator: returns set(mode, k) to choose its fault."""
    from cocotb_tools import runner as cr
    bdir = tmp_path / "build"
    bdir.mkdir()
    monkeypatch.setattr(sim_run, "build", lambda *a, **k: bdir)
    monkeypatch.setattr(cr.Icarus, "_simulator_in_path", staticmethod(lambda: None))
    choice = {"mode": "ok", "k": -1}

    def test_command(self):
        return [[sys.executable, str(FAKE), choice["mode"], str(choice["k"]), str(self._ext_words),
                 ",".join(protocol.STATUS_KEYS)]]
    monkeypatch.setattr(cr.Icarus, "_test_command", test_command)
    monkeypatch.setattr(cr.Icarus, "_ext_words", 4096, raising=False)

    def set_(mode, k=-1):
        choice.update(mode=mode, k=k)
    return set_


JOBS = [[(HALT, None), (HALT, None)], [(HALT, None), (HALT, None), (HALT, None)]]   # 5 programs


@pytest.mark.parametrize("mode, k, kind, where, how", [
    ("segv", 3, "crashed", "job 1, program 1 (program 3 of 5", "killed by signal 11 (SIGSEGV)"),
    ("kill", 0, "killed", "job 0, program 0 (program 0 of 5", "killed by signal 9 (SIGKILL)"),
    ("exit", 2, "crashed", "job 1, program 0 (program 2 of 5", "exit code 1"),
    ("quiet", 4, "stopped early", "job 1, program 2 (program 4 of 5", "exit code 0; no {status}"),
    ("torn", 1, "stopped early", "job 0, program 1 (program 1 of 5", "{status} torn"),
    ("after", -1, "crashed", "job 1, after its last program (5 programs", "killed by signal 11 (SIGSEGV)"),
])
def test_a_simulator_fault_names_the_job_and_the_program(fake_sim, mode, k, kind, where, how):
    fake_sim(mode, k)
    with pytest.raises(sim_run.SimulatorFault) as e:
        sim_run.run("icarus", JOBS, wall_limit=60)
    msg = str(e.value)
    how = how.format(status=protocol.program_file(".", k, "status").name)
    assert msg.startswith(f"simulator {kind}: {where}") and how in msg, msg
    assert "icarus: python" in msg and e.value.sim == "icarus"


def test_a_design_check_that_stops_the_simulation_is_the_chips_failure(fake_sim):
    """A $error of the design (the missed-hazard check) ends the run early: DesignAssertion,
    a result of the chip, not a SimulatorFault (tests/tb/test_overlap_cosim.py relies on it)."""
    fake_sim("assert", 3)
    with pytest.raises(sim_run.DesignAssertion) as e:
        sim_run.run("icarus", JOBS, wall_limit=60)
    assert not isinstance(e.value, sim_run.SimulatorFault)
    assert "stopped before program 3 (job 1, program 1)" in str(e.value) and "missed hazard" in str(e.value)


def test_a_hung_simulator_is_killed_and_named(fake_sim):
    fake_sim("hang", 2)
    t0 = time.monotonic()
    with pytest.raises(sim_run.SimulatorFault) as e:
        sim_run.run("icarus", JOBS, wall_limit=1.5)
    assert time.monotonic() - t0 < 30
    assert str(e.value).startswith("simulator hung: job 1, program 0") and "no end after" in str(e.value)


def test_a_simulator_that_ends_normally_gives_results_not_a_fault(fake_sim):
    """The same fake writing every outcome and exiting 0: judged (all-zero status: the
    chip did nothing, so every program is a MISMATCH, a result of the chip)."""
    fake_sim("ok")
    res = sim_run.run("icarus", JOBS, wall_limit=60, keep=False)
    assert [len(j) for j in res] == [2, 3]
    assert all(not p.ok and p.mismatch for j in res for p in j)


def test_the_default_wall_limit_follows_the_cycle_budget(monkeypatch):
    from model import config
    prepared = sim_run.prepare_jobs(JOBS, config.DEFAULT)
    monkeypatch.delenv("GA2_SIM_WALL", raising=False)
    assert sim_run.wall_limit_for(prepared, 10_000) == sim_run.WALL_BASE + 5 * 10_000 / sim_run.MIN_RATE
    monkeypatch.setenv("GA2_SIM_WALL", "0")
    assert sim_run.wall_limit_for(prepared, 10_000) is None
    monkeypatch.setenv("GA2_SIM_WALL", "soon")
    with pytest.raises(ValueError, match="GA2_SIM_WALL"):
        sim_run.wall_limit_for(prepared, 10_000)


def test_ga2_run_exits_4_on_a_simulator_fault(monkeypatch, tmp_path, capsys):
    from tb import hw
    from tools import ga2
    prog = tmp_path / "p.s"
    prog.write_text("HALT\n")

    def crash(*a, **k):
        raise sim_run.SimulatorFault("icarus", "vvp", 0, 0, 0, 1, sim_process.Process("vvp", None, 9, False, 1.0))
    monkeypatch.setattr(hw, "run_programs", crash)
    monkeypatch.setattr(hw, "available_sims", lambda: ["icarus", "verilator"])
    assert ga2.main(["run", str(prog), "--sim", "icarus"]) == 4
    out = capsys.readouterr().out
    assert "icarus: FAULT OF THE SIMULATOR, not a result of the chip: simulator killed: job 0, program 0" in out
    assert "MISMATCH" not in out and "killed by signal 9 (SIGKILL)" in out


# ------------------------------------------------------------------ the soak: faults and --resume
def fake_run_chunk(sim, seed, c, k, cfg):
    """soak.run_chunk's stand-in (module level: the soak's worker processes unpickle it):
    records the chunk in $FAKE_RECORD; chunk $FAKE_FAULT_CHUNK's simulator "crashes"."""
    with open(os.environ["FAKE_RECORD"], "a") as f:
        f.write(f"{c}\n")
    if str(c) == os.environ.get("FAKE_FAULT_CHUNK"):
        return (c, k, 0, 0, -1, "", f"chunk {c}: simulator crashed: job 0, program 7 (...): exit code 1")
    return (c, k, k, 100 * k + c, -1, "", "")


def _fake_chunk(record):
    os.environ["FAKE_RECORD"] = str(record)
    return fake_run_chunk


def test_soak_journal_resumes_where_it_stopped(monkeypatch, tmp_path):
    from tb import soak
    record, journal = tmp_path / "ran.txt", tmp_path / "journal.jsonl"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    monkeypatch.setattr(soak, "run_chunk", _fake_chunk(record))
    monkeypatch.setattr(soak, "build_stamp", lambda sim, cfg: "stamp-1")
    full = soak.soak("icarus", 10, seed=5, chunk=2, jobs=1, progress=False, journal=journal)
    assert sorted(int(x) for x in record.read_text().split()) == [0, 1, 2, 3, 4]
    lines = journal.read_text().splitlines()
    assert json.loads(lines[0]) == soak.JOURNAL_HEAD and len(lines) == 6
    # killed after two chunks, in the middle of writing the third line
    journal.write_text("\n".join(lines[:3]) + "\n" + lines[3][:25])
    record.write_text("")
    again = soak.soak("icarus", 10, seed=5, chunk=2, jobs=1, progress=False, journal=journal, resume=True)
    assert again == full
    assert sorted(len(e["result"]) for e in soak.read_journal(journal)) == [7] * 5
    ran = sorted(int(x) for x in record.read_text().split())
    assert len(ran) == 3 and set(ran) | {json.loads(x)["result"][0] for x in lines[1:3]} == {0, 1, 2, 3, 4}
    # another build (the design changed): nothing is resumed
    monkeypatch.setattr(soak, "build_stamp", lambda sim, cfg: "stamp-2")
    record.write_text("")
    soak.soak("icarus", 10, seed=5, chunk=2, jobs=1, progress=False, journal=journal, resume=True)
    assert len(record.read_text().split()) == 5


def test_soak_reports_a_faulted_chunk_apart_and_exits_4(monkeypatch, tmp_path, capsys):
    from tb import soak
    record, journal = tmp_path / "ran.txt", tmp_path / "journal.jsonl"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    monkeypatch.setattr(soak, "run_chunk", _fake_chunk(record))
    monkeypatch.setattr(soak, "build_stamp", lambda sim, cfg: "stamp-1")
    monkeypatch.setenv("FAKE_FAULT_CHUNK", "3")
    rc = soak.main(["--sim", "icarus", "--n", "10", "--chunk", "2", "--jobs", "1", "--journal", str(journal)])
    out = capsys.readouterr().out
    assert rc == soak.EXIT_FAULT == 4
    assert "FAULT icarus [inorder]: 8 programs, 0 mismatches" in out and "1 chunks not run to their end" in out
    assert "FAULT chunk 3: simulator crashed: job 0, program 7" in out and "PASS" not in out
    assert len(journal.read_text().splitlines()) == 1 + 4            # the faulted chunk is not journaled
    monkeypatch.delenv("FAKE_FAULT_CHUNK")
    record.write_text("")
    rc = soak.main(["--sim", "icarus", "--n", "10", "--chunk", "2", "--jobs", "1", "--journal", str(journal),
                    "--resume"])
    assert rc == 0 and record.read_text().split() == ["3"]            # only the faulted chunk ran again
    assert "PASS icarus [inorder]: 10 programs, 0 mismatches" in capsys.readouterr().out


# ------------------------------------------------------------------ the mutation engine
def _project(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "code.py").write_text("A = 1\nB = 2\nC = 3\n")
    (root / "pkg" / "check.py").write_text(
        "import os, signal, sys\nfrom pkg import code\n"
        "open(os.environ['RAN'], 'a').write(os.environ.get('GA2_MUTANT', '?') + '\\n')\n"
        "if code.C == 9:\n    os.kill(os.getpid(), signal.SIGKILL)\n"
        "if (code.A, code.B) != (1, 2):\n    print('PROBLEM', code.A, code.B)\n    sys.exit(1)\n")
    return root


def test_mutation_journal_resumes_and_a_killed_check_is_named(tmp_path, monkeypatch):
    from tb.mutation import journal as mut_journal
    from tb.mutation import outcomes
    from tb.mutation import text as mut_text
    root = _project(tmp_path)
    ran = tmp_path / "ran.txt"
    monkeypatch.setenv("RAN", str(ran))
    ms = [outcomes.Mutant("A off", "pkg/code.py", "A = 1", "A = 0"),
          outcomes.Mutant("B off", "pkg/code.py", "B = 2", "B = 3"),
          outcomes.Mutant("C killed", "pkg/code.py", "C = 3", "C = 9")]
    check = [sys.executable, "-m", "pkg.check"]
    jpath = tmp_path / "mut.journal.jsonl"
    j = mut_journal.open_journal(jpath, root, resume=False)
    first = mut_text.run_mutants(ms, check, root, timeout=60, jobs=1, journal=j)
    assert [r.status for r in first] == [outcomes.CAUGHT, outcomes.CAUGHT, outcomes.CRASHED]
    assert "killed by signal 9 (SIGKILL)" in first[2].detail and first[2].returncode == -9
    # the run killed after its first result: the journal holds it (and a torn line)
    lines = jpath.read_text().splitlines()
    assert len(lines) == 4
    jpath.write_text(lines[0] + "\n" + next(ln for ln in lines[1:] if '"A off"' in ln) + "\n" + lines[2][:30])
    ran.write_text("")
    j = mut_journal.open_journal(jpath, root, resume=True)
    again = mut_text.run_mutants(ms, check, root, timeout=60, jobs=1, journal=j)
    assert again == first or [r.status for r in again] == [r.status for r in first]
    assert sorted(ran.read_text().splitlines()) == sorted(["(baseline)", "B off", "C killed"])
    # the project changed since: the journal is another run's
    (root / "pkg" / "code.py").write_text("A = 1\nB = 2\nC = 3\nD = 4\n")
    with pytest.raises(ValueError, match="another run"):
        mut_journal.open_journal(jpath, root, resume=True)


def test_rtl_runner_resumes_from_its_journal(tmp_path, monkeypatch):
    """tb/mutation/rtl/runner.py run(): the sites the journal holds are not judged again."""
    from collections import namedtuple
    from types import SimpleNamespace

    from tb.mutation import journal as mut_journal
    from tb.mutation import outcomes
    from tb.mutation.rtl import runner, suite
    Site = namedtuple("Site", "file line start cls desc module")
    sites = [Site("ga2_sram.v", 10, 100, "nba", "removed mem[a] <= d", "ga2_sram"),
             Site("ga2_top.v", 20, 200, "cmp", "< -> <=", "ga2_top"),
             Site("ga2_top.v", 30, 300, "arith", "+ -> -", "ga2_top")]
    judged = []

    def judge(site, work, manifests, timeout, rtl_dir=None):
        judged.append(site.line if site else 0)
        status = outcomes.SURVIVED if site is None or site.line == 30 else outcomes.CAUGHT
        return outcomes.Result("(mutant 0)" if site is None else f"{site.file}:{site.line}", site.file if site else "",
                               status, True, (), None, 0.1, "", False,
                               {"module": site.module if site else None, "cls": site.cls if site else None,
                                "file": site.file if site else None, "line": site.line if site else None,
                                "change": "c", "check": "x", "compile_s": 0.0, "run_s": 0.0})
    monkeypatch.setattr(runner, "judge", judge)
    monkeypatch.setattr(runner, "equiv_key", lambda s, rtl: (s.file, s.cls, "code", "c"))
    monkeypatch.setattr(suite, "build_suite", lambda d, cfg=None, **kw: {"mode": "inorder", "nprog": 1, "rq_n": 0,
                                                                     "dv_n": 0, "total_cycles": 1, "programs": []})
    equiv = tmp_path / "equiv.txt"
    equiv.write_text("")
    jpath = tmp_path / "rtl.journal.jsonl"

    def args(resume):
        return SimpleNamespace(work=str(tmp_path / "w"), rtl=str(tmp_path), equiv=str(equiv), jobs=1, sample=0,
                               seed=1, verbose=False, out=str(tmp_path / "mut_rtl.json"), module=None,
                               classes=("nba", "cmp", "arith"), scheduler=None,
                               journal_log=mut_journal.Journal(jpath, {"design": "d"}, resume))
    assert runner.run(args(False), sites, {}) == 0
    assert sorted(judged) == [0, 10, 10, 20, 30]        # mutant 0, the known-bad one, then the three
    lines = jpath.read_text().splitlines()
    jpath.write_text("\n".join(lines[:2]) + "\n")      # killed after the first verdict
    judged.clear()
    assert runner.run(args(True), sites, {}) == 0
    assert len(judged) == 2 + 2                         # the two self-checks and the two not journaled
    data = json.loads((tmp_path / "mut_rtl.json").read_text())
    assert data["counts"]["total"] == 3 and data["counts"]["caught"] == 2


# ------------------------------------------------------------------ the applications
def _fault(*a, **k):
    raise sim_run.SimulatorFault("verilator", "Vtop", 2, 5, 9, 20, sim_process.Process("Vtop", 139, None, False, 3.0))


@pytest.mark.parametrize("app", ["serve", "score", "sweep", "bench_sim"])
def test_applications_report_a_simulator_fault_as_a_fault(app, monkeypatch, tmp_path, capsys):
    """serve, tools.lm.score, tools.lm.sweep and the simulation benchmark: a FAULT line and
    exit 4, not a FAIL or a traceback."""
    from tb import hw
    monkeypatch.setattr(hw, "available_sims", lambda: ["icarus", "verilator"])
    if app == "bench_sim":
        from tools.bench import bench_sim
        monkeypatch.setattr(bench_sim, "build_plain", lambda *a, **k: None)
        monkeypatch.setattr(bench_sim, "run_cocotb", _fault)
        rc = bench_sim.main(["--sim", "verilator", "--mode", "inorder", "--groups", "1"])
    elif app == "serve":
        from tools.serve import run as serve_run
        monkeypatch.setattr(serve_run, "serve", _fault)
        rc = serve_run.main(["--sim", "verilator", "--workload", "short", "--out", str(tmp_path)])
    elif app == "score":
        from tools.lm import score
        monkeypatch.setattr(score, "score", _fault)
        rc = score.main(["--sim", "verilator", "--n", "2"])
    else:
        from tools.lm import sweep
        monkeypatch.setattr(sweep, "measure", _fault)
        rc = sweep.main(["--sim", "verilator", "--ctx", "8", "--batch", "1"])
    out = capsys.readouterr().out
    assert rc == 4 and "FAULT" in out and "simulator crashed: job 2, program 5" in out and "exit code 139" in out
    assert "PASS" not in out and "FAIL" not in out


# ------------------------------------------------------------------ a tool that fails
def _shims(tmp_path):
    """iverilog, vvp, verilator and yosys that fail at once, first on PATH."""
    d = tmp_path / "shims"
    d.mkdir()
    for name in ("iverilog", "vvp", "verilator", "yosys"):
        (d / name).write_text(f"#!/bin/sh\necho '{name}: a failing shim' >&2\nexit 127\n")
        (d / name).chmod(0o755)
    return f"{d}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_a_failed_build_is_a_tool_fault_of_one_line(sim, tmp_path, monkeypatch):
    """A simulator's compiler that fails (here a shim in its place) raises ToolFault: one
    line naming the simulator, the tool's own words and its log -- not a bare RuntimeError
    with the log pasted in, and never a result of the chip."""
    monkeypatch.setenv("PATH", _shims(tmp_path))
    monkeypatch.setenv("GA2_VERILATOR", str(tmp_path / "shims" / "verilator"))   # .venv's is not on PATH
    with pytest.raises(sim_process.ToolFault) as e:
        from tb.sim import plain
        sim_build.build_binary(sim, plain.TOP, plain.BENCH, out_dir=tmp_path / "out")
    msg = str(e.value)
    assert "\n" not in msg and f"{sim} compile of tb_plain failed" in msg and "a failing shim" in msg
    assert e.value.log and Path(e.value.log).read_text().strip(), "the tool's output kept in its log"
    assert not isinstance(e.value, sim_run.SimulatorFault)
    assert issubclass(sim_run.SimulatorFault, sim_process.ToolFault)   # every simulator fault is a tool fault


def test_guard_ends_a_command_on_a_tool_fault_with_one_line_and_exit_4(capsys):
    """tb.cli.guard (every command's main guard): a ToolFault (a SimulatorFault too) is one
    FAULT line on stderr and exit 4; any other error propagates (a bug is not a fault of
    the tools)."""
    from tb import cli

    def fails():
        raise sim_process.ToolFault("yosys exit 1: ERROR: something", "/x/yosys.log")
    assert cli.guard(fails) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "FAULT: yosys exit 1: ERROR: something; log /x/yosys.log" in err[0]
    assert cli.guard(_fault) == 4 and "simulator crashed: job 2, program 5" in capsys.readouterr().err
    assert cli.guard(lambda: 3) == 3

    def bug():
        raise KeyError("a bug")
    with pytest.raises(KeyError):
        cli.guard(bug)


def test_every_command_runs_its_main_through_the_guard():
    """Each module with a main guard calls cli.guard: a tool that fails under any command
    is a FAULT line, not a traceback."""
    import re
    root = Path(__file__).resolve().parents[2]
    missing = [str(p.relative_to(root)) for top in ("model", "tb", "tools") for p in (root / top).rglob("*.py")
               for m in [re.search(r'^if __name__ == "__main__":\n((?:    .*\n?)+)', p.read_text(), re.M)]
               if m and not re.search(r"\bguard(ed_main)?\(", m.group(1))]
    assert not missing, missing


# ------------------------------------------------------------------ a run killed itself
def _alive(pid):
    """True while pid runs (a zombie, dead but not yet reaped by init, is not alive)."""
    try:
        return "Z" not in Path(f"/proc/{pid}/status").read_text().split("\n")[2]
    except (FileNotFoundError, ProcessLookupError, IndexError):    # gone between the open and the read
        return False


@pytest.mark.parametrize("spawner", ["run_check", "run_process"])
def test_a_killed_run_leaves_no_check_or_simulator_running(spawner, tmp_path):
    """The mutation runs' checks (tb.mutation.text.run_check) and the simulators
    (tb.sim.process.run_process) die with the process that started them, even when it is
    killed outright (SIGKILL: nothing of it runs to clean up)."""
    pidfile = tmp_path / "child.pid"
    child = [sys.executable, "-c",
             f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(60)"]
    call = ("from tb.mutation import text; text.run_check(%r, '/', 100)" if spawner == "run_check"
            else "from tb.sim import process; process.run_process(%r)") % (child,)
    runner = __import__("subprocess").Popen([sys.executable, "-c", call])
    t0 = time.monotonic()
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() - t0 < 30, "the child never started"
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    assert _alive(pid)
    runner.kill()
    runner.wait()
    t0 = time.monotonic()
    while _alive(pid) and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    alive = _alive(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"{spawner}: its child outlived the killed run"
