"""The overlap timing mode on the chip (OVERLAP = 1), on Icarus and Verilator.

Random programs built to collide (tb/stimulus/collide.py: ranges aimed at a recent
instruction of another unit in every hazard kind, long instructions next to short ones,
a few faults after long instructions in flight) must match the reference Machine on the
overlap Config bit for bit and cycle for cycle: ext memory (which holds the scratchpad
windows, stored before HALT), the six counters, done/error/code/pc and the retire trace
(retires of one cycle in slot order) -- the counters and trace also against the schedule
alone (model/timing.py) -- and the final memory must equal the in-order mode's. Faults
in overlap mode: what was issued completes after the faulting instruction's DECODE, the
faulting one writes nothing, code and pc are reported with done. A chip with its hazard
check broken (tied to 0; one hazard kind dropped, with the scratchpad's missed-hazard
check removed too) fails these tests. SM is in the mix: the overlap build's softmax is
the fast one (ga2_softmax #(.FAST(OVERLAP))), timed by model/timing.busy_cycles (its record's formula).
"""
import numpy as np
import pytest

from model import config, isa, timing
from model.machine import GA2Error, Machine
from tb import hw
from tb.judge import reference
from tb.stimulus import collide, randprog

# Icarus runs this one in make test-long (Verilator in make test; Icarus's X check is held
# by the other co-simulation tests of make test)
ICARUS_LONG = pytest.mark.parametrize("sim", [pytest.param("icarus", marks=pytest.mark.long), "verilator"],
                                      indirect=True)

CFG = config.CH09_OVERLAP     # 8192 ext words, the overlap timing mode
INORDER = CFG.replace(mode="inorder")
N_PROGS = 100            # per simulator (make fuzz --mode both: half of thousands collide)
# Icarus in make test: the first 40 of them (four faults, one of each code); all 100 in -m long
N_ICARUS = 40
FAULT_EVERY = 10         # every 10th program ends with a fault (then a dump program)
SEED = 2026


def collide_jobs(n, seed=SEED):
    """(jobs, programs): n collide programs, each a job; a faulting one is followed by
    the dump program (the scratchpad windows to ext)."""
    rng = np.random.default_rng(seed)
    jobs, progs = [], []
    for i in range(n):
        fault = (i // FAULT_EVERY) % 4 + 1 if i % FAULT_EVERY == FAULT_EVERY - 1 else False
        prog, img = collide.collide_program(rng, CFG, fault=fault, with_sm=True)
        job = [(prog, img)] + ([(collide.dump_program(CFG), None)] if fault else [])
        jobs.append(job)
        progs.append(prog)
    return jobs, progs


def _report(res, progs):
    bad = [(i, k, p) for i, job in enumerate(res) for k, p in enumerate(job) if not p.ok]
    lines = [f"{len(bad)} of {sum(len(j) for j in res)} programs differ"]
    for i, k, p in bad[:3]:
        lines.append(f"job {i} program {k}: {p.mismatch}\n{isa.disasm(progs[i])}")
    return "\n".join(lines)


def test_generator_covers_every_hazard():
    """Every (new unit, busy unit, kind) conflict happens in the test's programs, and
    faults and real overlap (fewer cycles than in-order) are there too."""
    _, progs = collide_jobs(N_PROGS)
    seen = set()
    for p in progs:
        seen |= collide.hazard_kinds(p, CFG)
    assert seen == collide.all_kinds(), sorted(collide.all_kinds() - seen)
    faults = [timing.schedule(p, CFG).fault for p in progs]
    assert sum(f is not None for f in faults) == N_PROGS // FAULT_EVERY
    assert {f.code for f in faults if f} == {1, 2, 3, 4}
    ov = sum(timing.schedule(p, CFG).cycles for p in progs)
    io = sum(timing.schedule(p, INORDER).cycles for p in progs)
    assert ov < 0.95 * io, (ov, io)
    n_sm = sum(isinstance(w, isa.Instr) and w.op == "SM" for p in progs for w in p)
    assert n_sm >= N_PROGS // 2, n_sm


def test_collide_programs(sim):
    _check_collide(sim, N_PROGS if sim == "verilator" else N_ICARUS)


@pytest.mark.long
def test_every_collide_program_on_icarus():
    _check_collide("icarus", N_PROGS)


def _check_collide(sim, n):
    jobs, progs = collide_jobs(n)
    assert sum(len(job) > 1 for job in jobs) == n // FAULT_EVERY
    res = hw.run(sim, jobs, cfg=CFG)
    assert all(p.ok for job in res for p in job), _report(res, progs)
    inorder = Machine(INORDER)
    for i, (job, rjob) in enumerate(zip(hw.prepare_jobs(jobs, CFG), res)):
        for (prog, img, _, _, _), r in zip(job, rjob):
            s = timing.schedule(prog, CFG)                  # from the program alone
            assert tuple(r.counters) == tuple(s.counters), i
            assert r.trace == timing.trace(s), i
            assert r.xz == "" and r.done and not r.timeout, (i, r.xz)
            assert r.error == (s.fault is not None), i
            if s.fault:
                assert (r.error_code, r.error_pc) == tuple(s.fault), i
            ref_io = reference(inorder, prog, img)          # the in-order mode's result
            assert np.array_equal(np.asarray(r.ext), np.asarray(ref_io.ext)), \
                f"job {i}: final memory differs from the in-order mode's"
            assert isinstance(ref_io, GA2Error) == r.error, i


@ICARUS_LONG
def test_collide_programs_with_acc(sim):
    """Colliding programs whose MMs accumulate half the time (acc = 1 reads its dst hull,
    which the hazard check compares as the write range), overlap mode: equal to the
    reference and to the in-order mode's memory."""
    jobs, progs = collide_jobs(60, seed=SEED + 7)
    rng = np.random.default_rng(99)
    jobs = [[(randprog.with_acc(p, rng) if p is not None else p, img) for p, img in job] for job in jobs]
    progs = [job[0][0] for job in jobs]
    assert sum(isinstance(w, isa.Instr) and w.op == "MM" and w.acc for p in progs for w in p) >= 40
    res = hw.run(sim, jobs, cfg=CFG)
    assert all(p.ok for job in res for p in job), _report(res, progs)
    inorder = Machine(INORDER)
    for i, (job, rjob) in enumerate(zip(hw.prepare_jobs(jobs, CFG), res)):
        for (prog, img, _, _, _), r in zip(job, rjob):
            s = timing.schedule(prog, CFG)
            assert tuple(r.counters) == tuple(s.counters), i
            assert r.trace == timing.trace(s), i
            ref_io = reference(inorder, prog, img)
            assert np.array_equal(np.asarray(r.ext), np.asarray(ref_io.ext)), i


def _long_tail(cfg):
    """A long LD and a long MM (both in flight), then a short RQ on the vector unit."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    return [b("LD", dst=0, src=100, len=200),
            b("MM", dst=3000, A=2048, B=2400, M=4, K=200, N=4, tb=1, lda=200, ldb=200, ldc=4),
            b("RQ", dst=600, src=400, len=4, m=20000, s=14)]


FAULTS = {
    "opcode": (isa.ERR_OPCODE, isa.ILLEGAL_OPCODES[1] | (12345 << 4)),
    "shape": (isa.ERR_SHAPE, isa.raw("RQ", dst=700, src=0, len=0, m=1, s=1)),
    "sp_range": (isa.ERR_SP_RANGE, isa.raw("LD", dst=4090, src=0, len=16)),
    "ext_range": (isa.ERR_EXT_RANGE, isa.raw("ST", src=3000, dst=8190, len=16)),
}


def test_overlap_faults(sim):
    """A fault after long instructions in flight: they complete (retire after the fault's
    DECODE), the faulting one writes nothing, code and pc come with done; also the end
    of the instruction memory (code 5) with a long MM in flight."""
    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    dump = [b("ST", src=0, dst=6000, len=256), b("ST", src=3000, dst=6300, len=16),
            b("ST", src=4080, dst=6400, len=16), b("HALT")]
    rng = np.random.default_rng(3)
    img = rng.integers(-(1 << 31), 1 << 31, size=CFG.ext_words)
    jobs, want = [], []
    for code, bad in FAULTS.values():
        prog = _long_tail(CFG) + [bad, b("HALT")]
        jobs.append([(prog, img), (dump, None)])
        want.append((code, 3))
    fill = [b("LD", dst=700 + (k % 8), src=k % 64, len=1) for k in range(CFG.imem_depth - 1)]
    pc_prog = fill + [b("MM", dst=3000, A=2048, B=2400, M=4, K=200, N=4, tb=1, lda=200, ldb=200,
                        ldc=4)]
    jobs.append([(pc_prog, img), (dump, None)])
    want.append((isa.ERR_PC, CFG.imem_depth))
    res = hw.run(sim, jobs, cfg=CFG)
    for (code, pc), job, (r, r_dump) in zip(want, jobs, res):
        where = f"code {code} on {sim}"
        assert r.ok, f"{where}: {r.mismatch}"
        assert r_dump.ok, f"{where}, dump: {r_dump.mismatch}"
        assert r.done and r.error and (r.error_code, r.error_pc) == (code, pc), where
        s = timing.schedule(job[0][0], CFG)
        # the cycle the fault is seen: the FETCH at pc = IMEM_DEPTH, or the DECODE
        fault_decode = max(e.issue for e in s.events) + (1 if code == isa.ERR_PC else 2)
        # the instructions in flight complete after the fault was seen
        assert max(c for _, c in r.trace) > fault_decode, where
        assert len(r.trace) == pc, where
        # the fault halts in the first cycle no unit is busy: the one after the last retire
        assert r.counters.cycles == max(c for _, c in r.trace) + 1 == s.cycles, where
        if code == isa.ERR_EXT_RANGE:
            assert np.array_equal(r.ext[8190 - 8:], img[8190 - 8:]), where   # nothing stored
        if code == isa.ERR_SP_RANGE:
            assert r_dump.ok                    # sp[4080:4096] stored by the dump = the reference


# ------------------------------------------------------------------ the test of the test
BROKEN = {
    # the hazard check never stalls: the missed-hazard check (or the comparison) must see it
    "hazard_tied_0": [("rtl/ga2_hazard.v", "assign hazard = |hz;", "assign hazard = 1'b0;")],
    # WAR dropped, and the scratchpad's missed-hazard check removed: the comparison alone
    "war_dropped_no_check": [
        ("rtl/ga2_hazard.v", "((|raw) || (|war) || meet(new_wr, wr_q))", "((|raw) || meet(new_wr, wr_q))"),
        ("rtl/ga2_sp_xbar.v", "if (!rst && miss != 3'd0) begin", "if (1'b0) begin")],
}


# make test: the hazard check tied off; the WAR case without the scratchpad's check is -m long
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.long] * (n != "hazard_tied_0"))
                                  for n in sorted(BROKEN)])
def test_broken_hazard_check_fails(tmp_path, name):
    from tb.sim.files import copy_rtl
    rtl = copy_rtl(tmp_path)
    for path, old, new in BROKEN[name]:
        f = rtl / path.split("/")[1]
        src = f.read_text()
        assert src.count(old) == 1, (name, old)
        f.write_text(src.replace(old, new))
    jobs, _ = collide_jobs(40, seed=SEED + 1)
    try:
        res = hw.run("icarus", jobs, cfg=CFG, rtl_dir=rtl, build_dir=tmp_path / "build")
    except RuntimeError as e:               # the missed-hazard check stopped the simulation
        assert "stopped before program" in str(e) and "missed hazard" in str(e), e
        assert name == "hazard_tied_0"
        return
    bad = [p for job in res for p in job if not p.ok]
    assert bad, f"{name}: every program passed on a broken chip"
    # the early issue shows in the timing (the trace or the counters), not only in data
    assert any("retired" in p.mismatch or "counter" in p.mismatch for p in bad), bad[0].mismatch


@ICARUS_LONG
def test_one_word_edges(sim):
    """Every hull's first and last word: pairs of instructions of two units whose ranges
    share exactly one word, in every hazard kind (tb/stimulus/collide.py edge_programs).
    A range one word short in the hazard unit lets such a pair run together; these
    programs show it in the external memory (the same programs are in the RTL mutation
    bench's overlap suite)."""
    progs = collide.edge_programs(CFG)
    seen = set()
    for _, p, _ in progs:
        seen |= collide.hazard_kinds(p, CFG)
    assert seen == collide.all_kinds()
    res = hw.run_programs(sim, [(p, img) for _, p, img in progs], cfg=CFG)
    for (label, p, _), r in zip(progs, res):
        assert r.ok, f"{sim} {label}: {r.mismatch}"
        assert tuple(r.counters) == tuple(timing.schedule(p, CFG).counters), label
