"""The functional coverage model (tb/coverage.py) itself, without a simulator: the bins known
programs must hit, the holes a program set that misses something must report, the limits
pinned from docs/isa.md (not from the model under test), files that merge across processes,
and a new op in model/isa.py appearing as a hole by itself.

The chip's outcome is stood in for by the reference's (tb/judge.py expected(): the retire
trace and the error outputs the co-simulation holds the chip to); the cocotb runs that
sample the real chip are tests/tb/test_coverage_cosim.py.
"""
import pytest

from model import config, hostio, isa
from model.machine import Machine
from tb import coverage, judge, protocol

CFG = config.DEFAULT               # 4096 scratchpad and external words (docs/isa.md)


def raw_of(prog, image=(), cfg=CFG, aborted=False, cov=None):
    """read_raw()'s dict as the chip would give it for prog (the reference's outcome)."""
    img = hostio.memory_image(list(image) or [0], cfg.ext_words, "external memory")
    ref = judge.reference(Machine(cfg), isa.as_words(prog), img)
    e = judge.expected(ref)
    return {"trace": e["trace"], "error": e["error"], "done": True, "error_code": e["error_code"],
            "error_pc": e["error_pc"], "host": {"aborted": aborted}}


def run_model(tmp_path, programs, cfg=CFG, name="a"):
    """Sample programs [(prog, image)] in this process, save, load: {point: {bin: hits}}."""
    coverage.reset()
    for prog, image in programs:
        coverage.sample(isa.as_words(prog), raw_of(prog, image, cfg), True, cfg)
    path = coverage.save(tmp_path / name)
    return coverage.load(path)


def B(op, **f):
    return isa.build(op, cfg=CFG, **f)


H = isa.build("HALT")
ILLEGAL = 13                       # an illegal opcode word (docs/isa.md: 0 and 13..15 are illegal)


def test_limits_are_the_documented_ones():
    """docs/isa.md: SM len 1..64, NORM len 1..64, MM M and N 1..4, K 1..255, LDX rows >= 1."""
    bins = coverage.point_bins(CFG)
    assert bins["ga2.field.SM.len"] == ["min", "max", "1", "cap", "cap+1"]
    assert bins["ga2.field.SM.src"] == ["min", "max", "sp_last", "sp_past"]
    ins = isa.raw("SM", dst=0, src=0, len=64)
    assert "cap" in coverage.classify(ins, CFG)["len"]
    assert "cap+1" in coverage.classify(isa.raw("SM", dst=0, src=0, len=65), CFG)["len"]
    assert "cap+1" in coverage.classify(isa.raw("NORM", dst=0, src=0, len=65, m=1, s=0), CFG)["len"]
    mm = coverage.classify(isa.raw("MM", dst=0, A=0, B=0, M=4, K=255, N=5, tb=0, lda=0, ldb=0, ldc=0), CFG)
    assert "cap" in mm["M"] and "cap+1" in mm["N"] and "max" in mm["K"]
    # the scratchpad's last word (4095) and one past it; the external memory's likewise
    assert "sp_last" in coverage.classify(isa.raw("LD", dst=4000, src=0, len=96), CFG)["dst"]
    assert "sp_past" in coverage.classify(isa.raw("LD", dst=4000, src=0, len=97), CFG)["dst"]
    assert "ext_last" in coverage.classify(isa.raw("ST", src=0, dst=4095, len=1), CFG)["dst"]
    assert "ext_past" in coverage.classify(isa.raw("ST", src=0, dst=4095, len=2), CFG)["dst"]
    # every error code of docs/isa.md has a bin
    assert bins["ga2.fault.code"] == ["ERR_OPCODE", "ERR_SP_RANGE", "ERR_EXT_RANGE", "ERR_SHAPE",
                                      "ERR_PC", "ERR_INDEX"]
    assert set(bins["ga2.op"]) >= {"LD", "ST", "MM", "RQ", "SM", "HALT", "LDX", "ADD", "ARGMAX", "NORM",
                                   "illegal_0", "illegal_ext"}
    assert len(bins["ga2.hazard"]) == 18          # 3 kinds x 6 ordered pairs of different units
    assert len(bins["ga2.hazard.pack4"]) == 12    # 3 kinds x pack4 with dma and mm, both ways


def test_known_programs_hit_their_bins_and_the_rest_are_holes(tmp_path):
    prog = [B("LD", dst=0, src=0, len=1), B("LD", dst=4032, src=4032, len=64),
            B("MM", dst=100, A=0, B=0, M=4, K=1, N=1, tb=1, lda=0, ldb=0, ldc=0, acc=1),
            B("SM", dst=200, src=4032, len=64), B("ST", src=200, dst=0, len=64), H]
    hits = run_model(tmp_path, [(prog, [1] * 4096)])
    assert hits["ga2.op"]["LD"] == 2 and hits["ga2.op"]["SM"] == 1 and hits["ga2.op"]["HALT"] == 1
    assert hits["ga2.op"]["NORM"] == 0
    assert hits["ga2.field.LD.len"]["1"] == 1 and hits["ga2.field.LD.dst"]["sp_last"] == 1
    assert hits["ga2.field.LD.src"]["ext_last"] == 1 and hits["ga2.field.LD.src"]["min"] == 1
    assert hits["ga2.field.SM.len"]["cap"] == 1 and hits["ga2.sm_len"]["inorder:64"] == 1
    assert hits["ga2.mm_acc"]["inorder:tb1"] == 1 and hits["ga2.field.MM.M"]["cap"] == 1
    assert hits["ga2.mode"] == {"inorder": 1, "overlap": 0}
    hs = coverage.holes(hits)
    assert "ga2.op[NORM]" in hs and f"ga2.op[illegal_{ILLEGAL}]" in hs and "ga2.mode[overlap]" in hs
    assert "ga2.fault.code[ERR_SHAPE]" in hs and "ga2.hazard[RAW:dma<-mm]" in hs
    assert "ga2.op[LD]" not in hs and "ga2.field.SM.len[cap]" not in hs
    got, n = coverage.totals(hits)
    assert got == n - len(hs) and 0 < got < n


def test_faults_hit_the_blamed_field_and_the_code(tmp_path):
    progs = [([B("LD", dst=0, src=0, len=4), isa.raw("SM", dst=0, src=0, len=65), H], [0]),
             ([isa.raw("LD", dst=4000, src=0, len=97), H], [0]),
             ([isa.raw("ST", src=0, dst=4095, len=2), H], [0]),
             ([B("LD", dst=0, src=0, len=1), ILLEGAL, H], [0]),
             ([B("LD", dst=0, src=0, len=1)], [0]),            # then a 0 word: opcode 0
             ([B("LD", dst=0, src=0, len=1)] * CFG.imem_depth, [0])]   # past the end: ERR_PC
    hits = run_model(tmp_path, progs)
    assert hits["ga2.fault.SM"]["ERR_SHAPE"] == 1 and hits["ga2.field.SM.len"]["cap+1"] == 1
    assert hits["ga2.fault.LD"]["ERR_SP_RANGE"] == 1 and hits["ga2.field.LD.dst"]["sp_past"] == 1
    assert hits["ga2.fault.ST"]["ERR_EXT_RANGE"] == 1 and hits["ga2.field.ST.dst"]["ext_past"] == 1
    assert hits["ga2.op"][f"illegal_{ILLEGAL}"] == 1 and hits["ga2.op"]["illegal_0"] == 1
    assert hits["ga2.fault.code"]["ERR_OPCODE"] == 2
    assert hits["ga2.fault.code"]["ERR_PC"] == 1
    assert hits["ga2.op"]["SM"] == 0                     # refused, never retired


def test_a_mismatching_program_counts_nothing(tmp_path):
    coverage.reset()
    prog = [B("LD", dst=0, src=0, len=1), H]
    coverage.sample(isa.as_words(prog), raw_of(prog), False, CFG)
    hits = coverage.load(coverage.save(tmp_path))
    assert coverage.totals(hits)[0] == 0


def test_restart_and_hazard_bins_come_from_the_monitor_file(tmp_path):
    coverage.reset()
    cov = protocol.program_file(tmp_path, 0, "cov")
    # ga2_tb.v's index: kind*9 + busy*3 + new; RAW (0), busy mm (1), new vec (2) -> 5
    cov.write_text("cut_busy 3\nhaz5 4\n")
    prog = [B("LD", dst=0, src=0, len=100), H]
    cfg = CFG.replace(mode="overlap")
    raw = dict(raw_of(prog, cfg=cfg), trace=[], error=False, done=False, host={"aborted": True})
    coverage.sample(isa.as_words(prog), raw, True, cfg, cov)
    hits = coverage.load(coverage.save(tmp_path / "x"))
    assert hits["ga2.restart"]["overlap:dma"] == 1 and hits["ga2.restart"]["overlap:mm"] == 1
    assert hits["ga2.restart"]["overlap:vec"] == 0 and hits["ga2.hazard"]["RAW:mm<-vec"] == 1
    assert sum(hits["ga2.hazard"].values()) == 1


def test_files_of_several_processes_merge(tmp_path):
    d = tmp_path / "files"
    run_model(d, [([B("LD", dst=0, src=0, len=1), H], [0])], name=".")
    run_model(d, [([B("LD", dst=0, src=0, len=1), B("RQ", dst=0, src=0, len=1, m=1, s=0), H], [0])],
              name=".")
    assert coverage.merge(d, tmp_path / "merged.yml") == 2
    hits = coverage.load(tmp_path / "merged.yml")
    assert hits["ga2.op"]["LD"] == 2 and hits["ga2.op"]["RQ"] == 1 and hits["ga2.op"]["MM"] == 0


def test_an_added_op_and_field_are_holes_by_themselves(monkeypatch):
    """An op record and a field added in model/ops show up in the model as holes with no
    change here (as PACK4, UNPACK4 and the xhi fields did)."""
    from dataclasses import replace

    from model import ops
    foo = replace(ops.TABLE["ARGMAX"], name="FOO", code=13)
    ld = replace(ops.TABLE["LD"], fields=ops.TABLE["LD"].fields + (("bar", 4),))
    for rec in (foo, ld):
        monkeypatch.setitem(ops.TABLE, rec.name, rec)
        monkeypatch.setitem(ops.VIEWS, rec.name, ops._views(rec))
        monkeypatch.setitem(isa.OPCODES, rec.name, rec.code)
        monkeypatch.setitem(isa.FIELDS, rec.name, rec.fields)
    bins = coverage.point_bins()
    assert "FOO" in bins["ga2.op"] and "ga2.field.FOO.len" in bins
    assert bins["ga2.field.LD.bar"] == ["min", "max"]
    hs = coverage.holes({}, bins)
    assert "ga2.op[FOO]" in hs and "ga2.field.FOO.len[min]" in hs and "ga2.field.LD.bar[max]" in hs


def _doc_ops():
    """{op: (code, [(field, width)])} of docs/isa.md's instruction table (the spec, read
    here, not model/isa.py)."""
    import re

    from tb import ROOT
    out = {}
    for line in (ROOT / "docs" / "isa.md").read_text().split("\n"):
        m = re.match(r"\| (\w+) \| (\d+) \| (.*) \|$", line)
        if m:
            fields = [(f, int(w)) for f, w in re.findall(r"(\w+) \((\d+)", m.group(3))]
            out[m.group(1)] = (int(m.group(2)), fields)
    return out


def test_the_model_has_every_op_and_field_of_the_isa():
    """The model's opcodes and field points are exactly docs/isa.md's table and
    model/isa.py's (an op or field without coverage points fails here), every opcode not
    in the table is an illegal-opcode bin, and every op has a unit for the hazard bins
    (model/timing.py UNIT; the pack4 unit's ops on the vec port, as rtl/ga2_top.v wires
    them)."""
    from model import timing
    doc = _doc_ops()
    assert len(doc) >= 12 and doc["PACK4"] == (11, [("dst", 16), ("src", 16), ("len", 13)])
    assert {op: (isa.OPCODES[op], list(isa.FIELDS[op])) for op in isa.OPCODES} == doc
    bins = coverage.point_bins(CFG)
    fields = {tuple(p.split(".")[2:]) for p in bins if p.startswith("ga2.field.")}
    assert fields == {(op, f) for op, (_, fs) in doc.items() for f, _ in fs}
    codes = {c for c, _ in doc.values()}
    assert bins["ga2.op"] == list(doc) + [f"illegal_{c}" for c in range(15) if c not in codes] + ["illegal_ext"]
    assert [c for c in range(16) if c not in codes] == [0, 13, 14, 15]      # docs/isa.md
    assert {b.split(":")[0] for b in bins["ga2.op_mode"]} == set(doc)
    assert {op for op in doc if op != "HALT"} == {op for op, u in timing.UNIT.items() if u}
    assert all(timing.UNIT[op] == "vec" for op in coverage.PK_OPS)
    # every op with a len or a shape can fault, and has a fault point
    assert {p.split(".")[2] for p in bins if p.startswith("ga2.fault.") and p != "ga2.fault.code"} \
        == set(doc) - {"HALT"}
    assert bins["ga2.fault.PACK4"] == ["ERR_SP_RANGE", "ERR_SHAPE"]
    assert bins["ga2.fault.LD"] == ["ERR_SP_RANGE", "ERR_EXT_RANGE", "ERR_SHAPE"]


def test_the_hole_programs_aim_at_every_field_bin():
    """tb/stimulus/holes.py's directed instructions reach every field bin on the chips they
    run on (config.DEFAULT; WIDE for xhi above page 0): a new op or field gets programs
    by itself, or this fails naming the bins it cannot reach."""
    from tb.stimulus import holes
    want = {(p, b) for p, bs in coverage.point_bins(CFG).items() if p.startswith("ga2.field.")
            for b in bs}
    got = set()
    for cfg, fields in ((CFG, None), (holes.WIDE, holes.WIDE_FIELDS)):
        for ins, ok in holes.directed_instrs(cfg, fields):
            assert (isa.check(ins, cfg) is None) == ok
            for name, labels in coverage.field_hits(ins, cfg, isa.check(ins, cfg)).items():
                got |= {(f"ga2.field.{ins.op}.{name}", lb) for lb in labels}
    assert sorted(want - got) == []
    # xhi's bins above page 0 come from WIDE, valid: page 1 (its top) and 2 (past it)
    wide = [i for i, ok in holes.directed_instrs(holes.WIDE, ("xhi",)) if ok]
    assert any(i.xhi == 1 for i in wide)


def test_pack4_xhi_and_sm_limits_are_the_documented_ones():
    """docs/isa.md: PACK4 reads 2*len words at src, UNPACK4 writes 2*len at dst; the
    external address is xhi * 65536 + the field, at most 2^29 words; SM up to sm_max_len,
    a build up to 1024."""
    r = isa.raw
    assert "sp_last" in coverage.classify(r("PACK4", dst=0, src=4096 - 10, len=5), CFG)["src"]
    assert "sp_past" in coverage.classify(r("PACK4", dst=0, src=4096 - 9, len=5), CFG)["src"]
    assert "sp_last" in coverage.classify(r("PACK4", dst=4096 - 5, src=0, len=5), CFG)["dst"]
    assert "sp_past" in coverage.classify(r("UNPACK4", dst=4096 - 9, src=0, len=5), CFG)["dst"]
    assert "sp_last" in coverage.classify(r("UNPACK4", dst=0, src=4096 - 5, len=5), CFG)["src"]
    wide = CFG.replace(ext_words=1 << 17)               # two 65,536-word pages
    ld = coverage.classify(r("LD", dst=0, src=65535, len=1, xhi=1), wide)
    assert ld["xhi"] == {"cap"} and "ext_last" in ld["src"]
    assert coverage.classify(r("LD", dst=0, src=0, len=1, xhi=2), wide)["xhi"] == {"cap+1"}
    assert "ext_past" in coverage.classify(r("ST", src=0, dst=65535, len=2, xhi=1), wide)["dst"]
    assert coverage.classify(r("LD", dst=0, src=0, len=1, xhi=0), CFG)["xhi"] == {"min"}   # page 0: min only
    assert coverage.classify(r("LDX", dst=0, src=0, len=1, idx=0, rows=1, xhi=1), CFG)["xhi"] == {"cap+1"}
    assert coverage.classify(r("ST", src=0, dst=0, len=1, xhi=8191), CFG)["xhi"] == {"max"}
    assert coverage.outside("ST", "xhi", "max", CFG) and not coverage.outside("ST", "xhi", "max",
                                                                              CFG.replace(ext_words=1 << 29))
    bins = coverage.point_bins(CFG)
    assert bins["ga2.field.LD.xhi"] == ["min", "max", "cap", "cap+1"]
    assert bins["ga2.sm_len.max1024"] == [f"{m}:{c}" for m in config.MODES
                                          for c in ("1", "2..511", "512", "513..1022", "1023", "1024")]
    assert bins["ga2.sm_len"][:6] == ["inorder:1", "inorder:2..31", "inorder:32", "inorder:33..62",
                                      "inorder:63", "inorder:64"]


def test_xhi_of_a_refused_address_counts_with_its_field(tmp_path):
    """An LD refused for its full external address (xhi past the memory) hits xhi's
    outside bins; one refused for its scratchpad operand does not."""
    progs = [([B("LD", dst=0, src=0, len=1), isa.raw("LD", dst=0, src=0, len=1, xhi=8191), H], [0]),
             ([isa.raw("ST", src=4095, dst=0, len=2, xhi=1), H], [0])]
    hits = run_model(tmp_path, progs)
    assert hits["ga2.field.LD.xhi"]["max"] == 1 and hits["ga2.fault.LD"]["ERR_EXT_RANGE"] == 1
    assert hits["ga2.field.ST.xhi"]["cap+1"] == 0 and hits["ga2.fault.ST"]["ERR_SP_RANGE"] == 1


def test_pack4_hazard_and_restart_bins_come_from_the_monitor_file(tmp_path):
    """ga2_tb.v's hpk index is kind*4 + j, j 0 dma<-pk, 1 mm<-pk, 2 pk<-dma, 3 pk<-mm;
    cut_pk 1: the busy vector unit at the cut was ga2_pack4."""
    coverage.reset()
    cov = protocol.program_file(tmp_path, 0, "cov")
    cov.write_text("cut_busy 4\ncut_pk 1\nhaz2 3\nhpk5 3\nhpk10 1\n")
    prog = [B("LD", dst=0, src=0, len=100), H]
    cfg = CFG.replace(mode="overlap")
    raw = dict(raw_of(prog, cfg=cfg), trace=[], error=False, done=False, host={"aborted": True})
    coverage.sample(isa.as_words(prog), raw, True, cfg, cov)
    hits = coverage.load(coverage.save(tmp_path / "x"))
    assert hits["ga2.restart"]["overlap:vec"] == 1 and hits["ga2.restart"]["overlap:pack4"] == 1
    assert {b for b, n in hits["ga2.hazard.pack4"].items() if n} == {"WAR:mm<-pack4", "WAW:pack4<-dma"}
    assert {b for b, n in hits["ga2.hazard"].items() if n} == {"RAW:dma<-vec"}


def test_bad_sets_are_refused(capsys):
    from tb import coverage_run
    with pytest.raises(SystemExit) as e:
        coverage_run.main(["--n", "0"])
    assert e.value.code == 2
    assert coverage_run.main(["--sets", "nope"]) == 2
    assert "--sets: nope is not a set" in capsys.readouterr().err
