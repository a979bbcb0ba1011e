"""cocotb test of rtl/ga2_decode.v alone (toplevel tb/hdl/decode_tb.v) against model/isa.py.

ga2_decode's per-op logic is generated from the op records (model/ops -> model/rtl.py);
this test holds the generated Verilog to the same records as the Python side reads them
(isa.check, func.reads / writes). Many instruction words: every opcode (the legal ones
and every other code of the opcode field), random fields, each record's shape fields at
their limits (lo - 1, lo, hi, hi + 1 on either chip) and each of its ranges placed at its
memory's end (the last word inside, the first word outside, one short; the external
ones by their full address xhi * 2^16 + the field, xhi sometimes past the memory), and
random bits above each op's last field. For each word the fault code of both decoders
must equal isa.decode() + isa.check() (1 for an illegal opcode) on their Config, and
chip A's op one-hot, RTL-unit select and timing-unit select must be the record's; for a
word chip A accepts, its scratchpad range outputs (every read slot, then the write:
valid, first, last) must equal model/func.py reads() / writes() (the overlap mode's
hazard ranges; as many read slots as the record with the most reads). The
two Configs come from tests/tb/test_decode_cosim.py through GA2_DECODE_CFGS (JSON), the
same values it builds the wrapper's parameters from.
"""
import json
import os
import random

import cocotb
from cocotb.triggers import Timer

from model import config, func, isa, ops, rtl

SEED = 2027
UNIT = {r.name: rtl.modules().index(r.module) for r in ops.TABLE.values() if r.module}
TUNIT = {r.name: ops.UNITS.index(r.unit) for r in ops.TABLE.values() if r.unit}
OPS = tuple(op for op in isa.FIELDS if op != "HALT")
# the decoder's read slots (rtl/ga2_isa.vh GA2_NUM_RD): the most read ranges of any record
NUM_RD = max(len([r for r in rec.ranges if r.space == ops.SP and r.rd is True]) for rec in ops.TABLE.values())


def _cfgs():
    return [config.Config(**c) for c in json.loads(os.environ["GA2_DECODE_CFGS"])]


def _n(k):
    return max(1, int(k * float(os.environ.get("GA2_UNIT_SCALE", "1"))))


def _clip(v, width):
    return min(max(int(v), 0), (1 << width) - 1)


def _word(op, fields, rng):
    """The instruction word of op with fields (clipped to their widths), random bits above."""
    word, top = ops.opcode_bits(isa.OPCODES[op])
    for name, width in isa.FIELDS[op]:
        lsb, _ = isa.LAYOUT[op][name]
        word |= _clip(fields[name], width) << lsb
        top = lsb + width
    if rng.random() < 0.5:
        word |= rng.getrandbits(isa.INSTR_W - top) << top
    return word


def _rand_fields(op, rng):
    return {name: rng.getrandbits(width) if rng.random() < 0.5 else rng.randrange(0, min(1 << width, 80))
            for name, width in isa.FIELDS[op]}


def _extent(op, r, f):
    """The words range r of op spans with fields f (its record's extent)."""
    rec = ops.TABLE[op]
    return ops.VIEWS[op]["extents"][rec.ranges.index(r)](tuple(f[n] for n, _ in rec.fields), None)


def _limits(op, s, cfgs):
    """Values at and around a shape check's limits on either chip."""
    rec = ops.TABLE[op]
    out = set()
    for c in cfgs:
        lo, hi = ops.shape_limits(rec, s, c)
        out |= {lo - 1, lo, lo + 1}
        if hi is not None:
            out |= {hi - 1, hi, hi + 1}
    return sorted(v for v in out if v >= 0)


def _words(cfgs, rng):
    ws = []
    # illegal opcodes (isa.ILLEGAL_OPCODES) with random upper bits; HALT with random upper bits
    for code in isa.ILLEGAL_OPCODES + isa.ILLEGAL_XOPS:
        val, width = ops.opcode_bits(code)
        for _ in range(_n(8)):
            ws.append((rng.getrandbits(isa.INSTR_W - width) << width) | val)
    for _ in range(_n(8)):
        ws.append(_word("HALT", {}, rng))
    for _ in range(_n(2400)):
        op = rng.choice(OPS)
        rec = ops.TABLE[op]
        f = _rand_fields(op, rng)
        ws.append(_word(op, f, rng))
        c = rng.choice(cfgs)
        widths = rec.widths
        # the shape fields: small, at their limits, or anywhere in their width
        for s in rec.shape:
            pool = _limits(op, s, cfgs) + [rng.randrange(1, 300), rng.randrange(0, 1 << widths[s.field])]
            f[s.field] = min(rng.choice(pool), (1 << widths[s.field]) - 1)
        for name in ("lda", "ldb", "ldc", "rows"):
            if name in widths and rng.random() < 0.5:
                f[name] = rng.choice((0, 1, 4, 7, rng.randrange(0, 70), (1 << widths[name]) - 1))
        # every range inside its memory (mostly), then one at the memory's end
        for r in rec.ranges:
            size = c.sp_words if r.space == ops.SP else c.ext_words
            n = max(_extent(op, r, f), 1)
            at = rng.randrange(0, max(1, size - n + 1))
            if r.space == ops.EXT:
                f.update(isa.ext_fields(op, _clip(at, 24)))
            else:
                f[r.base] = _clip(at, widths[r.base])
        if rec.ranges:
            r = rng.choice(rec.ranges)
            size = c.sp_words if r.space == ops.SP else c.ext_words
            n = _extent(op, r, f)
            at = size - n + rng.choice((-1, 0, 0, 1)) if rng.random() < 0.7 else rng.randrange(0, size)
            if r.space == ops.EXT:
                xa = _clip(at, 24)
                if rng.random() < 0.2:             # xhi past the memory, any low field
                    xa = (rng.randrange(0, 256) << 16) | (xa & 0xFFFF)
                f.update(isa.ext_fields(op, xa))
            else:
                f[r.base] = _clip(at, widths[r.base])
        ws.append(_word(op, f, rng))
    return ws


def _sp_reads(ins):
    """(unconditional, conditional) scratchpad read ranges of a valid instruction as
    (first, last) pairs, in its record's order: func.reads() split by the record's rd flag
    (a conditional read, MM's old C words with acc, is not a hazard slot of its own)."""
    rec = ops.TABLE[ins.op]
    got = [(r.first, r.last) for r in func.reads(ins) if r.space == func.SP]
    flags = [r.rd for r in rec.ranges if r.space == ops.SP and r.rd
             and (r.rd is True or ins.args[rec.index[r.rd]])]
    assert len(flags) == len(got), f"{ins}: {len(got)} read ranges, its record {len(flags)}"
    return ([g for g, f in zip(got, flags) if f is True], [g for g, f in zip(got, flags) if f is not True])


def _expect(word, cfg):
    try:
        ins = isa.decode(word)
    except ValueError:
        return isa.ERR_OPCODE, None
    bad = isa.check(ins, cfg)
    return (bad[0] if bad else 0), ins


@cocotb.test()
async def test_decode(dut):
    """ga2_decode's fault code and fields against isa.decode + isa.check, two Configs."""
    cfg_a, cfg_b = _cfgs()
    rng = random.Random(SEED)
    words = _words((cfg_a, cfg_b), rng)
    seen = {0: [0] * 6, 1: [0] * 6}
    seen_rng = dict.fromkeys(OPS, 0)
    for w in words:
        dut.instr.value = w
        await Timer(1, unit="ns")
        for k, (cfg, sig) in enumerate(((cfg_a, dut.a_fault), (cfg_b, dut.b_fault))):
            code, ins = _expect(w, cfg)
            got = int(sig.value)
            assert got == code, (f"{'AB'[k]} ({cfg.name}) word {w:#034x} {ins}: fault {got}, "
                                 f"model {code} {isa.check(ins, cfg) if ins else 'illegal opcode'}")
            seen[k][code] += 1
        code, ins = _expect(w, cfg_a)
        oh = 0 if ins is None else 1 << (isa.OPCODES[ins.op] - 1)
        assert int(dut.op_oh.value) == oh and int(dut.b_op_oh.value) == oh, f"word {w:#x}: op one-hot {dut.op_oh.value}"
        sel = 0 if ins is None or ins.op == "HALT" else 1 << UNIT[ins.op]
        assert int(dut.unit_sel.value) == sel, f"word {w:#x}: unit_sel {dut.unit_sel.value} vs {sel:b}"
        tsel = 0 if ins is None or ins.op == "HALT" else 1 << TUNIT[ins.op]
        assert int(dut.tunit_sel.value) == tsel, f"word {w:#x}: tunit_sel {dut.tunit_sel.value} vs {tsel:b}"
        if ins is None or ins.op == "HALT":
            continue
        if code == 0:
            rd, cond = _sp_reads(ins)
            wr = [(r.first, r.last) for r in func.writes(ins) if r.space == func.SP]
            for c in cond:                       # a conditional read inside the write range
                assert c == wr[0], f"{ins}: read {c} vs write {wr[0]}"   # (MM acc)
            assert len(rd) <= NUM_RD, f"{ins}: {len(rd)} read ranges, the decoder has {NUM_RD} slots"
            exp_r = [(1, a, b) for a, b in rd] + [(0, None, None)] * (NUM_RD - len(rd))
            exp_r += [(1, a, b) for a, b in wr] + [(0, None, None)] * (1 - len(wr))
            got = [(int(dut.rd_v.value) >> k & 1, int(dut.rd_first.value) >> (16 * k) & 0xFFFF,
                    int(dut.rd_last.value) >> (16 * k) & 0xFFFF) for k in range(NUM_RD)]
            x = int(dut.rng_wr.value)
            got.append((x >> 32, (x >> 16) & 0xFFFF, x & 0xFFFF))
            names = [f"rd{k}" for k in range(NUM_RD)] + ["wr"]
            for name, (v, a, b), (gv, ga, gb) in zip(names, exp_r, got):
                assert gv == v and (not v or (ga, gb) == (a, b)), \
                    f"{ins}: {name} valid {gv} {ga}..{gb}, model {v} {a}..{b}"
            seen_rng[ins.op] += 1
    for k, cfg in enumerate((cfg_a, cfg_b)):
        missing = [c for c in (0, 1, 2, 3, 4) if seen[k][c] == 0]
        assert not missing, f"{cfg.name}: no word with fault code(s) {missing}: {seen[k]}"
    assert min(seen_rng.values()) > 0, f"ranges not checked for every op: {seen_rng}"
    dut._log.info("decode: %d words; fault codes 0..4 A %s, B %s; ranges checked %s", len(words),
                  seen[0][:5], seen[1][:5], seen_rng)
