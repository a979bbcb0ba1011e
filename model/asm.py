"""GA-2 text assembly: the written form of a program, and its parser.

The disassembler (model.isa.disasm) prints this format, and assemble() reads it back, so
a program survives a round trip word for word. One statement a line:

    [pc]  OP field=value ...      ; comment        fields in any order, each exactly once
    [pc]  .word VALUE                              a raw 128-bit word (e.g. an illegal opcode)
    .equ NAME VALUE                                a named constant, usable as a value below
    NAME:                                          a label: the pc of the next instruction

Values are decimal, hex (0x..), binary (0b..), or a name defined above (.equ or label),
optionally followed by + or - and a number or name: `dst=KC+16`. '_' may group digits.
A leading pc number (as disasm prints it) must equal the instruction's index. ';' and '#'
start comments. Mnemonics and field names are the ISA's (model/isa.py FIELDS).

assemble(text, cfg) checks every instruction as the builder does (isa.build: encodable,
and nothing the chip cfg would fault on); check=False only checks that fields fit their
encoding (isa.raw), for writing deliberately bad programs. Every error is an AsmError
(a ValueError) naming the line, and the field where there is one.
"""
import re

from . import config, isa

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_TERM = re.compile(r"\s*([+-])\s*")


class AsmError(ValueError):
    """An assembly error: line number, the text of the line, and what is wrong."""

    def __init__(self, lineno, line, msg, path=None):
        self.lineno, self.line, self.msg, self.path = lineno, line, msg, path
        where = f"{path}:{lineno}" if path else f"line {lineno}"
        super().__init__(f"{where}: {msg}  [{line.strip()}]")


def _number(tok, names):
    if tok in names:
        return names[tok]
    if tok[:1].isdigit():
        tok = tok.replace("_", "")          # digit grouping: 16_384
    try:
        if tok.lower().startswith(("0x", "0b", "0o")):
            return int(tok, 0)
        if tok.isdigit():
            return int(tok, 10)
    except ValueError:
        pass
    if _NAME.match(tok):
        raise ValueError(f"unknown name {tok!r}")
    raise ValueError(f"{tok!r} is not a number (decimal, 0x hex, 0b binary) or a name")


def value(text, names):
    """The integer of a value expression: terms joined by + and - (see the module doc)."""
    parts = _TERM.split(text.strip())
    if not parts or parts == [""]:
        raise ValueError(f"empty value {text!r}")
    # a leading sign (-5) starts from 0; the field's range check then names the problem
    total = 0 if parts[0] == "" else _number(parts[0], names)
    for sign, tok in zip(parts[1::2], parts[2::2]):
        if tok == "":
            raise ValueError(f"dangling {sign!r} in {text!r}")
        total = total + _number(tok, names) if sign == "+" else total - _number(tok, names)
    return total


def _strip_comment(line):
    for mark in (";", "#"):
        line = line.split(mark, 1)[0]
    return line.strip()


def assemble(text, cfg=None, check=True):
    """The program of an assembly text: a list of isa.Instr (and int words for .word lines)."""
    cfg = config.resolve(cfg)
    names, out = {}, []
    lines = text.splitlines()
    # labels may be used before their line: collect them first (a label is the pc of the
    # next instruction, so count instruction lines)
    pc = 0
    for n, raw_line in enumerate(lines, 1):
        stmt = _strip_comment(raw_line)
        while stmt and re.match(r"^[A-Za-z_][A-Za-z0-9_]*:", stmt):
            label, stmt = stmt.split(":", 1)
            stmt = stmt.strip()
            if label in names:
                raise AsmError(n, raw_line, f"label {label!r} defined twice")
            if label.upper() in isa.OPCODES:
                raise AsmError(n, raw_line, f"label {label!r} is an instruction name")
            names[label] = pc
        if stmt and not stmt.startswith(".equ"):
            pc += 1
    pc = 0
    for n, raw_line in enumerate(lines, 1):
        stmt = _strip_comment(raw_line)
        while stmt and re.match(r"^[A-Za-z_][A-Za-z0-9_]*:", stmt):
            stmt = stmt.split(":", 1)[1].strip()
        if not stmt:
            continue
        toks = stmt.split()
        if toks[0] == ".equ":
            if len(toks) < 3 or not _NAME.match(toks[1]):
                raise AsmError(n, raw_line, ".equ needs a name and a value: .equ NAME VALUE")
            if toks[1] in names:
                raise AsmError(n, raw_line, f"name {toks[1]!r} defined twice")
            try:
                names[toks[1]] = value(" ".join(toks[2:]), names)
            except ValueError as e:
                raise AsmError(n, raw_line, f".equ {toks[1]}: {e}") from None
            continue
        if toks[0].isdigit():                       # the disassembler's pc column
            if int(toks[0]) != pc:
                raise AsmError(n, raw_line, f"pc column says {toks[0]}, but this is instruction {pc}")
            toks = toks[1:]
            if not toks:
                raise AsmError(n, raw_line, "a pc with no instruction")
        mnem = toks[0]
        if mnem == ".word":
            if len(toks) != 2:
                raise AsmError(n, raw_line, ".word takes one value")
            try:
                w = value(toks[1], names)
            except ValueError as e:
                raise AsmError(n, raw_line, f".word: {e}") from None
            if not 0 <= w < (1 << isa.INSTR_W):
                raise AsmError(n, raw_line, f".word {w:#x} does not fit {isa.INSTR_W} bits")
            out.append(w)
            pc += 1
            continue
        op = mnem.upper()
        if op not in isa.FIELDS:
            raise AsmError(n, raw_line, f"unknown instruction {mnem!r} (known: {', '.join(isa.FIELDS)}, .word, .equ)")
        fields = {}
        for tok in toks[1:]:
            if "=" not in tok:
                raise AsmError(n, raw_line, f"{op}: {tok!r} is not field=value")
            name, val = tok.split("=", 1)
            if name in fields:
                raise AsmError(n, raw_line, f"{op}: field {name} given twice")
            if name not in isa.LAYOUT[op]:
                known = ", ".join(isa.LAYOUT[op]) or "none"
                raise AsmError(n, raw_line, f"{op}: unknown field {name!r} (fields: {known})")
            try:
                fields[name] = value(val, names)
            except ValueError as e:
                raise AsmError(n, raw_line, f"{op}: field {name}: {e}") from None
        try:
            ins = isa.build(op, cfg=cfg, **fields) if check else isa.raw(op, **fields)
        except ValueError as e:
            raise AsmError(n, raw_line, str(e)) from None
        out.append(ins)
        pc += 1
    if len(out) > cfg.imem_depth:
        raise AsmError(len(lines), lines[-1] if lines else "",
                       f"{len(out)} instructions exceed the instruction memory ({cfg.imem_depth})")
    return out


def assemble_file(path, cfg=None, check=True):
    """assemble() of a file's text; errors name the file too."""
    with open(path) as f:
        text = f.read()
    try:
        return assemble(text, cfg, check)
    except AsmError as e:
        raise AsmError(e.lineno, e.line, e.msg, path=path) from None
