"""The chip's extensions for the cache remedies in the twin (docs/isa.md): LD/ST/LDX xhi
(external addresses up to 2^29), the long softmax (sm_max_len up to 1024) and the 4-bit
packing ops PACK4/UNPACK4. Each against a plain-Python transcription of docs/isa.md
written here (Python integers, one element or one word at a time), on a fresh Machine
per case; cycles against the docs' formulas typed in as numbers."""
import random

import numpy as np
import pytest

from model import asm, config, func, isa, timing
from model.machine import GA2Error, Machine
from model.softmax_gold import softmax_fixed

B = isa.build
HALT = isa.build("HALT")
BIG = config.DEFAULT.replace(ext_words=1 << 17)       # two 65,536-word pages
LONG = config.DEFAULT.replace(sm_max_len=1024)


def s8(v):
    return ((v & 0xFF) ^ 0x80) - 0x80


def sat4(v):
    return max(-8, min(7, v))


def nib(v):                                            # a 4-bit two's complement value
    return ((v & 0xF) ^ 8) - 8


def pack_ref(xs):                                      # docs/isa.md PACK4, word by word
    return [(sat4(s8(xs[2 * i])) & 0xF) | ((sat4(s8(xs[2 * i + 1])) & 0xF) << 4)
            for i in range(len(xs) // 2)]


def unpack_ref(ws):                                    # docs/isa.md UNPACK4
    out = []
    for w in ws:
        out += [nib(w), nib(w >> 4)]
    return out


def run(prog, cfg=config.DEFAULT, image=(), sp=None):
    m = Machine(cfg)
    if sp is not None:
        m.sp[:len(sp)] = sp
    return m.run(prog + [HALT], image if isinstance(image, np.ndarray) else list(image))


# ---------------------------------------------------------------- encoding
def test_xhi_is_appended_and_defaults_to_zero():
    # docs/isa.md: LD/ST xhi at bits 49..61 (after len 36..48), LDX xhi at 81..93
    assert isa.LAYOUT["LD"]["xhi"] == (49, 13) and isa.LAYOUT["ST"]["xhi"] == (49, 13)
    assert isa.LAYOUT["LDX"]["xhi"] == (81, 13)
    ld = B("LD", dst=1, src=2, len=3)
    assert ld.xhi == 0 and isa.encode(ld) == 1 | 1 << 4 | 2 << 20 | 3 << 36
    assert isa.encode(isa.raw("LD", dst=1, src=2, len=3, xhi=5)) == isa.encode(ld) | 5 << 49
    # text: xhi = 0 is left out (programs written before it are unchanged), else printed
    assert isa.disasm([ld]) == "   0  LD   dst=1 src=2 len=3"
    st = isa.raw("ST", src=1, dst=2, len=3, xhi=255)
    assert isa.disasm([st]) == "   0  ST   src=1 dst=2 len=3 xhi=255"
    assert asm.assemble(isa.disasm([st]), check=False) == [st]
    assert isa.encode(isa.raw("ST", src=0, dst=0, len=1, xhi=8191)) >> 49 == 8191   # 13 bits, the last field
    with pytest.raises(ValueError, match="xhi=8192 does not fit 13 bits"):
        isa.raw("LD", dst=0, src=0, len=1, xhi=8192)


def test_pack4_unpack4_opcodes_and_the_illegal_ones():
    assert (isa.OPCODES["PACK4"], isa.OPCODES["UNPACK4"]) == (11, 12)
    assert isa.ILLEGAL_OPCODES == (0, 13, 14)          # 15: the extended opcodes' prefix
    p = B("PACK4", dst=7, src=9, len=4)
    assert isa.encode(p) == 11 | 7 << 4 | 9 << 20 | 4 << 36
    assert isa.decode(isa.encode(B("UNPACK4", dst=1, src=2, len=3))).op == "UNPACK4"
    text = "PACK4 dst=7 src=9 len=4\nUNPACK4 dst=100 src=7 len=4\n"
    assert isa.disasm(asm.assemble(text)) == "   0  PACK4 dst=7 src=9 len=4\n   1  UNPACK4 dst=100 src=7 len=4"


def test_ext_fields_and_full_addresses_in_build():
    assert isa.ext_fields("LD", 0x1_2345) == {"src": 0x2345, "xhi": 1}
    assert isa.ext_fields("ST", (1 << 24) - 1) == {"dst": 0xFFFF, "xhi": 255}
    assert isa.ext_fields("ST", (1 << 28) - 1) == {"dst": 0xFFFF, "xhi": 4095}
    assert isa.ext_fields("LD", 1 << 28) == {"src": 0, "xhi": 4096}
    assert isa.ext_fields("ST", (1 << 29) - 1) == {"dst": 0xFFFF, "xhi": 8191}   # 13-bit xhi
    assert isa.ext_fields("LDX", 5) == {"src": 5, "xhi": 0}
    for bad in (-1, 1 << 29, 1.0, True):
        with pytest.raises(ValueError, match="external address"):
            isa.ext_fields("LD", bad)
    with pytest.raises(ValueError, match="RQ has no external address"):
        isa.ext_fields("RQ", 0)
    # build takes a full address in the external field and splits it
    ld = B("LD", cfg=BIG, dst=0, src=70000, len=4)
    assert (ld.src, ld.xhi, isa.ext_addr(ld)) == (70000 - 65536, 1, 70000)
    st = B("ST", cfg=BIG, src=0, dst=65535, len=2)      # crosses 65,536: one page, xhi 0
    assert (st.dst, st.xhi) == (65535, 0)
    assert B("ST", cfg=BIG, src=0, **isa.ext_fields("ST", 65536 + 9), len=1) == \
        isa.raw("ST", src=0, dst=9, len=1, xhi=1)
    with pytest.raises(ValueError, match="does not fit 16 bits"):      # with xhi: fields as given
        B("LD", cfg=BIG, dst=0, src=70000, len=4, xhi=0)


# ---------------------------------------------------------------- faults
@pytest.mark.parametrize("cfg, ins, code, field", [
    # external range: xhi * 65536 + src + len > ext_words (ext 2^17)
    (BIG, isa.raw("LD", dst=0, src=65535, len=1, xhi=1), None, None),          # last word
    (BIG, isa.raw("LD", dst=0, src=65535, len=2, xhi=1), 3, "src"),
    (BIG, isa.raw("LD", dst=0, src=0, len=1, xhi=2), 3, "src"),
    (BIG, isa.raw("ST", src=0, dst=65535, len=2, xhi=1), 3, "dst"),
    (BIG, isa.raw("ST", src=0, dst=65534, len=2, xhi=1), None, None),
    (BIG, isa.raw("LDX", dst=0, src=65536 - 8, len=4, idx=100, rows=2 + 16384, xhi=1), 3, "src"),
    (BIG, isa.raw("LDX", dst=0, src=65536 - 8, len=4, idx=100, rows=2 + 16383, xhi=0), None, None),
    (config.DEFAULT, isa.raw("LD", dst=0, src=0, len=1, xhi=1), 3, "src"),      # ext 4096
    # PACK4 reads 2*len, writes len; UNPACK4 reads len, writes 2*len (sp 4096)
    (config.DEFAULT, isa.raw("PACK4", dst=0, src=0, len=0), 4, "len"),
    (config.DEFAULT, isa.raw("UNPACK4", dst=0, src=0, len=0), 4, "len"),
    (config.DEFAULT, isa.raw("PACK4", dst=0, src=4096 - 8, len=4), None, None),
    (config.DEFAULT, isa.raw("PACK4", dst=0, src=4096 - 8, len=5), 2, "src"),
    (config.DEFAULT, isa.raw("PACK4", dst=4096 - 4, src=0, len=5), 2, "dst"),
    (config.DEFAULT, isa.raw("PACK4", dst=4096 - 4, src=0, len=4), None, None),
    (config.DEFAULT, isa.raw("UNPACK4", dst=4096 - 8, src=0, len=4), None, None),
    (config.DEFAULT, isa.raw("UNPACK4", dst=4096 - 8, src=0, len=5), 2, "dst"),
    (config.DEFAULT, isa.raw("UNPACK4", dst=0, src=4096 - 4, len=5), 2, "src"),
    (config.DEFAULT, isa.raw("PACK4", dst=5000, src=5000, len=0), 4, "len"),     # shape first
    (config.DEFAULT, isa.raw("UNPACK4", dst=5000, src=5000, len=1), 2, "src"),   # src before dst
    # the long softmax: len up to sm_max_len
    (LONG, isa.raw("SM", dst=0, src=2000, len=1024), None, None),
    (LONG, isa.raw("SM", dst=0, src=2000, len=1025), 4, "len"),
    (config.DEFAULT, isa.raw("SM", dst=0, src=2000, len=65), 4, "len"),
])
def test_faults(cfg, ins, code, field):
    bad = isa.check(ins, cfg)
    assert (bad[:2] if bad else (None, None)) == (code, field)
    if code:
        with pytest.raises(GA2Error) as e:
            run([B("LD", dst=0, src=0, len=1), ins], cfg)
        assert (e.value.code, e.value.pc) == (code, 1)
        with pytest.raises(ValueError, match=f"field {field}"):
            B(ins.op, cfg=cfg, **ins.fields())


# ---------------------------------------------------------------- wider external addresses
def test_ld_st_ldx_with_xhi_and_across_the_page_boundary():
    rng = np.random.default_rng(3)
    img = rng.integers(-2 ** 31, 2 ** 31, size=1 << 17).tolist()
    prog = [isa.raw("LD", dst=0, src=65536 - 5, len=12, xhi=0),     # 65531 .. 65542
            isa.raw("LD", dst=20, src=100, len=3, xhi=1),           # 65636 ..
            isa.raw("ST", src=0, dst=65530, len=6, xhi=1),          # 131066 .. 131071, the top
            isa.raw("ST", src=20, dst=65534, len=3, xhi=0),         # 65534 .. 65536
            B("LD", dst=40, src=5, len=1),
            isa.raw("LDX", dst=50, src=65534, len=3, idx=40, rows=3, xhi=0)]   # row 2: 65540..
    image = list(img)
    image[5] = 2                                                   # the row index
    r = run(prog, BIG, image)
    assert r.sp[0:12].tolist() == image[65531:65543]
    assert r.sp[20:23].tolist() == image[65636:65639]
    want = list(image)
    want[131066:131072] = image[65531:65537]
    want[65534:65537] = image[65636:65639]
    assert r.ext[131066:131072].tolist() == want[131066:131072]
    assert r.ext[65534:65537].tolist() == want[65534:65537]
    assert r.ext.tolist() == want
    assert r.sp[50:53].tolist() == want[65534 + 6:65534 + 9]        # after the STs
    # cycles: xhi changes nothing (LD/ST len + 1, LDX len + 3, 2 issue each, HALT 2)
    assert r.counters.cycles == (2 + 13) + (2 + 4) + (2 + 7) + (2 + 4) + (2 + 2) + (2 + 6) + 2


def test_ranges_use_the_full_address():
    ld = isa.raw("LD", dst=3, src=65535, len=2, xhi=1)
    assert func.reads(ld) == (func.Range("ext", 131071, 131072),)
    st = isa.raw("ST", src=3, dst=1, len=2, xhi=3)
    assert func.writes(st) == (func.Range("ext", 3 * 65536 + 1, 3 * 65536 + 2),)
    ldx = isa.raw("LDX", dst=0, src=10, len=4, idx=7, rows=5, xhi=2)
    assert func.reads(ldx) == (func.Range("sp", 7, 7), func.Range("ext", 131082, 131082 + 19))


@pytest.mark.long
def test_a_16m_word_memory_reaches_its_last_word():
    cfg = config.DEFAULT.replace(ext_words=1 << 24)
    image = np.zeros(1 << 24, dtype=np.int64)
    image[-2:] = [11, 22]
    r = run([B("LD", cfg=cfg, dst=0, src=(1 << 24) - 2, len=2),
             B("ST", cfg=cfg, src=0, dst=(1 << 24) - 3, len=1)], cfg, image)
    assert r.sp[0:2].tolist() == [11, 22] and r.ext[-3:].tolist() == [11, 11, 22]


# ---------------------------------------------------------------- PACK4 / UNPACK4
EDGES = [-128, -127, -9, -8, -7, -1, 0, 1, 6, 7, 8, 9, 127, 0x1FF, 0x108, 0xF7, -0x100 + 7,
         0x7FFFFFF8, -(1 << 31), 0x12345607]


def test_pack4_saturates_the_low_bytes():
    xs = EDGES + [random.Random(4).randrange(-2 ** 31, 2 ** 31) for _ in range(44)]
    r = run([B("PACK4", dst=1000, src=0, len=len(xs) // 2)], sp=xs)
    got = r.sp[1000:1000 + len(xs) // 2].tolist()
    assert got == pack_ref(xs)
    # the boundary pairs, typed in: (-128, -127) -> (8, 8); (-9, -8) -> (8, 8);
    # (-7, -1) -> (9, F); (0, 1); (6, 7); (8, 9) -> (7, 7); (127, 0x1FF = -1 low byte)
    assert got[:7] == [0x88, 0x88, 0xF9, 0x10, 0x76, 0x77, 0xF7]
    assert all(0 <= w <= 255 for w in got)                     # upper 24 bits zero


def test_unpack4_sign_extends_both_nibbles():
    ws = list(range(256)) + [0xFFFFFF00 - (1 << 32), 0x1234_5678, -1]
    r = run([B("UNPACK4", dst=1000, src=0, len=len(ws))], sp=ws)
    got = r.sp[1000:1000 + 2 * len(ws)].tolist()
    assert got == unpack_ref(ws)
    assert got[2 * 0x87:2 * 0x87 + 2] == [7, -8] and got[2 * 0xF8:2 * 0xF8 + 2] == [-8, -1]
    assert got[-6:] == [0, 0, -8, 7, -1, -1]                 # the upper 24 bits are ignored


def test_pack_then_unpack_is_sat4():
    rng = random.Random(5)
    xs = [rng.randrange(-128, 128) for _ in range(128)]
    r = run([B("PACK4", dst=1000, src=0, len=64), B("UNPACK4", dst=2000, src=1000, len=64)], sp=xs)
    assert r.sp[2000:2128].tolist() == [sat4(x) for x in xs]


def pack_stream(sp, d, s, n):        # docs/isa.md: read x[2i], x[2i+1], write word i, in order
    for i in range(n):
        sp[d + i] = pack_ref([sp[s + 2 * i], sp[s + 2 * i + 1]])[0]


def unpack_stream(sp, d, s, n):      # read x[i], write words 2i and 2i+1, in order
    for i in range(n):
        sp[d + 2 * i], sp[d + 2 * i + 1] = unpack_ref([sp[s + i]])


@pytest.mark.parametrize("shift", [-9, -4, -1, 0, 1, 2, 3, 7, 8, 9])
def test_overlapping_operands_stream_in_order(shift):
    rng = random.Random(shift)
    xs = [rng.randrange(-128, 128) for _ in range(16)]
    base = 50
    for op, n, ref in (("PACK4", 8, pack_stream), ("UNPACK4", 8, unpack_stream)):
        want = [0] * 200
        want[base:base + 16] = xs
        ref(want, base + shift, base, n)
        r = run([B(op, dst=base + shift, src=base, len=n)], sp=want[:base] + xs)
        assert r.sp[:200].tolist() == want, (op, shift)


def test_sp_reads_and_ranges_of_the_packing_ops():
    p, u = B("PACK4", dst=100, src=0, len=8), B("UNPACK4", dst=100, src=0, len=8)
    assert func.sp_reads(p) == 16 and func.sp_reads(u) == 8
    assert func.reads(p) == (func.Range("sp", 0, 15),) and func.writes(p) == (func.Range("sp", 100, 107),)
    assert func.reads(u) == (func.Range("sp", 0, 7),) and func.writes(u) == (func.Range("sp", 100, 115),)
    r = run([p, u])
    assert r.sp_reads == 24


# ---------------------------------------------------------------- cycles
@pytest.mark.parametrize("mode", config.MODES)
def test_packing_cycles_are_2_len_plus_1(mode):
    cfg = config.DEFAULT.replace(mode=mode)
    for n in (1, 2, 7, 64, 1000):
        for op in ("PACK4", "UNPACK4"):
            ins = B(op, dst=2000, src=0, len=n)
            assert timing.busy_cycles(ins, cfg) == 2 * n + 1
            s = timing.schedule([ins, HALT], cfg)
            # 2 issue cycles; HALT: 2 more in order, in the overlap mode it retires in the
            # cycle after the unit's last (FETCH and DECODE ran during the unit's work)
            halt = 2 if mode == "inorder" else 1
            assert s.cycles == 2 + 2 * n + 1 + halt and s.counters.vec == 2 * n + 1


def test_overlap_hazards_see_the_2_len_span():
    ovl = config.DEFAULT.replace(mode="overlap")
    # an LD into PACK4's second half of input (src + 2*len - 1): RAW, PACK4 waits
    raw_hit = [B("LD", dst=15, src=0, len=1), B("PACK4", dst=100, src=0, len=8), HALT]
    s = timing.schedule(raw_hit, ovl)
    assert sorted((e.op, e.issue) for e in s.events if e.op != "HALT") == [("LD", 2), ("PACK4", 5)]    # LD busy 3..4
    # the LD just past the input (src + 2*len): no conflict, PACK4 issues at its DECODE (4)
    s = timing.schedule([B("LD", dst=16, src=0, len=1), B("PACK4", dst=100, src=0, len=8), HALT], ovl)
    assert sorted((e.op, e.issue) for e in s.events if e.op != "HALT") == [("LD", 2), ("PACK4", 4)]
    # UNPACK4 then an LD into the last output word (dst + 2*len - 1): WAW, the LD waits for
    # UNPACK4 (busy 3..19); one past it (dst + 2*len): no wait
    s = timing.schedule([B("UNPACK4", dst=100, src=0, len=8), B("LD", dst=115, src=0, len=1), HALT], ovl)
    assert sorted((e.op, e.issue) for e in s.events if e.op != "HALT") == [("LD", 20), ("UNPACK4", 2)]
    s = timing.schedule([B("UNPACK4", dst=100, src=0, len=8), B("LD", dst=116, src=0, len=1), HALT], ovl)
    assert sorted((e.op, e.issue) for e in s.events if e.op != "HALT") == [("LD", 4), ("UNPACK4", 2)]


# ---------------------------------------------------------------- the long softmax
@pytest.mark.parametrize("n", [65, 256, 1024])
def test_long_softmax_against_the_gold(n):
    rng = random.Random(n)
    xs = [rng.randrange(-128, 128) for _ in range(n - 2)] + [127, -128]
    for mode in config.MODES:
        cfg = LONG.replace(mode=mode)
        r = run([B("SM", cfg=cfg, dst=2048, src=0, len=n)], cfg, sp=xs)
        assert r.sp[2048:2048 + n].tolist() == softmax_fixed(xs)
        # docs/isa.md: in-order 2(len+1) + 34 len, overlap 3 len + 36; 2 issue, HALT 2
        busy = 2 * (n + 1) + 34 * n if mode == "inorder" else 3 * n + 36
        halt = 2 if mode == "inorder" else 1                     # as for the packing ops
        assert r.counters.cycles == 2 + busy + halt and r.counters.vec == busy


def test_long_softmax_of_equal_values_sums_to_2_16():
    r = run([B("SM", cfg=LONG, dst=2048, src=0, len=1024)], LONG, sp=[5] * 1024)
    assert r.sp[2048:3072].tolist() == [64] * 1024               # 65535 * 65536 // (1024 * 65535)
