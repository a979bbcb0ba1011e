"""The ga2 command on the reference: exit codes and the messages bad input gets (exit 2,
no traceback), asm/disasm round trip through files."""
import pytest

from model import isa
from tools import ga2

TILE = "LD dst=0 src=0 len=32\nMM dst=64 A=0 B=16 M=4 K=4 N=4 tb=0 lda=4 ldb=4 ldc=4\nST src=64 dst=100 len=16\nHALT\n"


@pytest.fixture
def prog(tmp_path):
    p = tmp_path / "tile.s"
    p.write_text(TILE)
    return p


def run(argv, capsys):
    rc = ga2.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_asm_disasm_round_trip_and_cycles(prog, tmp_path, capsys):
    hexf = tmp_path / "tile.hex"
    assert run(["asm", prog, "-o", hexf], capsys)[0] == 0
    assert len(hexf.read_text().split()) == 4
    rc, out, _ = run(["disasm", hexf], capsys)
    assert rc == 0 and out.splitlines()[1].split()[1:3] == ["MM", "dst=64"]
    rc, out, _ = run(["cycles", hexf], capsys)
    assert rc == 0 and "total 85 cycles" in out            # 35 + 29 + 19 + 2, docs/isa.md formulas
    rc, out, _ = run(["run", prog], capsys)
    assert rc == 0 and "reference  halted; cycles 85 mm 27 dma 50 vec 0 instret 4" in out


def test_cycles_in_the_overlap_mode_says_where_each_unit_idles(prog, capsys):
    # LD: FETCH 1, DECODE 2 issues, busy 3..35; MM (reads the LD's words): DECODE 4..35,
    # issues 36, busy 37..63; ST (reads the MM's): FETCH 37, DECODE 38..63, issues 64, busy
    # 65..81; HALT retires 82. The DMA idles 82 - 50 = 32: 1, 2 and 64 (its FETCH and
    # DECODE), 36..63 (the ST needs the MM's results: the MM has not ended), 82 (the HALT)
    rc, out, _ = run(["cycles", prog, "--mode", "overlap"], capsys)
    assert rc == 0 and "total 82 cycles (predicted by the timing model, mode overlap" in out
    assert "dma idles 32 cycles: 28 own: raw on mm; 3 its FETCH and DECODE; 1 after its last instruction" in out
    # the MM: 1..35 (the LD it reads has not ended), 36 its issue; 64..82 after it
    assert "mm idles 55 cycles: 35 own: raw on dma; 19 after its last instruction; 1 its FETCH and DECODE" in out
    assert "vec idles 82 cycles: 82 no instruction of its own" in out
    rc, out, _ = run(["cycles", prog], capsys)                 # in-order: no such lines
    assert rc == 0 and "total 85 cycles" in out and "idles" not in out


@pytest.mark.parametrize("content, args, msg", [
    (None, ["--ext-words", "70000"], "--ext-words: 70000 outside 1..65536"),
    (None, ["--ext-words", "8k"], "--ext-words: '8k' is not an integer"),
    ("ext", ["--ext", "{ext}"], "img.txt:1: '2.5' is not an integer"),
    ("ext_big", ["--ext", "{ext}"], "word 0 = 4294967296 does not fit 32 bits"),
    ("wide", [], "word 0x1" + "0" * 32 + " outside 0..2^128-1"),
    ("badhex", [], "'zz' is not a hex word"),
    (None, ["--max-cycles", "0"], "--max-cycles: 0 outside 1..2147483647"),
    ("missing", [], "no such file"),
])
def test_bad_input_exits_2_with_a_message(content, args, msg, prog, tmp_path, capsys):
    target = prog
    ext = tmp_path / "img.txt"
    if content == "ext":
        ext.write_text("1 2.5 3\n")
    elif content == "ext_big":
        ext.write_text(f"{1 << 32}\n")
    elif content in ("wide", "badhex"):
        target = tmp_path / "p.hex"
        target.write_text(("1" + "0" * 32 if content == "wide" else "zz") + "\n")
    elif content == "missing":
        target = tmp_path / "nope.s"
    argv = ["run", target] + [a.format(ext=ext) for a in args]
    rc, out, err = run(argv, capsys)
    assert rc == 2 and msg in err and "Traceback" not in err, (rc, out, err)


def test_a_faulting_program_exits_3(tmp_path, capsys):
    p = tmp_path / "bad.s"
    p.write_text("LD dst=0 src=0 len=1\nMM dst=0 A=0 B=0 M=5 K=1 N=1 tb=0 lda=0 ldb=0 ldc=0\nHALT\n")
    rc, out, _ = run(["run", p, "--raw"], capsys)
    assert rc == 3 and f"error {isa.ERR_SHAPE} (bad shape) at pc 1" in out
    rc, out, _ = run(["cycles", p, "--raw"], capsys)
    assert rc == 3 and "faults: error 4" in out
