"""Functional coverage of the ISA and the chip (cocotb-coverage), sampled from what the CHIP did.

The model is built from model/isa.py's tables alone (OPCODES, ILLEGAL_OPCODES, FIELDS, the
ERR_* codes, check()'s operand tables) and model/config.py's MODES, so an op or a field
added there appears here as a hole by itself. Its points (cocotb_coverage CoverPoints under
"ga2."; every bin a string label):

  ga2.op                 every opcode retired by the chip, and every illegal opcode the chip
                         refused (error 1 at that pc; "illegal_ext": an extended opcode,
                         the prefix 15 with a sub-opcode no op has)
  ga2.op_mode            every opcode retired in each timing mode
  ga2.field.OP.F         field F of op OP (FIELDS order) at its limits: "min" (0), "max"
                         (2^width - 1) and, where check() puts a limit, just inside and just
                         outside it (field_bins): for the xhi fields the highest
                         64K-word page the chip's external memory has ("cap", counted only
                         when that page is above 0) and the first page past it ("cap+1");
                         the external operand's ext_last / ext_past on the full address
                         (xhi * 65536 + the field)
  ga2.fault.code         every error code the chip reported (isa.ERR_*)
  ga2.fault.OP           every error code op OP can raise, raised by the chip at its pc
  ga2.hazard             overlap mode: KIND:BUSY<-NEW for KIND in RAW WAR WAW, BUSY the unit
                         in flight, NEW the decoding instruction's unit (dma mm vec, BUSY !=
                         NEW: on its own unit an instruction waits for busy anyway, as
                         tb/stimulus/collide.py all_kinds() counts them): a cycle the chip's
                         hazard check stalled in that kind (tb/hdl/ga2_tb.v +cov)
  ga2.hazard.pack4       the same with the vector side the pack4 unit (its ops, PK_OPS: on
                         the vec port, so the hazard unit classifies them as vec):
                         KIND:dma<-pack4, mm<-pack4, pack4<-dma, pack4<-mm
  ga2.mm_acc             MM with acc = 1 retired, per mode and tb
  ga2.sm_len             the softmax retired per mode and length class (sm_classes) on a chip with
                         the default sm_max_len (64)
  ga2.sm_len.max1024     the same on a chip with sm_max_len = config.SM_LEN_LIMIT (1024)
  ga2.restart            a program cut by reset (restart while busy), per mode and what the
                         chip had busy at the cut (its u_busy: none, dma, mm, vec; and
                         pack4 when the busy vector unit was ga2_pack4)
  ga2.mode               programs run in each timing mode

What the chip did, not the program text: an instruction's fields are sampled only when the
chip retired it (its pc in the chip's retire trace) or refused it (the chip's error_pc with
the chip's code); of a refused one only the field check() blames gets its "outside" bins
(the others' neutral bins still count). Only programs the judge found equal to the reference
are sampled (a covered bin is a verified one). The hazard and restart bins come from the
wrapper's monitor of the chip's own signals (pK_cov.txt).

Collection: GA2_COVERAGE=DIR (tb/sim/run.py) makes every hw.run call sample its programs
and write one YAML file DIR/<pid>-<uuid>.yml (cocotb-coverage's export_to_yaml), so pool
workers, Dask workers and pytest workers each write their own; merge() joins them with
cocotb_coverage.coverage.merge_coverage and holes() lists the bins never hit.
"""
import os
import uuid
from pathlib import Path

from model import config, isa, ops

PREFIX = "ga2"
UNITS = ("dma", "mm", "vec")            # the order of ga2_tb's monitor and of model/timing.py SLOT
KINDS = ("RAW", "WAR", "WAW")
# the RTL unit on the vec port that is new with the 4-bit packing ops (rtl/ga2_pack4.v):
# its ops, the records whose module it is (model/timing.py UNIT puts them on "vec";
# tests/tb/test_coverage_model.py holds both)
PK_UNIT = "pack4"
PK_OPS = tuple(name for name, r in ops.TABLE.items() if r.module == f"ga2_{PK_UNIT}")
# ga2_tb's hpk index kind*4 + j: the pack4 refinement of the (busy, new) pairs
PK_PAIRS = (("dma", PK_UNIT), ("mm", PK_UNIT), (PK_UNIT, "dma"), (PK_UNIT, "mm"))
# the softmax lengths with a class point of their own: the default chip's and the longest
SM_LENS = (config.DEFAULT.sm_max_len, config.SM_LEN_LIMIT)
ENV = "GA2_COVERAGE"



def _shape(op, field):
    """The record's Shape check of a field of op (model/ops), or None."""
    return next((s for s in ops.TABLE[op].shape if s.field == field), None)


def _zero_fault(op, field):
    """Whether 0 in this field is a fault (its record's shape check starts at 1)."""
    s = _shape(op, field)
    return s is not None and isinstance(s.lo, int) and s.lo == 1


def outside(op, field, label, cfg=None):
    """Whether a bin label of a field is a fault by itself on cfg (sampled for a refused
    instruction only when check() blames that field): past a limit, a 0 that is a bad
    shape, MM's M or N at its encoding's 7, xhi's top page (4095) on a memory without that page."""
    if label in ("cap+1", "sp_past", "ext_past"):
        return True
    if field == "xhi" and label == "max":
        return _cap(op, field, config.resolve(cfg)) < (1 << isa.XHI_W) - 1
    s = _shape(op, field)
    return (label == "min" and _zero_fault(op, field)) or \
        (label == "max" and s is not None and s.style == "range")


def error_codes():
    """{code: name} of every isa.ERR_* but ERR_NONE."""
    codes = {getattr(isa, n): n for n in dir(isa) if n.startswith("ERR_") and n != "ERR_NONE"}
    return dict(sorted(codes.items()))


def _cap(op, field, cfg):
    """The largest legal value of a field that check() bounds by a size (its record's
    shape limit, on cfg), or None; xhi: the external memory's highest 64K-word page."""
    if field == "xhi":                   # the highest page of the external memory
        return (cfg.ext_words - 1) >> isa.ADDR_W
    s = _shape(op, field)
    if s is None or s.hi is None:
        return None
    return ops.shape_limits(op, s, cfg)[1]


def _sp_fields(op):
    """The scratchpad operands of op (its record's scratchpad ranges' bases, in order)."""
    return tuple(r.base for r in ops.TABLE[op].sp_ranges())


def _ext_field(op):
    """The operand of op that holds an external address, or None."""
    rs = ops.TABLE[op].ext_ranges()
    return rs[0].base if rs else None


def field_bins(op, field, width, cfg=None):
    """The bin labels of one field: min, max and check()'s limits on it."""
    cfg = config.resolve(cfg)
    out = ["min", "max"]
    if _zero_fault(op, field):
        out += ["1"]                                     # 0 is min: outside (fault 4)
    if _cap(op, field, cfg) is not None:
        out += ["cap", "cap+1"]          # xhi: both, whatever cfg (classify says when)
    if field in _sp_fields(op):
        out += ["sp_last", "sp_past"]
    if _ext_field(op) == field:
        out += ["ext_last", "ext_past"]
    return out


def _spans(op, f):
    """{operand field: words it spans from its address} as check() counts them (the
    record's extents)."""
    rec = ops.TABLE[op]
    a = tuple(f[name] for name, _ in rec.fields)
    return {r.base: n(a, None) for r, n in zip(rec.ranges, ops.VIEWS[op]["extents"])}


def classify(ins, cfg=None):
    """{field: set of bin labels} of one instruction on cfg (every label, inside or out)."""
    cfg = config.resolve(cfg)
    f = ins.fields()
    spans = _spans(ins.op, f)
    out = {}
    for name, width in isa.FIELDS[ins.op]:
        v, labels = f[name], set()
        if v == 0:
            labels.add("min")
        if v == (1 << width) - 1:
            labels.add("max")
        if v == 1 and _zero_fault(ins.op, name):
            labels.add("1")
        cap = _cap(ins.op, name, cfg)
        if cap is not None and v == cap and (name != "xhi" or cap > 0):
            labels.add("cap")            # xhi's: a page above 0 that the memory has
        if cap is not None and v == cap + 1:
            labels.add("cap+1")
        if name in _sp_fields(ins.op) and spans.get(name, 0) > 0:
            end = v + spans[name] - 1
            if end == cfg.sp_words - 1:
                labels.add("sp_last")
            elif end == cfg.sp_words:
                labels.add("sp_past")
        if _ext_field(ins.op) == name and spans.get(name, 0) > 0:
            end = (f.get("xhi", 0) << isa.ADDR_W) + v + spans[name] - 1   # the full address
            if end == cfg.ext_words - 1:
                labels.add("ext_last")
            elif end == cfg.ext_words:
                labels.add("ext_past")
        out[name] = labels
    return out


def field_hits(ins, cfg=None, refused=None):
    """{field: bin labels} that count for ins on cfg: every label of classify() when the chip
    retired it; when it refused it (refused: check()'s (code, blamed field, reason)), the
    blamed field's (xhi's with the external operand's: one address) and the other fields'
    labels that are not a fault by themselves (outside)."""
    cfg = config.resolve(cfg)
    labels = classify(ins, cfg)
    if refused is None:
        return labels
    blamed = {refused[1]}
    if _ext_field(ins.op) in blamed:
        blamed.add("xhi")
    return {name: {lb for lb in lbs if name in blamed or not outside(ins.op, name, lb, cfg)}
            for name, lbs in labels.items()}


def fault_bins(op):
    """The error codes op can raise (from check()'s tables), as labels."""
    rec = ops.TABLE[op]
    codes = []
    if rec.shape:
        codes.append(isa.ERR_SHAPE)
    if rec.sp_ranges():
        codes.append(isa.ERR_SP_RANGE)
    if rec.ext_ranges():
        codes.append(isa.ERR_EXT_RANGE)
    codes += rec.data_faults             # found in EXEC from data (a lookup's row index)
    names_ = error_codes()
    return [names_[c] for c in sorted(codes)]


def sm_class(n, cfg):
    """The softmax's length class: 1, 2..half-1, half, half+1..max-2, max-1, max (half = max / 2)."""
    top, half = cfg.sm_max_len, cfg.sm_max_len // 2
    if n in (1, half, top - 1, top):
        return str(n)
    return f"2..{half - 1}" if n < half else f"{half + 1}..{top - 2}"


def sm_classes(cfg=None):
    cfg = config.resolve(cfg)
    half, top = cfg.sm_max_len // 2, cfg.sm_max_len
    return ["1", f"2..{half - 1}", str(half), f"{half + 1}..{top - 2}", str(top - 1), str(top)]


def sm_point(sm_max_len):
    """The softmax length point of a chip with that sm_max_len (None: not one of SM_LENS)."""
    if sm_max_len not in SM_LENS:
        return None
    return f"{PREFIX}.sm_len" + ("" if sm_max_len == SM_LENS[0] else f".max{sm_max_len}")


def hazard_label(kind, busy, new):
    return f"{kind}:{busy}<-{new}"


def point_bins(cfg=None):
    """{point name: [bin labels]} of the whole model (for cfg's sizes: config.DEFAULT)."""
    cfg = config.resolve(cfg)
    pts = {f"{PREFIX}.op": list(isa.OPCODES) + [f"illegal_{c}" for c in isa.ILLEGAL_OPCODES]
           + (["illegal_ext"] if isa.ILLEGAL_XOPS else []),
           f"{PREFIX}.op_mode": [f"{op}:{m}" for op in isa.OPCODES for m in config.MODES],
           f"{PREFIX}.mode": list(config.MODES),
           f"{PREFIX}.fault.code": list(error_codes().values()),
           f"{PREFIX}.hazard": [hazard_label(k, b, d) for k in KINDS for b in UNITS for d in UNITS
                                if b != d],
           f"{PREFIX}.hazard.{PK_UNIT}": [hazard_label(k, b, d) for k in KINDS for b, d in PK_PAIRS],
           f"{PREFIX}.mm_acc": [f"{m}:tb{t}" for m in config.MODES for t in (0, 1)],
           f"{PREFIX}.restart": [f"{m}:{u}" for m in config.MODES
                                 for u in ("none",) + UNITS + (PK_UNIT,)]}
    for n in SM_LENS:
        c = cfg.replace(sm_max_len=n)
        pts[sm_point(n)] = [f"{m}:{k}" for m in config.MODES for k in sm_classes(c)]
    for op, fields in isa.FIELDS.items():
        for name, width in fields:
            pts[f"{PREFIX}.field.{op}.{name}"] = field_bins(op, name, width, cfg)
        fb = fault_bins(op)
        if fb:
            pts[f"{PREFIX}.fault.{op}"] = fb
    return pts


# ------------------------------------------------------------------ the cocotb-coverage model
_SAMPLERS = {}


def _in(labels, b):
    return b in labels


def samplers():
    """{point name: a function of a set of labels}, each a cocotb_coverage CoverPoint
    (created once per process in coverage_db)."""
    if not _SAMPLERS:
        from cocotb_coverage import coverage as cc
        for name, bins in point_bins().items():
            def _sample(labels):
                return None
            _SAMPLERS[name] = cc.CoverPoint(name, xf=lambda labels: labels, rel=_in, bins=bins,
                                            inj=False)(_sample)
    return _SAMPLERS


def reset():
    """Every hit of the model back to 0 (after a file is written: each file holds one run's)."""
    from cocotb_coverage.coverage import coverage_db
    for item in coverage_db.values():
        if str(item._name).startswith(PREFIX):
            item._coverage = 0
            hits = getattr(item, "_hits", None)
            if hits is not None:
                for k in hits:
                    hits[k] = 0


def _hit(name, labels):
    if labels:
        samplers()[name](frozenset(labels))


def read_cov(path, pack4=False):
    """The wrapper's pK_cov.txt: (cut busy units (a tuple of UNITS), {hazard label: cycles});
    (None, {}) without the file. pack4=True: ((cut busy, pk busy), ({hazard label: cycles},
    {pack4 hazard label: cycles})), pk busy whether the busy vector unit was ga2_pack4."""
    path = Path(path)
    if not path.exists():
        return ((None, False), ({}, {})) if pack4 else (None, {})
    busy, haz, pk, hpk = (), {}, False, {}

    def hexv(t):
        return int(t, 16) if all(c in "0123456789abcdefABCDEF" for c in t) else 0
    for line in path.read_text().split("\n"):
        f = line.split()
        if len(f) != 2:
            continue
        if f[0] == "cut_busy":
            v = hexv(f[1])
            busy = tuple(u for i, u in enumerate(UNITS) if v >> i & 1)
        elif f[0] == "cut_pk":
            pk = hexv(f[1]) == 1
        elif f[0].startswith("haz"):
            i = int(f[0][3:])
            k, b, d = i // 9, i // 3 % 3, i % 3
            haz[hazard_label(KINDS[k], UNITS[b], UNITS[d])] = hexv(f[1])
        elif f[0].startswith("hpk"):
            i = int(f[0][3:])
            hpk[hazard_label(KINDS[i // 4], *PK_PAIRS[i % 4])] = hexv(f[1])
    return ((busy, pk), (haz, hpk)) if pack4 else (busy, haz)


def sample(words, raw, ok, cfg, cov_path=None):
    """Sample one program's outcome on the chip: words (its instruction words), raw
    (tb/sim/run.py read_raw's dict), ok (the judge's verdict: only ok programs count),
    cfg (its Config), cov_path (its pK_cov.txt)."""
    if not ok:
        return
    mode = cfg.mode
    _hit(f"{PREFIX}.mode", {mode})
    retired = {pc for pc, _ in raw["trace"]}
    cut = raw["host"]["aborted"]
    for pc in sorted(retired):
        if not 0 <= pc < len(words):
            continue
        ins, _ = isa.decoded(words[pc])
        if ins is None:
            continue
        _hit(f"{PREFIX}.op", {ins.op})
        _hit(f"{PREFIX}.op_mode", {f"{ins.op}:{mode}"})
        for name, labels in classify(ins, cfg).items():
            _hit(f"{PREFIX}.field.{ins.op}.{name}", labels)
        if ins.op == "MM" and ins.acc:
            _hit(f"{PREFIX}.mm_acc", {f"{mode}:tb{ins.tb}"})
        if ins.op == "SM" and sm_point(cfg.sm_max_len):
            _hit(sm_point(cfg.sm_max_len), {f"{mode}:{sm_class(ins.len, cfg)}"})
    if raw["error"] and raw["done"] and not cut:
        code, epc = raw["error_code"], raw["error_pc"]
        names = error_codes()
        _hit(f"{PREFIX}.fault.code", {names.get(code, f"code_{code}")})
        if code == isa.ERR_OPCODE and 0 <= epc < cfg.imem_depth:
            word = words[epc] if epc < len(words) else 0       # the host pads imem with 0 words
            low = word & ((1 << isa.OP_W) - 1)
            _hit(f"{PREFIX}.op", {"illegal_ext" if low == ops.EXT_CODE else f"illegal_{low}"})
        elif code not in (isa.ERR_PC,) and 0 <= epc < len(words):
            ins, _ = isa.decoded(words[epc])
            if ins is not None:
                _hit(f"{PREFIX}.fault.{ins.op}", {names.get(code, "")})
                if code != isa.ERR_INDEX:          # a DECODE fault: the blamed field's outside bins
                    bad = isa.check(ins, cfg)
                    for name, labels in field_hits(ins, cfg, bad if bad and bad[0] == code
                                                   else (code, None, "")).items():
                        _hit(f"{PREFIX}.field.{ins.op}.{name}", labels)
    (busy, pk), (haz, hpk) = (read_cov(cov_path, pack4=True) if cov_path is not None
                              else ((None, False), ({}, {})))
    if cut:
        _hit(f"{PREFIX}.restart", {f"{mode}:{u}" for u in busy + ((PK_UNIT,) if pk else ())}
             if busy else {f"{mode}:none"})
    _hit(f"{PREFIX}.hazard", {k for k, v in haz.items() if v > 0})
    _hit(f"{PREFIX}.hazard.{PK_UNIT}", {k for k, v in hpk.items() if v > 0})


def enabled():
    """The directory coverage files go to (GA2_COVERAGE), or None."""
    d = os.environ.get(ENV, "")
    return Path(d) if d else None


def save(directory=None):
    """Write this process's samples since the last save to a new YAML file in directory
    (default: GA2_COVERAGE); then reset. Returns the path."""
    from cocotb_coverage.coverage import coverage_db
    samplers()
    d = Path(directory) if directory is not None else enabled()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.yml"
    tmp = path.with_suffix(".tmp")
    coverage_db.export_to_yaml(str(tmp))
    os.replace(tmp, path)
    reset()
    return path


def merge(directory, out):
    """Merge every coverage file of directory into out (cocotb-coverage's merge_coverage);
    returns the number of files."""
    from cocotb_coverage.coverage import merge_coverage
    files = sorted(str(p) for p in Path(directory).glob("*.yml") if Path(p) != Path(out))
    if not files:
        raise ValueError(f"no coverage files in {directory}")
    merge_coverage(lambda *a: None, str(out), *files)
    return len(files)


def load(path):
    """{point: {bin: hits}} of a merged (or single) YAML coverage file."""
    import yaml
    db = yaml.load(Path(path).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {name: {str(b): int(h) for b, h in e["bins:_hits"].items()}
            for name, e in db.items() if isinstance(e, dict) and "bins:_hits" in e}


def holes(hits, bins=None):
    """[point.bin] of every bin of the model (bins: point_bins()) with no hit in hits
    ({point: {bin: hits}}); a point or bin missing from hits is a hole too (an op or field
    new in model/isa.py that nothing ran)."""
    bins = point_bins() if bins is None else bins
    return [f"{p}[{b}]" for p, bs in bins.items() for b in bs if hits.get(p, {}).get(b, 0) < 1]


def totals(hits, bins=None):
    """(bins covered, bins in the model)."""
    bins = point_bins() if bins is None else bins
    n = sum(len(bs) for bs in bins.values())
    return n - len(holes(hits, bins)), n
