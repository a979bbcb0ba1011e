"""The soak at scale's bookkeeping (tb/soak_scale.py, tb/soak.py's journal): what a journal
holds, read back without a simulator; and one tiny soak whose journal carries each chunk's
CPU seconds and resumes to nothing new."""
import json

import pytest

from model import config
from tb import hw, soak, soak_scale


def _journal(path, lines):
    soak.start_journal(path)
    with open(path, "a") as f:
        for ln in lines:
            f.write(json.dumps(ln) + "\n")


def _line(sim, mode, c, k, ok, cycles, bad=-1, build="B", cpu=None, chunk=soak.CHUNK):
    e = {"sim": sim, "mode": mode, "ext_words": 4096, "seed": 1, "chunk": chunk, "build": build,
         "result": [c, k, ok, cycles, bad, "" if bad < 0 else "memory differs", ""]}
    return e if cpu is None else {**e, "cpu": cpu}


def test_report_sums_the_journal_per_simulator_and_mode(tmp_path):
    j = tmp_path / "j.jsonl"
    _journal(j, [_line("verilator", "inorder", 0, 250, 250, 1000, cpu=2.0),
                 _line("verilator", "inorder", 1, 250, 250, 3000, cpu=3.0),
                 _line("verilator", "inorder", 2, 250, 250, 500),          # a line of the old runner: no cpu
                 _line("icarus", "overlap", 0, 250, 249, 700, bad=17, cpu=50.0)])
    lines = soak_scale.report(j)
    assert lines == [
        "FAIL icarus [overlap] seed 1 ext 4096: 250 programs in 1 chunks, 1 mismatches, 700 cycles "
        "(from the chip's counters), CPU 50 s for 250 of them (200.0 ms a program); failing: chunk 0 program 17",
        "PASS verilator [inorder] seed 1 ext 4096: 750 programs in 3 chunks, 0 mismatches, 4500 cycles "
        "(from the chip's counters), CPU 5 s for 500 of them (10.0 ms a program)"]
    assert soak_scale.main(["--report", "--journal", str(j)]) == 1


def test_done_programs_counts_whole_chunks_from_zero_of_this_build(tmp_path):
    j = tmp_path / "j.jsonl"
    _journal(j, [_line("verilator", "overlap", 0, 250, 250, 1),
                 _line("verilator", "overlap", 1, 250, 250, 1),
                 _line("verilator", "overlap", 3, 250, 250, 1),            # after a gap: not counted
                 _line("verilator", "inorder", 2, 250, 250, 1),            # another mode
                 _line("verilator", "overlap", 2, 250, 250, 1, build="other")])   # another build
    assert soak_scale.done_programs(j, "verilator", "overlap", 1, "B") == 500
    assert soak_scale.done_programs(j, "verilator", "overlap", 2, "B") == 0      # another seed
    assert soak_scale.done_programs(j, "verilator", "inorder", 1, "B") == 0
    assert soak_scale.done_programs(j, "verilator", "overlap", 1, "other") == 0


def test_a_journaled_soak_records_cpu_and_resumes_to_nothing_new(tmp_path):
    sim = "verilator" if "verilator" in hw.available_sims() else "icarus"
    if sim not in hw.available_sims():
        pytest.skip("no simulator")
    j = tmp_path / "j.jsonl"
    soak.start_journal(j)
    st = {}
    first = soak.soak(sim, 2, seed=5, cfg=config.DEFAULT, chunk=1, jobs=1, progress=False, journal=j, stats=st)
    assert st["new"] == 2 and st["resumed"] == 0 and st["cpu"] > 0
    entries = soak.read_journal(j)
    assert len(entries) == 2 and all(e["cpu"] > 0 for e in entries)
    assert [tuple(e["result"]) for e in sorted(entries, key=lambda e: e["result"][0])] == first
    st2 = {}
    again = soak.soak(sim, 2, seed=5, cfg=config.DEFAULT, chunk=1, jobs=1, progress=False, journal=j,
                      resume=True, stats=st2)
    assert again == first and st2 == {"resumed": 2, "new": 0, "cpu": 0.0}
