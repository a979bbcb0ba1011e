"""Chapter 9 on the circuit: the five batched decode steps (B = 1..4 at token 16 and the
ragged batch 3, 9, 1, 14) on Icarus and on Verilator, in both timing modes, one hw.run
call per simulator and mode.
Every program must match the reference (memory, trace, all six counters), each
sequence's output must equal the plain-Python int_reference, and the cycle counts must
equal the program's schedule (model/timing.py). Each step starts from a scratchpad of
seeded garbage on both sides (the harness preloads it), so a load the builder forgot
cannot be covered by rows an earlier program left behind."""

import pytest

from model import batch, timing
from tb import hw
from tools.ch09 import run as ch09_run


@pytest.mark.parametrize("mode", ["inorder", "overlap"])
@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_five_batched_steps_on_the_circuit(sim, mode):
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")
    cfg = ch09_run.MODES[mode]
    steps = ch09_run.steps(cfg=cfg)
    jobs = ch09_run.jobs_for(steps)
    # every step starts from its own seeded garbage scratchpad, on the chip and the reference
    sps = [job[0][2] for job in jobs]
    assert all(sp.size == batch.CFG.sp_words and (sp != 0).mean() > 0.9 for sp in sps)
    assert len({sp.tobytes() for sp in sps}) == len(sps)
    res = hw.run(sim, jobs, cfg=cfg)
    assert len(res) == 5 and all(len(job) == 1 for job in res)
    for st, (r,) in zip(steps, res):
        label, seqs, ts, prog, _, ex = st
        assert r.ok, f"{sim} {label}: {r.mismatch}"
        assert not r.error and r.done and not r.timeout
        assert tuple(r.counters) == tuple(timing.schedule(prog, cfg).counters), label
        got = batch.outputs(r.ext, seqs)
        for b, t in zip(seqs, ts):
            assert got[b] == batch.int_reference(ex, b, t), f"{sim} {label} sequence {b}"
