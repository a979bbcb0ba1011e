"""GA-2's operations: one record per operation, the single source of its facts.

Each operation is one module of this package (model/ops/<name>.py) holding its record, an
`Op`, and its reference function: name, opcode, fields, the unit that runs it, its shape
checks (fault 4), the scratchpad and external ranges it reads and writes (fault 2 and 3,
the overlap mode's hazards), its busy cycles, its scratchpad read count, its traffic and
MACs, its effect on the memories, its coverage bins and its random-stimulus ranges.
The formulas are expressions (model/ops/expr.py) so that both Python and the generated
Verilog read the same ones.

Everything else reads the table: model/isa.py (encoding, checks), model/func.py (ranges,
semantics, read counts), model/timing.py (units, busy cycles), tools/flow/headers.py (the
RTL header, the decoder's per-op logic and the units' wiring), tb/ (formal wrappers,
restart benches, coverage bins, random stimulus) and docs/isa.md's tables (checked by a
test). tests/model/test_op_table.py names, for each operation, any part it lacks.

TABLE: the records by name in opcode order; BY_CODE: by opcode. A new operation is a new
module here: the package finds its modules itself (no list to edit).
"""
import importlib
import pkgutil
from collections import namedtuple
from dataclasses import dataclass, field

from .expr import Expr, bound, compile_py, fields_of, lift

ADDR_W = 16            # every address field (scratchpad, external low part) is 16 bits
XHI_W = 13             # the transfers' xhi: an external address is xhi * 2^16 + a 16-bit field (29 bits)
OP_W = 4               # the opcode: the instruction word's low OP_W bits
INSTR_W = 128          # instruction word width (bits)
# Extended opcodes: the 4-bit opcode EXT_CODE says the next XOP_W bits are a sub-opcode,
# and the op's fields start above them. An op with code 16 + k is encoded as EXT_CODE
# with sub-opcode k; codes 1..14 are the 4-bit opcode itself. So the first twelve ops'
# words (codes 1..12) never change, and the table holds up to 14 + 16 ops.
EXT_CODE = 15
XOP_W = 4
EXT_BASE = 1 << OP_W   # the first extended code


def opcode_bits(code):
    """(value, width) of an opcode's bits at the bottom of its word: the 4-bit code, or
    EXT_CODE with the sub-opcode above it (8 bits)."""
    if code < EXT_BASE:
        return code, OP_W
    return EXT_CODE | ((code - EXT_BASE) << OP_W), OP_W + XOP_W


def code_of(word):
    """The opcode of an instruction word (an extended one's 16 + sub-opcode)."""
    low = word & ((1 << OP_W) - 1)
    if low != EXT_CODE:
        return low
    return EXT_BASE + ((word >> OP_W) & ((1 << XOP_W) - 1))
UNITS = ("dma", "mm", "vec")   # the timing contract's three units (docs/isa.md)

# fault codes (docs/isa.md "Errors")
ERR_NONE = 0
ERR_OPCODE = 1           # illegal opcode
ERR_SP_RANGE = 2         # scratchpad address out of range
ERR_EXT_RANGE = 3        # external address out of range
ERR_SHAPE = 4            # a field outside its shape limits (M, N, K, len, rows ...)
ERR_PC = 5               # ran past the end of the instruction memory without HALT
ERR_INDEX = 6            # a lookup's row index read from the scratchpad is not below rows (ldx.py)

Range = namedtuple("Range", "space first last")
Range.__doc__ = """A memory range: space "sp" (scratchpad) or "ext" (external memory), first..last
inclusive word addresses."""
SP, EXT = "sp", "ext"


@dataclass(frozen=True)
class Shape:
    """A bound on one field, checked in DECODE (fault 4): lo <= field <= hi (hi None: no
    upper bound). style "len": the message says "len=0" below lo and "longer than
    <who>'s <hi>" above; style "range": "outside lo..hi"."""
    field: str
    lo: object = 1
    hi: object = None
    style: str = "len"
    who: str = ""


@dataclass(frozen=True)
class Rng:
    """A range the operation touches: space SP or EXT, starting at field `base` (in EXT:
    xhi * 2^16 + base when the op has an xhi field), `extent` words long (an expression).
    rd / wr: it is read / written; rd may name a one-bit field (read only when it is 1:
    MM's C words with acc). hull: a strided hull (its fault message names the last word)."""
    space: str
    base: str
    extent: object
    rd: object = False
    wr: bool = False
    hull: bool = False


@dataclass(frozen=True)
class Op:
    """One operation's record (see the module docstring). busy: an expression, or a dict
    mode -> expression when the timing modes differ."""
    name: str
    code: int
    fields: tuple
    unit: object                  # "dma", "mm", "vec", or None (HALT retires in DECODE)
    module: object                # the RTL unit that executes it: rtl/<module>.v (None: HALT)
    summary: str
    execute: object               # (args, extra, ext, sp) -> True when a row index faults
    busy: object = 0
    sp_reads: object = 0
    words: object = 0
    macs: object = 0
    defaults: dict = field(default_factory=dict)
    shape: tuple = ()
    ranges: tuple = ()
    prepare: object = None        # args -> extra for execute (memoised per word), or None
    # random-stimulus ranges (tb/stimulus/randops.py rand_op): a shape field's cap (an int),
    # "near:<field>[|<field>]" (a destination sometimes over that source), "same:<field>",
    # "m": "ms" or "normms" (the mantissa / shift pair's distribution), "stride:<field>" or
    # "stride:<n>" (a row stride for rows of that many words, halved with the shape fields
    # until the ranges fit), "weight" (its share
    # of a random program; 0 or absent: drawn only where a test asks for it), "index_of":
    # <field> (its one-word result is an index below that field when its defaulted fields
    # keep their defaults: a program may look it up)
    stim: dict = field(default_factory=dict)
    cover: tuple = ()
    # fields or expressions any of which at 0 leaves the op touching nothing (MM's M, KE, N)
    sizes: tuple = ()
    data_faults: tuple = ()       # fault codes found in EXEC from data (ldx.py: ERR_INDEX)
    params: dict = field(default_factory=dict)   # the unit's parameters from ga2_top's (model/rtl.py)

    # ------------------------------------------------------------- derived views
    @property
    def widths(self):
        return dict(self.fields)

    @property
    def index(self):
        """field name -> position in the encoding order (Instr.args)."""
        return {name: i for i, (name, _) in enumerate(self.fields)}

    def sp_ranges(self):
        return tuple(r for r in self.ranges if r.space == SP)

    def ext_ranges(self):
        return tuple(r for r in self.ranges if r.space == EXT)

    def busy_expr(self, mode):
        """The busy-cycle expression of a timing mode."""
        return self.busy[mode] if isinstance(self.busy, dict) else lift(self.busy)


def _ext_first(op, r):
    """Python source of an external range's first word (xhi * 2^16 + base)."""
    i = op.index
    if "xhi" in i:
        return f"((a[{i['xhi']}] << {ADDR_W}) + a[{i[r.base]}])"
    return f"a[{i[r.base]}]"


def _views(op):
    """The compiled functions of a record: reads(a), writes(a), check(a, cfg), busy(a,
    cfg), sp_reads(a), words(a), macs(a) (a: the field values in encoding order)."""
    i = op.index

    def rng_src(r):
        first = f"a[{i[r.base]}]" if r.space == SP else _ext_first(op, r)
        n = f"({compile_src(r.extent)})"
        return f"(({first}, {first} + {n} - 1),) if {n} > 0 else ()", r.space

    def compile_src(e):
        from .expr import py
        return py(e, i)

    def ranges_fn(which):
        parts = []
        for r in op.ranges:
            flag = r.rd if which == "rd" else r.wr
            if not flag:
                continue
            src, space = rng_src(r)
            item = (f"tuple(_R('{space}', f, l) for f, l in ({src}))")
            if isinstance(flag, str):
                item = f"({item} if a[{i[flag]}] else ())"
            parts.append(item)
        body = " + ".join(parts) if parts else "()"
        if op.sizes and parts:
            body = f"(({body}) if {' and '.join(f'({compile_src(lift(n))})' for n in op.sizes)} else ())"
        return eval(f"lambda a: {body}", {"_R": Range})

    def ok_fn():
        """A fast test that the instruction has no fault (check()'s messages only when not)."""
        conds = []
        for sh in op.shape:
            x = f"a[{i[sh.field]}]"
            conds.append(f"{x} >= {compile_src(lift(sh.lo))}")
            if sh.hi is not None:
                conds.append(f"{x} <= {compile_src(lift(sh.hi))}")
        for r in op.ranges:
            first = f"a[{i[r.base]}]" if r.space == SP else _ext_first(op, r)
            size = "cfg.sp_words" if r.space == SP else "cfg.ext_words"
            conds.append(f"{first} + {compile_src(r.extent)} <= {size}")
        return eval(f"lambda a, cfg: {' and '.join(conds) or 'True'}", {})

    return {
        "ok": ok_fn(),
        "reads": ranges_fn("rd"),
        "writes": ranges_fn("wr"),
        "busy": {m: compile_py(op.busy_expr(m), i) for m in ("inorder", "overlap")},
        "sp_reads": compile_py(op.sp_reads, i),
        "words": compile_py(op.words, i),
        "macs": compile_py(op.macs, i),
        "extents": tuple(compile_py(r.extent, i) for r in op.ranges),
        "shape_lo": tuple(compile_py(lift(s.lo), i) for s in op.shape),
        "shape_hi": tuple(None if s.hi is None else compile_py(lift(s.hi), i) for s in op.shape),
    }


def shape_limits(op, s, cfg, a=None):
    """(lo, hi) of op's shape check s on cfg (hi None: no upper bound), for the field
    values a, or for the record's defaults (0 where none) when a is None: a bound may
    depend on another field (MM's K may be 0 when khi is not)."""
    rec = TABLE[op] if isinstance(op, str) else op
    if a is None:
        a = tuple(rec.defaults.get(n, 0) for n, _ in rec.fields)
    k = rec.shape.index(s)
    v = VIEWS[rec.name]
    return v["shape_lo"][k](a, cfg), None if s.hi is None else v["shape_hi"][k](a, cfg)


def check(op, a, cfg):
    """The chip's fault check of one instruction of op with field values a on cfg:
    (code, field, reason) or None. Priority, as in the RTL's DECODE: shape (4), then the
    scratchpad ranges (2) in the record's order, then the external ones (3)."""
    v = VIEWS[op.name]
    if v["ok"](a, cfg):
        return None
    for s, lo_f, hi_f in zip(op.shape, v["shape_lo"], v["shape_hi"]):
        x = a[op.index[s.field]]
        lo = lo_f(a, cfg)
        hi = None if hi_f is None else hi_f(a, cfg)
        if s.style == "range":
            if x < lo or (hi is not None and x > hi):
                return ERR_SHAPE, s.field, f"{s.field}={x} outside {lo}..{hi}"
        elif x < lo:
            return ERR_SHAPE, s.field, f"{s.field}={x}" if lo == 1 else f"{s.field}={x} below {lo}"
        elif hi is not None and x > hi:
            return ERR_SHAPE, s.field, f"{s.field}={x} longer than {s.who}'s {hi}"
    sp = cfg.sp_words
    for r, ext_f in zip(op.ranges, v["extents"]):
        if r.space != SP:
            continue
        first = a[op.index[r.base]]
        n = ext_f(a, cfg)
        last = first + n - 1
        if last >= sp:
            if r.hull:
                why = f"{r.base} reaches scratchpad word {last} (size {sp})"
            elif repr(lift(r.extent)) == "1":
                why = f"{r.base}={first} is past scratchpad size {sp}"
            else:
                why = f"{r.base}={first} + {lift(r.extent)!r}={n} passes scratchpad size {sp}"
            return ERR_SP_RANGE, r.base, why
    ext = cfg.ext_words
    for r, ext_f in zip(op.ranges, v["extents"]):
        if r.space != EXT:
            continue
        lo = a[op.index[r.base]]
        xhi = a[op.index["xhi"]] if "xhi" in op.index else 0
        first = (xhi << ADDR_W) + lo
        n = ext_f(a, cfg)
        if first + n > ext:
            at = f"{r.base}={lo}" + (f" (xhi={xhi}: address {first})" if xhi else "")
            return ERR_EXT_RANGE, r.base, f"{at} + {lift(r.extent)!r}={n} passes external size {ext}"
    return None


def _load():
    """The records of every module of this package, by name in opcode order."""
    recs = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "expr":
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        found = [v for v in vars(mod).values() if isinstance(v, Op)]
        if not found:
            raise ValueError(f"model/ops/{info.name}.py holds no Op record")
        recs += found
    recs.sort(key=lambda r: r.code)
    table = {}
    for r in recs:
        _validate(r, table)
        table[r.name] = r
    return table


def _validate(r, table):
    """A record's own consistency (a mistake fails at import, not weeks later)."""
    if r.name in table:
        raise ValueError(f"operation {r.name} is defined twice")
    other = next((o for o in table.values() if o.code == r.code), None)
    if other is not None:
        raise ValueError(f"{r.name} and {other.name} share opcode {r.code}")
    if not (1 <= r.code < EXT_BASE and r.code != EXT_CODE) and not EXT_BASE <= r.code < EXT_BASE + (1 << XOP_W):
        raise ValueError(f"{r.name}: opcode {r.code} outside 1..{EXT_CODE - 1} and "
                         f"{EXT_BASE}..{EXT_BASE + (1 << XOP_W) - 1} ({EXT_CODE}: the extension prefix)")
    if r.unit not in UNITS + (None,):
        raise ValueError(f"{r.name}: unit {r.unit!r} not one of {UNITS} or None")
    names = [n for n, _ in r.fields]
    if len(set(names)) != len(names):
        raise ValueError(f"{r.name}: a field name is repeated")
    if opcode_bits(r.code)[1] + sum(w for _, w in r.fields) > INSTR_W:
        raise ValueError(f"{r.name}: fields pass the {INSTR_W}-bit instruction word")
    known = set(names)
    exprs = [r.busy_expr(m) for m in ("inorder", "overlap")] + [r.sp_reads, r.words, r.macs]
    exprs += [x.extent for x in r.ranges] + [lift(s.lo) for s in r.shape]
    exprs += [lift(s.hi) for s in r.shape if s.hi is not None]
    used = {f for e in exprs for f in fields_of(e)}
    used |= {x.base for x in r.ranges} | {s.field for s in r.shape}
    used |= {x.rd for x in r.ranges if isinstance(x.rd, str)} | set(r.defaults)
    used |= {f for n in r.sizes for f in fields_of(lift(n))}
    if used - known:
        raise ValueError(f"{r.name}: unknown field(s) {', '.join(sorted(used - known))}")
    for x in r.ranges:
        if x.space not in (SP, EXT):
            raise ValueError(f"{r.name}: range space {x.space!r}")
        if x.space == SP and not (x.rd or x.wr):
            raise ValueError(f"{r.name}: range at {x.base} neither read nor written")


TABLE = _load()
BY_CODE = {r.code: r for r in TABLE.values()}
VIEWS = {name: _views(r) for name, r in TABLE.items()}

__all__ = ["ADDR_W", "BY_CODE", "EXT", "EXT_BASE", "EXT_CODE", "INSTR_W", "OP_W", "SP", "TABLE", "UNITS", "VIEWS",
           "XOP_W", "code_of", "opcode_bits",
           "Expr", "Op", "Range", "Rng", "Shape", "bound", "check"]
