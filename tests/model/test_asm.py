"""The text assembly (model/asm.py): round trip with the disassembler, and errors that
name the line and the field."""
import numpy as np
import pytest

from model import config, isa
from model.asm import AsmError, assemble, assemble_file
from tb.stimulus import randprog


def words(prog):
    return [int(w) for w in isa.as_words(prog)]


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_round_trip(seed):
    prog, _ = randprog.random_program(seed)
    text = isa.disasm(prog)
    assert words(assemble(text)) == words(prog)


def test_every_field_at_its_extremes_round_trips():
    prog = []
    for op, fields in isa.FIELDS.items():
        prog.append(isa.raw(op, **{n: (1 << w) - 1 for n, w in fields}))
        prog.append(isa.raw(op, **{n: 0 for n, _ in fields}))
    prog += [0, 7, (1 << 127) | 12, isa.encode(isa.raw("HALT")) | (1 << 100)]   # .word lines
    text = isa.disasm(prog)
    assert ".word" in text.splitlines()[-1] and "unused high bits" in text.splitlines()[-1]
    assert words(assemble(text, check=False)) == words(prog)


def test_hand_written_program_with_labels_constants_and_comments():
    text = """
    ; a 4x4 tile: load A and B, multiply, requantize, store
    .equ A    0
    .equ B    0x10
    .equ C    0b1000000           # 64
    start:
        LD   dst=A src=0 len=32     ; A and B in one load
        MM   dst=C A=A B=B M=4 K=4 N=4 tb=0 lda=4 ldb=4 ldc=4
        RQ   dst=C+16 src=C len=16 m=16_384 s=14
    end: ST src=C+16 dst=100 len=16
        HALT
    """
    prog = assemble(text)
    assert prog == [isa.build("LD", dst=0, src=0, len=32),
                    isa.build("MM", dst=64, A=0, B=16, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4),
                    isa.build("RQ", dst=80, src=64, len=16, m=16384, s=14),
                    isa.build("ST", src=80, dst=100, len=16),
                    isa.build("HALT")]
    # labels are pcs, usable as values (here: start = 0, end = 3)
    p2 = assemble("start: LD dst=end src=start len=1\nend: HALT")
    assert (p2[0].dst, p2[0].src) == (1, 0)


@pytest.mark.parametrize("text, where", [
    ("LD dst=0 src=0 len=0\nHALT", r"^line 1: LD: field len: len=0"),
    ("HALT\nLD dst=0 src=4095 len=2", r"^line 2: LD: field src: .*external size 4096"),
    ("LD dst=0 src=0 len=8192", r"^line 1: LD: field len=8192 does not fit 13 bits"),
    ("LD dst=0 src=0", r"^line 1: LD: missing field 'len'"),
    ("LD dst=0 src=0 len=1 bogus=3", r"^line 1: LD: unknown field 'bogus'"),
    ("LD dst=0 dst=1 src=0 len=1", r"^line 1: LD: field dst given twice"),
    ("LD dst=zz src=0 len=1", r"^line 1: LD: field dst: unknown name 'zz'"),
    ("LD dst=1q src=0 len=1", r"^line 1: LD: field dst: '1q' is not a number"),
    ("\n\nFOO x=1", r"^line 3: unknown instruction 'FOO'"),
    ("   0  HALT\n   5  HALT", r"^line 2: pc column says 5, but this is instruction 1"),
    (".word 0x1" + "0" * 32, r"^line 1: \.word .* does not fit 128 bits"),
    (".equ X\nHALT", r"^line 1: \.equ needs a name and a value"),
    ("a: HALT\na: HALT", r"^line 2: label 'a' defined twice"),
    ("LD dst=0 src=0 len=1+", r"^line 1: LD: field len: dangling '\+'"),
    ("LD dst=-5 src=0 len=1", r"^line 1: LD: field dst=-5 does not fit 16 bits"),
    ("LD dst= src=0 len=1", r"^line 1: LD: field dst: empty value"),
])
def test_errors_name_the_line_and_the_field(text, where):
    with pytest.raises(AsmError, match=where):
        assemble(text)


def test_check_false_writes_deliberately_bad_programs_and_cfg_sets_the_sizes():
    assert assemble("LD dst=0 src=0 len=0", check=False)[0].len == 0
    with pytest.raises(AsmError, match="external size 4096"):
        assemble("LD dst=0 src=5000 len=1")
    assert assemble("LD dst=0 src=5000 len=1", cfg=config.CH09)[0].src == 5000
    small = config.DEFAULT.replace(imem_depth=2)
    with pytest.raises(AsmError, match="3 instructions exceed the instruction memory \\(2\\)"):
        assemble("HALT\nHALT\nHALT", cfg=small)


def test_assemble_file_names_the_file(tmp_path):
    f = tmp_path / "bad.s"
    f.write_text("HALT\nMM dst=0 A=0 B=0 M=5 K=1 N=1 tb=0 lda=0 ldb=0 ldc=0\n")
    with pytest.raises(AsmError, match=r"bad\.s:2: MM: field M: M=5 outside 1\.\.4"):
        assemble_file(f)
    f.write_text("HALT\n")
    assert assemble_file(f) == [isa.build("HALT")]


def test_numpy_free_words_and_values():
    # .word values are plain ints; the assembler never returns numpy types
    prog = assemble(".word 0x7\nHALT")
    assert prog[0] == 7 and type(prog[0]) is int
    assert not any(isinstance(x, np.integer) for x in prog)
