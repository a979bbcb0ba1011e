"""Checks of model/config.py: the chip's sizes and options.

DEFAULT and CH09 are pinned from the spec (docs/contract.md, docs/isa.md): a 4 x 4
array, 4096 scratchpad words, 1024 instructions, 64-element softmax, 2 issue cycles, and
4096 (the chip as synthesised) or 8192 (chapter 9) external words. Every field refuses a
bad value with a ValueError naming it.
"""
import dataclasses

import pytest

from model import config
from model.config import CH09, DEFAULT, Config


def test_default_and_ch09_are_the_spec_values():
    assert (DEFAULT.array, DEFAULT.sp_words, DEFAULT.ext_words, DEFAULT.imem_depth,
            DEFAULT.sm_max_len, DEFAULT.issue_cycles, DEFAULT.mode) == (4, 4096, 4096, 1024, 64, 2, "inorder")
    assert CH09.ext_words == 8192
    assert CH09 == Config(ext_words=8192) and CH09.replace(ext_words=4096) == DEFAULT
    assert Config() == DEFAULT


def test_derived_properties():
    # array skew 2*(4-1) + 1 read latency; load divider + 32 steps + write; 24-bit external addresses
    assert DEFAULT.mm_fill == 7 and DEFAULT.sm_div_cycles == 34 and DEFAULT.ext_max == 1 << 29


@pytest.mark.parametrize("field, value", [
    ("array", 3), ("array", 8), ("array", "4"), ("array", True), ("array", 4.0),
    ("sp_words", 1), ("sp_words", 65537), ("sp_words", None),
    ("ext_words", 0), ("ext_words", (1 << 29) + 1), ("ext_words", 4096.0),
    ("imem_depth", 0), ("imem_depth", 1 << 21), ("imem_depth", False),
    ("sm_max_len", 0), ("sm_max_len", 1025),
    ("issue_cycles", 1), ("issue_cycles", 3),
    ("mode", "ooo"), ("mode", "Overlap"), ("mode", ""), ("mode", None),
])
def test_every_field_is_checked(field, value):
    with pytest.raises(ValueError, match=f"Config: {field}"):
        Config(**{field: value})
    with pytest.raises(ValueError, match=f"Config: {field}"):
        DEFAULT.replace(**{field: value})


@pytest.mark.parametrize("field, value", [
    ("sp_words", 2), ("sp_words", 65536), ("ext_words", 1), ("ext_words", 65536), ("ext_words", 1 << 24),
    ("imem_depth", 1), ("imem_depth", 65536), ("imem_depth", (1 << 20) - 1), ("imem_depth", (1 << 21) - 1),
    ("sm_max_len", 1), ("sm_max_len", 64), ("sm_max_len", 1024)])
def test_edges_are_accepted(field, value):
    assert getattr(Config(**{field: value}), field) == value


def test_replace_gives_a_checked_copy():
    c = DEFAULT.replace(ext_words=64, imem_depth=16)
    assert (c.ext_words, c.imem_depth, c.sp_words) == (64, 16, 4096)
    assert DEFAULT.ext_words == 4096 and DEFAULT.imem_depth == 1024      # unchanged
    with pytest.raises(TypeError):
        DEFAULT.replace(nonsense=1)


def test_frozen_and_hashable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.ext_words = 8192
    assert len({DEFAULT, CH09, Config(), Config(ext_words=8192)}) == 2


def test_name():
    assert DEFAULT.name == "default"
    assert CH09.name == "ext_words8192"
    assert DEFAULT.replace(ext_words=64, imem_depth=16).name == "ext_words64-imem_depth16"


def test_the_pc_is_20_bits():
    """The pc (and error_pc, retire_pc, imem_addr) is 21 bits: an instruction memory of
    up to 2^21 - 1 words (pc must reach imem_depth, the end-of-memory fault's pc)."""
    assert (config.PC_W, config.IMEM_MAX) == (21, 2097151)


@pytest.mark.parametrize("n, depth", [
    (0, 1024), (1, 1024), (1024, 1024),              # fits DEFAULT: DEFAULT itself
    (1025, 2048), (70000, 131072), (150000, 262144),  # the smallest power of two holding n
    (524288, 524288), (524289, 1048576), (1048577, 2097151),
    (2097151, 2097151)])                              # capped at 2^21 - 1
def test_for_program_sizes_the_instruction_memory(n, depth):
    got = DEFAULT.for_program(n)
    assert got.imem_depth == depth
    assert got.replace(imem_depth=1024) == DEFAULT      # nothing else changes
    if n <= 1024:
        assert got is DEFAULT                           # the same Config: the same build


@pytest.mark.parametrize("n", [1 << 21, -1, 1.5, True, "7"])
def test_for_program_refuses_what_no_memory_holds(n):
    with pytest.raises(ValueError, match="program"):
        DEFAULT.for_program(n)


def test_parse_ext():
    assert config.parse_ext("8192") == CH09
    assert config.parse_ext("0x2000") == CH09
    assert config.parse_ext(64).ext_words == 64
    with pytest.raises(ValueError, match="not an integer"):
        config.parse_ext("lots")
    with pytest.raises(ValueError, match="ext_words"):
        config.parse_ext("0")


def test_resolve():
    assert config.resolve(None) is DEFAULT
    assert config.resolve(CH09) is CH09
    with pytest.raises(ValueError, match="expected a model.config.Config"):
        config.resolve(4096)
