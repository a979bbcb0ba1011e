"""The host contract of ga2_top (docs/host.md) on Icarus and Verilator.

Through the cocotb wrapper (hw.run with Items): after reset and until the first start
every host output is 0; a reset while busy leaves the chip as after reset and the next
program runs exactly as the reference; back-to-back starts (in the first cycle done is
seen high, and in the cycle after) run exactly as the reference, and done and the
counters hold until the next start. Each check is shown to fail on a broken copy of the
RTL (Icarus, compiled in a tmp dir) or on a perturbed expectation.

The per-cycle rules (docs/host.md: counter and done timing, hold after
done, no memory access while idle, the reset state in every cycle until the first start,
error_code = error_pc = 0 while error = 0, retire only in a run with retire_cycle =
cycles + 1, the event counters 0 in a run's first cycle) are monitored by the harness on
EVERY co-simulated program and judged by compare(); here contract_jobs() runs every idle situation on both
simulators, and BROKEN lists one broken chip per rule (done a cycle late, ext_en or imem_en high while idle, an
instret blip right after reset, error_pc left stale by a start, retire while idle, the
cycle counter counting while done, the MM counter one cycle late so a new run starts with
the old count), each shown to make its monitor fire. The harness also counts the
scratchpad words each run reads (every enabled read port, every cycle), which compare()
holds against the count the instruction set implies (model/func.py sp_reads): an mm_ctrl
that feeds a row it never drains computes the right results and fails only there.
"""

import numpy as np
import pytest

from model import config, isa, timing
from tb import hw
from tb import judge as compare
from tb.judge import HOST_OUTPUTS, MONITORS
from tb.sim.files import copy_rtl
from tb.stimulus.demo import demo_programs

CFG = config.DEFAULT
ZERO = dict.fromkeys(HOST_OUTPUTS, 0)


def b(op, **f):
    return isa.build(op, cfg=CFG, **f)


def _program():
    """LD, MM, RQ, SM, ST reading only scratchpad words it wrote itself, and its image."""
    img = np.random.default_rng(5).integers(-128, 128, size=64)
    prog = [b("LD", dst=0, src=0, len=64),
            b("MM", dst=100, A=0, B=16, M=4, K=8, N=4, tb=0, lda=8, ldb=4, ldc=4),
            b("RQ", dst=200, src=100, len=16, m=20000, s=12),
            b("SM", dst=300, src=200, len=6),
            b("ST", src=100, dst=1000, len=26),
            b("ST", src=300, dst=1200, len=6),
            b("HALT")]
    return prog, img


def _partial():
    """MMs with M, N < ARRAY (rows >= M and columns >= N of the array read nothing), one
    accumulating (it reads the M*N old C words), on words the program loads; its image."""
    img = np.random.default_rng(11).integers(-128, 128, size=48)
    prog = [b("LD", dst=0, src=0, len=48),
            b("MM", dst=100, A=0, B=16, M=2, K=5, N=3, tb=0, lda=5, ldb=3, ldc=3),
            b("MM", dst=100, A=0, B=32, M=3, K=4, N=1, tb=1, lda=4, ldb=4, ldc=1, acc=1),
            b("ST", src=100, dst=1000, len=6),
            b("HALT")]
    return prog, img


def _reader():
    """A program whose result depends on the whole scratchpad region it stores."""
    return [b("MM", dst=3000, A=500, B=600, M=4, K=16, N=4, tb=1, lda=16, ldb=16, ldc=4),
            b("ST", src=500, dst=2000, len=200), b("ST", src=3000, dst=2300, len=16), b("HALT")]


def _cuts(prog):
    """Cycle counts that cut prog in the middle of each unit's busy time."""
    events = timing.schedule(prog, CFG).events
    return [e.start + ((e.end - e.start + 1) * 3) // 4 - 1 for e in events if e.unit]


def _garbage(seed):
    return np.random.default_rng(seed).integers(-2**31, 2**31, size=CFG.sp_words)


def reset_jobs():
    """A first program with a long idle before its start, then per cut: the program cut by
    rst, and a program on a preloaded (garbage) scratchpad after it."""
    prog, img = _program()
    jobs = [[hw.Item(prog, img, gap=7)]]
    for k, at in enumerate(_cuts(prog)):
        jobs.append([hw.Item(prog, img, abort_at=at),
                     hw.Item(_reader(), None, sp=_garbage(k), gap=3 + k)])
    return jobs


def back_to_back_jobs():
    """One job: programs started in the first cycle done is high (gap 0) and the cycle
    after (gap 1), a fault among them, and a long hold before the last."""
    prog, img = _program()
    bad = [b("LD", dst=0, src=0, len=8), isa.raw("SM", dst=0, src=0, len=65), b("HALT")]
    halt = [b("HALT")]
    items = [hw.Item(prog, img), hw.Item(prog, img, gap=0), hw.Item(halt, None, gap=0),
             hw.Item(bad, img, gap=0), hw.Item(prog, img, gap=0), hw.Item(halt, None, gap=1),
             hw.Item(bad, img, gap=1), hw.Item(halt, None, gap=1), hw.Item(prog, img, gap=1),
             hw.Item(prog, img, gap=20)]
    return [items]


def _check_reset(res):
    first = res[0][0]
    assert first.ok, first.mismatch
    assert first.host["pre"] == ZERO and first.host["idle_changes"] == 0
    for cut, after in res[1:]:
        assert cut.host["aborted"] and cut.host["after_reset"] == ZERO, cut.host
        assert 0 < len(cut.trace) < len(cut.ref.trace) or cut.host["cut_cycles"] < cut.ref.trace[0][1]
        assert cut.ok, cut.mismatch
        assert after.host["pre"] == ZERO and after.host["idle_changes"] == 0
        assert after.ok, after.mismatch


def test_reset_state_and_reset_while_busy(sim):
    res = hw.run(sim, reset_jobs())
    _check_reset(res)


def test_back_to_back_starts(sim):
    (res,) = hw.run(sim, back_to_back_jobs())
    assert all(p.ok for p in res), [p.mismatch for p in res if not p.ok]
    assert [p.error for p in res] == [False, False, False, True, False, False, True, False, False, False]
    for prev, p in zip(res, res[1:]):
        want = dict(p.host["pre"], retire=0)
        assert p.host["pre"] == want and p.host["pre"]["done"] == 1
        assert p.host["pre"]["cycles"] == prev.counters.cycles
        assert p.host["idle_changes"] == 0


# ------------------------------------------------------------------ the checks can fail
def _broken_rtl(tmp_path, module, pattern, repl):
    """A copy of rtl/ with one textual change in module's file."""
    return copy_rtl(tmp_path, (f"{module}.v", pattern, repl))


def test_reset_checks_catch_a_counter_reset_left_out(tmp_path):
    """cnt_dma not cleared by rst: the reset-state and reset-while-busy checks fail."""
    rtl = _broken_rtl(tmp_path, "ga2_perf", r"(if \(rst\) begin(?:.|\n)*?)dma_q <= ZERO;", r"\1dma_q <= dma_d;")
    res = hw.run("icarus", reset_jobs(), rtl_dir=rtl, build_dir=tmp_path / "build")
    with pytest.raises(AssertionError):
        _check_reset(res)
    bad = [p.mismatch for job in res for p in job if not p.ok]
    assert any("after a reset while busy: dma" in m for m in bad), bad
    assert any("before the start (after a reset): dma" in m or "x/z on the chip: pre_dma" in m
               for m in bad), bad


def test_back_to_back_check_catches_a_start_lost_after_done(tmp_path):
    """A chip that leaves the halted state by itself (done drops after one cycle; a start in
    done's first cycle is lost): the back-to-back and hold checks fail, the ordinary path
    does not see it."""
    rtl = _broken_rtl(tmp_path, "ga2_seq", r"S_WAIT: begin\n        if \(start\) begin",
                      "S_WAIT: begin\n        done_d = 1'b0;\n        if (start && !done_q) begin")
    res = hw.run("icarus", back_to_back_jobs(), rtl_dir=rtl, build_dir=tmp_path / "build",
                 max_cycles=5000)[0]
    bad = [p.mismatch for p in res if not p.ok]
    assert any(m.startswith("timeout") for m in bad), bad
    assert any("host outputs changed" in m for m in bad), bad
    plain = hw.run_programs("icarus", demo_programs(), rtl_dir=rtl, build_dir=tmp_path / "build")
    assert all(p.ok or "host outputs changed" in p.mismatch for p in plain)


def test_host_checks_catch_perturbed_expectations():
    """compare() reports a changed output before a start, and a non-zero one after reset."""
    (res,) = hw.run("icarus", back_to_back_jobs()[:1])[:1]
    p = res[1]
    raw = p._asdict()
    host = dict(p.host, pre_expected=dict(p.host["pre_expected"], cycles=p.host["pre"]["cycles"] + 1))
    assert "before the start (done holds): cycles" in hw.compare(p.ref, dict(raw, host=host))
    assert "host outputs changed in 2 cycles" in hw.compare(p.ref, dict(raw, host=dict(p.host, idle_changes=2)))
    cut = hw.run("icarus", reset_jobs()[1:2])[0][0]
    raw = cut._asdict()
    host = dict(cut.host, after_reset=dict(cut.host["after_reset"], instret=1))
    assert "after a reset while busy: instret 1" in hw.compare(cut.ref, dict(raw, host=host))
    trace = list(cut.trace) + [(9, 99999)]
    assert "extra" in hw.compare(cut.ref, dict(raw, trace=trace))


# ------------------------------------------------------------------ per-cycle monitors
# The harness's monitors (tb/hdl/ga2_harness.v) check the host contract in every cycle
# of every co-simulated program; compare() fails a program on any count. Each rule is
# shown to fail on a chip broken in just that respect (Icarus).
def contract_jobs():
    """A first program after a long idle, a fault followed by clean programs (gap 0, 1,
    20), and a reset while busy followed by a program: every idle situation."""
    prog, img = _program()
    cut = _cuts(prog)[1]
    return ([[hw.Item(prog, img, gap=9)]] + back_to_back_jobs()
            + [[hw.Item(prog, img, abort_at=cut), hw.Item(_reader(), None, sp=_garbage(9), gap=6)],
               [hw.Item(*_partial())]])


def _counts(res, key):
    """{monitor: total count over res} for key 'mon' (runs) or 'pre_mon' (idle cycles)."""
    tot = dict.fromkeys(MONITORS, 0)
    for job in res:
        for p in job:
            for m, n in p.host[key].items():
                tot[m] += n
    return tot


def test_monitors_quiet_on_a_good_chip(sim):
    res = hw.run(sim, contract_jobs())
    assert all(p.ok for job in res for p in job), [p.mismatch for job in res for p in job if not p.ok]
    assert set(res[0][0].host["mon"]) == set(MONITORS) == set(res[0][0].host["pre_mon"])
    assert not any(_counts(res, "mon").values()) and not any(_counts(res, "pre_mon").values())
    for job in res:
        for p in job:
            if not p.host["aborted"]:
                assert p.host["run_cycles"] == p.counters.cycles == p.ref.counters.cycles
                # the scratchpad words read: the count the instruction set implies
                assert p.sp_reads == p.ref.sp_reads, (p.sp_reads, p.ref.sp_reads)
    assert res[-1][0].sp_reads == (2 + 3) * 5 + (3 + 1) * 4 + 3 * 1 + 6      # _partial(), by hand


# (module, [(pattern, replacement)], the monitors that must fire, text in a mismatch)
BROKEN = {
    "done_late": ("ga2_seq", [(r"assign done       = done_q;",
                               "reg done_q2; always @(posedge clk) done_q2 <= !rst && !start && "
                               "done_q; assign done = done_q2;")],
                  {"rise"}, "done rose"),
    "ext_idle": ("ga2_dma", [(r"assign ext_en     = dir_q \? writing : \(reading && !bad_q\);",
                          "assign ext_en     = (dir_q ? writing : (reading && !bad_q)) || !busy_q;")],
                 {"ext"}, "external-memory access while not running"),
    "imem_idle": ("ga2_seq", [(r"assign imem_en    = \(state_q == S_FETCH\)",
                               "assign imem_en    = (state_q == S_FETCH || done_q)")],
                  {"imem"}, "instruction-memory access while not running"),
    # instret is 1 for one cycle after reset, then 0 again: only a per-cycle check sees it
    "reset_blip": ("ga2_perf", [(r"ret_q <= ZERO;", "ret_q <= ONE;"),
                                (r"ret_d = ret_q \+ ",
                                 "ret_d = ((retire == 4'd0 && cyc_q == ZERO) ? ZERO : ret_q) + ")],
                   {"reset"}, "between reset and the first start"),
    "epc_stale": ("ga2_seq", [(r"epc_d   = \{PW\{1'b0\}\};", "")], {"epc"}, "error_pc non-zero while error = 0"),
    "retire_idle": ("ga2_seq", [(r"assign retire     = ", "assign retire     = (state_q == S_WAIT && !done_q) || ")],
                    {"retire"}, "retire while not running"),
    # cnt_mm one cycle late: the host sees the previous run's count in the new run's first cycle
    "clear_late": ("ga2_perf", [(r"assign cnt_mm       = mm_q;",
                                 "reg [31:0] mm_late = 32'd0; always @(posedge clk) mm_late <= mm_q; "
                                 "assign cnt_mm = mm_late;")],
                   {"clear"}, "first cycle of a run"),
    "count_after_done": ("ga2_seq", [(r"assign running    = ", "assign running    = done_q || ")],
                         {"hold"}, "moved after done"),
}


def _broken_rtl_subs(tmp_path, module, subs):
    return copy_rtl(tmp_path, *[(f"{module}.v", pat, repl) for pat, repl in subs])


# make test breaks two rules (a late done, a stale error_pc); the other six are -m long
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.long] * (n not in ("done_late", "epc_stale")))
                                  for n in sorted(BROKEN)])
def test_monitors_catch_a_broken_chip(tmp_path, name):
    module, subs, fire, text = BROKEN[name]
    rtl = _broken_rtl_subs(tmp_path, module, subs)
    res = hw.run("icarus", contract_jobs(), rtl_dir=rtl, build_dir=tmp_path / "build", max_cycles=20000)
    fired = {m for m, n in _counts(res, "mon").items() if n} | {m for m, n in _counts(res, "pre_mon").items() if n}
    assert fire <= fired, (name, fired)
    bad = [p.mismatch for job in res for p in job if not p.ok]
    assert bad, name
    # compare() reports it (the full list: the mismatch line shows only the first three)
    issues = [i for job in res for p in job for i in compare._monitor_issues(p._asdict(), None)]
    assert any(text in i for i in issues + bad), (name, issues[:5], bad[:5])


# ------------------------------------------------------------------ the read count
# Not a per-cycle rule: the harness counts the scratchpad's enabled read ports over the
# run (mon_sp_reads) and compare() fails a program whose count differs from the
# reference's (model/func.py sp_reads over the executed instructions).
def test_read_count_catches_an_extra_read(tmp_path):
    """mm_ctrl feeding row M of A as well (`IDX < m_q` -> `<=`): that row's results are
    never drained, so memory, counters and retires are all right (nothing else in the
    suite sees it); only the scratchpad read count shows it, on the programs with M < 4,
    by K words per such MM."""
    rtl = _broken_rtl(tmp_path, "ga2_mm_ctrl", r"\(IDX < m_q\)", "(IDX <= m_q)")
    res = hw.run("icarus", contract_jobs(), rtl_dir=rtl, build_dir=tmp_path / "build", max_cycles=20000)
    bad = [p for job in res for p in job if not p.ok]
    assert bad and not res[-1][0].ok
    for p in bad:
        assert p.mismatch.startswith("scratchpad reads: the chip read ") and ";" not in p.mismatch, p.mismatch
        assert f"read {p.sp_reads} words" in p.mismatch and f"instructions read {p.ref.sp_reads} " in p.mismatch
    part = res[-1][0]
    assert part.sp_reads - part.ref.sp_reads == 5 + 4       # row 2 of the first MM (K = 5), row 3 of the second (K = 4)
    assert np.array_equal(np.asarray(part.ext), np.asarray(part.ref.ext))
