"""cocotb test of rtl/ga2_decode.v alone (toplevel tb/hdl/decode_tb.v) against model/isa.py.

Many instruction words: every opcode (the legal ones of model/isa.py and every other
code of the opcode field), random fields, fields placed at each memory end (the last
word inside, the first word outside, for both chips' sizes; LDX's table
src + rows*len too), shape limits (M, N 0..7, K 0, len 0, rows 0, the softmax and norm
length limits and one past them) and random bits above each op's last field. For each word
the fault code of both decoders must equal isa.decode() + isa.check() (1 for an illegal
opcode) on their Config, and the op one-hot, unit select and fields of chip A must
equal the decoded instruction's; for a word chip A accepts, its scratchpad range outputs
(read 0, read 1, write: valid, first, last) must equal model/func.py reads() / writes()
(the overlap mode's hazard ranges). The two Configs come from tests/tb/test_decode_cosim.py
through GA2_DECODE_CFGS (JSON), the same values it builds the wrapper's parameters from.
"""
import json
import os
import random

import cocotb
from cocotb.triggers import Timer

from model import config, func, isa

SEED = 2027
UNIT = {"LD": 0, "ST": 0, "LDX": 0, "MM": 1, "RQ": 2, "SM": 3, "ADD": 4, "ARGMAX": 5, "NORM": 6,
        "PACK4": 7, "UNPACK4": 7}
OH = tuple(isa.OPNAMES[c] for c in sorted(isa.OPNAMES))     # op_oh bit k: opcode k + 1
assert OH[:6] == ("LD", "ST", "MM", "RQ", "SM", "HALT") and len(OH) == 12
LEN_OPS = ("LD", "ST", "RQ", "SM", "LDX", "ADD", "ARGMAX", "NORM", "PACK4", "UNPACK4")
OPS = tuple(op for op in isa.FIELDS if op != "HALT")
# the scratchpad operands of each op with a len (as isa.check tests them) and its one-word ones
SP_FIELDS = {"LD": ("dst",), "ST": ("src",), "RQ": ("src", "dst"), "SM": ("src", "dst"),
             "LDX": ("idx", "dst"), "ADD": ("src", "src2", "dst"), "ARGMAX": ("src", "dst"),
             "NORM": ("src", "dst"), "PACK4": ("src", "dst"), "UNPACK4": ("src", "dst")}
ONE_WORD = {("LDX", "idx"), ("ARGMAX", "dst")}
TWICE = {("PACK4", "src"), ("UNPACK4", "dst")}     # the operands of 2*len words


def _cfgs():
    return [config.Config(**c) for c in json.loads(os.environ["GA2_DECODE_CFGS"])]


def _n(k):
    return max(1, int(k * float(os.environ.get("GA2_UNIT_SCALE", "1"))))


def _clip(v, width):
    return min(max(int(v), 0), (1 << width) - 1)


def _word(op, fields, rng):
    """The instruction word of op with fields (clipped to their widths), random bits above."""
    code = isa.OPCODES[op]
    word = code
    top = isa.OP_W
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


def _words(cfgs, rng):
    ws = []
    # illegal opcodes (isa.ILLEGAL_OPCODES) with random upper bits; HALT with random upper bits
    for code in isa.ILLEGAL_OPCODES:
        for _ in range(_n(8)):
            ws.append((rng.getrandbits(isa.INSTR_W - isa.OP_W) << isa.OP_W) | code)
    for _ in range(_n(8)):
        ws.append(_word("HALT", {}, rng))
    for _ in range(_n(2400)):
        op = rng.choice(OPS)
        f = _rand_fields(op, rng)
        ws.append(_word(op, f, rng))
        c = rng.choice(cfgs)
        sp, ext, sml = c.sp_words, c.ext_words, c.sm_max_len
        d = rng.choice((-1, 0, 0, 1))        # the last word inside (0), outside (+1), one short (-1)
        if op in LEN_OPS:
            n = rng.choice((0, 1, 2, sml, sml + 1, 64, 65, rng.randrange(1, 300), 8191))
            if op == "SM" and rng.random() < 0.7:
                n = rng.choice((1, sml - 1, sml, sml + 1, rng.randrange(1, sml + 1)))
            if op == "NORM" and rng.random() < 0.7:
                n = rng.choice((0, 1, 63, 64, 65, 128 + 64, 4096 + 64, rng.randrange(1, 65)))
            f["len"] = n
            sp_fs = SP_FIELDS[op]
            sp_f = rng.choice(sp_fs)
            span = 1 if (op, sp_f) in ONE_WORD else (2 * n if (op, sp_f) in TWICE else n)
            f[sp_f] = sp - span + d if rng.random() < 0.7 else rng.randrange(0, sp)
            for other in sp_fs:                   # the other operands in range (mostly)
                if other != sp_f:
                    ospan = 1 if (op, other) in ONE_WORD else (2 * n if (op, other) in TWICE else n)
                    f[other] = rng.randrange(0, max(1, sp - ospan + 1))
            # the full external address (xhi * 2^16 + the field) at the memory's end
            xa = None
            if op in ("LD", "ST"):
                xa = ext - n + rng.choice((-1, 0, 0, 1)) if rng.random() < 0.7 else rng.randrange(0, ext)
            if op == "LDX":                        # the table's end at the memory's, or rows 0
                rows = rng.choice((0, 1, 2, 3, 7, rng.randrange(1, 70), rng.randrange(1, 1 << 16)))
                f["rows"] = rows
                xa = ext - rows * n + rng.choice((-1, 0, 0, 1)) if rng.random() < 0.7 \
                    else rng.randrange(0, 1 << 16)
            if xa is not None:
                xa = _clip(xa, 24)
                if rng.random() < 0.2:             # xhi past the memory, any low field
                    xa = (rng.randrange(0, 256) << 16) | (xa & 0xFFFF)
                f.update(isa.ext_fields(op, xa))
        else:
            M, N = rng.choice((0, 1, 2, 3, 4, 4, 5, 7)), rng.choice((0, 1, 2, 3, 4, 4, 5, 7))
            K = rng.choice((0, 1, 2, 16, 255, rng.randrange(1, 256)))
            f.update(M=M, N=N, K=K, tb=rng.getrandbits(1))
            for k in ("lda", "ldb", "ldc"):
                f[k] = rng.choice((0, 1, 4, K, rng.randrange(0, 4096), 4095))
            m1, n1, k1 = max(M, 1) - 1, max(N, 1) - 1, max(K, 1) - 1
            span = {"A": m1 * f["lda"] + k1,
                    "B": (n1 * f["ldb"] + k1) if f["tb"] else (k1 * f["ldb"] + n1),
                    "dst": m1 * f["ldc"] + n1}
            for name in ("A", "B", "dst"):      # each operand's last word at sp-1 (+d)
                f[name] = sp - 1 - span[name] + rng.choice((-1, 0, 0, 1)) if rng.random() < 0.6 \
                    else rng.randrange(0, max(1, sp - span[name]))
            name = rng.choice(("A", "B", "dst"))
            f[name] = sp - 1 - span[name] + d
        ws.append(_word(op, f, rng))
    return ws


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
        await Timer(1, units="ns")
        for k, (cfg, sig) in enumerate(((cfg_a, dut.a_fault), (cfg_b, dut.b_fault))):
            code, ins = _expect(w, cfg)
            got = int(sig.value)
            assert got == code, (f"{'AB'[k]} ({cfg.name}) word {w:#034x} {ins}: fault {got}, "
                                 f"model {code} {isa.check(ins, cfg) if ins else 'illegal opcode'}")
            seen[k][code] += 1
        code, ins = _expect(w, cfg_a)
        oh = 0 if ins is None else 1 << OH.index(ins.op)
        assert int(dut.op_oh.value) == oh and int(dut.b_op_oh.value) == oh, f"word {w:#x}: op one-hot {dut.op_oh.value}"
        sel = 0 if ins is None or ins.op == "HALT" else 1 << UNIT[ins.op]
        assert int(dut.unit_sel.value) == sel, f"word {w:#x}: unit_sel {dut.unit_sel.value} vs {sel:04b}"
        if ins is None or ins.op == "HALT":
            continue
        f = ins.fields()
        if ins.op in ("LD", "ST", "LDX"):
            st = ins.op == "ST"
            got = (int(dut.dma_dir.value), int(dut.dma_sp_base.value), int(dut.dma_ext_base.value),
                   int(dut.dma_len.value), int(dut.dma_ldx.value))
            exp = (int(st), f["src"] if st else f["dst"], isa.ext_addr(ins), f["len"],
                   int(ins.op == "LDX"))
            if ins.op == "LDX":
                got += (int(dut.dma_idx.value), int(dut.dma_rows.value))
                exp += (f["idx"], f["rows"])
        elif ins.op in ("PACK4", "UNPACK4"):
            got = tuple(int(getattr(dut, "pk_" + s).value) for s in ("unpack", "dst", "src", "len"))
            exp = (int(ins.op == "UNPACK4"), f["dst"], f["src"], f["len"])
        elif ins.op in ("ADD", "ARGMAX", "NORM"):
            pre = {"ADD": "add_", "ARGMAX": "amax_", "NORM": "norm_"}[ins.op]
            names = [n for n, _ in isa.FIELDS[ins.op]]
            got = tuple(int(getattr(dut, pre + s).value) for s in names)
            exp = tuple(f[s] for s in names)
        elif ins.op == "MM":
            got = tuple(int(getattr(dut, "mm_" + s).value) for s in
                        ("dst", "a", "b", "m", "k", "n", "tb", "lda", "ldb", "ldc", "acc"))
            exp = tuple(f[s] for s in ("dst", "A", "B", "M", "K", "N", "tb", "lda", "ldb", "ldc", "acc"))
        elif ins.op == "RQ":
            got = tuple(int(getattr(dut, "rq_" + s).value) for s in ("dst", "src", "len", "m", "s", "relu"))
            exp = tuple(f[s] for s in ("dst", "src", "len", "m", "s", "relu"))
        else:
            got = tuple(int(getattr(dut, "sm_" + s).value) for s in ("dst", "src", "len"))
            exp = tuple(f[s] for s in ("dst", "src", "len"))
        assert got == exp, f"{ins}: decoded fields {got} vs {exp}"
        if code == 0:
            rd = [(r.first, r.last) for r in func.reads(ins) if r.space == func.SP]
            wr = [(r.first, r.last) for r in func.writes(ins) if r.space == func.SP]
            if ins.op == "MM" and ins.acc:       # the dst read is the write range (docs/isa.md)
                assert rd[2] == wr[0], f"{ins}: acc read {rd[2]} vs write {wr[0]}"
                rd = rd[:2]
            exp_r = [(1, a, b) for a, b in rd] + [(0, None, None)] * (2 - len(rd))
            exp_r += [(1, a, b) for a, b in wr] + [(0, None, None)] * (1 - len(wr))
            for name, (v, a, b) in zip(("rng_rd0", "rng_rd1", "rng_wr"), exp_r):
                x = int(getattr(dut, name).value)
                gv, ga, gb = x >> 32, (x >> 16) & 0xFFFF, x & 0xFFFF
                assert gv == v and (not v or (ga, gb) == (a, b)), \
                    f"{ins}: {name} valid {gv} {ga}..{gb}, model {v} {a}..{b}"
            seen_rng[ins.op] += 1
    for k, cfg in enumerate((cfg_a, cfg_b)):
        missing = [c for c in (0, 1, 2, 3, 4) if seen[k][c] == 0]
        assert not missing, f"{cfg.name}: no word with fault code(s) {missing}: {seen[k]}"
    assert min(seen_rng.values()) > 0, f"ranges not checked for every op: {seen_rng}"
    dut._log.info("decode: %d words; fault codes 0..4 A %s, B %s; ranges checked %s", len(words),
                  seen[0][:5], seen[1][:5], seen_rng)
