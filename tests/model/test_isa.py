"""Independent checks of model/isa.py: encoding, builders, faults, disassembler, helpers.

The encoding is checked against an encoder written here from the docs/isa.md table
(fields packed upward from bit 4 in the listed order), not against ga2_isa's LAYOUT.
"""
import random
import re

import numpy as np
import pytest

from model import config, isa, quant

# docs/isa.md "Encoding" table, typed in independently. xhi was 8 bits in the spec and is 13
# now (external memories of 2^29 words): it is each op's last field, so a spec word (its bits
# above xhi's eighth zero) decodes as before
DOC_CODES = {"LD": 1, "ST": 2, "MM": 3, "RQ": 4, "SM": 5, "HALT": 6,
             "LDX": 7, "ADD": 8, "ARGMAX": 9, "NORM": 10, "PACK4": 11, "UNPACK4": 12}
DOC_FIELDS = {
    "LD": [("dst", 16), ("src", 16), ("len", 13), ("xhi", 13)],
    "ST": [("src", 16), ("dst", 16), ("len", 13), ("xhi", 13)],
    "MM": [("dst", 16), ("A", 16), ("B", 16), ("M", 3), ("K", 8), ("N", 3), ("tb", 1),
           ("lda", 12), ("ldb", 12), ("ldc", 12), ("acc", 1)],
    "RQ": [("dst", 16), ("src", 16), ("len", 13), ("m", 16), ("s", 6), ("relu", 1)],
    "SM": [("dst", 16), ("src", 16), ("len", 13)],
    "HALT": [],
    "LDX": [("dst", 16), ("src", 16), ("len", 13), ("idx", 16), ("rows", 16), ("xhi", 13)],
    "ADD": [("dst", 16), ("src", 16), ("len", 13), ("src2", 16)],
    "ARGMAX": [("dst", 16), ("src", 16), ("len", 13)],
    "NORM": [("dst", 16), ("src", 16), ("len", 13), ("m", 16), ("s", 6)],
    "PACK4": [("dst", 16), ("src", 16), ("len", 13)],
    "UNPACK4": [("dst", 16), ("src", 16), ("len", 13)],
}


def doc_encode(op, fields):
    word, bit = DOC_CODES[op], 4
    for name, width in DOC_FIELDS[op]:
        assert 0 <= fields[name] < 1 << width
        word |= fields[name] << bit
        bit += width
    return word


def test_tables_match_docs():
    """The first twelve ops' codes and fields as the spec fixed them, at the bits it fixed
    them (an op added later is pinned by its own tests; docs/isa.md's generated table is
    compared in test_coverage_model). A field added to one of them since (MM's khi and a16)
    follows the spec's fields and has the default 0, so that every word of the spec decodes
    as it did: pinned in EXTENDED."""
    assert {op: isa.OPCODES[op] for op in DOC_CODES} == DOC_CODES
    assert {op: list(isa.FIELDS[op])[:len(f)] for op, f in DOC_FIELDS.items()} == DOC_FIELDS
    for op, f in DOC_FIELDS.items():
        added = list(isa.FIELDS[op])[len(f):]
        assert added == EXTENDED.get(op, []), op
        assert all(isa.DEFAULTS.get(op, {}).get(n) == 0 for n, _ in added), op
    assert (config.DEFAULT.sp_words, config.DEFAULT.imem_depth, isa.INSTR_W, config.DEFAULT.array,
            config.DEFAULT.sm_max_len) == (4096, 1024, 128, 4, 64)


# fields added to the spec's ops since (docs/isa.md), after the spec's, each 0 by default
EXTENDED = {"MM": [("khi", 3), ("a16", 1)], "ADD": [("w", 1)],
            "ARGMAX": [("base", 16), ("acc", 1), ("pair", 1)]}


def _with_added(op, fields):
    """fields and the op's added fields at 0 (what a spec word decodes to)."""
    return {**fields, **{n: 0 for n, _ in EXTENDED.get(op, [])}}


def extreme_cases():
    for op, fields in DOC_FIELDS.items():
        names = [n for n, _ in fields]
        yield op, {n: 0 for n in names}
        yield op, {n: (1 << w) - 1 for n, w in fields}
        for name, width in fields:
            f = {n: 0 for n in names}
            f[name] = (1 << width) - 1
            yield op, f
            f = {n: (1 << w) - 1 for n, w in fields}
            f[name] = 0
            yield op, f


@pytest.mark.parametrize("op, fields", list(extreme_cases()))
def test_encode_decode_round_trip_at_field_extremes(op, fields):
    ins = isa.raw(op, **fields)
    word = isa.encode(ins)
    assert word == doc_encode(op, fields)
    assert 0 <= word < 1 << 128
    back = isa.decode(word)
    assert back == ins and back.op == op and back.fields() == _with_added(op, fields)
    for name, v in fields.items():
        assert getattr(back, name) == v


def test_round_trip_random():
    rng = random.Random(2)
    for _ in range(500):
        op = rng.choice(list(DOC_FIELDS))
        f = {n: rng.randrange(1 << w) for n, w in DOC_FIELDS[op]}
        w = isa.encode(isa.raw(op, **f))
        assert w == doc_encode(op, f)
        assert isa.decode(w).fields() == _with_added(op, f)


def test_instr_attributes():
    ins = isa.raw("LD", dst=1, src=2, len=3)
    assert (ins.dst, ins.src, ins.len) == (1, 2, 3)
    with pytest.raises(AttributeError, match="no field 'K'"):
        _ = ins.K
    assert "LD" in repr(ins) and "len=3" in repr(ins)


# ---------------------------------------------------------------- raw()
@pytest.mark.parametrize("op, fields, msg", [
    ("LD", dict(dst=0, src=0, len=8192), r"LD: field len=8192 does not fit 13 bits"),
    ("LD", dict(dst=65536, src=0, len=1), r"LD: field dst=65536 does not fit 16 bits"),
    ("LD", dict(dst=-1, src=0, len=1), r"LD: field dst=-1 does not fit"),
    ("MM", dict(dst=0, A=0, B=0, M=8, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0), r"MM: field M=8"),
    ("MM", dict(dst=0, A=0, B=0, M=1, K=256, N=1, tb=0, lda=0, ldb=0, ldc=0), r"MM: field K=256"),
    ("MM", dict(dst=0, A=0, B=0, M=1, K=1, N=1, tb=2, lda=0, ldb=0, ldc=0), r"MM: field tb=2"),
    ("MM", dict(dst=0, A=0, B=0, M=1, K=1, N=1, tb=0, lda=4096, ldb=0, ldc=0), r"MM: field lda=4096"),
    ("RQ", dict(dst=0, src=0, len=1, m=65536, s=0), r"RQ: field m=65536"),
    ("RQ", dict(dst=0, src=0, len=1, m=1, s=64), r"RQ: field s=64"),
    ("LD", dict(dst=0, src=0, len=1, K=3), r"LD: unknown field\(s\) K"),
    ("HALT", dict(x=1), r"HALT: unknown field\(s\) x"),
    ("LD", dict(dst=0, src=0), r"LD: missing field 'len'"),
    ("MUL", dict(), r"unknown instruction 'MUL'"),
    ("LD", dict(dst=0, src=0, len=1.0), r"LD: field len must be an integer"),
    ("LD", dict(dst=0, src=0, len=True), r"LD: field len must be an integer"),
    ("LD", dict(dst=0, src=0, len="3"), r"LD: field len must be an integer"),
])
def test_raw_rejects(op, fields, msg):
    with pytest.raises(ValueError, match=msg):
        isa.raw(op, **fields)


def test_raw_accepts_numpy_ints_and_bad_semantics():
    ins = isa.raw("LD", dst=np.int64(3), src=np.uint16(4), len=np.int32(5))
    assert ins.fields() == {"dst": 3, "src": 4, "len": 5, "xhi": 0}
    assert all(type(v) is int for v in ins.args)
    # raw() only checks encodability: a zero-length LD is allowed here
    assert isa.raw("LD", dst=4095, src=0, len=0).len == 0


# ---------------------------------------------------------------- build()
MM0 = dict(dst=0, A=0, B=0, M=1, K=1, N=1, tb=0, lda=1, ldb=1, ldc=1)


def mm(**kw):
    f = dict(MM0)
    f.update(kw)
    return f


# (op, fields, field named in the message, chip fault code)
FAULTS = [
    ("LD", dict(dst=0, src=0, len=0), "len", 4),
    ("LD", dict(dst=4000, src=0, len=97), "dst", 2),          # 4000+97 = 4097 > 4096
    ("LD", dict(dst=0, src=4000, len=97), "src", 3),          # ext 4096
    ("LD", dict(dst=5000, src=5000, len=1), "dst", 2),        # sp range before ext range
    ("LD", dict(dst=5000, src=0, len=0), "len", 4),           # shape before range
    ("ST", dict(src=0, dst=0, len=0), "len", 4),
    ("ST", dict(src=4095, dst=0, len=2), "src", 2),
    ("ST", dict(src=0, dst=4095, len=2), "dst", 3),
    ("RQ", dict(dst=0, src=0, len=0, m=1, s=0), "len", 4),
    ("RQ", dict(dst=0, src=4090, len=7, m=1, s=0), "src", 2),
    ("RQ", dict(dst=4090, src=0, len=7, m=1, s=0), "dst", 2),
    ("SM", dict(dst=0, src=0, len=0), "len", 4),
    ("SM", dict(dst=0, src=0, len=65), "len", 4),
    ("SM", dict(dst=0, src=4033, len=64), "src", 2),
    ("SM", dict(dst=4033, src=0, len=64), "dst", 2),
    ("MM", mm(M=0), "M", 4),
    ("MM", mm(M=5), "M", 4),
    ("MM", mm(M=7), "M", 4),
    ("MM", mm(N=0), "N", 4),
    ("MM", mm(N=5), "N", 4),
    ("MM", mm(K=0), "K", 4),
    # A + (M-1)*lda + K-1 = 4000 + 2*40 + 15 = 4095 is fine; one more word faults
    ("MM", mm(A=4001, M=3, lda=40, K=16), "A", 2),
    # tb=0: B + (K-1)*ldb + N-1 = 100 + 15*267 + 3 = 4108 faults (ldb=266: 4093 is fine)
    ("MM", mm(B=100, K=16, N=4, ldb=267), "B", 2),
    # tb=1: B + (N-1)*ldb + K-1 = 3000 + 3*300 + 197 - 1 = 4096 faults
    ("MM", mm(B=3000, tb=1, N=4, K=197, ldb=300), "B", 2),
    # tb decides the reach: tb=1 B + (N-1)*ldb + K-1 = 4000 + 300 + 0 = 4300 faults
    # (the same fields with tb=0 reach B + (K-1)*ldb + N-1 = 4003, accepted below)
    ("MM", mm(B=4000, tb=1, N=4, K=1, ldb=100), "B", 2),
    # dst + (M-1)*ldc + N-1 = 4090 + 3*2 + 0 = 4096 faults
    ("MM", mm(dst=4090, M=4, ldc=2, N=1), "dst", 2),
]


@pytest.mark.parametrize("op, fields, field, code", FAULTS)
def test_build_rejects_faults(op, fields, field, code):
    with pytest.raises(ValueError, match=rf"^{op}: field {field}: .*code {code}\)$"):
        isa.build(op, cfg=config.DEFAULT, **fields)
    # raw() builds it, and check() reports the same code and field
    ins = isa.raw(op, **fields)
    assert isa.check(ins, config.DEFAULT)[:2] == (code, field)


@pytest.mark.parametrize("op, fields", [
    ("LD", dict(dst=4000, src=4000, len=96)),                  # last words of both memories
    ("ST", dict(src=4095, dst=4095, len=1)),
    ("RQ", dict(dst=4095, src=4095, len=1, m=65535, s=63)),
    ("SM", dict(dst=4032, src=4032, len=64)),
    ("MM", mm(A=4000, M=3, lda=40, K=16)),                     # reaches exactly 4095
    ("MM", mm(B=100, K=16, N=4, ldb=266)),
    ("MM", mm(B=3000, tb=1, N=4, K=196, ldb=300)),            # 3000 + 900 + 195 = 4095
    ("MM", mm(B=4000, tb=0, N=4, K=1, ldb=100)),              # 4000 + 0 + 3 = 4003

    ("MM", mm(dst=4089, M=4, ldc=2, N=1)),
    ("MM", mm(M=4, N=4, K=255, lda=0, ldb=0, ldc=0)),           # strides 0 are legal
    ("HALT", dict()),
])
def test_build_accepts_edges(op, fields):
    ins = isa.build(op, cfg=config.DEFAULT, **fields)
    assert isa.check(ins, config.DEFAULT) is None


def test_build_external_size():
    small = config.DEFAULT.replace(ext_words=100)
    with pytest.raises(ValueError, match=r"^LD: field src: .*external size 100"):
        isa.build("LD", cfg=small, dst=0, src=90, len=11)
    assert isa.build("LD", cfg=small, dst=0, src=90, len=10).len == 10
    # the default chip has 4096 external words; chapter 9's has 8192
    with pytest.raises(ValueError, match=r"^ST: field dst"):
        isa.build("ST", src=0, dst=5000, len=1)
    big = config.CH09
    assert isa.build("ST", cfg=big, src=0, dst=5000, len=1).dst == 5000
    assert isa.build("LD", cfg=big, dst=0, src=8191, len=1).src == 8191
    with pytest.raises(ValueError, match=r"^LD: field src"):
        isa.build("LD", cfg=big, dst=0, src=8191, len=2)


# ---------------------------------------------------------------- decode errors, disasm
@pytest.mark.parametrize("word, code", [(0, 0), (13, 13), (14, 14), (0xF0 | 13, 13), ((1 << 127) | 14, 14),
                                        (0xF0 | 15, 31)])
def test_decode_illegal_opcode(word, code):
    """docs/isa.md: opcodes 0, 13, 14 are illegal; 15 is the extension prefix, whose
    sub-opcode in bits 7:4 names code 16 + k (assigned from 16 up: 31, the last, is illegal)."""
    with pytest.raises(ValueError, match=f"illegal opcode {code}"):
        isa.decode(word)


def test_decode_too_wide():
    with pytest.raises(ValueError, match="wider than 128 bits"):
        isa.decode((1 << 128) | 6)
    with pytest.raises(ValueError):
        isa.decode(-1)


def test_disasm():
    prog = [isa.build("LD", dst=1, src=2, len=3), isa.encode(isa.build("HALT")), 0, 13,
            isa.build("MM", **mm(M=2, K=3, N=4, tb=1, lda=5, ldb=6, ldc=7))]
    lines = isa.disasm(prog).split("\n")
    assert len(lines) == 5
    assert lines[0] == "   0  LD   dst=1 src=2 len=3"
    assert lines[1] == "   1  HALT"
    assert re.match(r"^   2  \.word 0x0+\s+; illegal opcode 0$", lines[2])
    assert re.match(r"^   3  \.word 0x0+d\s+; illegal opcode 13$", lines[3])
    assert lines[4] == "   4  MM   dst=0 A=0 B=0 M=2 K=3 N=4 tb=1 lda=5 ldb=6 ldc=7"
    assert isa.disasm([]) == ""


def test_as_words():
    ld = isa.build("LD", dst=1, src=2, len=3)
    assert isa.as_words([ld, 6, 0]) == [doc_encode("LD", dict(dst=1, src=2, len=3, xhi=0)), 6, 0]
    assert isa.as_words([ld, ld]) == isa.as_words([ld]) * 2          # memoised encode
    assert isa.as_words([np.int64(6)]) == [6] and type(isa.as_words([np.int64(6)])[0]) is int


def test_decoded_is_decode_memoised():
    ld = isa.build("LD", dst=1, src=2, len=3)
    w = isa.encode(ld)
    assert isa.decoded(w) == (ld, None) and isa.decoded(w) == (ld, None)
    for bad in (0, 13, 0xFF, 1 << 128):
        ins, why = isa.decoded(bad)
        with pytest.raises(ValueError) as ei:
            isa.decode(bad)
        assert ins is None and why == str(ei.value)


# ---------------------------------------------------------------- helpers
@pytest.mark.parametrize("w, want", [
    (0, 0), (0x7F, 127), (0x80, -128), (0xFF, -1), (0x180, -128), (-1, -1), (256, 0),
    (-129, 127), (0x12345678, 0x78), (np.int64(200), -56)])
def test_s8(w, want):
    assert quant.s8(w) == want


@pytest.mark.parametrize("v, want", [
    (0, 0), (2 ** 31 - 1, 2 ** 31 - 1), (2 ** 31, -2 ** 31), (2 ** 32 - 1, -1), (2 ** 32, 0),
    (-2 ** 31, -2 ** 31), (-2 ** 31 - 1, 2 ** 31 - 1), (5 * 2 ** 32 + 7, 7)])
def test_w32(v, want):
    assert quant.w32(v) == want


def test_macs_and_words():
    a = isa.build("MM", **mm(M=2, K=3, N=4))
    b = isa.build("MM", **mm(M=4, K=16, N=4))
    ld = isa.build("LD", dst=0, src=0, len=10)
    st = isa.build("ST", src=0, dst=0, len=7)
    rq = isa.build("RQ", dst=0, src=0, len=5, m=1, s=1)
    sm = isa.build("SM", dst=0, src=0, len=5)
    halt = isa.build("HALT")
    assert [isa.macs(i) for i in (a, b, ld, st, rq, sm, halt)] == [24, 256, 0, 0, 0, 0, 0]
    assert [isa.words(i) for i in (a, b, ld, st, rq, sm, halt)] == [0, 0, 10, 7, 0, 0, 0]
    prog = [ld, a, b, isa.encode(rq), sm, st, halt]
    assert isa.program_macs(prog) == 280
    assert isa.program_words(prog) == 17
