"""tb/stimulus/edges.top_bit_faults: each instruction's range really has its span or end in
[2^t, 2^t + size] (t named in its label), computed here with the reference's extents (model/ops VIEWS),
not the generator's search; the reference faults it with that range's code
while the same range made 2^t words shorter would fit its memory; and which ends get one."""
import re

import pytest

from model import func, isa
from model import ops as records
from tb.stimulus import edges, programs
from tb.stimulus.suitecfg import CFG, CFG_SP64K


@pytest.mark.parametrize("CFG", [CFG, CFG_SP64K], ids=["suite chip", "sp64k chip"])
def test_each_program_sits_at_the_top_bit_it_names_and_only_that_range_faults(CFG):
    progs = edges.top_bit_faults(CFG)
    assert len(progs) >= 40
    for label, (ins,) in progs:
        op, base, what, t = re.fullmatch(r"(\w+) (\w+) (span|end) at 2\^(\d+)", label).groups()
        t = int(t)
        rec = records.TABLE[op]
        j = [k for k, g in enumerate(rec.ranges) if g.base == base]
        size = CFG.sp_words if rec.ranges[j[0]].space == records.SP else CFG.ext_words
        code = isa.ERR_SP_RANGE if size == CFG.sp_words else isa.ERR_EXT_RANGE
        assert isa.check(ins, CFG)[0] == code, label
        f = ins.fields()
        first = f[base] + ((f.get("xhi", 0) << records.ADDR_W) if size == CFG.ext_words else 0)
        exts = [records.VIEWS[op]["extents"][k](ins.args, CFG) for k in j]   # the reference's extents
        values = [e if what == "span" else first + e for e in exts]        # (a base may hold two ranges)
        assert any(1 << t <= v <= (1 << t) + size for v in values), (label, values)
        if what == "span":                                                 # 2^t shorter, it fits
            assert any(first + e - (1 << t) <= size for e in exts), label


def test_every_scratchpad_range_span_and_end_has_its_program_on_one_of_the_two_chips():
    """Every scratchpad range's span and end at its decoder wire's top bit (model/decoder_gen.py)
    has its program on the suite chip or, where a sibling range needs more than 4,096 words
    or softmax a length past 64, on the sp64k suite's chip (sp64k_programs holds exactly
    those): ARGMAX's write end past 2^16, e.g., needs dst inside the scratchpad (its acc
    read range, on the same base, faults with it on a 4,096-word chip)."""
    from model import decoder_gen
    narrow = {label for label, _ in edges.top_bit_faults(CFG)}
    big = {label for label, _ in edges.top_bit_faults(CFG_SP64K)}
    in_suite = {e[0].removeprefix("sp64k fault ") for e in programs.sp64k_programs()
                if len(e) == 5 and not e[0].endswith("end + 1")}
    assert in_suite == big - narrow and len(in_suite) >= 12
    missing = []
    for op, rec in records.TABLE.items():
        for (ws, we), g in zip(decoder_gen.range_widths(rec), rec.ranges):
            for what, w in (("span", ws), ("end", we)):
                label = f"{op} {g.base} {what} at 2^{w - 1}"
                if g.space == records.SP and label not in narrow | big:
                    missing.append(label)
    assert missing == [], missing


def test_the_sp64k_edge_programs_hulls_have_bits_12_to_15_set():
    """The sp64k suite's one-word edge programs sit at the top of its 2^16-word scratchpad:
    every scratchpad range of their instructions (the reference's ranges, model/func.py)
    lies in [0xF000, 0xFFFF], so each of a hull's address bits 12..15 is 1."""
    edge = [e for e in programs.sp64k_programs() if len(e) == 3 and not e[0].startswith("sp64k end valid")]
    assert len(edge) >= 20
    for label, prog, _ in edge:
        for ins in prog:
            for r in func.reads(ins) + func.writes(ins):
                if r.space == func.SP and r.last >= r.first:
                    assert 0xF000 <= r.first and r.last <= 0xFFFF, (label, ins, r)


def test_end_faults_put_every_range_at_its_memorys_last_word_and_one_past():
    """edges.end_faults: every range of every op but LD, ST and MM (boundary_programs has
    theirs) has a valid instruction whose range ends exactly at its memory's last word and a
    twin one word further that the reference faults with that range's code. The ends are
    computed here with the reference's extents (model/ops VIEWS), not the generator's."""
    valid, bad = edges.end_faults(CFG)
    assert len(valid) == len(bad)
    seen = set()
    for ins, (label, (twin,)) in zip(valid, bad):
        op, j, base = re.fullmatch(r"(\w+) range (\d+) \((\w+)\) end \+ 1", label).groups()
        j = int(j)
        rec = records.TABLE[op]
        g = rec.ranges[j]
        assert g.base == base, label
        ext = g.space == records.EXT
        size = CFG.ext_words if ext else CFG.sp_words
        assert isa.check(ins, CFG) is None, label
        assert isa.check(twin, CFG)[0] == (isa.ERR_EXT_RANGE if ext else isa.ERR_SP_RANGE), label
        for k, one in ((0, ins), (1, twin)):
            f = one.fields()
            first = f[base] + ((f.get("xhi", 0) << records.ADDR_W) if ext else 0)
            e = records.VIEWS[op]["extents"][j](one.args, CFG)
            assert e > 0 and first + e == size + k, (label, first, e, size)
        seen.add((op, j))
    want = {(op, j) for op, rec in records.TABLE.items() if op not in ("LD", "ST", "MM")
            for j in range(len(rec.ranges))}
    assert seen == want, sorted(want - seen)
    labels = [label for label, _ in bad]
    assert len(set(labels)) == len(labels)


def test_the_sp64k_suite_puts_every_range_of_every_op_at_its_memorys_last_word():
    """sp64k_programs: every range of every op, LD, ST and MM included, ends exactly at the
    last word of its memory (65,535 for the scratchpad) in a valid instruction of an "end
    valid" program, and one word further in a light fault program the reference faults with
    that range's code; only a one-word range whose base field cannot hold 65,536 has no
    twin. Ends from the reference's extents (model/ops VIEWS), not the generator's."""
    cfg = CFG_SP64K
    ends = {0: set(), 1: set()}

    def ends_of(ins, k):
        f = ins.fields()
        for j, g in enumerate(records.TABLE[ins.op].ranges):
            ext = g.space == records.EXT
            first = f[g.base] + ((f.get("xhi", 0) << records.ADDR_W) if ext else 0)
            e = records.VIEWS[ins.op]["extents"][j](ins.args, cfg)
            if e > 0 and first + e == (cfg.ext_words if ext else cfg.sp_words) + k:
                ends[k].add((ins.op, j))
                yield j, ext

    progs = programs.sp64k_programs()
    for label, prog, *_ in progs:
        if label.startswith("sp64k end valid"):
            for ins in prog:
                assert isa.check(ins, cfg) is None, (label, ins)
                list(ends_of(ins, 0))
        elif label.endswith("end + 1"):
            (twin,) = prog
            got = dict(ends_of(twin, 1))      # ARGMAX's acc read and write share dst
            j = int(label.split(" range ")[1].split()[0])
            assert j in got, (label, twin)
            ext = got[j]
            assert isa.check(twin, cfg)[0] == (isa.ERR_EXT_RANGE if ext else isa.ERR_SP_RANGE), label
    want = {(op, j) for op, rec in records.TABLE.items() for j in range(len(rec.ranges))}
    assert ends[0] == want, sorted(want - ends[0])
    for op, j in want - ends[1]:
        g = records.TABLE[op].ranges[j]
        assert g.space == records.SP and records.TABLE[op].widths[g.base] == 16, (op, j)
        assert str(g.extent) == "1", (op, j, g.extent)
