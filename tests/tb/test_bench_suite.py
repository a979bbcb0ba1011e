"""The RTL mutation bench's program lists through cocotb, on Icarus and Verilator.

Issue 14 ("One suite"): whatever tb/hdl/mut_rtl_tb.v checks, the pytest suite checks
too. This runs EXACTLY the bench's chip programs -- tb/mutation/rtl/suite.py
suite_programs() on config.CH09 (in-order), overlap_programs() on config.CH09_OVERLAP and
sp64k_programs() on suitecfg.CFG_SP64K (2^16 scratchpad words, softmax up to 1,024) --
through the cocotb flow (tb/sim/run.py), one hw.run call per simulator and mode with
every program in ONE job in suite order, so the scratchpad carries over between programs
as in the bench. Each result must be ok: compare() against the one reference Machine run
over the same sequence (external memory, the six counters, the retire trace,
error/code/pc, the harness's host-contract monitors, out-of-range accesses).

The bench's entries map to Items: (label, prog, image) -> Item(prog, image) (image None:
an all-zero external memory, as the bench clears it); (label, prog, image, abort_at) ->
Item(..., abort_at=abort_at): the wrapper cuts by rst after abort_at cycles exactly where
the bench does (the negedge 1 + abort_at after the start), and compare() judges the
retires up to the cut and every host output 0 after it; the result must also say it was
cut (the bench fails a program that is done before its reset point); (label, prog, None,
0, 1), a "light" fault program, -> Item(prog, KEEP_EXT): the external memory stays as the
previous program left it, on the chip and the reference (the bench keeps it and does
not compare it; here it is compared too). The requant and divu unit vectors of the
bench are checked by tests/tb/test_units_cosim.py (tb/drivers/units_job.py).

The builds are the chapter-9 ones (build/<sim>-<config name>, as
tests/tools/ch09/test_ch09_cosim.py and tests/tb/test_overlap_cosim.py use).
"""
import functools

import pytest

from model import isa
from tb import hw
from tb.judge import KEEP_EXT
from tb.stimulus.programs import bench_items, overlap_programs, sp64k_programs, suite_programs
from tb.stimulus.suitecfg import CFG, CFG_OVERLAP, CFG_SP64K

MODES = {"inorder": (CFG, suite_programs),
         "overlap": (CFG_OVERLAP, overlap_programs),
         "sp64k": (CFG_SP64K, sp64k_programs)}


@functools.cache
def mode_entries(mode):
    """The bench's entry list of the mode (built once per session: a few seconds)."""
    return tuple(MODES[mode][1]())


@functools.cache
def mode_items(mode):
    return tuple(bench_items(mode_entries(mode)))


def test_bench_items_map_the_entries():
    """The mapping: plain entries keep their image (None: zeros), cuts keep abort_at,
    light entries keep the external memory; order and count are the bench's."""
    p = [isa.build("HALT", cfg=CFG)]
    items = bench_items([("a", p, [1, 2]), ("b", p, None), ("c", p, [3], 17), ("d", p, None, 0, 1)])
    assert [lb for lb, _ in items] == ["a", "b", "c", "d"]
    (_, a), (_, b), (_, c), (_, d) = items
    assert list(a.image) == [1, 2] and a.abort_at == 0 and a.sp is None
    assert b.image is None and b.abort_at == 0
    assert list(c.image) == [3] and c.abort_at == 17
    assert isinstance(d.image, str) and d.image == KEEP_EXT and d.abort_at == 0
    for mode in MODES:
        entries = mode_entries(mode)
        items = mode_items(mode)
        assert [lb for lb, _ in items] == [e[0] for e in entries]
        assert sum(it.image is KEEP_EXT for _, it in items) == sum(len(e) > 4 and bool(e[4]) for e in entries)
        assert sum(it.abort_at > 0 for _, it in items) == sum(len(e) > 3 and e[3] > 0 for e in entries)
        assert mode == "sp64k" or any(it.abort_at > 0 for _, it in items)


# the suite on Icarus is long (the mutation harness of tests/tb/test_mut_rtl.py runs its
# quick part on Icarus, both modes, in every make test; Verilator runs all of it): make test-long
CIRCUIT_CASES = [pytest.param("icarus", "inorder", marks=pytest.mark.long),
                 pytest.param("icarus", "overlap", marks=pytest.mark.long),
                 pytest.param("icarus", "sp64k", marks=pytest.mark.long),
                 ("verilator", "inorder"), ("verilator", "overlap"), ("verilator", "sp64k")]


@pytest.mark.parametrize("sim,mode", CIRCUIT_CASES, indirect=["sim"])
def test_bench_programs_on_the_circuit(sim, mode):
    cfg, _ = MODES[mode]
    labelled = mode_items(mode)
    labels = [lb for lb, _ in labelled]
    items = [it for _, it in labelled]
    (res,) = hw.run(sim, [items], cfg=cfg)
    assert len(res) == len(items)
    bad = []
    for k, (label, it, r) in enumerate(zip(labels, items, res)):
        if it.abort_at and not r.host["aborted"]:
            bad.append(f"p{k} {label!r}: done before the reset point (abort_at {it.abort_at})")
        elif not it.abort_at and r.timeout:
            bad.append(f"p{k} {label!r}: timeout ({r.mismatch})")
        elif not r.ok:
            bad.append(f"p{k} {label!r}: {r.mismatch}")
    assert not bad, (f"{sim} {mode} ({cfg.name}): {len(bad)} of {len(items)} bench programs differ:\n"
                     + "\n".join(bad[:5]))
