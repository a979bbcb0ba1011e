"""Programs past the old 16-bit pc on the chip (tb/stimulus/longprog.py): the 21-bit pc,
error_pc, retire pcs and imem_addr, and the fetch counter, held to the reference.

make test runs 70,000 instructions on Verilator (in-order): a program that halts, whose
retire trace must list every pc 0..69,999 in order (a pc cut to 16 bits would retire pc
4,463 instead of 69,999), then one whose last word is illegal, which must fault with
error_pc 69,999 (4,463 on a 16-bit error_pc). The fetch counter must count every word
read: 70,000 in both. The long runs (-m long): the overlap mode's, the deepest
instruction memory (2^21 - 1 words, error 5 at pc 0x1FFFFF), and `ga2 run` / `ga2 cycles`
on a 150,000-instruction program on both simulators (the issue's size).
"""
import pytest

from model import config, isa
from tb import hw
from tb.stimulus import longprog
from tools import ga2

N = 70000                                   # past 2^16 - 1 = 65,535
N_LONG = 150000


def _run(sim, mode):
    cfg = config.DEFAULT.replace(mode=mode).for_program(N)
    assert cfg.imem_depth == 131072         # 2^17: the smallest power of two holding N
    ok_prog, image = longprog.long_program(N, cfg)
    bad_prog, _ = longprog.faulting(N, cfg)
    return hw.run_programs(sim, [(ok_prog, image), (bad_prog, image)], cfg=cfg)


def _check(res):
    good, bad = res
    assert good.ok, good.mismatch
    assert bad.ok, bad.mismatch
    assert good.done and not good.error
    assert sorted(pc for pc, _ in good.trace) == list(range(N))      # every pc, once
    assert good.trace[-1][0] == N - 1                                 # HALT retires last
    assert (good.counters.instret, good.counters.fetch) == (N, N)
    assert bad.error and (bad.error_code, bad.error_pc) == (isa.ERR_OPCODE, N - 1)
    assert (bad.counters.instret, bad.counters.fetch) == (N - 1, N)  # fetched, not retired


@pytest.mark.skipif("verilator" not in hw.available_sims(), reason="Verilator not installed")
def test_past_the_16_bit_pc_on_verilator():
    _check(_run("verilator", "inorder"))


@pytest.mark.long
@pytest.mark.skipif("verilator" not in hw.available_sims(), reason="Verilator not installed")
def test_past_the_16_bit_pc_overlap_on_verilator():
    _check(_run("verilator", "overlap"))


@pytest.mark.long
@pytest.mark.skipif("verilator" not in hw.available_sims(), reason="Verilator not installed")
def test_the_deepest_instruction_memory_on_verilator():
    """2^21 - 1 instructions and no HALT: the last FETCH, at pc 2,097,151 = 0x1FFFFF (every
    bit of the 21-bit pc set), finds no instruction: error 5 there, after every word was
    fetched and retired."""
    cfg = config.DEFAULT.for_program(config.IMEM_MAX)
    assert cfg.imem_depth == config.IMEM_MAX == (1 << 21) - 1
    words, image = longprog.long_program(config.IMEM_MAX, cfg)
    words = words[:-1] + [words[0]]                 # an LD in place of the HALT
    (r,) = hw.run_programs("verilator", [(words, image)], cfg=cfg)
    assert r.ok, r.mismatch
    assert r.error and (r.error_code, r.error_pc) == (isa.ERR_PC, config.IMEM_MAX)
    assert r.counters.instret == r.counters.fetch == config.IMEM_MAX
    assert r.trace[-1][0] == config.IMEM_MAX - 1


def _files(tmp_path, n):
    words, image = longprog.long_program(n, config.DEFAULT.for_program(n))
    prog, ext = tmp_path / f"long{n}.hex", tmp_path / f"long{n}_ext.hex"
    prog.write_text("".join(f"{w:032x}\n" for w in words))
    ext.write_text("".join(f"{int(v) & 0xFFFFFFFF:08x}\n" for v in image))
    return prog, ext


def test_ga2_cycles_and_run_take_a_program_past_the_old_limit(tmp_path, capsys):
    """The commands on the reference (no simulator): a 70,000-instruction program is
    timed and run as a short one is; its last line is pc 69,999's."""
    prog, ext = _files(tmp_path, N)
    assert ga2.main(["cycles", str(prog)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3].split()[:2] == [str(N - 1), "HALT"]
    assert f"instret {N}, fetch {N})" in out[-2]
    assert out[-1].startswith(f"instruction traffic: {N} words of 128 bits fetched = {4 * N} words of 32 bits")
    assert ga2.main(["run", str(prog), "--ext", str(ext)]) == 0
    assert f"instret {N} fetch {N}" in capsys.readouterr().out


def test_a_program_no_instruction_memory_holds_is_bad_input():
    with pytest.raises(ga2.InputError, match="exceeds the largest instruction memory"):
        ga2.fit(config.DEFAULT, range(config.IMEM_MAX + 1))


@pytest.mark.long
@pytest.mark.skipif(set(hw.available_sims()) != {"icarus", "verilator"}, reason="both simulators needed")
def test_ga2_run_and_cycles_take_150000_instructions_on_both_simulators(tmp_path, capsys):
    prog, ext = _files(tmp_path, N_LONG)
    assert ga2.main(["cycles", str(prog)]) == 0
    cycles = capsys.readouterr().out.splitlines()[-2]
    assert f"instret {N_LONG}, fetch {N_LONG})" in cycles
    assert ga2.main(["run", str(prog), "--ext", str(ext), "--sim", "both"]) == 0
    out = capsys.readouterr().out
    total = cycles.split()[1]
    for who in ("reference", "icarus", "verilator"):
        assert f"{who:<10} halted; cycles {total} " in out and f"instret {N_LONG} fetch {N_LONG}" in out, out
