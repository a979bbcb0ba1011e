"""Unit-level co-simulation: tb/drivers/units_job.py on tb/hdl/units_tb.v, on Icarus and Verilator.

The cocotb tests compare mm_ctrl, softmax (FAST = 0 and FAST = 1, both instances in the
one units_tb build), vec_rq, requant and divu with independent references (numpy,
model.quant, model.softmax_gold, divmod); requant and divu also on the RTL mutation
bench's vectors (tb/mutation/rtl/suite.py), divu with the bench's handshake checks,
each shown to fail on a divu broken in one of them; test_restart runs the units'
start-while-busy check (tb/hdl/restart_chk.v, also the mutation bench's: dma, vec_rq,
mm_ctrl, softmax FAST 0 and 1, divu), shown to fail on units that do not restart. DMA
transfers of every length 1..64 and at the ends of both memories go through the top
level (the DMA has no clean standalone interface to the memories), in
test_dma_lengths_and_ends. The eight unit tests run in one simulator process per
simulator (test_unit); a case that fails there is run again alone and judged by that run.
"""
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from model import config, isa
from tb import ROOT, hw
from tb.sim import build, process
from tb.sim.files import copy_rtl, restart_files, rtl_files, top_file, units_vec_file

UNIT_TESTS = ("test_mm_tiles", "test_softmax", "test_softmax_fast", "test_vec_rq", "test_requant",
              "test_divu", "test_perf", "test_restart", "test_ops", "test_smw")


def _build_units(sim, rtl_dir=None, build_dir=None):
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    srcs = [p for p in rtl_files(rtl_dir) if p != top_file(rtl_dir)]
    srcs += restart_files() + [units_vec_file(), ROOT / "tb" / "hdl" / "units_tb.v"]   # u_rc: test_restart
    return build.build(sim, toplevel="units_tb", srcs=srcs, parameters={}, rtl_dir=rtl_dir,
                    build_dir=build_dir or ROOT / "build" / f"{sim}-units")


def _run_units(sim, testcase, rtl_dir=None, build_dir=None, scale=1.0):
    bdir = _build_units(sim, rtl_dir, build_dir)
    run_dir = bdir / "runs" / f"{os.getpid()}-{testcase}"
    run_dir.mkdir(parents=True, exist_ok=True)
    xml, err, log = build.cocotb_test(sim, bdir, run_dir, "units_job", toplevel="units_tb",
                                      module_dirs=[ROOT / "tb" / "drivers"], testcase=testcase,
                                      extra_env={"GA2_UNIT_SCALE": str(scale)})
    assert xml is not None and xml.exists(), f"{sim} {testcase}: no results ({err}); log {log}:\n{process.tail(log)}"
    cases = list(ET.parse(xml).iter("testcase"))
    fails = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    assert len(cases) == 1 and cases[0].get("name") == testcase, f"{sim}: ran {[c.get('name') for c in cases]}"
    assert not fails and err is None, f"{sim} {testcase} failed; log {log}:\n{process.tail(log, 25)}"


_BATCH = {}
BATCH_WALL_S = 600          # the batch's last resort; each test has a simulated-time limit


# the random vectors' share per simulator (tb/drivers/units_job.py GA2_UNIT_SCALE): Icarus
# (the 4-state check: x and z) in make test, a fifth of each test's random vectors and every
# fixed edge case (MM's deep tiles are its first three tiles); all of them on Verilator
# (-m long: its build of the units bench is 18 s of a clean clone's CPU) and on Icarus
# (test_every_unit_vector_on_icarus, -m long)
SCALE = {"icarus": 0.2, "verilator": 1.0}


def _unit_outcomes(sim, scale=None):
    """{testcase: passed} of every UNIT_TESTS case, run in ONE simulator process per
    simulator (each process costs about 0.6 s of start-up: cocotb, numpy, the model), once
    per worker and scale, with the log of that run."""
    scale = SCALE[sim] if scale is None else scale
    if (sim, scale) not in _BATCH:
        bdir = _build_units(sim)
        run_dir = bdir / "runs" / f"{os.getpid()}-all-{scale}"
        run_dir.mkdir(parents=True, exist_ok=True)
        xml, err, log = build.cocotb_test(sim, bdir, run_dir, "units_job", toplevel="units_tb",
                                          module_dirs=[ROOT / "tb" / "drivers"], testcase=",".join(UNIT_TESTS),
                                          wall_limit=BATCH_WALL_S, extra_env={"GA2_UNIT_SCALE": str(scale)})
        out = {}
        if xml is not None and xml.exists():
            for c in ET.parse(xml).iter("testcase"):
                out[c.get("name")] = c.find("failure") is None and c.find("error") is None
        _BATCH[sim, scale] = (out, log)
    return _BATCH[sim, scale]


@pytest.mark.parametrize("sim", ["icarus", pytest.param("verilator", marks=pytest.mark.long)], indirect=True)
@pytest.mark.parametrize("testcase", UNIT_TESTS)
def test_unit(sim, testcase):
    """Each unit test passes; a case that did not pass in the shared run is run again
    alone, in a simulator of its own, and judged by that run (a failing test can leave
    the bench mid-transaction for the next one)."""
    out, log = _unit_outcomes(sim)
    if not out.get(testcase):
        _run_units(sim, testcase, scale=SCALE[sim])
        earlier = [t for t in UNIT_TESTS[:UNIT_TESTS.index(testcase)] if not out.get(t)]
        assert earlier, (f"{sim} {testcase}: failed in the shared run ({log}) after every earlier "
                         f"test passed, yet passes alone: the tests are not independent")


@pytest.mark.long
def test_every_unit_vector_on_icarus():
    """Icarus on all of the vectors (make test runs SCALE["icarus"] of them)."""
    out, log = _unit_outcomes("icarus", 1.0)
    assert all(out.get(t) for t in UNIT_TESTS), f"failed: {[t for t in UNIT_TESTS if not out.get(t)]}; log {log}"


def test_dma_lengths_and_ends(sim):
    """LD/ST of every length 1..64, at the start and the end of ext and the scratchpad."""
    ext = config.DEFAULT.ext_words
    rng = np.random.default_rng(11)
    image = rng.integers(-(1 << 31), 1 << 31, size=ext)
    pairs = []
    for n in range(1, 65):
        # scratchpad end <- ext end, then scratchpad end -> ext start; then the reverse
        prog = [isa.build("LD", dst=config.DEFAULT.sp_words - n, src=ext - n, len=n),
                isa.build("ST", src=config.DEFAULT.sp_words - n, dst=0, len=n),
                isa.build("LD", dst=0, src=n, len=n),
                isa.build("ST", src=0, dst=ext - n, len=n),
                isa.build("HALT")]
        pairs.append((prog, image))
    res = hw.run_programs(sim, pairs)
    for n, p in zip(range(1, 65), res):
        expect = image.copy()
        expect[0:n] = image[ext - n:ext]
        expect[ext - n:ext] = image[n:2 * n]
        assert np.array_equal(p.ext, expect), f"len {n}: ext differs from numpy"
        assert p.counters.dma == 4 * (n + 1), f"len {n}: dma busy {p.counters.dma}"
        assert p.ok, f"len {n}: {p.mismatch}"
        assert p.oob["ext_rd"] == 0 and p.oob["ext_wr"] == 0, f"len {n}: out-of-range access {p.oob}"


def test_unit_tests_catch_a_broken_requant(tmp_path):
    """The requant unit test fails on a copy of the RTL whose rounding term is dropped."""
    rtl = copy_rtl(tmp_path, ("ga2_requant.v", r"\+\s*\$signed\(rnd\)", ""))     # drop the rounding term
    with pytest.raises(AssertionError, match="test_requant failed"):
        _run_units("icarus", "test_requant", rtl_dir=rtl, build_dir=tmp_path / "build")


# Broken fast softmax dividers (ga2_softmax.v, FAST = 1): the correction step removed (the
# reciprocal estimate is one low for ~40% of elements), and the correction's comparison
# off by one either way: r > S (wrong only when the remainder after the estimate is
# exactly S: len 1, all-equal vectors of a power-of-two length) and r >= S - 1 (wrong
# only when it is exactly S - 1: the crafted [127, -44, -44]).
_SM_MUTANTS = {
    "no_correction": (r"wire\s+fix\s*=\s*\(rem >= \{1'b0, sum_q\}\);", "wire fix = 1'b0;"),
    "strict_compare": (r"\(rem >= \{1'b0, sum_q\}\)", "(rem > {1'b0, sum_q})"),
    "compare_minus_1": (r"\(rem >= \{1'b0, sum_q\}\)", "(rem >= {1'b0, sum_q} - 23'd1)"),
}


# make test runs one broken copy of each kind below (the first named in its call); the others
# are -m long
def _one_in_make_test(mutants, kept):
    return [pytest.param(m, marks=[pytest.mark.long] * (m != kept)) for m in sorted(mutants)]


@pytest.mark.parametrize("mutant", _one_in_make_test(_SM_MUTANTS, "strict_compare"))
def test_unit_tests_catch_a_broken_fast_softmax(tmp_path, mutant):
    """test_softmax_fast fails on a copy of the RTL with a broken fast divider."""
    rtl = copy_rtl(tmp_path, ("ga2_softmax.v", *_SM_MUTANTS[mutant]))
    # it must fail on a value (the log's tail names the scratchpad word), not on timing
    with pytest.raises(AssertionError, match=r"(?s)test_softmax_fast failed.*SM fast=1 len=\d+ .*: mem\["):
        _run_units("icarus", "test_softmax_fast", rtl_dir=rtl, build_dir=tmp_path / "build")


# Broken accumulates (ga2_mm_ctrl.v, MM acc = 1): the old word not added, and the old word
# read one element late (the pre-read address of the next element without its + 1).
_ACC_MUTANTS = {
    "no_add": (r"assign wr_data = acc_q \? result \+ rd_word0 : result;", "assign wr_data = result;"),
    "late_read": (r"row_base_q \+ dj_off \+ 1'b1;", "row_base_q + dj_off;"),
}


@pytest.mark.parametrize("mutant", _one_in_make_test(_ACC_MUTANTS, "late_read"))
def test_unit_tests_catch_a_broken_accumulate(tmp_path, mutant):
    """test_mm_tiles fails on a copy of the RTL with a broken MM accumulate."""
    rtl = copy_rtl(tmp_path, ("ga2_mm_ctrl.v", *_ACC_MUTANTS[mutant]))
    with pytest.raises(AssertionError, match=r"(?s)test_mm_tiles failed.*acc=1 .*: mem\["):
        _run_units("icarus", "test_mm_tiles", rtl_dir=rtl, build_dir=tmp_path / "build")


# Broken divus (ga2_divu.v), each breaking one clause of the handshake contract that the
# mutation bench checks and test_divu checks too (_divu_contract in units_job.py): the
# quotient not held after last, last not cleared by a reset, and a reset that does not
# stop a division.
_DIVU_MUTANTS = {
    "no_hold": (r"end else begin\n      last_q <= 1'b0;",
                "end else begin\n      last_q <= 1'b0;\n      quo_q <= {WIDTH{1'b0}};",
                "cycles after last: last, busy, q, r"),
    "reset_keeps_last": (r"step_q <= 1'b0;\n      last_q <= 1'b0;\n    end else if \(start\)",
                         "step_q <= 1'b0;\n    end else if (start)", "after a reset at last"),
    "reset_keeps_step": (r"if \(rst\) begin\n      step_q <= 1'b0;", "if (rst) begin\n      step_q <= step_q;",
                         "after a reset mid-division"),
}


@pytest.mark.parametrize("mutant", _one_in_make_test(_DIVU_MUTANTS, "reset_keeps_step"))
def test_unit_tests_catch_a_broken_divu_contract(tmp_path, mutant):
    """test_divu fails on a copy of the RTL whose divu breaks one clause of its handshake."""
    pat, new, msg = _DIVU_MUTANTS[mutant]
    rtl = copy_rtl(tmp_path, ("ga2_divu.v", pat, new))
    with pytest.raises(AssertionError, match=rf"(?s)test_divu failed.*{re.escape(msg)}"):
        _run_units("icarus", "test_divu", rtl_dir=rtl, build_dir=tmp_path / "build")


# Units that break the start-while-busy contract (docs/rtl.md "Start while busy"), each
# caught by test_restart (restart_chk): dma with the start and busy_q arms of its control
# block swapped (a start while busy keeps the old direction and external pointer), mm_ctrl
# whose start no longer clears the feed window's skew chain win_q (the old job's window
# reads on rows 1..3 after a restart in the feed), and a softmax whose next state takes a
# start only while idle (the FSM goes on with the old job's phase).
_RESTART_MUTANTS = {
    "dma_arms": ("ga2_dma.v", r"end else if \(start\) begin\n((?:      .*\n)*)    end else if \(busy_q\) begin\n"
                          r"((?:      .*\n)*)    end\n",
                 lambda m: f"end else if (busy_q) begin\n{m[2]}    end else if (start) begin\n{m[1]}    end\n",
                 "dma"),
    "mm_win": ("ga2_mm_ctrl.v", r"if \(rst \|\| start\) win_q <=", lambda m: "if (rst) win_q <=", "mm_ctrl"),
    "sm_idle_start": ("ga2_softmax.v", r"if \(start\) state_d = S_MAX;",
                      lambda m: "if (start && state_q == S_IDLE) state_d = S_MAX;", "softmax0"),
}


@pytest.mark.parametrize("mutant", _one_in_make_test(_RESTART_MUTANTS, "mm_win"))
def test_unit_tests_catch_a_broken_restart(tmp_path, mutant):
    """test_restart fails on a copy of the RTL whose unit does not restart on a start while
    busy, and names that unit."""
    fname, pat, new, unit = _RESTART_MUTANTS[mutant]
    rtl = copy_rtl(tmp_path, (fname, pat, new))
    with pytest.raises(AssertionError, match=rf"(?s)test_restart failed.*unit restart {unit} scenario \d+ "):
        _run_units("icarus", "test_restart", rtl_dir=rtl, build_dir=tmp_path / "build")
