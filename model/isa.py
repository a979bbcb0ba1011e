"""The GA-2 instruction set: the encoding, the checks and the disassembler of the op records.

Each operation's facts (name, opcode, fields, checks, ranges, timing, semantics) are its
record's in model/ops, the single source; this module builds the encoding tables from
them (OPCODES, FIELDS, LAYOUT), and the Verilog header rtl/ga2_isa.vh is generated from
the same records (tools/flow/headers.py). The reference Machine decodes with these
tables, and the builders validate with them. The chip's sizes are not the encoding's: they come
from a model.config.Config (default config.DEFAULT), which check() and build() take.
Also here: the binary encoding (with a memoised decode and as_words for the reference's
speed), the disassembler, the Counters record and MACs / words moved per instruction.
What an instruction reads, writes and computes is model/func.py's; when it runs and what
it costs in cycles is model/timing.py's (the timing contract of docs/isa.md).
"""
from collections import namedtuple

import numpy as _np

from . import config, ops

_np_integer, _np_bool = _np.integer, _np.bool_

# ---------------------------------------------------------------- encoding sizes
# (the chip's memory sizes and options are model/config.py's: a Config)
WORD_BITS = 32
ADDR_W = ops.ADDR_W      # every address field (scratchpad and external) is 16 bits
XHI_W = ops.XHI_W                   # xhi: the external address's high 13 bits
EXT_MAX = 1 << config.EXT_ADDR_W     # so EXT may be at most 2^29 words
INSTR_W = ops.INSTR_W    # instruction word width (bits)
OP_W = ops.OP_W

# ---------------------------------------------------------------- opcodes and fields
# From the operation records (model/ops: one module per operation), in opcode order.
OPCODES = {name: r.code for name, r in ops.TABLE.items()}
OPNAMES = {v: k for k, v in OPCODES.items()}
# error 1: every 4-bit code no op has (15, EXT_CODE, is the prefix of the extended
# opcodes: ops.opcode_bits), and every extended code (16 + sub-opcode) no op has
ILLEGAL_OPCODES = tuple(c for c in range(ops.EXT_BASE) if c not in OPNAMES and c != ops.EXT_CODE)
ILLEGAL_XOPS = tuple(c for c in range(ops.EXT_BASE, ops.EXT_BASE + (1 << ops.XOP_W)) if c not in OPNAMES)


def opcode_word(code):
    """The bits of an opcode (a legal or an illegal one) at the bottom of a word."""
    return ops.opcode_bits(code)[0]
# Each op's fields in encoding order, packed upward from bit OP_W; (name, width).
FIELDS = {name: r.fields for name, r in ops.TABLE.items()}
# Fields that may be left out of raw()/build() and of the assembly text, with their value
# when left out; format_fields() leaves a field out when it has that value, so the text of
# programs written before the field existed is unchanged (MM acc, the requant's relu, xhi).
DEFAULTS = {name: dict(r.defaults) for name, r in ops.TABLE.items() if r.defaults}


def _layout():
    out = {}
    for op, fields in FIELDS.items():
        lsb, pos = ops.opcode_bits(OPCODES[op])[1], {}
        for name, width in fields:
            pos[name] = (lsb, width)
            lsb += width
        out[op] = pos
    return out


LAYOUT = _layout()       # LAYOUT[op][field] = (lsb, width)
_INDEX = {op: {name: i for i, (name, _) in enumerate(fields)} for op, fields in FIELDS.items()}
# Speed: the same tables flattened for encode, decode and check (derived from FIELDS and
# LAYOUT above, nothing new): per op its field names, and per field (mask, lsb).
_NAMES = {op: tuple(name for name, _ in fields) for op, fields in FIELDS.items()}
_PACK = {op: tuple(((1 << width) - 1, LAYOUT[op][name][0]) for name, width in fields)
         for op, fields in FIELDS.items()}
_OPBITS = {op: opcode_word(code) for op, code in OPCODES.items()}

# ---------------------------------------------------------------- error codes
ERR_NONE = ops.ERR_NONE
ERR_OPCODE = ops.ERR_OPCODE          # illegal opcode
ERR_SP_RANGE = ops.ERR_SP_RANGE      # scratchpad address out of range
ERR_EXT_RANGE = ops.ERR_EXT_RANGE    # external address out of range
ERR_SHAPE = ops.ERR_SHAPE            # a field outside its shape limits
ERR_PC = ops.ERR_PC                  # ran past the end of the instruction memory without HALT
ERR_INDEX = ops.ERR_INDEX            # a row index read from the scratchpad is not below rows
ERROR_NAMES = {ERR_OPCODE: "illegal opcode", ERR_SP_RANGE: "scratchpad address out of range",
               ERR_EXT_RANGE: "external address out of range", ERR_SHAPE: "bad shape",
               ERR_PC: "ran past the end of instruction memory",
               ERR_INDEX: "table index out of range"}
# ERR_INDEX is the one fault found in EXEC, from data: the lookup writes nothing, the program
# runs on to its end with unchanged timing (timing never depends on data) and the chip
# reports the first such lookup at done (docs/isa.md "Faults"). Every other fault is DECODE's.


# ---------------------------------------------------------------- instructions
class Instr(namedtuple("Instr", "op args")):
    """An immutable instruction: op name and field values in FIELDS order.

    Fields read as attributes (i.dst, i.K); i.fields() gives them as a dict.
    """
    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self.args[_INDEX[self.op][name]]
        except KeyError:
            raise AttributeError(f"{self.op} has no field {name!r}") from None

    def fields(self):
        return {f: v for (f, _), v in zip(FIELDS[self.op], self.args)}

    def __repr__(self):
        return f"Instr({self.op}, {format_fields(self)})"


def _raw_spec(op):
    """(fields, their names as a frozenset, their names in order, each field's limit 2^width,
    defaults) of op, cached while FIELDS[op] is the same object (a test may swap a record in)."""
    fs = FIELDS.get(op)
    spec = _RAW.get(op)
    if spec is None or spec[0] is not fs:
        if fs is None:
            raise ValueError(f"unknown instruction {op!r} (known: {', '.join(FIELDS)})")
        spec = _RAW[op] = (fs, frozenset(f for f, _ in fs), tuple(f for f, _ in fs),
                           tuple(1 << w for _, w in fs), DEFAULTS.get(op))
    return spec


_RAW = {}


def raw(op, **fields):
    """An instruction whose fields are only checked to fit their encoding.

    For writing deliberately bad programs (the chip's error codes); use build() otherwise.
    (The language models' compiler builds about a million of these in make test: hence the
    cached field lists and the one pass over plain ints in range.)
    """
    fs, names, order, limits, defaults = _raw_spec(op)
    if not names.issuperset(fields):
        extra = set(fields) - names
        raise ValueError(f"{op}: unknown field(s) {', '.join(sorted(extra))} "
                         f"(fields: {', '.join(order) or 'none'})")
    if defaults:
        fields = {**defaults, **fields}
    try:
        args = [fields[name] for name in order]
    except KeyError as e:
        raise ValueError(f"{op}: missing field {e.args[0]!r}") from None
    bad = [i for i, (v, lim) in enumerate(zip(args, limits)) if type(v) is not int or not 0 <= v < lim]
    for i in bad:
        (name, width), v = fs[i], args[i]
        if isinstance(v, bool) or not isinstance(v, (int, _np_integer)):
            raise ValueError(f"{op}: field {name} must be an integer, got {v!r}")
        v = args[i] = int(v)
        if not 0 <= v < limits[i]:
            raise ValueError(f"{op}: field {name}={v} does not fit {width} bits (0..{limits[i] - 1})")
    return Instr(op, tuple(args))


def check(ins, cfg=None):
    """The chip's fault check of one decoded instruction on cfg: (code, field, reason) or None.

    Priority, as in the RTL's decode stage: shape (4), scratchpad range (2),
    external range (3), each in its record's order (model/ops). Illegal opcodes never
    decode, so they are the caller's (code 1).
    """
    return ops.check(ops.TABLE[ins.op], ins.args, config.resolve(cfg))


# the operand of each op that holds an external address (its record's ext range: LD's src, ST's dst)
_EXT_FIELD = {name: r.ext_ranges()[0].base for name, r in ops.TABLE.items() if r.ext_ranges()}


def ext_fields(op, addr):
    """The fields of a full external address (0 .. 2^29 - 1) for op (_EXT_FIELD: LD's src, ST's
    dst) and xhi: {field: addr % 65536, "xhi": addr // 65536}, to pass to raw() or build().

    build() also takes the full address directly in that field (it splits it with this).
    """
    field = _EXT_FIELD.get(op)
    if field is None:
        raise ValueError(f"{op} has no external address (only {', '.join(_EXT_FIELD)})")
    if isinstance(addr, bool) or not isinstance(addr, (int, _np_integer)) or not 0 <= addr < EXT_MAX:
        raise ValueError(f"{op}: external address {addr!r} outside 0..{EXT_MAX - 1}")
    addr = int(addr)
    return {field: addr & ((1 << ADDR_W) - 1), "xhi": addr >> ADDR_W}


def ext_addr(ins):
    """The full external address of an op with one (_EXT_FIELD): xhi * 65536 + that field."""
    f = ins.fields()
    return (f["xhi"] << ADDR_W) + f[_EXT_FIELD[ins.op]]


def build(op, cfg=None, **fields):
    """A valid instruction for the chip cfg (default config.DEFAULT), or ValueError naming
    the instruction and the field at fault.

    Checks encodability and everything the chip would fault on (shape, scratchpad and
    external ranges against cfg's sizes). An external address field (_EXT_FIELD) may be
    given as a full external address (0 .. 2^29 - 1) without xhi: build splits it (ext_fields).
    """
    field = _EXT_FIELD.get(op)
    v = fields.get(field)
    if field and "xhi" not in fields and isinstance(v, (int, _np_integer)) and \
            not isinstance(v, bool) and v >= 1 << ADDR_W:
        fields = {**fields, **ext_fields(op, v)}
    ins = raw(op, **fields)
    bad = check(ins, cfg)
    if bad:
        code, field, reason = bad
        raise ValueError(f"{op}: field {field}: {reason} (the chip would fault with code {code})")
    return ins


# ---------------------------------------------------------------- encoding
def encode(ins):
    """The INSTR_W-bit instruction word of ins, as an int."""
    op = ins.op
    word = _OPBITS[op]
    for (mask, lsb), v in zip(_PACK[op], ins.args):
        word |= (v & mask) << lsb
    return word


def decode(word):
    """The Instr of an instruction word; ValueError for an illegal opcode or a too-wide word.

    Bits above an op's last field are ignored, as the RTL's decoder ignores them.
    """
    word = int(word)
    if not 0 <= word < (1 << INSTR_W):
        raise ValueError(f"instruction word {word:#x} wider than {INSTR_W} bits")
    code = ops.code_of(word)
    if code not in OPNAMES:
        what = f"{code}" if code < ops.EXT_BASE else f"{code} ({ops.EXT_CODE}, sub-opcode {code - ops.EXT_BASE})"
        raise ValueError(f"illegal opcode {what} in word {word:#x}")
    op = OPNAMES[code]
    return Instr(op, tuple([(word >> lsb) & mask for mask, lsb in _PACK[op]]))


# Speed (tools/bench/bench_model.py): the reference decodes and encodes the same words over
# and over; both are pure functions of their argument, so they are memoised (bounded).
_MEMO_MAX = 1 << 17
_DECODED = {}
_ENCODED = {}


def decoded(word):
    """decode(word), memoised: (Instr, None), or (None, reason) for a word decode refuses."""
    d = _DECODED.get(word)
    if d is None:
        try:
            d = (decode(word), None)
        except ValueError as e:
            d = (None, str(e))
        if len(_DECODED) >= _MEMO_MAX:
            _DECODED.clear()
        _DECODED[word] = d
    return d


def _encode_new(ins):
    """encode(ins), memoised in _ENCODED; when ins is exactly what decode gives back for
    its word (a known op, a tuple of as many plain ints as the op has fields, each inside
    its width), it is also memoised as decoded(word), which then need not decode it."""
    op, args = ins
    pack = _PACK.get(op)
    exact = pack is not None and type(args) is tuple and len(args) == len(pack)
    if exact:
        w = _OPBITS[op]
        for (mask, lsb), v in zip(pack, args):
            if type(v) is not int or v & mask != v:
                exact = False
                break
            w |= v << lsb
    if not exact:
        w = encode(ins)
    if len(_ENCODED) >= _MEMO_MAX:
        _ENCODED.clear()
    _ENCODED[ins] = w
    if exact and w not in _DECODED:
        if len(_DECODED) >= _MEMO_MAX:
            _DECODED.clear()
        _DECODED[w] = (ins, None)
    return w


def as_words(prog):
    """A program (Instr or integer words, mixed) as a list of instruction words (ints).

    ValueError, naming the instruction, for an item that is neither an Instr nor an
    integer (numpy integers are integers; bools and floats are not) or a word outside
    0 .. 2^INSTR_W - 1: host input is refused here, before anything runs.
    """
    if isinstance(prog, (str, bytes)) or not hasattr(prog, "__iter__"):
        raise ValueError(f"a program is a list of instructions or words, got {type(prog).__name__}")
    out = []
    for pc, item in enumerate(prog):
        if isinstance(item, Instr):
            w = _ENCODED.get(item)
            if w is None:
                w = _encode_new(item)
            out.append(w)
        elif isinstance(item, (int, _np_integer)) and not isinstance(item, (bool, _np_bool)):
            w = int(item)
            if not 0 <= w < (1 << INSTR_W):
                raise ValueError(f"instruction {pc}: word {w:#x} outside 0..2^{INSTR_W}-1 "
                                 f"(instruction words are {INSTR_W}-bit unsigned)")
            out.append(w)
        else:
            raise ValueError(f"instruction {pc}: {item!r} is neither an isa.Instr nor an integer word")
    return out


# ---------------------------------------------------------------- disassembler
def format_fields(ins):
    """name=value of each field, leaving out a field at its DEFAULTS value (MM acc=0)."""
    dflt = DEFAULTS.get(ins.op, {})
    return " ".join(f"{k}={v}" for k, v in ins.fields().items() if dflt.get(k, -1) != v)


def disasm(prog):
    """One line per instruction: pc, mnemonic and fields (model/asm.py reads it back).

    A word that does not decode, or that has bits set above its op's last field (which
    the decoder ignores), is printed as `.word`, so that text and words round-trip exactly.
    """
    lines = []
    for pc, item in enumerate(prog):
        if isinstance(item, Instr):
            ins = item
        else:
            word = int(item)
            try:
                ins = decode(word)
            except ValueError:
                lines.append(f"{pc:4d}  .word {word:#034x}   ; illegal opcode {ops.code_of(word)}")
                continue
            if encode(ins) != word:
                lines.append(f"{pc:4d}  .word {word:#034x}   ; decodes as {ins.op} {format_fields(ins)}"
                             " (unused high bits set)".replace("  (", " ("))
                continue
        lines.append(f"{pc:4d}  {ins.op:<4} {format_fields(ins)}".rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------- counters, MACs, words
# The six counters of the chip (docs/isa.md); model/timing.py computes them. fetch: the
# 128-bit instruction words the sequencer read (one FETCH each), the instruction traffic.
Counters = namedtuple("Counters", "cycles mm dma vec instret fetch")


def macs(ins):
    """Multiply-accumulates of one instruction (its record's macs: M*N*K for MM, else 0)."""
    return ops.VIEWS[ins.op]["macs"](ins.args, None)


def words(ins):
    """Words moved between external memory and scratchpad (its record's words: len for
    the transfers, else 0)."""
    return ops.VIEWS[ins.op]["words"](ins.args, None)


def _instrs(prog):
    return [i if isinstance(i, Instr) else decode(i) for i in prog]


def program_macs(prog):
    return sum(macs(i) for i in _instrs(prog))


def program_words(prog):
    return sum(words(i) for i in _instrs(prog))

