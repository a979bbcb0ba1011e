"""Bad programs on the chip: one per error code (1..5), on Icarus and Verilator.

Each bad program (tools/gen/progen.bad_program) writes both memories and then faults. The
chip must raise error with the code and pc the generator planted (independent of the
Machine), counters equal to the program's schedule (model/timing.py, from the program
alone) up to the fault, write nothing for the
faulting instruction (its ext range keeps the earlier content; its scratchpad range is
stored by the next program and must equal the reference), and the next program in the
same job must run correctly.
"""
import numpy as np
import pytest

from model import config, isa, timing
from model.machine import GA2Error
from tools.sim import hw
from tools.gen import progen

CODES = (1, 2, 3, 4, 5)
SEEDS = (0, 1, 2)     # different variants of each fault (which op, which field)


def test_bad_programs(sim):
    jobs, bads = [], []
    for code in CODES:
        for seed in (SEEDS if code != isa.ERR_PC else SEEDS[:1]):
            bad = progen.bad_program(seed * 10 + code, code)
            jobs.append([(bad.prog, bad.image), progen.follow_up(bad)])
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
        assert s.fault == (bad.code, bad.pc), where
        assert tuple(r_bad.counters) == tuple(s.counters), where
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
    bad = progen.bad_program(5, isa.ERR_SHAPE)
    good = [isa.build("HALT")]
    res = hw.run_programs(sim, [(bad.prog, bad.image), (good, None)])
    assert res[0].error and res[0].error_code == isa.ERR_SHAPE
    assert not res[1].error and res[1].error_code == 0
    assert tuple(res[1].counters) == (2, 0, 0, 0, 1)
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


@pytest.mark.parametrize("code", [6, 0])
def test_bad_code_rejected(code):
    with pytest.raises(ValueError, match="code"):
        progen.bad_program(0, code)
