"""Bad programs on the chip: one per error code (1..6), on Icarus and Verilator.

Each bad program (tb/stimulus/badprog.bad_program) writes both memories and then faults. The
chip must raise error with the code and pc the generator planted (independent of the
Machine), counters equal to the program's schedule (model/timing.py, from the program
alone) up to the fault, write nothing for the
faulting instruction (its ext range keeps the earlier content; its scratchpad range is
stored by the next program and must equal the reference), and the next program in the
same job must run correctly. Error 6 (an LDX row index not below rows) is found in EXEC:
the program runs on with unchanged timing, the chip reports code 6 and the first such
LDX's pc at done (ahead of a later DECODE fault). Random bad programs whose field sums reach past 2^16 (and
2^20 for MM B; tb/stimulus/badprog.wrap_bad_program) fault the same way, and a decoder with
a range sum narrowed to 16 (20) bits is shown to fail that test.
"""
import numpy as np
import pytest

from model import config, isa, timing
from model.machine import GA2Error
from tb import hw
from tb.stimulus import badprog

CODES = (1, 2, 3, 4, 5, 6)
SEEDS = (0, 1, 2)     # different variants of each fault (which op, which field)


def test_bad_programs(sim):
    jobs, bads = [], []
    for code in CODES:
        for seed in (SEEDS if code != isa.ERR_PC else SEEDS[:1]):
            bad = badprog.bad_program(seed * 10 + code, code)
            jobs.append([(bad.prog, bad.image), badprog.follow_up(bad)])
            bads.append(bad)
    res = hw.run(sim, jobs, max_cycles=50000)
    seen = set()
    for bad, (r_bad, r_next) in zip(bads, res):
        where = f"code {bad.code} (expected pc {bad.pc}) on {sim}"
        assert isinstance(r_bad.ref, GA2Error) and r_bad.ref.code == bad.code, where
        assert r_bad.ok, f"{where}: {r_bad.mismatch}"
        assert r_bad.done and r_bad.error and not r_bad.timeout, where
        assert (r_bad.error_code, r_bad.error_pc) == (bad.code, bad.pc), where
        s = timing.schedule(bad.prog)                               # no execution
        assert tuple(r_bad.counters) == tuple(s.counters), where
        if bad.code == isa.ERR_INDEX:      # found in EXEC: the schedule runs on past it
            assert s.fault is None or s.fault.pc > bad.pc, where
            assert len(r_bad.trace) == len(s.events) > bad.pc, where
        else:
            assert s.fault == (bad.code, bad.pc), where
            assert len(r_bad.trace) == min(bad.pc, config.DEFAULT.imem_depth), where
        if bad.ext_range:
            lo, n = bad.ext_range
            # the prefix only writes ext[0:32]; the faulting instruction's range is past it
            assert lo >= 32
            assert np.array_equal(r_bad.ext[lo:lo + n], bad.image[lo:lo + n]), f"{where}: wrote ext"
        assert r_next.ok, f"{where}, next program: {r_next.mismatch}"
        assert not r_next.error and r_next.done, where
        seen.add(bad.code)
    assert seen == set(CODES)


def test_fault_then_clean_start_resets_error(sim):
    """error/code/pc clear at the next start; counters restart from zero."""
    bad = badprog.bad_program(5, isa.ERR_SHAPE)
    good = [isa.build("HALT")]
    res = hw.run_programs(sim, [(bad.prog, bad.image), (good, None)])
    assert res[0].error and res[0].error_code == isa.ERR_SHAPE
    assert not res[1].error and res[1].error_code == 0
    assert tuple(res[1].counters) == (2, 0, 0, 0, 1, 1)
    assert res[1].trace == [(0, 2)]
    assert all(p.ok for p in res), [p.mismatch for p in res]


def test_timeout_is_reported_not_hung():
    """A cycle limit below the program's length comes back as a timeout (Icarus)."""
    prog = [isa.build("LD", dst=0, src=0, len=1000), isa.build("HALT")]
    res = hw.run_programs("icarus", [(prog, None), ([isa.build("HALT")], None)], max_cycles=100,
                          keep=False)
    assert res[0].timeout and not res[0].ok
    assert "timeout: done never rose within the cycle limit of 100 cycles (the model halts at cycle 1005" \
        in res[0].mismatch
    assert res[1].ok                       # the wrapper reset the chip and went on


def test_default_cycle_limit_follows_the_prediction():
    """A legal program longer than any fixed limit (here 100 SMs of 64: 230,802 cycles: 100 x (2 + 2*65 + 34*64) + 2)
    gets a limit derived from the timing model, with room to spare."""
    sm = isa.build("SM", dst=0, src=0, len=64)
    jobs = hw.prepare_jobs([[([sm] * 100 + [isa.build("HALT")], None)], [([isa.build("HALT")], None)]],
                           config.DEFAULT)
    assert timing.schedule([sm] * 100 + [isa.build("HALT")]).cycles == 230_802
    assert hw.cycle_limit(jobs, config.DEFAULT) == 2 * 230_802 + 1000


@pytest.mark.parametrize("code", [7, 0])
def test_bad_code_rejected(code):
    with pytest.raises(ValueError, match="code"):
        badprog.bad_program(0, code)


# ------------------------------------------------------------------ field sums past the widths
WRAP_SEEDS = (11, 12)


def wrap_jobs(seed):
    bads = badprog.wrap_bad_programs(seed)
    return bads, [[(bad.prog, bad.image), badprog.follow_up(bad)] for bad in bads]


def test_wrap_bad_programs(sim):
    """Bad programs whose field sums reach past 2^16 (and 2^20 for MM B): a range check in
    16 (20) bits would wrap back into the memory. Code and pc as planted, nothing written
    (the ext image and the stored scratchpad range equal the reference), the next runs."""
    jobs, bads = [], []
    for seed in WRAP_SEEDS:
        b_, j_ = wrap_jobs(seed)
        bads += b_
        jobs += j_
    res = hw.run(sim, jobs)
    for bad, (r_bad, r_next) in zip(bads, res):
        ins = bad.prog[bad.pc]
        where = f"{ins} on {sim}"
        assert r_bad.ok, f"{where}: {r_bad.mismatch}"
        assert (r_bad.error, r_bad.error_code, r_bad.error_pc) == (True, bad.code, bad.pc), where
        assert r_next.ok and not r_next.error, f"{where}, next program: {r_next.mismatch}"
    assert {k[0] for k in badprog.WRAP_KINDS} == {"LD", "ST", "RQ", "SM", "MM"}


def test_wrap_programs_reach_past_the_widths():
    """The generator's sums really pass 2^W and wrap back inside the memory."""
    cfg = config.DEFAULT
    for seed in WRAP_SEEDS:
        for kind, bad in zip(badprog.WRAP_KINDS, badprog.wrap_bad_programs(seed)):
            op, field, width = kind
            f = bad.prog[bad.pc].fields()
            if op == "MM":
                M, K, N = f["M"], f["K"] + 256 * f["khi"], f["N"]
                span = {"A": (M - 1) * f["lda"] + K - 1,
                        "B": ((N - 1) * f["ldb"] + K - 1) if f["tb"] else ((K - 1) * f["ldb"] + N - 1),
                        "dst": (M - 1) * f["ldc"] + N - 1}[field]
                last = f[field] + span
                assert 1 << width <= last and last % (1 << width) < cfg.sp_words, (kind, f)
            else:
                end = f["dst" if field == "len" else field] + f["len"]
                assert end > 1 << 16, (kind, f)
                if field != "len":
                    assert end % (1 << 16) < cfg.sp_words, (kind, f)


@pytest.mark.parametrize("kind, pattern, repl", [
    (("LD", "dst", 16), r"wire ld_sp_bad = \(ld_end0 > GA2P_SP_WORDS\[16:0\]\);",
     "wire ld_sp_bad = ({1'd0, ld_end0[15:0]} > GA2P_SP_WORDS[16:0]);"),
    pytest.param(("MM", "B", 20), r"wire \[23:0\] mm_end1 = \{8'd0, mm_b\} \+ \{1'd0, mm_span1\};",
                 "wire [23:0] mm_end1 = {4'd0, {4'd0, mm_b} + mm_span1[19:0]};",
                 marks=pytest.mark.long),           # make test narrows LD's; MM's is -m long
], ids=["ld_dst_16bit", "mm_b_20bit"])
def test_wrap_check_catches_a_narrowed_sum(tmp_path, kind, pattern, repl):
    """A decoder whose range sum is narrowed to 16 (20) bits lets the wrapped instruction
    run: the wrap test fails on it."""
    from tb.sim.files import copy_rtl
    rtl = copy_rtl(tmp_path, ("ga2_decode_ops.vh", pattern, repl))
    bads, jobs = wrap_jobs(WRAP_SEEDS[0])
    i = badprog.WRAP_KINDS.index(kind)
    res = hw.run("icarus", jobs, rtl_dir=rtl, build_dir=tmp_path / "build", max_cycles=200000)
    assert not res[i][0].ok, res[i][0]
    assert not res[i][0].error or res[i][0].error_code != bads[i].code
    others = [r[0].ok for k, r in enumerate(res) if badprog.WRAP_KINDS[k][0] != kind[0]]
    assert all(others)          # the narrowing is specific: the other ops still fault right
