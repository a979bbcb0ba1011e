"""The cocotb wrapper's binary memory images (tb/protocol.py write_bin, the harness's
load_bin: one $fread a memory; issue 37's bulk load).

The format against struct's big-endian packing; on each simulator, what the wrapper loads
from the binary files against what the plain bench on Icarus loads from hex ($readmemh) for
the same program, image and scratchpad -- the same external memory after the run, the same
trace and counters (the plain bench's Verilator build, with its own run-time library, is
make test-long's: tests/tb/test_build_share.py); and a file of the wrong size (truncated,
oversized) stops the run with the harness's error naming the file and both sizes, before any
program runs.
"""
import re
import struct

import numpy as np
import pytest

from model import config, isa
from tb import hw, protocol
from tb.sim import plain

CFG = config.DEFAULT
EDGES = [0, 1, -1, -(1 << 31), (1 << 31) - 1, 0x12345678, -0x789ABCDF]


def test_write_bin_is_big_endian_words_padded_to_depth(tmp_path):
    p = tmp_path / "m.bin"
    protocol.write_bin(p, EDGES, 32)
    assert p.read_bytes() == b"".join(struct.pack(">I", v & 0xFFFFFFFF) for v in EDGES)
    words = [(1 << 127) | 5, 0xFFEEDDCCBBAA99887766554433221100]
    protocol.write_bin(p, words, 128, depth=4)
    want = b"".join(struct.pack(">QQ", w >> 64, w & (2 ** 64 - 1)) for w in words) + bytes(32)
    assert p.read_bytes() == want
    with pytest.raises(ValueError, match="3 words exceed the memory's 2"):
        protocol.write_bin(p, [1, 2, 3], 128, depth=2)


def _program():
    """Words of ext read into the scratchpad and written back, preloaded scratchpad words
    written out too, then HALT: the run's ext_out shows the loaded image and scratchpad,
    the trace each fetch from the loaded instruction memory."""
    n, top = 16, CFG.ext_words
    prog = [isa.build("LD", dst=0, src=e, len=n) for e in range(0, top, 512)]
    prog += [isa.build("ST", src=0, dst=top - 2 * n, len=n), isa.build("ST", src=100, dst=top - n, len=n),
             isa.build("HALT")]
    return prog


def test_binary_load_equals_the_hex_load(sim, tmp_path):
    rng = np.random.default_rng(37)
    img = rng.integers(-(1 << 31), 1 << 31, CFG.ext_words, dtype=np.int64)
    img[:len(EDGES)] = [(v + (1 << 31)) % (1 << 32) - (1 << 31) for v in EDGES]
    sp = rng.integers(-(1 << 31), 1 << 31, CFG.sp_words, dtype=np.int64)
    prog = _program()
    got = hw.run_programs(sim, [(prog, img, sp)], cfg=CFG)[0]
    assert got.ok, got.mismatch
    hexed = plain.run(plain.build("icarus", CFG), prog, img, CFG, tmp_path / "plain", sp=sp)
    assert np.array_equal(hexed.ext, got.ext)
    assert [tuple(t) for t in hexed.trace] == [tuple(t) for t in got.trace]
    assert hexed.status[0]["cycles"] == got.counters.cycles


@pytest.mark.parametrize("what,cut", [("ext", -1), ("imem", +16), ("sp", +4)])
def test_a_file_of_the_wrong_size_is_an_error_naming_it(sim, monkeypatch, what, cut):
    real = protocol.write_bin

    def spoiled(path, words, width, depth=None):
        real(path, words, width, depth)
        if path.name == protocol.program_file(".", 0, what).name:
            data = path.read_bytes()
            path.write_bytes(data[:cut] if cut < 0 else data + bytes(cut))

    monkeypatch.setattr(protocol, "write_bin", spoiled)
    img = np.zeros(CFG.ext_words, dtype=np.int64)
    size = {"ext": 4 * CFG.ext_words, "imem": 16 * CFG.imem_depth, "sp": 4 * CFG.sp_words}[what]
    name = re.escape(protocol.program_file(".", 0, what).name)
    with pytest.raises(hw.DesignAssertion, match=fr"{name} holds {size + cut} bytes, expected {size}"):
        hw.run_programs(sim, [([isa.build("HALT")], img, np.zeros(CFG.sp_words, dtype=np.int64))], cfg=CFG)
