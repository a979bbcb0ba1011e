"""Co-simulation of the whole chip against the reference, on Icarus and Verilator.

Seeded random valid programs (tb/stimulus/randprog.py) run in a few batched simulator calls;
every program must match the reference Machine bit for bit and cycle for cycle (ext
memory, the six counters, done/error and the retire trace), with no x/z on Icarus.
The counters and trace are also checked against the program's schedule
(model/timing.py, computed from the program alone, without executing it). And the
comparison itself is shown to fail on a perturbed reference, naming the diverging pc.
"""
import itertools

import numpy as np
import pytest

from model import config, isa, timing
from model.machine import Result
from tb import hw
from tb.stimulus import badprog, randprog
from tb.stimulus.demo import demo_programs

BATCHES = 1
# random programs per simulator: Verilator 80, Icarus (the 4-state run: x and z) the first
# 24 of the same seeds (make fuzz: thousands, both modes; test_bench_suite runs the mutation
# bench's programs too)
PER_BATCH = {"verilator": 80, "icarus": 24}
ACC_PROGRAMS = {"verilator": 50, "icarus": 25}      # with acc = 1 MMs: at least 6 on each
# the live driver's delivery (the same Python on either simulator): Verilator in make test,
# Icarus too in -m long
VERILATOR_IN_MAKE_TEST = [pytest.param("icarus", marks=pytest.mark.long), "verilator"]


def _report(results, pairs):
    bad = [(i, p) for i, p in enumerate(results) if not p.ok]
    lines = [f"{len(bad)} of {len(results)} programs differ"]
    for i, p in bad[:3]:
        lines.append(f"program {i}: {p.mismatch}\n{isa.disasm(pairs[i][0])}")
    return "\n".join(lines)


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_programs(sim, batch):
    pairs = randprog.random_programs(1000 + batch, PER_BATCH[sim])
    res = hw.run_programs(sim, pairs)
    assert len(res) == PER_BATCH[sim]
    assert all(p.ok for p in res), _report(res, pairs)
    for (prog, _), p in zip(pairs, res):
        assert p.done and not p.error and not p.timeout
        assert p.xz == "", f"x/z on {sim}: {p.xz}"
        s = timing.schedule(prog)                                   # no execution
        assert s.fault is None
        assert tuple(p.counters) == tuple(s.counters)
        assert p.trace == timing.trace(s)
        assert isinstance(p.ref, Result)


def test_random_programs_with_acc(sim):
    """Random programs whose MMs accumulate (acc = 1) half the time, in-order mode."""
    pairs = [(randprog.with_acc(prog, 7000 + i), img)
             for i, (prog, img) in enumerate(randprog.random_programs(3000, ACC_PROGRAMS[sim]))]
    n_acc = sum(isinstance(w, isa.Instr) and w.op == "MM" and w.acc for p, _ in pairs for w in p)
    assert n_acc >= 6, n_acc
    res = hw.run_programs(sim, pairs)
    assert all(p.ok for p in res), _report(res, pairs)
    for (prog, _), p in zip(pairs, res):
        s = timing.schedule(prog)
        assert p.done and not p.error and tuple(p.counters) == tuple(s.counters)


def test_small_ext_memory_edges():
    """A 64-word external memory (Icarus: one cheap build; DEFAULT and CH09 are the Configs
    co-simulated on both simulators): transfers hit its last word often and range faults
    are cheap to reach (valid and bad programs)."""
    sim = "icarus"
    cfg = config.DEFAULT.replace(ext_words=64)
    pairs = randprog.random_programs(77, 24, cfg=cfg)
    for code in (isa.ERR_EXT_RANGE, isa.ERR_SP_RANGE):
        for k in range(3):
            bad = badprog.bad_program(500 + 10 * code + k, code, cfg=cfg)
            pairs.append((bad.prog, bad.image))
    res = hw.run_programs(sim, pairs, cfg=cfg)
    assert all(p.ok for p in res), _report(res, pairs)
    assert all(p.ext.size == 64 for p in res)
    assert sum(bool(p.error) for p in res) == 6


def test_scratchpad_persists_between_programs(sim):
    """Program 2 stores what program 1 left in the scratchpad (start does not clear it)."""
    ext = config.DEFAULT.ext_words
    data = np.arange(-20, 20)
    p1 = [isa.build("LD", dst=3000, src=0, len=40), isa.build("HALT")]
    p2 = [isa.build("ST", src=3000, dst=100, len=40), isa.build("HALT")]
    res = hw.run_programs(sim, [(p1, data), (p2, None)])
    assert all(p.ok for p in res), [p.mismatch for p in res]
    assert list(res[1].ext[100:140]) == list(data)                   # numpy, not the Machine
    assert not res[1].ext[:100].any() and not res[1].ext[140:ext].any()


def test_two_jobs_in_one_call(sim):
    """run() keeps jobs apart in its result and runs them in order in one process."""
    a = randprog.random_programs(5, 3)
    b = randprog.random_programs(6, 2)
    res = hw.run(sim, [a, b])
    assert [len(j) for j in res] == [3, 2]
    assert all(p.ok for p in itertools.chain(*res))


def test_mm_against_numpy(sim):
    """MM tiles of every shape, both layouts, stored out and compared with numpy products."""
    rng = np.random.default_rng(3)
    pairs, expect = [], []
    for M, N, tb in itertools.product(range(1, 5), range(1, 5), (0, 1)):
        K = int(rng.integers(1, 40))
        A = rng.integers(-128, 128, size=(M, K))
        B = rng.integers(-128, 128, size=(K, N))
        lda, ldc = K + int(rng.integers(0, 3)), N + int(rng.integers(0, 3))
        ldb = (K if tb else N) + int(rng.integers(0, 3))
        sp_a = np.zeros(M * lda, dtype=np.int64)
        for i in range(M):
            sp_a[i * lda:i * lda + K] = A[i]
        Bst = B.T if tb else B
        sp_b = np.zeros(Bst.shape[0] * ldb, dtype=np.int64)
        for r in range(Bst.shape[0]):
            sp_b[r * ldb:r * ldb + Bst.shape[1]] = Bst[r]
        image = np.concatenate([sp_a, sp_b])
        prog = [isa.build("LD", dst=0, src=0, len=len(image)),
                isa.build("MM", dst=2000, A=0, B=len(sp_a), M=M, K=K, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc),
                isa.build("ST", src=2000, dst=1000, len=(M - 1) * ldc + N),
                isa.build("HALT")]
        pairs.append((prog, image))
        expect.append((A @ B, ldc))
    res = hw.run_programs(sim, pairs)
    for (C, ldc), p in zip(expect, res):
        M, N = C.shape
        got = np.array([[p.ext[1000 + i * ldc + j] for j in range(N)] for i in range(M)])
        assert (got == C).all()
        assert p.ok, p.mismatch


# ------------------------------------------------------------------ the comparison can fail
@pytest.fixture(scope="module")
def one_result():
    pairs = demo_programs()
    return pairs, hw.run_programs("icarus", pairs)


def test_trace_perturbation_is_reported(one_result):
    pairs, res = one_result
    p = res[0]
    assert p.ok and hw.compare(p.ref, p) == ""
    ref = p.ref
    k = 3
    pc, cyc = ref.trace[k]
    bad_trace = list(ref.trace)
    bad_trace[k] = (pc, cyc + 1)
    msg = hw.compare(Result(ref.ext, ref.sp, ref.counters, bad_trace), p)
    assert f"pc {pc} retired at cycle {cyc} on the chip, {cyc + 1} in the model" in msg
    bad_trace = list(ref.trace)[:-1]
    msg = hw.compare(Result(ref.ext, ref.sp, ref.counters, bad_trace), p)
    assert "retired 7 instructions, the model 6" in msg


def test_counter_and_ext_perturbation_is_reported(one_result):
    pairs, res = one_result
    p = res[0]
    ref = p.ref
    c = ref.counters._replace(dma=ref.counters.dma + 1)
    assert hw.compare(Result(ref.ext, ref.sp, c, ref.trace), p) == \
        f"counter dma {ref.counters.dma} vs {ref.counters.dma + 1}"
    ext = ref.ext.copy()
    ext[300] += 1
    msg = hw.compare(Result(ext, ref.sp, ref.counters, ref.trace), p)
    assert msg == f"ext[300] = {p.ext[300]} vs {p.ext[300] + 1}"
    raw = p._asdict()
    raw["xz"] = "ext[5]"
    assert "x/z" in hw.compare(ref, raw)
    # any access outside a memory is a chip bug (every range is checked before the memories)
    for key, what in (("imem", "instruction-memory reads"), ("ext_rd", "external-memory reads"),
                      ("ext_wr", "external-memory writes")):
        raw = p._asdict()
        raw["oob"] = dict(p.oob, **{key: 2})
        assert hw.compare(ref, raw) == f"2 {what} outside the memory"


def test_read_count_perturbation_is_reported(one_result):
    """The scratchpad words read (the harness's count of enabled read ports) equal the
    reference's (func.sp_reads over the executed instructions); compare() names both
    counts when they differ, and judges nothing when either side has no count."""
    pairs, res = one_result
    # demo program 0: MM 4x4 K=4 (32), MM M=3 K=4 N=2 (20), RQ 16, SM 2*16, ST 64; LD 0
    # program 1: ST 8 + ST 16
    assert [p.sp_reads for p in res] == [p.ref.sp_reads for p in res] == [164, 24]
    p = res[0]
    ref = p.ref
    bad = Result(ref.ext, ref.sp, ref.counters, ref.trace, ref.sp_reads + 1)
    assert hw.compare(bad, p) == ("scratchpad reads: the chip read 164 words, the model's "
                                  "executed instructions read 165 (model/func.py sp_reads)")
    assert hw.compare(Result(ref.ext, ref.sp, ref.counters, ref.trace), p) == ""
    assert hw.compare(bad, dict(p._asdict(), sp_reads=None)) == ""


# ------------------------------------------------------------------ x/z detection and bad input
def test_xz_in_raw_outputs_is_detected(tmp_path):
    """x/z in the wrapper's dumps (as Icarus writes them) are reported, never read as 0 silently."""
    ext = 8
    (tmp_path / "status.txt").write_text(
        "done 1 error 0 code 0 pc 0000 cycles 0000000x mm 00000000 dma 00000000 vec 00000000 "
        "instret 00000001 fetch 00000001 timeout 0 wall 00000001 imem_oob 00000000 ext_rd_oob 00000000 "
        "ext_wr_oob 00000000 xz 00000000\n")
    (tmp_path / "trace.txt").write_text("0000 0000000z\n")
    (tmp_path / "ext_out.hex").write_text("// 0x00000000\n" + "00000001\n" * 5 + "0000x000\n" + "ffffffff\n" * 2)
    raw = hw.read_raw(tmp_path, ext)
    assert "cycles" in raw["xz"] and "trace" in raw["xz"] and "ext[5]" in raw["xz"]
    assert list(raw["ext"][:5]) == [1] * 5 and list(raw["ext"][6:]) == [-1, -1]
    ref = Result(np.array([1] * 5 + [0, -1, -1]), None, isa.Counters(2, 0, 0, 0, 1, 1), [(0, 2)])
    assert hw.compare(ref, raw).startswith("x/z on the chip")


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="sim must be"):
        hw.run("modelsim", [[]])
    halt = [isa.build("HALT")]
    n_ext = config.DEFAULT.ext_words
    # each refused before anything is simulated, naming the job, the program and the item
    for jobs, msg in [
        ([[(halt, np.zeros(n_ext + 1, dtype=np.int64))]],
         r"job 0 program 0: external memory image of 4097 words larger"),
        ([[(halt * (config.DEFAULT.imem_depth + 1), None)]], r"1025 instructions exceeds the instruction memory"),
        ([[(halt, None), (halt + [1 << 128], None)]], r"job 0 program 1: instruction 1: word 0x1(0)+ outside"),
        ([[(halt + [-1], None)]], r"instruction 1: word -0x1 outside"),
        ([[(halt + [np.int64(6)], [np.int32(5), np.uint32(7)])]], None),        # numpy ints are fine
        ([[(halt, [0, 1 << 32])]], r"external memory image word 1 = 4294967296 does not fit 32 bits"),
        ([[(halt, [0.5])]], r"word 0 = 0\.5 is not an integer"),
        ([[(halt, np.ones(3))]], r"dtype float64: integer words only"),
        ([[(halt, [1 << 70])]], r"does not fit 32 bits"),
        ([[(halt, None, np.zeros(config.DEFAULT.sp_words + 1, dtype=np.int64))]], r"scratchpad image of 4097 words"),
    ]:
        if msg is None:
            hw.prepare_jobs(jobs, config.DEFAULT)       # accepted
            continue
        with pytest.raises(ValueError, match=msg):
            hw.run("icarus", jobs)
    with pytest.raises(ValueError, match="expected \\(prog, image\\)"):
        hw.run("icarus", [[[isa.build("HALT")]]])


@pytest.mark.parametrize("sim", VERILATOR_IN_MAKE_TEST, indirect=True)
def test_outcomes_are_delivered_as_they_land(sim):
    """hw.run's on_outcome: every program's outcome once, in program order, before run
    returns, with the memory the judged result has; a callback's exception reaches the caller."""
    pairs = randprog.random_programs(77, 5)
    seen = []
    res = hw.run_programs(sim, pairs, on_outcome=lambda k, raw: seen.append((k, np.array(raw["ext"]))))
    assert [k for k, _ in seen] == list(range(len(pairs)))
    for (_, ext), p in zip(seen, res):
        assert p.ok and np.array_equal(ext, p.ext)

    def boom(k, raw):
        raise RuntimeError(f"callback broke at {k}")
    with pytest.raises(RuntimeError, match="callback broke at 0"):
        hw.run_programs(sim, pairs[:2], on_outcome=boom)


@pytest.mark.parametrize("sim", VERILATOR_IN_MAKE_TEST, indirect=True)
def test_an_outcome_is_delivered_while_the_simulator_runs(sim):
    """Program 0's outcome reaches on_outcome before program 1 has started: the chip idles
    GAP cycles before program 1's start (a second or more on either simulator), and the
    callback sees no status file of program 1 in this run's directory yet."""
    import glob
    import os

    from tb import ROOT, protocol
    gap = 3_000_000 if sim == "verilator" else 60_000
    (p0, i0), (p1, i1) = randprog.random_programs(78, 2)
    seen = {}
    pattern = str(ROOT / "build" / "*" / "runs" / f"{os.getpid()}-*" / protocol.program_file(".", 1, "status").name)
    before = set(glob.glob(pattern))          # earlier runs' directories kept by this process

    def landed(k, raw):
        seen.setdefault(k, sorted(set(glob.glob(pattern)) - before))
    res = hw.run_programs(sim, [hw.Item(p0, i0), hw.Item(p1, i1, gap=gap)], on_outcome=landed)
    assert all(p.ok for p in res) and sorted(seen) == [0, 1]
    assert seen[0] == [], "program 0's outcome was handed over only after program 1 had ended"
    assert seen[1] != []


@pytest.mark.parametrize("sim", VERILATOR_IN_MAKE_TEST, indirect=True)
def test_live_chooses_each_program_after_the_last_outcome(sim):
    """hw.Live: program k + 1 is written for the simulator only after program k's judged
    outcome is back (here its image is built from that outcome's memory, as a host's next
    step is), and the results equal hw.run's of the same sequence."""
    from tb import protocol
    pairs = randprog.random_programs(79, 3)
    got, images = [], []
    with hw.Live(sim) as live:
        for i, (p, img) in enumerate(pairs):
            assert not protocol.program_file(live.run_dir, i, "go").exists()
            image = np.array(img) if i == 0 else np.array(got[-1].ext) ^ np.array(img)
            images.append(image)
            got.append(live.run(hw.Item(p, image)))
            assert got[-1].ok
    ref = hw.run_programs(sim, [(p, im) for (p, _), im in zip(pairs, images)])
    for g, r in zip(got, ref):
        assert r.ok and np.array_equal(g.ext, r.ext) and g.counters == r.counters and g.trace == r.trace


def test_live_driver_gives_up_on_a_quiet_host():
    """A host that goes quiet past idle_limit without ending the run: the driver ends the
    simulation, and the next program is a fault of the run, never a result of the chip."""
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    import time
    (p0, i0), (p1, i1) = randprog.random_programs(80, 2)
    with pytest.raises(hw.SimulatorFault, match="program 1"):
        with hw.Live("verilator", idle_limit=1) as live:
            assert live.run(hw.Item(p0, i0)).ok
            time.sleep(2.5)
            live.run(hw.Item(p1, i1))
    import shutil
    shutil.rmtree(live.run_dir, ignore_errors=True)      # kept by the failing run: not needed here


@pytest.mark.parametrize("bound", [True, False])
def test_live_simulator_ends_when_its_host_is_gone(bound):
    """A host killed mid-run (here: os._exit after one program) leaves no simulator
    behind: the simulator dies with its host (tb/sim/build.py parent_bound) or, without
    that (GA2_PARENT_BOUND=0), the live driver sees the host's process gone and ends the
    simulation itself."""
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path
    code = ("import os\nfrom tb import hw\nfrom tb.stimulus import randprog\n"
            "(p, i), = randprog.random_programs(81, 1)\n"
            "live = hw.Live('verilator'); live.start()\nassert live.run(hw.Item(p, i)).ok\n"
            "print(live.run_dir, flush=True)\nos._exit(0)\n")
    env = dict(os.environ, GA2_PARENT_BOUND="1" if bound else "0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    run_dir = Path(out.stdout.strip().splitlines()[-1])
    log = run_dir / "sim.log"

    def simulators():               # processes still running in the run's directory
        pids = []
        for d in Path("/proc").iterdir():
            try:
                if d.name.isdigit() and os.readlink(d / "cwd") == str(run_dir) and \
                        "Z" not in (d / "status").read_text().split("\n")[2]:
                    pids.append(int(d.name))
            except OSError:
                pass
        return pids
    t0 = time.time()
    while time.time() - t0 < 30 and simulators():
        time.sleep(0.2)
    assert not simulators(), "a simulator outlived its host"
    if not bound:
        assert "host gone or idle" in log.read_text()
    import shutil
    shutil.rmtree(run_dir, ignore_errors=True)
