"""The simulator commands of docs/programming.md run and exit 0 (the chip equals the
reference on the worked example), and `ga2 run` reports a fault with exit code 3."""
import re

import pytest

from tb import ROOT, hw
from tools import ga2


def commands():
    """The `./ga2 ...` lines of the page's ```sh blocks, as argument lists."""
    text = (ROOT / "docs" / "programming.md").read_text()
    return [ln.split()[1:] for b in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)
            for ln in b.splitlines() if ln.startswith("./ga2 ")]


@pytest.mark.parametrize("argv", [c for c in commands() if "--sim" in c], ids=" ".join)
def test_simulator_commands_exit_0(argv, monkeypatch, capsys):
    missing = [s for s in hw.SIMS if s not in hw.available_sims()]
    if missing:
        pytest.skip(f"not installed: {missing}")
    monkeypatch.chdir(ROOT)
    rc = ga2.main(argv)
    out = capsys.readouterr().out
    assert rc == 0, out
    for sim in ("reference", "icarus", "verilator"):
        assert f"{sim}" in out and "cycles 562 mm 156 dma 323 vec 65 instret 9" in out


def test_run_reports_a_fault_with_exit_3(sim, tmp_path, capsys):
    prog = tmp_path / "bad.s"
    prog.write_text("LD dst=0 src=0 len=8\nMM dst=0 A=0 B=0 M=5 K=1 N=1 tb=0 lda=0 ldb=0 ldc=0\nHALT\n")
    assert ga2.main(["run", str(prog), "--sim", sim]) == 2          # the assembler refuses it
    assert "MM: field M: M=5 outside 1..4" in capsys.readouterr().err
    assert ga2.main(["run", str(prog), "--sim", sim, "--raw"]) == 3  # the chip faults, code 4 at pc 1
    out = capsys.readouterr().out
    assert out.count("error 4 (bad shape) at pc 1") == 2, out


def test_isa_examples_run_on_the_chip(sim, both_modes=("inorder", "overlap")):
    """docs/isa.md's example of every operation (#### OP, an ```asm block) runs on the
    simulator in both timing modes, equal to the reference (memory, counters, trace)."""
    import numpy as np

    from model import asm, config
    text = (ROOT / "docs" / "isa.md").read_text()
    progs = [asm.assemble(t) for t in re.findall(r"^#### \w+\n```asm\n(.*?)^```", text, re.M | re.S)]
    assert len(progs) >= 12
    image = np.arange(config.DEFAULT.ext_words) % 97 - 48
    for mode in both_modes:
        res = hw.run_programs(sim, [(p, image) for p in progs], cfg=config.DEFAULT.replace(mode=mode))
        assert all(r.ok for r in res), [r.mismatch for r in res if not r.ok]
