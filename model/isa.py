"""The GA-2 instruction set: the single source of truth for opcodes, fields and sizes.

Everything else derives from the tables here: the Verilog header rtl/ga2_isa.vh is
generated from them (tools/flow/headers.py), the reference Machine decodes with them,
and the builders validate with them. The chip's sizes are not the encoding's: they come
from a model.config.Config (default config.DEFAULT), which check() and build() take.
Also here: the binary encoding (with a memoised decode and as_words for the reference's
speed), the disassembler, the Counters record and MACs / words moved per instruction.
What an instruction reads, writes and computes is model/func.py's; when it runs and what
it costs in cycles is model/timing.py's (the timing contract of docs/isa.md).
"""
from collections import namedtuple

import numpy as _np

from . import config

_np_integer, _np_bool = _np.integer, _np.bool_

# ---------------------------------------------------------------- encoding sizes
# (the chip's memory sizes and options are model/config.py's: a Config)
WORD_BITS = 32
ADDR_W = config.ADDR_W   # every address field (scratchpad and external) is 16 bits
XHI_W = config.EXT_ADDR_W - ADDR_W   # LD/ST/LDX xhi: the external address's high 8 bits
EXT_MAX = 1 << config.EXT_ADDR_W     # so EXT may be at most 2^24 words
INSTR_W = 128            # instruction word width (bits)
OP_W = 4

# ---------------------------------------------------------------- opcodes and fields
OPCODES = {"LD": 1, "ST": 2, "MM": 3, "RQ": 4, "SM": 5, "HALT": 6,
           "LDX": 7, "ADD": 8, "ARGMAX": 9, "NORM": 10, "PACK4": 11, "UNPACK4": 12}
OPNAMES = {v: k for k, v in OPCODES.items()}
ILLEGAL_OPCODES = tuple(c for c in range(16) if c not in OPNAMES)   # error 1: 0, 13..15

# Each op's fields in encoding order, packed upward from bit OP_W; (name, width).
FIELDS = {
    "LD": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13), ("xhi", XHI_W)),
    "ST": (("src", ADDR_W), ("dst", ADDR_W), ("len", 13), ("xhi", XHI_W)),
    "MM": (("dst", ADDR_W), ("A", ADDR_W), ("B", ADDR_W), ("M", 3), ("K", 8), ("N", 3),
           ("tb", 1), ("lda", 12), ("ldb", 12), ("ldc", 12), ("acc", 1)),
    "RQ": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13), ("m", 16), ("s", 6), ("relu", 1)),
    "SM": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13)),
    "HALT": (),
    # the language model's operations (docs/lm.md "Numerics"; docs/isa.md)
    "LDX": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13), ("idx", ADDR_W), ("rows", ADDR_W),
            ("xhi", XHI_W)),
    "ADD": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13), ("src2", ADDR_W)),
    "ARGMAX": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13)),
    "NORM": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13), ("m", 16), ("s", 6)),
    # the 4-bit KV cache (docs/isa.md): PACK4 reads 2*len words and writes len,
    # UNPACK4 reads len words and writes 2*len
    "PACK4": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13)),
    "UNPACK4": (("dst", ADDR_W), ("src", ADDR_W), ("len", 13)),
}


# Fields that may be left out of raw()/build() and of the assembly text, with their value
# when left out; format_fields() leaves a field out when it has that value, so the text of
# programs written before the field existed is unchanged. MM acc (bit 103): 0 writes
# dst = A x B, 1 accumulates dst += A x B (32-bit wraparound), as VTA's GEMM reset flag.
# RQ relu (bit 71): 1 clamps the result to 0..127 (the MLP's ReLU fused into its requant).
# LD, ST, LDX xhi (bits 49..56 of LD and ST, 81..88 of LDX): the external address is
# xhi * 65536 + src (LD, LDX) or + dst (ST), so the external memory may reach 2^24 words.
DEFAULTS = {"MM": {"acc": 0}, "RQ": {"relu": 0}, "LD": {"xhi": 0}, "ST": {"xhi": 0},
            "LDX": {"xhi": 0}}


def _layout():
    out = {}
    for op, fields in FIELDS.items():
        lsb, pos = OP_W, {}
        for name, width in fields:
            pos[name] = (lsb, width)
            lsb += width
        assert lsb <= INSTR_W, op
        out[op] = pos
    return out


LAYOUT = _layout()       # LAYOUT[op][field] = (lsb, width)
_INDEX = {op: {name: i for i, (name, _) in enumerate(fields)} for op, fields in FIELDS.items()}
# Speed: the same tables flattened for encode, decode and check (derived from FIELDS and
# LAYOUT above, nothing new): per op its field names, and per field (mask, lsb).
_NAMES = {op: tuple(name for name, _ in fields) for op, fields in FIELDS.items()}
_PACK = {op: tuple(((1 << width) - 1, LAYOUT[op][name][0]) for name, width in fields)
         for op, fields in FIELDS.items()}

# ---------------------------------------------------------------- error codes
ERR_NONE = 0
ERR_OPCODE = 1           # illegal opcode
ERR_SP_RANGE = 2         # scratchpad address out of range
ERR_EXT_RANGE = 3        # external address out of range
ERR_SHAPE = 4            # M or N outside 1..4, K = 0, len = 0 or too long
ERR_PC = 5               # ran past the end of the instruction memory without HALT
ERR_INDEX = 6            # LDX: the row index read from the scratchpad is not below rows
ERROR_NAMES = {ERR_OPCODE: "illegal opcode", ERR_SP_RANGE: "scratchpad address out of range",
               ERR_EXT_RANGE: "external address out of range", ERR_SHAPE: "bad shape",
               ERR_PC: "ran past the end of instruction memory",
               ERR_INDEX: "table index out of range"}
# ERR_INDEX is the one fault found in EXEC, from data: the LDX writes nothing, the program
# runs on to its end with unchanged timing (timing never depends on data) and the chip
# reports the first such LDX at done (docs/isa.md "Faults"). Every other fault is DECODE's.

NORM_MAX_LEN = 64        # NORM: ss * 2^10 <= 2^30 keeps the square root in 16 bits



def s8(w):
    """The low 8 bits of a word read as two's complement."""
    return ((int(w) & 0xFF) ^ 0x80) - 0x80


def w32(v):
    """v wrapped to a 32-bit word, as a signed integer."""
    return ((int(v) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


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


def raw(op, **fields):
    """An instruction whose fields are only checked to fit their encoding.

    For writing deliberately bad programs (the chip's error codes); use build() otherwise.
    """
    if op not in FIELDS:
        raise ValueError(f"unknown instruction {op!r} (known: {', '.join(FIELDS)})")
    names = [f for f, _ in FIELDS[op]]
    extra = set(fields) - set(names)
    if extra:
        raise ValueError(f"{op}: unknown field(s) {', '.join(sorted(extra))} (fields: {', '.join(names) or 'none'})")
    args = []
    fields = {**DEFAULTS.get(op, {}), **fields}
    for name, width in FIELDS[op]:
        if name not in fields:
            raise ValueError(f"{op}: missing field {name!r}")
        v = fields[name]
        if isinstance(v, bool) or not isinstance(v, int):
            try:
                import numpy as np
                ok = isinstance(v, np.integer)
            except ImportError:  # pragma: no cover
                ok = False
            if not ok:
                raise ValueError(f"{op}: field {name} must be an integer, got {v!r}")
            v = int(v)
        if not 0 <= v < (1 << width):
            raise ValueError(f"{op}: field {name}={v} does not fit {width} bits (0..{(1 << width) - 1})")
        args.append(v)
    return Instr(op, tuple(args))


def check(ins, cfg=None):
    """The chip's fault check of one decoded instruction on cfg: (code, field, reason) or None.

    Priority, as in the RTL's decode stage: shape (4), scratchpad range (2),
    external range (3). Illegal opcodes never decode, so they are the caller's (code 1).
    """
    cfg = config.resolve(cfg)
    ext, sp_words, array, sm_max_len = cfg.ext_words, cfg.sp_words, cfg.array, cfg.sm_max_len
    op = ins.op
    f = dict(zip(_NAMES[op], ins.args))             # ins.fields()
    if op == "HALT":
        return None
    if op == "MM":
        for name in ("M", "N"):
            if not 1 <= f[name] <= array:
                return ERR_SHAPE, name, f"{name}={f[name]} outside 1..{array}"
        if f["K"] == 0:
            return ERR_SHAPE, "K", "K=0"
        M, K, N, tb = f["M"], f["K"], f["N"], f["tb"]
        b_rows, b_cols = (N, K) if tb else (K, N)
        spans = (("A", f["A"] + (M - 1) * f["lda"] + K - 1),
                 ("B", f["B"] + (b_rows - 1) * f["ldb"] + b_cols - 1),
                 ("dst", f["dst"] + (M - 1) * f["ldc"] + N - 1))
        for name, last in spans:
            if last >= sp_words:
                return ERR_SP_RANGE, name, f"{name} reaches scratchpad word {last} (size {sp_words})"
        return None
    n = f["len"]
    if n == 0:
        return ERR_SHAPE, "len", "len=0"
    if op == "SM" and n > sm_max_len:
        return ERR_SHAPE, "len", f"len={n} longer than the softmax unit's {sm_max_len}"
    if op == "NORM" and n > NORM_MAX_LEN:
        return ERR_SHAPE, "len", f"len={n} longer than the norm unit's {NORM_MAX_LEN}"
    if op == "LDX" and f["rows"] == 0:
        return ERR_SHAPE, "rows", "rows=0"
    for name in _SP_FIELDS[op]:
        one = name in _SP_ONE.get(op, ())
        k = _SP_TWICE.get(op)
        span = 1 if one else (2 * n if k == name else n)
        if f[name] + span > sp_words:
            what = "len" if span == n else "2*len"
            return ERR_SP_RANGE, name, (f"{name}={f[name]} is past" if one else
                                        f"{name}={f[name]} + {what}={span} passes") + \
                f" scratchpad size {sp_words}"
    ext_field = _EXT_FIELD.get(op)
    if ext_field:
        span = f["rows"] * n if op == "LDX" else n
        first = (f["xhi"] << ADDR_W) + f[ext_field]
        if first + span > ext:
            what = f"rows*len={span}" if op == "LDX" else f"len={n}"
            at = f"{ext_field}={f[ext_field]}" + (f" (xhi={f['xhi']}: address {first})" if f["xhi"] else "")
            return ERR_EXT_RANGE, ext_field, f"{at} + {what} passes external size {ext}"
    return None


# check()'s operands of each op with a len: those in the scratchpad (in the order the RTL
# tests them) and the one in the external memory
_SP_FIELDS = {"LD": ("dst",), "ST": ("src",), "RQ": ("src", "dst"), "SM": ("src", "dst"),
              "LDX": ("idx", "dst"), "ADD": ("src", "src2", "dst"), "ARGMAX": ("src", "dst"),
              "NORM": ("src", "dst"), "PACK4": ("src", "dst"), "UNPACK4": ("src", "dst")}
_EXT_FIELD = {"LD": "src", "ST": "dst", "LDX": "src"}
# the scratchpad operands that are one word, not len: LDX's index, ARGMAX's result
_SP_ONE = {"LDX": ("idx",), "ARGMAX": ("dst",)}
# the scratchpad operand that spans 2*len words: PACK4's input, UNPACK4's output
_SP_TWICE = {"PACK4": "src", "UNPACK4": "dst"}


def ext_fields(op, addr):
    """The fields of a full external address (0 .. 2^24 - 1) for op (LD, LDX: src; ST: dst)
    and xhi: {field: addr % 65536, "xhi": addr // 65536}, to pass to raw() or build().

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
    """The full external address of an LD, ST or LDX: xhi * 65536 + src (LD, LDX) or dst (ST)."""
    f = ins.fields()
    return (f["xhi"] << ADDR_W) + f[_EXT_FIELD[ins.op]]


def build(op, cfg=None, **fields):
    """A valid instruction for the chip cfg (default config.DEFAULT), or ValueError naming
    the instruction and the field at fault.

    Checks encodability and everything the chip would fault on (shape, scratchpad and
    external ranges against cfg's sizes). LD, LDX src and ST dst may be given as a full
    external address (0 .. 2^24 - 1) without xhi: build splits it (ext_fields).
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
    word = OPCODES[op]
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
    code = word & ((1 << OP_W) - 1)
    if code not in OPNAMES:
        raise ValueError(f"illegal opcode {code} in word {word:#x}")
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
        w = OPCODES[op]
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
                lines.append(f"{pc:4d}  .word {word:#034x}   ; illegal opcode {word & 15}")
                continue
            if encode(ins) != word:
                lines.append(f"{pc:4d}  .word {word:#034x}   ; decodes as {ins.op} {format_fields(ins)}"
                             " (unused high bits set)".replace("  (", " ("))
                continue
        lines.append(f"{pc:4d}  {ins.op:<4} {format_fields(ins)}".rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------- counters, MACs, words
# The five counters of the chip (docs/isa.md); model/timing.py computes them.
Counters = namedtuple("Counters", "cycles mm dma vec instret")


def macs(ins):
    """Multiply-accumulates of one instruction (M*N*K for MM, else 0)."""
    return ins.M * ins.N * ins.K if ins.op == "MM" else 0


def words(ins):
    """Words moved between external memory and scratchpad (len for LD, ST, LDX, else 0)."""
    return ins.len if ins.op in ("LD", "ST", "LDX") else 0


def _instrs(prog):
    return [i if isinstance(i, Instr) else decode(i) for i in prog]


def program_macs(prog):
    return sum(macs(i) for i in _instrs(prog))


def program_words(prog):
    return sum(words(i) for i in _instrs(prog))

