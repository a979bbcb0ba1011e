"""tb/stimulus/edges.top_bit_faults: each instruction's range really has its span or end in
[2^t, 2^t + size] (t named in its label), computed here with the reference's extents (model/ops VIEWS),
not the generator's search; the reference faults it with that range's code
while the same range made 2^t words shorter would fit its memory; and which ends get one."""
import re

from model import isa
from model import ops as records
from tb.stimulus import edges
from tb.stimulus.suitecfg import CFG


def test_each_program_sits_at_the_top_bit_it_names_and_only_that_range_faults():
    progs = edges.top_bit_faults(CFG)
    assert len(progs) >= 50
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


def test_every_scratchpad_range_end_has_its_program():
    """Every scratchpad range's end at its decoder wire's top bit (model/decoder_gen.py) has
    its program, but two: ARGMAX's dst (its acc read range, on the same base, faults with
    it) and RQC's dst (its end past 2^21 needs an extent past the suite chip's 4,096 words
    for a sibling range: docs/mutation_rtl.md)."""
    from model import decoder_gen
    got = set(label for label, _ in edges.top_bit_faults(CFG))
    for op, rec in records.TABLE.items():
        for (_, we), g in zip(decoder_gen.range_widths(rec), rec.ranges):
            if g.space != records.SP or (op, g.base) in (("ARGMAX", "dst"), ("RQC", "dst")):
                continue
            assert f"{op} {g.base} end at 2^{we - 1}" in got, (op, g.base, we)
