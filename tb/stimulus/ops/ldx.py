"""LDX's directed programs (tb/stimulus/ops/__init__.py lists the hooks): good and bad row
indices (error 6, found in EXEC, and what follows it), its DECODE faults, its decode edges
(the table sum past 2^16 .. 2^28, rows past the memory, xhi), error 6 behind busy units,
the language model's longest program and its self-contained one with its resets, the wide
chip's xhi program and the table past 2^29, and the lookup random programs draw."""
import numpy as np

from model import config, isa
from tb.stimulus import resets
from tb.stimulus.suitecfg import RANDOM_SEED

OPS = ("LDX",)
# the instructions of self_contained_program() the reset programs cut in and around
# (tb/stimulus/resets.py): the self-contained program cut by rst in each of its
# language-model ops (NORM's divide, ADD, ARGMAX, LDX) and around their starts, each
# followed by the same program run in full.
RESET_CUTS = (1, 5)
LM_STREAM = 4            # its place in the language-model hand programs' random stream
COLLIDE = "lm"           # in the colliding programs drawn with_lm (collide.py)
EDGE_GROUP = 1           # its boundary edges chained with the other language-model ops'
REGION_WEIGHT = 1
IDX_WORD = 1024          # with_lm: the row index the LDXs read (outside both windows)
LDX_ROWS = 88            # with_lm: the LDX tables' rows (> every ARGMAX index: len <= 88)


# ------------------------------------------------------------------ hand programs
def lm_programs(B, R, rng):
    """LDX with good and bad row indices (error 6, in EXEC: the last row, rows itself, -1,
    2^31, a second bad one, a later DECODE fault) and every DECODE fault at its edge: a
    table of 50 rows of 10 at ext[1000..]."""
    H = B("HALT")
    img = [rng.randrange(-128, 128) for _ in range(4096)]
    img[0:13] = [0, 49, 7, 50, 51, -1, -(1 << 31), 1 << 16, 3, 0, 49, 65535, 0]
    ld = B("LD", dst=0, src=0, len=13)

    def ldx(dst, idx, rows=50, n=10, src=1000):
        return B("LDX", dst=dst, src=src, len=n, idx=idx, rows=rows)
    good = [ld, ldx(100, 0), ldx(110, 1), ldx(120, 2), ldx(130, 8), ldx(0, 10),     # dst over the index
            B("LDX", dst=4095, src=4095, len=1, idx=12, rows=1),
            B("ARGMAX", dst=300, src=100, len=30), B("LDX", dst=301, src=1000, len=10, idx=300, rows=30),
            B("LDX", dst=400, src=4094, len=2, idx=12, rows=1), B("ST", src=0, dst=2000, len=512),
            B("ST", src=4095, dst=2600, len=1),
            B("LDX", dst=0, src=0, len=4096, idx=12, rows=1),     # the longest row (tok 0)
            B("ST", src=0, dst=0, len=2000), H]
    return [
        ("lm_ldx", good, img),
        ("err6_rows", [ld, ldx(100, 3), B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_rows1", [ld, ldx(100, 4), ldx(120, 1), B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_neg", [ld, ldx(100, 1), ldx(120, 5), ldx(140, 6), B("ST", src=90, dst=3000, len=60), H], img),
        ("err6_top", [ld, ldx(100, 7, rows=4096, n=1, src=0), ldx(120, 11, rows=4096, n=1, src=0),
                      B("ST", src=90, dst=3000, len=40), H], img),
        ("err6_then_decode", [ld, ldx(100, 3), B("ST", src=90, dst=3000, len=20),
                              R("ADD", dst=4090, src=0, len=7, src2=0), H], img),
        ("err6_then_opcode", [ld, ldx(100, 3), ldx(100, 4), 13, H], img),
        ("err6_then_pc", [ld, ldx(100, 3)] + [B("LD", dst=i % 4000, src=i % 4000, len=1)
                                              for i in range(config.DEFAULT.imem_depth - 2)], img),
        ("err4_ldx_len0", [ld, R("LDX", dst=0, src=0, len=0, idx=0, rows=1), H], img),
        ("err4_ldx_rows0", [ld, R("LDX", dst=0, src=0, len=1, idx=0, rows=0), H], img),
        ("err4_ldx_beats_sp", [R("LDX", dst=4095, src=4095, len=2, idx=4096, rows=0), H], img),
        ("err2_ldx_idx", [R("LDX", dst=0, src=0, len=1, idx=4096, rows=1), H], img),
        ("err2_ldx_dst", [R("LDX", dst=4090, src=0, len=7, idx=0, rows=1), H], img),
        ("err2_ldx_beats_ext", [R("LDX", dst=4090, src=4000, len=7, idx=0, rows=100), H], img),
        ("err3_ldx_table", [R("LDX", dst=0, src=4000, len=10, idx=0, rows=10), H], img),
        ("err3_ldx_rows", [R("LDX", dst=0, src=0, len=2, idx=0, rows=2049), H], img),
        ("ok_ldx_table_edge", [R("LDX", dst=0, src=96, len=2, idx=0, rows=2000),
                               B("ST", src=0, dst=0, len=2), H], img),
    ]


def isaext(cfg, b, x, img, rng):
    """LD / ST / LDX with xhi > 0, transfers crossing the 65,536-word boundary both ways,
    an LDX table across it, the top word of the memory; the table's fault past the memory."""
    ext = cfg.ext_words
    H = b("HALT")
    img[70000] = 3                                              # an LDX row index
    xhi = [b("LD", dst=0, src=65531, len=12),                   # 65531 .. 65542: crosses 2^16
           b("LD", dst=20, src=70000, len=1),                   # xhi 1 (build splits it)
           isa.raw("LD", dst=30, src=100, len=30, xhi=1),
           x("ST", ext - 12, src=0, len=12),                    # the memory's last 12 words
           isa.raw("ST", src=30, dst=65520, len=30, xhi=0),     # 65520 .. 65549: crosses
           b("LDX", dst=100, src=65536 - 10, len=5, idx=20, rows=4),   # row 3: 65541 .., after the ST
           isa.raw("LDX", dst=110, src=5, len=7, idx=20, rows=4, xhi=1),
           b("ST", src=100, dst=(1 << 16) + 2000, len=17),
           b("LD", dst=200, src=ext - 1, len=1), b("ST", src=200, dst=65535, len=1), H]
    return [("xhi", xhi, img),
            ("err3_ldx_xhi_table", [x("LDX", ext - 8, dst=0, len=4, idx=0, rows=3), H], img)]


def wide_table_program(cfg):
    """(name, program, image): an LDX whose table's last word, xhi * 65536 + src + rows * len
    - 1, is at or past 2^29 (rows 65535, len 8191, the table at 73,828 on xhi = 1): the
    external-range fault a 29-bit sum would miss (a past mutation survivor, the sum one bit
    narrow, wrapped it below the memory's end and let the LDX run). It needs
    len 8191 words of scratchpad (sp_words >= 8192), which the mutation suite's 4,096-word
    chip does not have: tests/tb/test_xhi_pack4_long_softmax_cosim.py runs it on a
    16,384-word chip."""
    assert cfg.sp_words >= 8192 and cfg.ext_words > 82019, cfg
    base, n, rows = 73828, 8191, 65535
    assert base + rows * n - 1 >= 1 << 29 and base + rows * n - 1 - (1 << 29) < cfg.ext_words
    prog = [isa.raw("LDX", dst=0, len=n, idx=8191, rows=rows, **isa.ext_fields("LDX", base)),
            isa.build("HALT", cfg=cfg)]
    return "err3_ldx_table_past_2^29", prog, [0] * cfg.ext_words


# ------------------------------------------------------------------ the mutation suites
def overlap_faults(b, busy, img):
    """Error 6 found while other units run: alone (HALT waits for them), before a DECODE
    fault that waits for them too, twice (the first pc stays)."""
    img6 = img.copy()
    img6[250:253] = [300, 1 << 20, 5]
    ld6 = b("LD", dst=700, src=250, len=3)
    bad6 = b("LDX", dst=800, src=1000, len=16, idx=700, rows=300)
    good6 = b("LDX", dst=820, src=1000, len=16, idx=702, rows=300)
    out = []
    for k, tail in enumerate(([bad6, b("HALT")], [bad6] + busy + [b("HALT")],
                              [bad6] + busy + [isa.raw("SM", dst=0, src=0, len=65), b("HALT")],
                              [good6, bad6, good6, isa.raw("LDX", dst=0, src=0, len=1, idx=702, rows=0)],
                              [bad6, b("LDX", dst=840, src=1000, len=16, idx=701, rows=300), b("HALT")])):
        out.append((f"overlap error 6 ({k})", [ld6] + busy + tail, img6))
        out.append((f"after overlap error 6 ({k})", busy + [b("ST", src=700, dst=1000, len=200), b("HALT")], img6))
    return out


def long_programs(b, img, SP, EXT):
    """The language model's ops at their longest: ADD of the whole scratchpad in place
    (2 * 4096 + 1 cycles) and onto itself shifted, ARGMAX of the whole scratchpad (an index
    with bit 11 set), LDX of a 4096-word row at the top of ext, NORM of 64 at the end."""
    lm = [b("LD", dst=0, src=EXT - SP, len=SP),
          b("ARGMAX", dst=100, src=0, len=SP),             # 3000
          b("ARGMAX", dst=101, src=2999, len=2),           # 1
          b("LDX", dst=102, src=0, len=2, idx=100, rows=EXT // 2),
          b("ST", src=100, dst=0, len=4),
          b("LDX", dst=0, src=0, len=SP, idx=101, rows=EXT // SP),   # the top half of ext
          b("ADD", dst=0, src=0, len=SP, src2=0),
          b("ST", src=4, dst=4, len=SP - 4),             # up to the last element's word
          b("ADD", dst=1, src=0, len=SP - 1, src2=1),      # dst over src2: each sum sees the last
          b("NORM", dst=SP - 64, src=SP - 64, len=64, m=30000, s=20),
          b("ST", src=0, dst=SP, len=SP),
          b("HALT")]
    img_lm = img.copy()
    img_lm[EXT - SP:EXT - SP + 3000] = np.minimum(img_lm[EXT - SP:EXT - SP + 3000], 126)
    img_lm[EXT - SP + 3000] = 127                        # the first maximum, at an index past 2048
    img_lm[EXT - SP + 3001] = 127
    return [("long lm", lm, img_lm)]


def self_contained_program():
    """(prog, image): the language model's ops reading only scratchpad words the program
    wrote itself: LD, NORM, ADD, ARGMAX, LDX of the row it names, RQ relu, ST."""
    rng = np.random.default_rng(RANDOM_SEED + 98)
    img = rng.integers(-128, 128, size=400)
    return resets.program(("NORM", dict(dst=100, src=0, len=40, m=25000, s=19)),
                          ("ADD", dict(dst=200, src=100, len=40, src2=10)),
                          ("ARGMAX", dict(dst=300, src=200, len=40)),
                          ("LDX", dict(dst=310, src=0, len=8, idx=300, rows=40)),
                          ("RQ", dict(dst=330, src=0, len=20, m=20000, s=9, relu=1)),
                          ("ST", dict(src=100, dst=1000, len=260))), img



def edges_n(v, x, n, SP, EXT):
    v("LDX", dst=SP - n, src=EXT - 3 * n, len=n, idx=SP - 1, rows=3)
    x(f"LDX dst {n}", "LDX", dst=SP - n + 1, src=0, len=n, idx=0, rows=1)
    x(f"LDX table {n}", "LDX", dst=0, src=EXT - 3 * n + 1, len=n, idx=0, rows=3)


def edges(v, x, SP, EXT, T):
    """Its index word, its table (the whole memory, one row past), rows 0, the sums past
    2^16, the table's sum past 2^16, 2^20, 2^24 and 2^28 (its top bit), the fault
    priorities, xhi (this chip's external memory is below 2^16: every xhi > 0 faults) and
    the full address just past 2^29 (xhi's top page), xhi's top bit alone."""
    x("LDX idx", "LDX", dst=0, src=0, len=1, idx=SP, rows=1)
    x("LDX idx top", "LDX", dst=0, src=0, len=1, idx=0xFFFF, rows=1)
    v("LDX", dst=0, src=0, len=2, idx=0, rows=EXT // 2)             # the table is the whole memory
    x("LDX rows past", "LDX", dst=0, src=0, len=2, idx=0, rows=EXT // 2 + 1)
    x("LDX len 0", "LDX", len=0, dst=5, src=5, idx=5, rows=1)
    x("LDX rows 0", "LDX", dst=5, src=5, len=3, idx=5, rows=0)
    x("LDX rows 2^15", "LDX", dst=0, src=0, len=1, idx=0, rows=1 << 15)   # ext, not shape
    for n in (1, 20):
        x(f"LDX dst wrap {n}", "LDX", dst=T - n // 2 - 1, src=0, len=n, idx=0, rows=1)
    for rows, n, src in ((T // 16 + 1, 16, 0), ((1 << 20) // 256 + 1, 256, 0), ((1 << 24) // 4096, 4096, 5),
                         (65535, 4096, 4097), (65535, 4096, 4100 + EXT // 2)):
        x(f"LDX table wrap {rows}x{n}", "LDX", dst=0, src=src, len=n, idx=0, rows=rows)
    x("LDX rows 0 + sp + ext", "LDX", dst=SP - 1, src=EXT - 1, len=4, idx=SP, rows=0)
    x("LDX sp + ext", "LDX", dst=SP - 3, src=EXT - 3, len=5, idx=0, rows=7)
    x("LDX idx + ext", "LDX", dst=0, src=EXT - 3, len=5, idx=SP + 3, rows=7)
    top = (1 << isa.XHI_W) - 1                    # xhi's top page
    for xhi in (1, 128, 255, 256, 1 << (isa.XHI_W - 1), top):
        x(f"LDX xhi {xhi}", "LDX", dst=0, src=0, len=1, idx=0, rows=1, xhi=xhi)
    for n in (1, 2, 20):
        x(f"LDX xhi wrap {n}", "LDX", dst=0, src=T - n // 2 - 1, len=n, idx=0, rows=1, xhi=top)
    x("LDX xhi table wrap", "LDX", dst=0, src=0, len=4096, idx=0, rows=4097, xhi=top)


# ------------------------------------------------------------------ colliding programs
def collide_prelude(b, near0):
    """The row index of the LDXs (an ARGMAX of the near window)."""
    return [b("ARGMAX", dst=IDX_WORD, src=near0, len=LDX_ROWS)]


def collide_make(rng, cfg, op, n, src, dst, long_, side, target, window):
    from tb.stimulus.collide import _ext, _near
    n = min(n, 40)
    idx = _near(rng, 1, target, window) if side == "r" else IDX_WORD
    dst = _near(rng, n, target if side == "w" else None, window)
    return isa.build("LDX", cfg=cfg, dst=dst, src=_ext(rng, cfg, LDX_ROWS * n), len=n, idx=idx, rows=LDX_ROWS)


def edge_producers(b, at):
    """Its index at at + 60, which an ARGMAX (edge_prelude) writes first, so its row is
    really copied."""
    return [("LDX", b("LDX", dst=at, src=0, len=40, idx=at + 60, rows=8))]


def edge_prelude(b, at):
    """Its row index (< 8), from the region's words."""
    return [b("ARGMAX", dst=at + 62, src=at + 66, len=8)]


def edge_consumers(b, op, word, side, at):
    o1 = at + 121                         # rows 128: the index, region data, may be out of range
    if side == "r":
        return [b("LDX", dst=o1, src=0, len=1, idx=word, rows=128)]
    return [b("LDX", dst=word, src=0, len=1, idx=o1, rows=128)]


# ------------------------------------------------------------------ bad programs
def bad_data(rng, b, ext, SP, image, prog):
    """Code 6: the LDX at pc reads an index word not below its rows (rows + k, rows itself,
    a negative word: above every rows as unsigned); after it the program goes on
    (sometimes a good LDX, a second bad one, then HALT or a DECODE fault, which keeps code
    6 and the first bad pc). Returns (pc, sp_range); prog grows."""
    from tb.stimulus import ops
    kind = int(rng.integers(0, 4))
    rows = int(rng.choice([1, 2, 10, 96, min(ext, 65535)]))
    n = int(rng.integers(1, 17))
    n = max(1, min(n, ext // rows))
    src = int(rng.integers(0, ext - rows * n + 1))
    tok = int(rng.choice([rows, rows + 1, rows + int(rng.integers(0, 1000)), -1, -(1 << 31),
                          (1 << 16) + rows % 7]))
    image[20] = tok                              # the index word: the prefix loads it to sp[84]
    image[21] = int(rng.integers(0, rows))       # a good one, to sp[85]
    prog.append(b("LDX", dst=200, src=src, len=n, idx=84, rows=rows))
    sp_range = (200, n)
    pc = len(prog) - 1
    if kind >= 1:                                # a good LDX after it: the chip runs on
        prog.append(b("LDX", dst=300, src=src, len=n, idx=85, rows=rows))
        prog.append(b("ST", src=300, dst=min(500, ext - n), len=n))
    if kind >= 2:                                # a second bad one: the first one's pc stays
        prog.append(b("LDX", dst=400, src=src, len=n, idx=84, rows=rows))
    if kind == 3:                                # a later DECODE fault keeps code 6 and pc
        prog.append(ops.hooks("bad_tail")[0](SP))
    return pc, sp_range


# ------------------------------------------------------------------ random programs, holes
def rand_lookup(rng, cfg, b, idx, rows_min):
    """An LDX reading its index at idx from a table of at least rows_min rows (an index
    below rows_min is valid)."""
    from tb.stimulus.randops import _addr
    ext, SP = cfg.ext_words, cfg.sp_words
    r = rng.random()
    n = int(rng.integers(1, 9)) if r < 0.5 else int(rng.integers(1, 65)) if r < 0.95 else 1
    rows = rows_min + int(rng.integers(0, 4)) if rng.random() < 0.7 else max(rows_min, ext // n // 2)
    rows = min(rows, ext)
    n = max(1, min(n, ext // rows, SP))
    src = _addr(rng, rows * n, ext)
    return b("LDX", dst=_addr(rng, n, SP), src=src, len=n, idx=idx, rows=rows)


def hole_faults(r, top, far):
    return [("LDX src and len max", r("LDX", dst=0, src=far, len=top, idx=0, rows=1))]


def region(rng, cfg, op, addr, data, R, prog):
    """Its index word: an ARGMAX's, or any (error 6 likely)."""
    n, rows = rng.randrange(1, 33), rng.choice([1, 7, 100, 128, 256])
    idx = addr(1)
    if rng.random() < 0.7:
        prog.append(isa.build("ARGMAX", cfg=cfg, dst=idx, src=addr(rows), len=min(rows, R)))
    prog.append(isa.build("LDX", cfg=cfg, dst=addr(n), src=rng.randrange(0, data - rows * n + 1),
                          len=n, idx=idx, rows=rows))
