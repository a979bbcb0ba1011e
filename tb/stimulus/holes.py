"""Directed programs for the holes the first `make coverage` report showed (tb/coverage_run.py
set "holes"; docs/coverage.md lists the holes before and after).

The other sets never put these fields at the top of their encoding: an address field at
65535 (MM dst, A, B; the lookup's src), a len at 8191 (LD and the ops whose modules in
tb/stimulus/ops/ have the hook hole_faults) or MM's lda and ldc at 4095. Most of them
can only fault on this chip (a span past the 4096-word scratchpad): each such
instruction ends its own program, after an LD that leaves work behind, and check() says
which field it blames (the coverage model counts the other fields' top values as
reached, the blamed field's as outside). MM's strides at 4095 are
legal with M = 2 from word 0 (the second row is the scratchpad's last word). And the
overlap suite's resets always had the dma or the vector unit busy: cut_programs() restarts
the chip with each unit alone busy and with none, in both modes.

The second report (the 4-bit packing ops, xhi, sm_max_len 1024, opcodes 13..15: docs/coverage.md)
added, all derived from model/isa.py's tables and tb/coverage.py's bins, not typed again:
directed_instrs() aims one instruction at every field bin of the model (the field put at
the bin's value, the others drawn until the instruction is valid, or faults blaming that
field when the bin is a fault by itself; a new op or field gets its instructions by
itself); illegal_programs() runs every illegal opcode; the op modules' hole_programs
(every softmax length class; every hazard kind between the pack4 unit and the dma and the
matrix unit, both ways); cut_programs() restarts with the pack4 unit busy too. The xhi
bins above page 0 and the softmax classes up to 1024 need a chip that has them: WIDE
(2^17 external words: page 1 is the top page, xhi = 2 the first past it; sm_max_len 1024,
the build of tests/tb/test_xhi_pack4_long_softmax_cosim.py).

hole_jobs(mode) -> [(Config, items)]: the first report's, one job on config.DEFAULT;
hole2_jobs(mode): the second's, a job on config.DEFAULT and one on WIDE.
"""
import functools
import random

import numpy as np

from model import config, isa, timing
from tb import coverage
from tb.stimulus import ops

WIDE = config.DEFAULT.replace(ext_words=1 << 17, sm_max_len=config.SM_LEN_LIMIT)
# the fields of WIDE's job: those whose bins depend on the external size or sm_max_len
WIDE_FIELDS = ("xhi", "len")
VALID_TRIES = 40                     # draws for a valid instruction once a faulting one hits
CYCLES_PER_PROGRAM = 60000           # valid directed instructions are split into programs of
                                     # at most this many cycles (the timing model's count)


def fault_programs(cfg):
    """[(label, prog)]: one faulting instruction with a field at its encoding's top each."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    r = isa.raw
    top = (1 << 13) - 1                            # len: 13 bits
    far = (1 << isa.ADDR_W) - 1                    # an address: 16 bits
    bad = [("LD len max", r("LD", dst=0, src=0, len=top))] + ops.call("hole_faults", r, top, far)
    bad += [("MM dst max", r("MM", dst=far, A=0, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)),
           ("MM A max", r("MM", dst=0, A=far, B=0, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0)),
           ("MM B max", r("MM", dst=0, A=0, B=far, M=1, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0))]
    out = []
    for label, ins in bad:
        if isa.check(ins, cfg) is None:
            raise AssertionError(f"{label}: meant to fault on {cfg.name}")
        out.append((label, [b("LD", dst=0, src=0, len=64), ins, b("HALT")]))
    return out


def stride_program(cfg):
    """MM with lda = 4095 and with ldc = 4095 (M = 2 from word 0: rows at 0 and 4095),
    the results stored back; valid."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    s = (1 << 12) - 1
    return [b("LD", dst=0, src=0, len=64), b("LD", dst=s, src=64, len=1),
            b("MM", dst=100, A=0, B=8, M=2, K=1, N=2, tb=0, lda=s, ldb=2, ldc=2),
            b("MM", dst=0, A=8, B=16, M=2, K=1, N=1, tb=0, lda=1, ldb=1, ldc=s),
            b("ST", src=100, dst=200, len=4), b("ST", src=0, dst=210, len=1),
            b("ST", src=s, dst=211, len=1), b("HALT")]


def cut_programs(cfg, units=("dma", "mm", "vec", "none")):
    """[(label, prog, abort_at)]: a restart while one unit alone is busy (the dma's LD, the
    matrix unit's MM, the others' from the op modules' hook cut: cut half way into its
    busy cycles, from the timing model's schedule) and while none is (the first cycle of
    the run), for each of units (default: the first report's)."""
    def b(op, **f):
        return isa.build(op, cfg=cfg, **f)
    H = b("HALT")
    out = []
    for unit, ins in (("dma", b("LD", dst=0, src=0, len=200)),
                      ("mm", b("MM", dst=2000, A=0, B=0, M=4, K=200, N=4, tb=1, lda=0, ldb=0, ldc=4)),
                      *ops.call("cut", b)):
        if unit not in units:
            continue
        ev = timing.schedule([ins, H], cfg).events[0]
        out.append((f"restart in {unit}", [ins, H], ev.start + (ev.end - ev.start) // 2))
    if "none" in units:
        out.append(("restart before any unit", [b("LD", dst=0, src=0, len=8), H], 1))
    return out


def _fits(op, name, v):
    return 0 <= v < (1 << dict(isa.FIELDS[op])[name])


def _addr_fields(op):
    """op's address fields: the scratchpad operands, then the external one (with xhi)."""
    ext = coverage._ext_field(op)
    return tuple(coverage._sp_fields(op)) + ((ext,) if ext else ())


def _bin_value(op, name, label, f, cfg):
    """The value field name must have for bin label, the other fields f as they are (for an
    external operand: the full address, xhi * 65536 + the field); None when it has none."""
    width = dict(isa.FIELDS[op])[name]
    if label == "min":
        return 0
    if label == "max":
        return (1 << width) - 1
    if label == "1":
        return 1
    if label in ("cap", "cap+1"):
        return coverage._cap(op, name, cfg) + (label == "cap+1")
    span = coverage._spans(op, {**f, name: 0}).get(name, 0)
    if label in ("sp_last", "sp_past"):
        return cfg.sp_words - span + (label == "sp_past")
    if label in ("ext_last", "ext_past"):
        return cfg.ext_words - span + (label == "ext_past")
    return None


def _draw(rng, op, target, label, cfg):
    """One candidate instruction of op with field target in bin label, or None."""
    names = [n for n, _ in isa.FIELDS[op]]
    addr, ext = _addr_fields(op), coverage._ext_field(op)
    f = {}
    for name in names:                                # the shape fields: mostly small
        if name in addr or name == "xhi":
            continue
        top = (1 << dict(isa.FIELDS[op])[name]) - 1
        cap = coverage._cap(op, name, cfg)
        pool = [rng.randint(1, min(top, 8)), rng.randint(1, min(top, 8)), rng.randint(0, top)]
        pool += [cap] if cap is not None else []
        f[name] = min(top, rng.choice(pool))
    if target not in addr and target != "xhi":
        f[target] = _bin_value(op, target, label, f, cfg)
    if target == "xhi":
        f["xhi"] = _bin_value(op, "xhi", label, f, cfg)
    elif "xhi" in names:
        f["xhi"] = 0
    spans = coverage._spans(op, {**f, **{a: 0 for a in addr}, "xhi": f.get("xhi", 0)})
    for name in addr:                                 # the addresses: inside their memory
        size = cfg.ext_words - (f.get("xhi", 0) << isa.ADDR_W) if name == ext else cfg.sp_words
        room = size - spans.get(name, 1)
        top = (1 << isa.ADDR_W) - 1
        f[name] = rng.randint(0, min(room, top)) if room >= 0 else rng.randint(0, top)
    if target in addr:
        v = _bin_value(op, target, label, f, cfg)
        if v is None or v < 0:
            return None
        if target == ext:                              # a full address: split it
            if v >= isa.EXT_MAX:
                return None
            f.update(isa.ext_fields(op, v))
        else:
            f[target] = v
    if any(v is None or not _fits(op, n, v) for n, v in f.items()):
        return None
    return isa.raw(op, **f)


@functools.lru_cache(maxsize=8)
def directed_instrs(cfg, fields=None, seed=24, tries=400):
    """((instr, valid), ...): for every field bin of the model (of the fields named in fields,
    default all) not already hit by an earlier one, an instruction that hits it on cfg as
    the coverage model samples it (tb/coverage.py field_hits): a valid one when one is
    found in tries draws, else one that faults with the bin counted. Bins no instruction
    can reach on cfg are left out (the report shows them)."""
    rng = random.Random(seed)
    got, out = set(), []
    for op, fs in isa.FIELDS.items():
        for name, width in fs:
            if fields is not None and name not in fields:
                continue
            for label in coverage.field_bins(op, name, width, cfg):
                if (op, name, label) in got:
                    continue
                best, left = None, tries
                while left > 0:
                    left -= 1
                    ins = _draw(rng, op, name, label, cfg)
                    if ins is None:
                        continue
                    bad = isa.check(ins, cfg)
                    if label in coverage.field_hits(ins, cfg, bad)[name]:
                        if bad is None:
                            best = (ins, True)
                            break
                        if best is None:         # a fault hits it: a few more draws for a valid one
                            best, left = (ins, False), min(left, VALID_TRIES)
                if best is None:
                    continue
                ins, ok = best
                out.append(best)
                bad = None if ok else isa.check(ins, cfg)
                got |= {(op, n, lb) for n, lbs in coverage.field_hits(ins, cfg, bad).items()
                        for lb in lbs}
    return tuple(out)


def _fill(cfg):
    """An LD that fills the scratchpad's first words from the external memory."""
    return isa.build("LD", cfg=cfg, dst=0, src=0, len=min(cfg.sp_words, cfg.ext_words, 256))


def directed_programs(cfg, fields=None):
    """[(label, prog)]: directed_instrs(cfg, fields) as programs: the valid ones together
    (after a fill, at most CYCLES_PER_PROGRAM cycles each), each faulting one after a fill
    (its program ends there)."""
    H = isa.build("HALT")
    ins = directed_instrs(cfg, fields)
    out, cur = [], [_fill(cfg)]
    for i, ok in ins:
        if not ok:
            continue
        if len(cur) > 1 and timing.schedule(cur + [i, H], cfg).cycles > CYCLES_PER_PROGRAM:
            out.append((f"directed valid {len(out)}", cur + [H]))
            cur = [_fill(cfg)]
        cur.append(i)
    if len(cur) > 1:
        out.append((f"directed valid {len(out)}", cur + [H]))
    out += [(f"directed fault {i.op} {isa.format_fields(i)}", [_fill(cfg), i, H])
            for i, ok in ins if not ok]
    return out


def illegal_programs(cfg):
    """[(label, prog)]: every illegal opcode of model/isa.py as a word after a valid LD, and
    the first extended code no op has (the prefix 15 with its sub-opcode)."""
    codes = list(isa.ILLEGAL_OPCODES) + list(isa.ILLEGAL_XOPS[:1])
    return [(f"illegal {c}", [_fill(cfg), isa.opcode_word(c), isa.build("HALT")]) for c in codes]


def _cut_items(cfg, img, units=("dma", "mm", "vec", "none")):
    """Each cut program, then the same run in full after a preload of the scratchpad (the
    reference cannot know what the cut left there)."""
    from tb.sim.run import Item
    zeros = np.zeros(cfg.sp_words, dtype=np.int64)
    out = []
    for _, prog, at in cut_programs(cfg, units):
        out += [Item(prog, img, abort_at=at), Item(prog, img, sp=zeros)]
    return out


def _image():
    return np.random.default_rng(24).integers(-128, 128, size=256)


def hole_jobs(mode):
    """[(Config, [hw Item])] of the first report's holes (set "holes") in a timing mode."""
    from tb.sim.run import Item
    cfg, img = config.DEFAULT.replace(mode=mode), _image()
    items = [Item(stride_program(cfg), img)]
    items += [Item(prog, img) for _, prog in fault_programs(cfg)]
    return [(cfg, items + _cut_items(cfg, img))]


def hole2_jobs(mode):
    """[(Config, [hw Item])] of the second report's holes (set "holes2") in a timing mode:
    one job on config.DEFAULT (new_programs, the restart with the pack4 unit busy), one
    on WIDE (wide_programs)."""
    from tb.sim.run import Item
    cfg, wide, img = config.DEFAULT.replace(mode=mode), WIDE.replace(mode=mode), _image()
    items = _cut_items(cfg, img, (coverage.PK_UNIT,)) + [Item(p, img) for _, p in new_programs(cfg)]
    return [(cfg, items), (wide, [Item(p, img) for _, p in wide_programs(wide)])]


def new_programs(cfg):
    """[(label, prog)] of the second report's holes on config.DEFAULT's sizes."""
    return directed_programs(cfg) + illegal_programs(cfg) + ops.call("hole_programs", cfg)


def wide_programs(cfg):
    """[(label, prog)] of the bins that need WIDE: xhi above page 0 (and every other bin of
    the xhi and len fields, on its sizes), the op modules' (the softmax classes up to 1024)."""
    return directed_programs(cfg, WIDE_FIELDS) + ops.call("wide_programs", cfg)
