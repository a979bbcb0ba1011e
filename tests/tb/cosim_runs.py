"""The run-and-compare step the op co-simulation tests share (test_lm_cosim,
test_swiglu_rope_cosim, test_xhi_pack4_long_softmax_cosim): a list of hand programs and
a list of one-instruction timing programs in one simulator process, each hand program
held to the reference and to its schedule. Why one place: the tests differ only in their
programs and in the checks they add per program."""
from model import timing
from tb import hw


def run_checked(sim, progs, timed, cfg):
    """Run progs ([(name, prog, img)]) and the programs of timed ([(op, shape, prog)]) in
    one simulator process; assert each of progs matched the reference (memory, counters,
    trace: r.ok), ran to its end without x/z or a timeout, its six counters and retire
    trace those of its schedule (model/timing.py, from the program alone). Returns
    ([(name, prog, img, r, where)] of progs, [r] of timed)."""
    pairs = [(p, i) for _, p, i in progs] + [(p, None) for _, _, p in timed]
    res = hw.run_programs(sim, pairs, cfg=cfg)
    assert len(res) == len(pairs)
    out = []
    for (name, prog, img), r in zip(progs, res):
        where = f"{name} ({sim}, {cfg.mode})"
        assert r.ok, f"{where}: {r.mismatch}"
        assert r.xz == "" and r.done and not r.timeout, where
        s = timing.schedule(prog, cfg)
        assert tuple(r.counters) == tuple(s.counters) and r.trace == timing.trace(s), where
        out.append((name, prog, img, r, where))
    return out, res[len(progs):]
