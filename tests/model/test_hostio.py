"""Host input is checked before anything runs: bad words and images get a ValueError
naming the item (model/hostio.py), never a wrap, a truncation or a later mismatch."""
import numpy as np
import pytest

from model import config, isa
from model.hostio import memory_image, program_words

HALT = isa.build("HALT")


def test_program_words_accepts_instrs_ints_and_numpy_ints():
    w = isa.encode(isa.build("LD", dst=1, src=2, len=3))
    got = program_words([isa.build("LD", dst=1, src=2, len=3), w, np.uint64(6), np.int64(7)])
    assert got == [w, w, 6, 7] and all(type(x) is int for x in got)


@pytest.mark.parametrize("item, msg", [
    (1 << 128, r"instruction 1: word 0x1(0)+ outside 0\.\.2\^128-1"),
    (-1, r"instruction 1: word -0x1 outside"),
    (1.0, r"instruction 1: 1\.0 is neither"),
    (True, r"instruction 1: True is neither"),
    ("HALT", r"instruction 1: 'HALT' is neither"),
])
def test_program_words_rejects_bad_items(item, msg):
    with pytest.raises(ValueError, match=msg):
        program_words([HALT, item])


def test_program_words_rejects_too_long_programs_and_non_lists():
    with pytest.raises(ValueError, match=r"1025 instructions exceeds the instruction memory \(1024\)"):
        program_words([HALT] * 1025)
    assert len(program_words([HALT] * 3, config.DEFAULT.replace(imem_depth=3))) == 3
    with pytest.raises(ValueError, match="list of instructions"):
        program_words("HALT")


def test_memory_image_signed_and_unsigned_words_mean_the_same_bits():
    img = memory_image([-1, 0xFFFFFFFF, -(1 << 31), (1 << 31), 5], 8)
    assert img.dtype == np.int64
    assert img.tolist() == [-1, -1, -(1 << 31), -(1 << 31), 5, 0, 0, 0]
    arr = memory_image(np.array([0xFFFFFFFF, 3], dtype=np.uint64), 2)
    assert arr.tolist() == [-1, 3]
    assert memory_image(None, 3).tolist() == [0, 0, 0]


@pytest.mark.parametrize("image, msg", [
    ([0, 1 << 32], r"word 1 = 4294967296 does not fit 32 bits"),
    ([-(1 << 31) - 1], r"word 0 = -2147483649 does not fit 32 bits"),
    ([0, 1 << 80], r"word 1 = 1208925819614629174706176 does not fit 32 bits"),
    ([1, 2.5], r"word 1 = 2\.5 is not an integer"),
    ([1.0], r"word 0 = 1\.0 is not an integer"),
    (np.array([1.0, 2.0]), r"dtype float64: integer words only"),
    (np.array([0, 1 << 40]), r"word 1 = 1099511627776 does not fit 32 bits"),
    ([0] * 9, r"image of 9 words larger than the memory \(8\)"),
    ("abc", r"sequence of integer words"),
])
def test_memory_image_rejects_what_would_be_wrapped_or_truncated(image, msg):
    with pytest.raises(ValueError, match=msg):
        memory_image(image, 8)
