"""The chip's extensions for the cache remedies on the chip, on Icarus and Verilator, in
both timing modes (docs/isa.md): LD / ST / LDX with xhi (24-bit external addresses, a
transfer across the 65,536-word boundary), the long softmax (sm_max_len 1024: SM of 65,
256 and 1024 elements against model/softmax_gold.softmax_fixed) and PACK4 / UNPACK4.

The build is the language model's kind of chip kept small: config.DEFAULT with 2^17
external words (two 65,536-word pages) and sm_max_len 1024 (LM_CFGS). The hand programs
(tb/stimulus/hand.py isaext_programs(), the packing ops' lm_programs()) must equal the reference
Machine bit for bit and cycle for cycle (tb/judge.py), with the counters and trace equal
to the schedule computed from the program alone and the expected fault code; the results
stored to the external memory are also checked against the spec written here (the gold
softmax, PACK4 / UNPACK4 transcribed), and each new op's busy cycles, read from the chip's
unit counters, must be the formulas of docs/isa.md typed in below. The LM-config test is
long (make test-long); the default suite runs the CH09 one here and PACK4 / UNPACK4 in
tests/tb/test_lm_cosim.py.
"""
import pytest
from cosim_runs import run_checked

from model import config, isa
from model.softmax_gold import softmax_fixed
from tb import ROOT, hw
from tb.sim.files import copy_rtl
from tb.stimulus import hand
from tb.stimulus.ops import ldx

LM = config.DEFAULT.replace(ext_words=1 << 17, sm_max_len=1024)
LM_CFGS = {"inorder": LM, "overlap": LM.replace(mode="overlap")}
# the busy cycles of docs/isa.md (not from model/timing.py)
BUSY = {"PACK4": lambda n, m: 2 * n + 1, "UNPACK4": lambda n, m: 2 * n + 1,
        "LD": lambda n, m: n + 1, "ST": lambda n, m: n + 1, "LDX": lambda n, m: n + 3,
        "SM": lambda n, m: 2 * (n + 1) + 34 * n if m == "inorder" else 3 * n + 36}
UNIT = {"PACK4": "vec", "UNPACK4": "vec", "SM": "vec", "LD": "dma", "ST": "dma", "LDX": "dma"}
LENS = {"PACK4": (1, 2, 17, 1000), "UNPACK4": (1, 2, 17, 1000), "SM": (65, 256, 1024),
        "LD": (1, 300), "ST": (1, 300), "LDX": (1, 40)}


def _one(op, n, cfg):
    """op of length n alone, with xhi = 1 for the DMA ops (a transfer across 2^16 for LD/ST)."""
    def b(o, **f):
        return isa.build(o, cfg=cfg, **f)
    f = {"PACK4": dict(dst=2100, src=0, len=n), "UNPACK4": dict(dst=2000, src=0, len=n),
         "SM": dict(dst=2048, src=0, len=n), "LD": dict(dst=0, src=65536 - n // 2, len=n),
         "ST": dict(src=0, dst=65536 - n // 2, len=n), "LDX": dict(dst=100, src=70000, len=n, idx=0, rows=2)}[op]
    return [b(op, **f), b("HALT")]


def _sat4(v):
    return max(-8, min(7, ((v & 0xFF) ^ 0x80) - 0x80))


def _nib(v):
    return ((v & 0xF) ^ 8) - 8


def _spec_checks(name, prog, img, ext):
    """The stored results of the hand programs against the spec written here."""
    ext = [int(v) for v in ext]
    if name == "sm_long":
        for src, out, n in ((0, 10000, 1024), (2000, 12000, 256), (3000, 13000, 65), (4000, 14000, 65)):
            x = [((v & 0xFF) ^ 0x80) - 0x80 for v in img[src:src + n]]
            assert ext[out:out + n] == softmax_fixed(x), (name, n)
    if name == "pack4_edges":
        xs = img[0:64]
        packed = [(_sat4(xs[2 * i]) & 0xF) | ((_sat4(xs[2 * i + 1]) & 0xF) << 4) for i in range(32)]
        assert ext[200:232] == packed
        assert ext[300:364] == [_sat4(v) for v in xs]
        ws = img[64:64 + 259]
        assert ext[1500:1500 + 518] == [f(w) for w in ws for f in (_nib, lambda w: _nib(w >> 4))]
        assert ext[2100:2100 + 259] == [w & 0xFF for w in ws]        # packs back the low bytes
    if name == "xhi":
        assert ext[-12:] == img[65531:65543]                          # LD across 2^16, ST at the top
        # the ST across 2^16 (its word 65535 rewritten last with the memory's last word,
        # which the first ST wrote: img[65542])
        assert ext[65520:65535] + ext[65536:65550] == img[65636:65651] + img[65652:65666]
        assert ext[65535] == img[65542]


@pytest.mark.long          # about 30-50 s a simulator and mode: two 2^17-word builds (make test-long)
@pytest.mark.parametrize("mode", sorted(LM_CFGS))
def test_xhi_pack4_long_softmax_programs_and_busy_cycles(sim, mode):
    cfg = LM_CFGS[mode]
    progs = hand.isaext_programs(cfg) + [c for c in hand.lm_programs() if "pack4" in c[0]]
    timed = [(op, n, _one(op, n, cfg)) for op in BUSY for n in LENS[op]]
    checked, timed_res = run_checked(sim, progs, timed, cfg)
    for name, prog, img, r, where in checked:
        code = int(name[3]) if name.startswith("err") else 0
        assert (r.error, r.error_code) == (code != 0, code), where
        if not code:
            _spec_checks(name, prog, img, r.ext)
    for (op, n, _prog), r in zip(timed, timed_res):
        busy = getattr(r.counters, UNIT[op])
        assert r.ok and busy == BUSY[op](n, mode), f"{op} len {n} ({sim}, {mode}): busy {busy}, {r.mismatch}"
        # in-order: FETCH, DECODE, busy, HALT's FETCH and DECODE; overlap: HALT retires the
        # cycle after the last busy one
        assert r.counters.cycles == busy + (4 if mode == "inorder" else 3), (op, n, mode)


def test_the_ch09_chip_faults_xhi_1_and_sm_past_64(sim):
    """On chapter 9's chip (8192 external words, sm_max_len 64; its build is every suite's):
    xhi = 1 and SM of 65 are faults 3 and 4, SM of 64 runs; the words of earlier programs
    are unchanged (xhi = 0). PACK4 / UNPACK4 on this chip: tests/tb/test_lm_cosim.py (the
    hand programs include the packing ops')."""
    cfg = config.CH09
    H = isa.build("HALT")
    pairs = [([isa.raw("LD", dst=0, src=0, len=1, xhi=1), H], None),
             ([isa.raw("SM", dst=0, src=0, len=65), H], None),
             ([isa.build("SM", dst=100, src=0, len=64), H], None)]
    res = hw.run_programs(sim, pairs, cfg=cfg)
    assert [(r.ok, r.error_code) for r in res] == [(True, 3), (True, 4), (True, 0)]
    assert isa.encode(isa.build("LD", dst=1, src=2, len=3)) == 1 | 1 << 4 | 2 << 20 | 3 << 36


def main():
    """Print the measured busy cycles (and total cycles) of each timed program on both
    simulators in both modes as docs/measurements.md's table:
    python tests/tb/test_xhi_pack4_long_softmax_cosim.py"""
    rows = {}
    for mode, cfg in sorted(LM_CFGS.items()):
        timed = [(op, n, _one(op, n, cfg)) for op in BUSY for n in LENS[op]]
        for sim in ("icarus", "verilator"):
            res = hw.run_programs(sim, [(p, None) for _, _, p in timed], cfg=cfg)
            for (op, n, _), r in zip(timed, res):
                assert r.ok, (op, n, sim, mode, r.mismatch)
                rows.setdefault((op, n), {})[(sim, mode)] = (getattr(r.counters, UNIT[op]), r.counters.cycles)
    print("| op | len | docs/isa.md in-order / overlap | Icarus in-order | Verilator in-order | Icarus overlap "
          "| Verilator overlap |")
    print("|---|---|---|---|---|---|---|")
    for (op, n), d in rows.items():
        cells = [f"{d[(s, m)][0]} ({d[(s, m)][1]})" for m in ("inorder", "overlap") for s in ("icarus", "verilator")]
        print(f"| {op} | {n} | {BUSY[op](n, 'inorder')} / {BUSY[op](n, 'overlap')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()


BIG_SP = config.Config(sp_words=16384, ext_words=(1 << 17), mode="overlap")


@pytest.mark.long          # a 16,384-word chip on Icarus, and its mutant: about 30-60 s
def test_ldx_table_past_2_29_faults_and_catches_a_narrow_sum(tmp_path):
    """A past survivor of the RTL mutation run (docs/mutation_rtl.md): the LDX table's last
    word as a 29-bit sum (a 30-bit one made one bit narrow) passed the suite's chip. On a
    16,384-word chip tb/stimulus/ops/ldx.py wide_table_program faults (external range, code
    3) on the RTL, as the reference does, and not on that bug: ldx_end2 (30 bits in the
    generated decoder, ga2_decode_ops.vh) made 29 bits wide."""
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    name, prog, img = ldx.wide_table_program(BIG_SP)
    (r,) = hw.run_programs("icarus", [(prog, img)], cfg=BIG_SP)
    assert r.ok and (r.error, r.error_code) == (True, 3), r.mismatch
    mut = copy_rtl(tmp_path, ("ga2_decode_ops.vh", r"wire \[29:0\] ldx_end2 = ", "wire [28:0] ldx_end2 = "))
    (m,) = hw.run_programs("icarus", [(prog, img)], cfg=BIG_SP, rtl_dir=str(mut),
                           build_dir=str(tmp_path / "build"))
    assert not m.ok and (m.error_code != 3 or not m.error)


def _xhi_programs(cfg):
    """[(prog, image)] on a chip past 2^16 external words: LD, ST and LDX at xhi = 1, valid
    (an xhi counted twice in the range check would fault them), then each op alone one word
    past the memory's end at xhi = 1 (an xhi counted half would let it run)."""
    top = cfg.ext_words - (1 << 16)            # src / dst of the memory's last words at xhi = 1
    img = [k % 97 for k in range(cfg.ext_words)]

    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    valid = [b("LD", dst=0, src=5, len=4, xhi=1), b("ST", src=0, dst=100, len=4, xhi=1),
             b("LD", dst=8, src=0, len=1), b("LDX", dst=16, src=40, len=2, idx=8, rows=4, xhi=1),
             b("ST", src=16, dst=200, len=2), b("HALT")]
    img_valid = list(img)
    img_valid[0] = 3                           # the index word: row 3 of 4
    faults = [[isa.raw("LD", dst=0, src=top - 3, len=4 + 1, xhi=1), b("HALT")],
              [isa.raw("ST", src=0, dst=top - 3, len=4 + 1, xhi=1), b("HALT")],
              [b("LD", dst=8, src=0, len=1),
               isa.raw("LDX", dst=16, src=top - 7, len=4, idx=8, rows=2 + 1, xhi=1), b("HALT")]]
    img_fault = list(img)
    img_fault[0] = 0
    return [(valid, img_valid)] + [(p, img_fault) for p in faults]


@pytest.mark.long          # 6 mutants of the generated decoder on Icarus: about 20 s
def test_xhi_in_the_range_checks_on_a_chip_past_2_16_words(tmp_path):
    """The range checks' xhi * 2^16 (ga2_decode_ops.vh, LD, ST, LDX): its shift 15 or 17
    passes the mutation suite's 8,192-word chip (every xhi > 0 faults there either way). On
    a chip of 2^17 words the programs above run as the reference says on the RTL, and each
    of the 6 mutants (shift 16 -> 15, 17 on each op's line) changes at least one of them."""
    from tb.mutation.rtl import sites
    if "icarus" not in hw.available_sims():
        pytest.skip("icarus not installed")
    progs = _xhi_programs(BIG_SP)
    rs = hw.run_programs("icarus", progs, cfg=BIG_SP)
    assert [r.ok for r in rs] == [True] * 4, [r.mismatch for r in rs]
    assert [(r.error, r.error_code) for r in rs] == [(False, 0)] + [(True, 3)] * 3
    lines = (ROOT / "rtl" / "ga2_decode_ops.vh").read_text().splitlines()
    muts = [s for s in sites.enumerate_sites(sites.RTL_DIR, ["ga2_decode"], {}, ("const",))
            if s.file == "ga2_decode_ops.vh" and s.orig == "16" and "_xhi} << 16)" in lines[s.line - 1]]
    assert len(muts) == 6, [sites.site_id(s) for s in muts]
    for k, s in enumerate(muts):
        mut = sites.make_mutant_dir(s, str(tmp_path / f"rtl{k}"), sites.RTL_DIR)
        ms = hw.run_programs("icarus", progs, cfg=BIG_SP, rtl_dir=mut, build_dir=str(tmp_path / f"build{k}"))
        assert not all(m.ok for m in ms), sites.site_id(s)
