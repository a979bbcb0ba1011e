"""RTL mutation testing of the GA-2 Verilog: does the co-simulation suite notice a broken chip?

What: parse every rtl/*.v with pyverilog, enumerate mutation sites by class, make each
mutant as ONE textual change in a temporary copy of rtl/, compile it with iverilog and
judge it with the lean suite of tools/mutation/rtl/suite.py (unit checks + seeded random
programs + the five chapter-9 programs, all compared against the reference model).

Why text edits: pyverilog's code generator silently emits garbage for constructs it has
no visitor for, so the mutant is made by editing the ORIGINAL text at the position of the
AST node. pyverilog only tells the line; the column is found by an independent tokenizer
of the original file: the k-th AST event (operator, literal, `if`, `<=`) of a kind on a
line is the k-th token of that kind on that line. A line whose AST and token counts of a
kind disagree yields no sites of that kind (counted as "unmapped"), so a mutation can never
land on the wrong token silently. Mutant 0 (no change) goes through the same path.

Mutation classes:
  arith   binary + <-> -
  cmp     < <-> <=, > <-> >=, == <-> !=
  logic   && <-> ||, binary & <-> |
  const   a literal in an expression +1 and -1 (within its width)
  if      an if condition inverted
  nba     a non-blocking assignment removed, or its value stuck at zero
  timing  a comparison's right operand off by one (+1 / -1): the terminal count of a
          controller's counter, one extra or one fewer wait cycle
Skipped: declarations, parameters, widths/part-select bounds, initial blocks (parameter
checks), generate and procedural for-loop headers, generate ifs, exp_lut's case table.

CLI: python tools/mutation/rtl/run.py --jobs 2 (full) | --sample N --seed S | --list | --module NAME
     | --prove (yosys proofs for the survivors of the last run)
Writes out/mut_rtl.json (key "score") and prints the per-module table; every surviving
mutant must be killed by a sharper test or listed in tools/mutation/rtl/equivalents.txt. The bench
is tb/mutation/mut_rtl_tb.v; docs/mutation_rtl.md describes the whole method and the results.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import namedtuple, defaultdict, Counter

from tools import ROOT  # noqa: E402
from tools.sim.files import rtl_files  # noqa: E402
RTL_DIR = os.path.join(ROOT, "rtl")
OUT_JSON = os.path.join(ROOT, "out", "mut_rtl.json")
EQUIV_FILE = os.path.join(ROOT, "tools", "mutation", "rtl", "equivalents.txt")

# ------------------------------------------------------------------ tokenizer
Tok = namedtuple("Tok", "kind text start end line")   # kind: id kw num op macro str

_OPS = sorted("""<<< >>> === !== <<= >>= << >> <= >= == != && || ~& ~| ~^ ^~ ** -> +: -:
+ - * / % < > ! ~ & | ^ ? : ; , . ( ) [ ] { } = @ #""".split(), key=len, reverse=True)
_KEYWORDS = set("""module endmodule input output inout wire reg integer genvar parameter localparam
assign always initial begin end if else case casez casex endcase default for while
generate endgenerate posedge negedge or function endfunction signed task endtask""".split())
_DIRECTIVES = set("""resetall timescale default_nettype include define undef ifdef ifndef
else elsif endif celldefine endcelldefine line""".split())
_NUM_RE = re.compile(r"(\d[\d_]*)?\s*'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|\d[\d_]*(\.\d+)?")
_ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def tokenize(text):
    """Tokens of Verilog source text (comments, strings and directive lines dropped)."""
    toks, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r\f":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            toks.append(Tok("str", text[i:j + 1], i, j + 1, line))
            i = j + 1
        elif c == "`":
            m = _ID_RE.match(text, i + 1)
            name = m.group(0) if m else ""
            if name in _DIRECTIVES:       # a whole directive line: skip it
                j = text.find("\n", i)
                i = n if j < 0 else j
            else:
                toks.append(Tok("macro", "`" + name, i, m.end() if m else i + 1, line))
                i = m.end() if m else i + 1
        elif c.isdigit() or (c == "'" and i + 1 < n and text[i + 1] in "sSbBoOdDhH"):
            m = _NUM_RE.match(text, i)
            if not m or m.end() == i:
                raise ValueError(f"tokenize: bad number at line {line}: {text[i:i + 20]!r}")
            toks.append(Tok("num", m.group(0), i, m.end(), line))
            i = m.end()
        elif c.isalpha() or c == "_" or c == "$":
            m = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*").match(text, i)
            w = m.group(0)
            toks.append(Tok("kw" if w in _KEYWORDS else "id", w, i, m.end(), line))
            i = m.end()
        else:
            for op in _OPS:
                if text.startswith(op, i):
                    toks.append(Tok("op", op, i, i + len(op), line))
                    i += len(op)
                    break
            else:
                raise ValueError(f"tokenize: unexpected character {c!r} at line {line}")
    return toks


# ------------------------------------------------------------------ literals
_LIT_RE = re.compile(r"^(\d[\d_]*)?'([sS]?)([bBoOdDhH])([0-9a-fA-F_]+)$")
_BASES = {"b": 2, "o": 8, "d": 10, "h": 16}


def literal_variants(text):
    """The literal text +1 and -1 (wrapping within a sized literal's width); [] if x/z."""
    t = text.replace(" ", "")
    m = _LIT_RE.match(t)
    if m:
        size, sgn, base, digits = m.groups()
        b = _BASES[base.lower()]
        v = int(digits.replace("_", ""), b)
        width = int(size.replace("_", "")) if size else 32
        out = []
        for d in (1, -1):
            nv = (v + d) % (1 << width)
            if base.lower() == "d":
                s = str(nv)
            elif base.lower() == "h":
                s = format(nv, "x")
            elif base.lower() == "o":
                s = format(nv, "o")
            else:
                s = format(nv, "b")
            out.append((d, f"{size or ''}'{sgn}{base}{s}"))
        return out
    if re.fullmatch(r"\d[\d_]*", t):
        v = int(t.replace("_", ""))
        return [(1, str(v + 1))] + ([(-1, str(v - 1))] if v > 0 else [])
    return []


# ------------------------------------------------------------------ AST walk
Event = namedtuple("Event", "line text kind node ctx")   # ctx: set of context tags

_BINOPS = {"Plus": "+", "Minus": "-", "Times": "*", "Divide": "/", "Mod": "%", "Power": "**",
           "Sll": "<<", "Srl": ">>", "Sla": "<<<", "Sra": ">>>",
           "LessThan": "<", "GreaterThan": ">", "LessEq": "<=", "GreaterEq": ">=",
           "Eq": "==", "NotEq": "!=", "Eql": "===", "NotEql": "!==",
           "And": "&", "Xor": "^", "Xnor": "~^", "Or": "|", "Land": "&&", "Lor": "||"}
_UNOPS = {"Uplus": "+", "Uminus": "-", "Ulnot": "!", "Unot": "~", "Uand": "&", "Unand": "~&",
          "Uor": "|", "Unor": "~|", "Uxor": "^", "Uxnor": "~^"}
_CMP = {"LessThan", "GreaterThan", "LessEq", "GreaterEq", "Eq", "NotEq"}


def _first_line(node):
    return node.lineno


def _last_line(node):
    best = node.lineno
    for c in node.children():
        if c is not None:
            best = max(best, _last_line(c))
    return best


class Walker:
    """Walks a pyverilog AST in source-text order and records the events the mutator needs."""

    def __init__(self):
        self.events = []

    def ev(self, line, text, kind, node, ctx):
        self.events.append(Event(line, text, kind, node, frozenset(ctx)))

    def walk(self, node, ctx):
        if node is None:
            return
        name = type(node).__name__
        meth = getattr(self, "w_" + name, None)
        if meth:
            meth(node, ctx)
        elif name in _BINOPS:
            self.walk(node.left, ctx)
            self.ev(None, _BINOPS[name], "binop", node, ctx)     # line fixed later
            self.walk(node.right, ctx)
        elif name in _UNOPS:
            self.ev(node.lineno, _UNOPS[name], "unop", node, ctx)
            self.walk(node.right, ctx)
        else:
            for c in node.children():
                self.walk(c, ctx)

    # leaves
    def w_IntConst(self, node, ctx):
        self.ev(node.lineno, node.value.replace(" ", ""), "num", node, ctx)

    # declarations: everything below is 'decl' (no sites), events still counted
    def w_Decl(self, node, ctx):
        seen = set()
        for c in node.list:
            nm = getattr(c, "name", None)
            if nm is not None and type(c).__name__ in ("Input", "Output", "Inout", "Reg", "Wire",
                                                        "Integer", "Genvar", "Tri"):
                if nm in seen:      # output reg x: the same width twice in the AST, once in text
                    continue
                seen.add(nm)
            if type(c).__name__ == "Assign":     # wire x = expr: real logic, not a declaration
                self.walk(c, ctx)
            else:
                self.walk(c, ctx | {"decl"})

    def w_Ioport(self, node, ctx):
        self.walk(node.first, ctx | {"decl"})

    def w_Paramlist(self, node, ctx):
        for c in node.children():
            self.walk(c, ctx | {"decl"})

    def w_Parameter(self, node, ctx):
        self.walk(node.width, ctx | {"decl"})
        self.walk(node.value, ctx | {"decl"})

    w_Localparam = w_Parameter

    def w_Width(self, node, ctx):
        for c in node.children():
            self.walk(c, ctx | {"width"})

    w_Length = w_Width
    w_Dimensions = w_Width

    def w_Repeat(self, node, ctx):
        self.walk(node.times, ctx | {"width"})
        self.walk(node.value, ctx)

    def w_Partselect(self, node, ctx):
        self.walk(node.var, ctx)
        lsb = node.lsb
        if type(lsb).__name__ in ("Plus", "Minus") and lsb.left is node.msb:
            # x[base +: w] is parsed as Partselect(x, base, Plus(base, w)) sharing base:
            # the base is an address expression (sites), the width is structural
            self.walk(node.msb, ctx)
            self.ev(_last_line(node.msb), "+:" if type(lsb).__name__ == "Plus" else "-:", "idx", lsb, ctx)
            self.walk(lsb.right, ctx | {"width"})
            return
        self.walk(node.msb, ctx | {"width"})
        self.walk(node.lsb, ctx | {"width"})

    def w_Cond(self, node, ctx):
        self.walk(node.cond, ctx)
        self.walk(node.true_value, ctx)
        self.walk(node.false_value, ctx)

    def w_Initial(self, node, ctx):
        self.walk(node.statement, ctx | {"initial"})

    def w_GenerateStatement(self, node, ctx):
        for c in node.children():
            self.walk(c, ctx | {"generate"})

    def w_Always(self, node, ctx):
        for c in node.children():
            self.walk(c, ctx | {"proc"})

    def w_ForStatement(self, node, ctx):
        for c in (node.pre, node.cond, node.post):
            self.walk(c, ctx | {"loophdr"})
        self.walk(node.statement, ctx)

    def w_IfStatement(self, node, ctx):
        if "generate" in ctx and "proc" not in ctx:
            ctx = ctx | {"genif"}         # a generate-if: a parameter choice, no sites
        self.ev(node.lineno, "if", "if", node, ctx)
        self.walk(node.cond, ctx)
        self.walk(node.true_statement, ctx)
        self.walk(node.false_statement, ctx)

    def w_NonblockingSubstitution(self, node, ctx):
        self.walk(node.left, ctx | {"lhs"})
        self.ev(node.lineno, "<=", "nba", node, ctx)
        self.walk(node.right, ctx)

    def w_BlockingSubstitution(self, node, ctx):
        self.walk(node.left, ctx | {"lhs"})
        self.walk(node.right, ctx)

    def w_Assign(self, node, ctx):
        self.walk(node.left, ctx | {"lhs"})
        self.walk(node.right, ctx)

    def w_CaseStatement(self, node, ctx):
        ctx = ctx | {"case"}
        self.walk(node.comp, ctx)
        for c in node.caselist:
            for cond in (c.cond or ()):
                self.walk(cond, ctx | {"caseitem"})
            self.walk(c.statement, ctx)

    w_CasexStatement = w_CaseStatement
    w_CasezStatement = w_CaseStatement
    w_UniqueCaseStatement = w_CaseStatement

    def w_InstanceList(self, node, ctx):
        for c in node.instances:         # each Instance repeats the parameter list
            self.walk(c, ctx)

    def w_Instance(self, node, ctx):
        for c in (node.parameterlist or ()):
            self.walk(c, ctx | {"decl"})
        self.walk(node.array, ctx | {"decl"})
        for c in (node.portlist or ()):
            self.walk(c, ctx)

    def w_SystemCall(self, node, ctx):
        for c in node.children():
            self.walk(c, ctx | {"syscall"})


def _fix_binop_lines(events, toks_by_line):
    """A binary op's lineno in pyverilog is its left operand's first line; find the op's line.

    The operator sits between the left operand's last line and the right operand's first
    line; when these differ it must end the former or start the latter, else None.
    """
    out = []
    for e in events:
        if e.line is None:
            lo, hi = _last_line(e.node.left), _first_line(e.node.right)
            line = None
            if lo == hi:
                line = lo
            else:
                last = toks_by_line.get(lo, [])
                first = toks_by_line.get(hi, [])
                if last and last[-1].text == e.text and not (first and first[0].text == e.text):
                    line = lo
                elif first and first[0].text == e.text and not (last and last[-1].text == e.text):
                    line = hi
            e = e._replace(line=line)
        out.append(e)
    return out


# ------------------------------------------------------------------ sites
Site = namedtuple("Site", "file module line cls start end repl orig desc")

_SWAP = {"+": "-", "-": "+", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
         "&&": "||", "||": "&&", "&": "|", "|": "&"}
_CLS = {"+": "arith", "-": "arith", "<": "cmp", "<=": "cmp", ">": "cmp", ">=": "cmp", "==": "cmp",
        "!=": "cmp", "&&": "logic", "||": "logic", "&": "logic", "|": "logic"}
_NO_SITE_CTX = {"decl", "width", "initial", "genif", "loophdr", "syscall"}


def _isa_defines(rtl_dir):
    """`define NAME from the .vh headers, mapped to a placeholder identifier for parsing."""
    out = []
    for fn in sorted(os.listdir(rtl_dir)):
        if fn.endswith(".vh"):
            for line in open(os.path.join(rtl_dir, fn)):
                m = re.match(r"\s*`define\s+(\w+)\b", line)
                if m and not m.group(1).endswith("_VH"):
                    out.append(m.group(1))
    return out


_PARSER = {}


def _parser():
    """One pyverilog parser for every file (building its LALR tables costs seconds)."""
    if "p" not in _PARSER:
        import io
        import contextlib
        from pyverilog.vparser.parser import VerilogParser
        tabdir = os.path.join(tempfile.gettempdir(), "mut_rtl_pyverilog")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            _PARSER["p"] = VerilogParser(outputdir=tabdir, debug=False)
    return _PARSER["p"]


def parse_file(path, rtl_dir):
    """pyverilog AST of one file, line numbers those of the original file.

    pyverilog preprocesses with iverilog -E. The `include line is blanked and the
    header's macros are passed as -D placeholders (identifiers), so line numbers are not
    shifted and a macro never looks like a literal.
    """
    from pyverilog.vparser.preprocessor import preprocess
    text = open(path).read()
    blank = re.sub(r"^[ \t]*`include[^\n]*", "", text, flags=re.M)
    # pyverilog 1.3 has no `function integer` / `input integer`: parse them as [31:0]
    blank = re.sub(r"\b(function|input)(\s+)integer\b", r"\1\2[31:0]", blank)
    with tempfile.TemporaryDirectory() as td:
        tmp = os.path.join(td, os.path.basename(path))
        with open(tmp, "w") as f:
            f.write(blank)
        defines = [f"{d}=MUTMACRO_{d}" for d in _isa_defines(rtl_dir)]
        pp = preprocess([tmp], output=os.path.join(td, "pp.out"), include=[rtl_dir], define=defines)
    parser = _parser()
    parser.lexer.reset_lineno()
    try:
        ast = parser.parse(pp)
    except Exception as e:
        raise ValueError(f"pyverilog cannot parse {path}: {e}") from None
    return ast, text


def _match_paren(toks, i):
    """Index of the token closing the bracket at toks[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth, open_, close = 0, toks[i].text, pairs[toks[i].text]
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


def _stmt_bounds(toks, i):
    """(first, last) token indexes of the statement whose `<=` is toks[i]."""
    depth, j = 0, i - 1
    while j >= 0:
        t = toks[j].text
        if t in (")", "]", "}"):
            if depth == 0 and t == ")":
                break
            depth += 1
        elif t in ("(", "[", "{"):
            depth -= 1
        elif depth == 0 and (t in (";", ":", "begin", "end", "else", "default") or toks[j].kind == "kw"):
            break
        j -= 1
    first = j + 1
    depth, k = 0, i + 1
    while k < len(toks):
        t = toks[k].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif t == ";" and depth == 0:
            break
        k += 1
    return first, k


def enumerate_sites(rtl_dir=RTL_DIR, modules=None, stats=None):
    """All mutation sites of the files of rtl_dir/ga2.f, in file-name and text order."""
    sites = []
    stats = {} if stats is None else stats
    for fn in sorted(p.name for p in rtl_files(rtl_dir)):
        module = fn[:-2]
        if modules and module not in modules:
            continue
        path = os.path.join(rtl_dir, fn)
        ast, text = parse_file(path, rtl_dir)
        sites.extend(_file_sites(fn, module, ast, text, stats))
    return sites


def _file_sites(fn, module, ast, text, stats):
    toks = tokenize(text)
    by_line = defaultdict(list)
    for t in toks:
        by_line[t.line].append(t)
    w = Walker()
    w.walk(ast, frozenset())
    events = _fix_binop_lines(w.events, by_line)
    # group AST events and text tokens per (line, text); a kind whose counts disagree is dropped
    ev_groups = defaultdict(list)
    unmapped = 0
    for e in events:
        if e.line is None:
            unmapped += 1
            continue
        ev_groups[(e.line, e.text)].append(e)
    tok_index = {id(t): k for k, t in enumerate(toks)}
    located = []     # (event, token index)
    for (line, txt), evs in ev_groups.items():
        cands = [t for t in by_line.get(line, []) if t.text.replace(" ", "") == txt]
        if len(cands) != len(evs):
            unmapped += len(evs)
            continue
        located.extend((e, tok_index[id(t)]) for e, t in zip(evs, cands))
    stats.setdefault("unmapped", {})[module] = unmapped
    located.sort(key=lambda et: toks[et[1]].start)
    sites = []

    def add(line, cls, start, end, repl, desc):
        orig = text[start:end]
        if repl != orig:
            sites.append(Site(fn, module, line, cls, start, end, repl, orig, desc))

    for e, ti in located:
        if e.ctx & _NO_SITE_CTX:
            continue
        if module == "exp_lut" and "case" in e.ctx:
            continue          # the generated table: checked against the formula by its own test
        t = toks[ti]
        node_t = type(e.node).__name__
        if e.kind == "binop" and t.text in _SWAP:
            add(t.line, _CLS[t.text], t.start, t.end, _SWAP[t.text], f"{t.text} -> {_SWAP[t.text]}")
        if e.kind == "binop" and node_t in _CMP:
            # timing: the right operand off by one; a literal right operand changes in place
            rn = e.node.right
            nt = toks[ti + 1] if ti + 1 < len(toks) else None
            if type(rn).__name__ == "IntConst" and nt is not None and nt.kind == "num":
                for d, v in literal_variants(nt.text):
                    add(nt.line, "timing", nt.start, nt.end, v, f"{t.text} {nt.text} -> {t.text} {v}")
            elif nt is not None:
                for d in (1, -1):
                    ins = f"{d} + "
                    add(nt.line, "timing", nt.start, nt.start, ins,
                        f"{t.text} x -> {t.text} x{'+1' if d > 0 else '-1'}")
        elif e.kind == "num":
            parent_cmp = False
            if ti >= 1 and toks[ti - 1].text in ("<", "<=", ">", ">=", "==", "!=") \
                    and toks[ti - 1].kind == "op":
                # right operand of a comparison: already a timing site (unless the <= is an NBA)
                prev_nba = any(ev.kind == "nba" and tj == ti - 1 for ev, tj in located)
                parent_cmp = not prev_nba
            if parent_cmp:
                continue
            for d, v in literal_variants(t.text):
                add(t.line, "const", t.start, t.end, v, f"{t.text} -> {v}")
        elif e.kind == "if":
            if ti + 1 >= len(toks) or toks[ti + 1].text != "(":
                continue
            close = _match_paren(toks, ti + 1)
            a, b = toks[ti + 1].end, toks[close].start
            inner = text[a:b]
            add(t.line, "if", a, b, f"!({inner})", f"if ({inner.strip()}) -> if (!({inner.strip()}))")
        elif e.kind == "nba":
            first, last = _stmt_bounds(toks, ti)
            s0, s1 = toks[first].start, toks[last].end
            stmt = text[s0:s1]
            add(t.line, "nba", s0, s1, ";", f"removed: {stmt}")
            rhs = text[t.end:toks[last].start].strip()
            if not re.fullmatch(r"(\d*'[bdh]0+|0|\{\w+\{1'b0\}\})", rhs.replace(" ", "")):
                add(t.line, "nba", t.end, toks[last].start, " 0", f"stuck at 0: {stmt}")
    # dedupe identical edits
    seen, out = set(), []
    for s in sites:
        key = (s.start, s.end, s.repl)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


# ------------------------------------------------------------------ mutants
def site_id(s):
    return f"{s.file}:{s.line}:{s.cls}:{s.start}:{s.repl.strip()}"


def make_mutant_dir(site, dest, rtl_dir=RTL_DIR):
    """A copy of rtl_dir in dest with the one change of site (None: mutant 0, unchanged)."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(rtl_dir, dest)
    if site is not None:
        path = os.path.join(dest, site.file)
        text = open(path).read()
        if text[site.start:site.end] != site.orig:
            raise ValueError(f"site {site_id(site)}: text changed under the mutant")
        with open(path, "w") as f:
            f.write(text[:site.start] + site.repl + text[site.end:])
    return dest


# ------------------------------------------------------------------ equivalents
def _code_line(site, rtl_dir):
    """The site's line, whitespace-normalized; a line that occurs more than once in the
    file (a register cleared by reset and by start) gets ' [occurrence k]' from the 2nd."""
    lines = [" ".join(x.split()) for x in open(os.path.join(rtl_dir, site.file)).read().splitlines()]
    code = lines[site.line - 1]
    k = lines[:site.line - 1].count(code) + 1
    return code if k == 1 else f"{code} [occurrence {k}]"


def _one_line(text):
    return " ".join(text.split())


def equiv_key(site, rtl_dir=RTL_DIR):
    """What identifies a mutant in tools/mutation/rtl/equivalents.txt: file, class, code line, change
    (not the line number, so an entry survives edits elsewhere in the file)."""
    return (site.file, site.cls, _code_line(site, rtl_dir), _one_line(site.desc))


def load_equivalents(path=EQUIV_FILE):
    """{key: argument} from the equivalents file.

    Format, one mutant a line: FILE:LINE | CLASS | CODE LINE | CHANGE | WHY ('#' comments).
    """
    out = {}
    if not os.path.exists(path):
        return out
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 5:
            raise ValueError(f"{path}:{n}: expected 5 fields 'FILE:LINE | CLASS | CODE | CHANGE | WHY', got {len(parts)}")
        fl, cls, code, change, why = parts
        if not why:
            raise ValueError(f"{path}:{n}: an equivalent mutant needs its argument (WHY)")
        out[(fl.split(":")[0], cls, _one_line(code), _one_line(change))] = why
    return out


def equiv_line(site, why, rtl_dir=RTL_DIR):
    f, cls, code, change = equiv_key(site, rtl_dir)
    return f"{f}:{site.line} | {cls} | {code} | {change} | {why}"


# ------------------------------------------------------------------ running
def known_bad_site(sites):
    """A mutant that must break the chip: the scratchpad's write removed (else the first
    inverted reset of the sequencer)."""
    for s in sites:
        if s.module == "sram" and s.cls == "nba" and s.desc.startswith("removed") and "[" in s.desc:
            return s
    for s in sites:
        if s.module == "ga2_top" and s.cls == "if" and re.search(r"\brst\b", s.desc):
            return s
    raise ValueError("no known-bad mutant found (sram write / ga2_top reset)")


def judge(site, work, manifest, timeout, rtl_dir=RTL_DIR):
    """Make, compile and run one mutant in work/: a result dict."""
    from tools.mutation.rtl import suite
    t0 = time.time()
    mdir = make_mutant_dir(site, os.path.join(work, "rtl"), rtl_dir)
    ok, ct, log, vvp = suite.compile_mutant(mdir, os.path.join(work, "build"))
    res = {"file": site.file if site else None, "line": site.line if site else None,
           "module": site.module if site else None, "cls": site.cls if site else None,
           "change": _one_line(site.desc) if site else "none (mutant 0)", "compile_s": round(ct, 3)}
    if not ok:
        res.update(status="incompetent", check="compile", detail=_one_line(log)[:300])
    else:
        verdict, check, detail, rt = suite.run_mutant(vvp, manifest, timeout)
        res.update(run_s=round(rt, 3), check=check, detail=detail[:300],
                   status={"pass": "survived", "fail": "killed", "crash": "killed",
                           "timeout": "timeout"}[verdict])
    res["seconds"] = round(time.time() - t0, 3)
    return res


def run(args, sites, stats):
    from tools.mutation.rtl import suite
    from concurrent.futures import ThreadPoolExecutor
    t_start = time.time()
    work = args.work
    os.makedirs(work, exist_ok=True)
    manifest = suite.build_suite(os.path.join(work, "suite"))
    print(f"suite: {manifest['nprog']} programs ({manifest['total_cycles']} reference cycles), "
          f"{manifest['rq_n']} requant and {manifest['dv_n']} divu vectors")
    # self-check 1: mutant 0 (unchanged text, same path) passes the whole suite
    base = judge(None, os.path.join(work, "w0"), manifest, 600, args.rtl)
    if base["status"] != "survived":
        print(f"ABORT: mutant 0 (the unchanged design) does not pass the suite: {base['status']} "
              f"{base.get('check', '')} {base.get('detail', '')}", file=sys.stderr)
        return 2
    timeout = 3 * base["seconds"] + 10
    print(f"mutant 0 passes: compile {base['compile_s']:.2f} s, suite {base['run_s']:.2f} s; "
          f"per-mutant wall limit {timeout:.1f} s")
    # self-check 2: a mutant known to break the chip is caught
    full_sites = sites if not args.module else enumerate_sites(args.rtl)
    bad = known_bad_site(full_sites)
    kb = judge(bad, os.path.join(work, "w0"), manifest, timeout, args.rtl)
    if kb["status"] not in ("killed", "timeout"):
        print(f"ABORT: the known-bad mutant {bad.file}:{bad.line} {kb['change']} was not caught "
              f"({kb['status']})", file=sys.stderr)
        return 2
    print(f"known-bad mutant {bad.file}:{bad.line} ({kb['change']}) caught by {kb['check']}")
    if args.sample:
        rng = random.Random(args.seed)
        sites = sorted(rng.sample(sites, min(args.sample, len(sites))), key=lambda s: (s.file, s.start))
    equiv = load_equivalents(args.equiv)
    todo = list(enumerate(sites))
    results = [None] * len(sites)
    t_run = time.time()

    def worker(k):
        wdir = os.path.join(work, f"w{k + 1}")
        while True:
            try:
                i, s = todo.pop(0)
            except IndexError:
                return
            r = judge(s, wdir, manifest, timeout, args.rtl)
            key = equiv_key(s, args.rtl)
            r["key"] = " | ".join(key)
            if key in equiv:
                r["equiv_why"] = equiv[key]
                if r["status"] == "survived":
                    r["status"] = "equivalent"
            results[i] = r
            if args.verbose or r["status"] in ("survived",):
                print(f"  [{sum(x is not None for x in results)}/{len(sites)}] {s.file}:{s.line} "
                      f"{s.cls} {r['change'][:70]}: {r['status']} {r.get('check', '')}", flush=True)

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for f in [ex.submit(worker, k) for k in range(args.jobs)]:
            f.result()
    wall = time.time() - t_run
    return report(args, results, wall, time.time() - t_start, base, kb, bad, manifest, stats, equiv)


def report(args, results, wall, total, base, kb, bad, manifest, stats, equiv):
    mods = defaultdict(Counter)
    for r in results:
        mods[r["module"]][r["status"]] += 1
        mods[r["module"]]["mutants"] += 1
    cols = ("mutants", "killed", "timeout", "survived", "incompetent", "equivalent")
    tot = Counter()
    for c in mods.values():
        tot.update(c)
    print()
    print(f"{'module':<10}" + "".join(f"{c:>12}" for c in cols) + f"{'score':>9}")

    def score(c):
        den = c["mutants"] - c["equivalent"] - c["incompetent"]
        return (c["killed"] + c["timeout"]) / den if den else 1.0

    table = {}
    for m in sorted(mods):
        c = mods[m]
        table[m] = {k: c[k] for k in cols}
        table[m]["score"] = round(score(c), 4)
        print(f"{m:<10}" + "".join(f"{c[k]:>12}" for k in cols) + f"{100 * score(c):>8.1f}%")
    print(f"{'all':<10}" + "".join(f"{tot[k]:>12}" for k in cols) + f"{100 * score(tot):>8.1f}%")
    survivors = [r for r in results if r["status"] == "survived"]
    if survivors:
        print("\nsurvivors (neither killed nor listed in tools/mutation/rtl/equivalents.txt):")
        for r in survivors:
            print(f"  {r['file']}:{r['line']}  {r['cls']:<6} {r['change']}")
    stale = [r for r in results if r.get("equiv_why") and r["status"] != "equivalent"]
    for r in stale:
        print(f"  note: listed equivalent but {r['status']}: {r['file']}:{r['line']} {r['change']}")
    rate = len(results) / (wall / 60) if wall > 0 else 0.0
    kills = Counter(r.get("check", "") for r in results if r["status"] in ("killed", "timeout"))
    print(f"\nscore {100 * score(tot):.1f}% = killed+timeouts {tot['killed'] + tot['timeout']} / "
          f"(mutants {tot['mutants']} - equivalent {tot['equivalent']} - incompetent {tot['incompetent']})")
    print(f"{len(results)} mutants in {wall:.0f} s with {args.jobs} jobs: {rate:.1f} mutants/minute "
          f"(whole run {total:.0f} s)")
    print("first failing check of killed mutants: " + ", ".join(f"{k} {v}" for k, v in kills.most_common()))
    out = {"score": round(score(tot), 4), "mutants": len(results),
           "totals": {k: tot[k] for k in cols}, "modules": table,
           "survivors": [{k: r[k] for k in ("file", "line", "cls", "change", "key")} for r in survivors],
           "stale_equivalents": [{k: r[k] for k in ("file", "line", "change", "status")} for r in stale],
           "wall_seconds": round(wall, 1), "total_seconds": round(total, 1), "jobs": args.jobs,
           "mutants_per_minute": round(rate, 2), "sample": args.sample, "seed": args.seed,
           "modules_selected": args.module,
           "mutant0": base, "known_bad": kb, "suite": {k: manifest[k] for k in ("nprog", "rq_n", "dv_n", "total_cycles")},
           "suite_programs": manifest["programs"], "killed_by": dict(kills),
           "unmapped_ast_events": stats.get("unmapped", {}), "results": results}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"wrote {args.out}")
    return 0


# ------------------------------------------------------------------ yosys proofs
_YOSYS_SIDE = """read_verilog -I{d} {files}
hierarchy -top {mod}
proc
flatten
opt_clean
rename {mod} {name}
design -stash {name}
"""


def _yosys(script, path, timeout):
    with open(path, "w") as f:
        f.write(script)
    try:
        p = subprocess.run(["yosys", "-q", path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"yosys timed out after {timeout} s"
    err = [ln for ln in (p.stdout + p.stderr).splitlines() if "ERROR" in ln]
    return p.returncode == 0, (err[0] if err else "")[:200]


def yosys_prove(site, work, rtl_dir=RTL_DIR, timeout=60):
    """Try to prove the mutated module equivalent to the original with yosys 0.23:
    (1) miter -equiv -flatten -make_assert; sat -verify -prove-asserts -tempinduct
    -set-init-zero (the outputs, for every input sequence from an all-zero start);
    (2) equiv_make; equiv_simple -seq 5; equiv_induct -seq 5; equiv_status -assert.
    Returns (proved, note)."""
    gold = make_mutant_dir(None, os.path.join(work, "gold"), rtl_dir)
    gate = make_mutant_dir(site, os.path.join(work, "gate"), rtl_dir)
    script = ""
    for name, d in (("gold", gold), ("gate", gate)):
        files = " ".join(str(f) for f in rtl_files(d))
        script += _YOSYS_SIDE.format(d=d, files=files, mod=site.module, name=name)
    load = script + "design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
    ok, note = _yosys(load + "memory\nmiter -equiv -flatten -make_assert gold gate miter\nhierarchy -top miter\n"
                      "sat -verify -prove-asserts -tempinduct -set-init-zero miter\n",
                      os.path.join(work, "miter.ys"), timeout)
    if ok:
        return True, (f"yosys 0.23 proof: {site.module} outputs equal for all inputs "
                      "(miter -equiv -flatten; sat -prove-asserts -tempinduct -set-init-zero)")
    ok, note2 = _yosys(load + "equiv_make gold gate equiv\nhierarchy -top equiv\nequiv_simple -seq 5\n"
                       "equiv_induct -seq 5\nequiv_status -assert\n", os.path.join(work, "equiv.ys"), timeout)
    if ok:
        return True, (f"yosys 0.23 proof: {site.module} mutated == original "
                      "(equiv_make; equiv_simple -seq 5; equiv_induct -seq 5; equiv_status -assert)")
    return False, note or note2 or "not proved"


def prove_survivors(args):
    """--prove: try yosys on every survivor of the last run (args.out) and print the
    proved ones as lines for tools/mutation/rtl/equivalents.txt."""
    data = json.load(open(args.out))
    snap = os.path.join(args.work, "rtl_snapshot")
    rtl = snap if os.path.isdir(snap) else args.rtl
    sites = {(s.file, s.line, s.cls, _one_line(s.desc)): s for s in enumerate_sites(rtl)}
    proved = 0
    todo = [sv for sv in data["survivors"] if not args.module or sv["file"][:-2] in args.module]
    for sv in todo:
        s = sites.get((sv["file"], sv["line"], sv["cls"], sv["change"]))
        if s is None:
            print(f"  (gone from the design) {sv['file']}:{sv['line']} {sv['change']}")
            continue
        ok, note = yosys_prove(s, os.path.join(args.work, "prove"), rtl)
        proved += ok
        print(("PROVED  " + equiv_line(s, note, rtl)) if ok else f"no proof {s.file}:{s.line} {_one_line(s.desc)}: {note}",
              flush=True)
    print(f"{proved} of {len(todo)} survivors proved equivalent by yosys")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=0, help="a seeded random sample of N mutants")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--list", action="store_true", help="print the sites and exit")
    ap.add_argument("--module", action="append", help="only this module (repeatable)")
    ap.add_argument("--rtl", default=RTL_DIR)
    ap.add_argument("--out", default=OUT_JSON)
    ap.add_argument("--equiv", default=EQUIV_FILE, help="the checked-in list of equivalent mutants")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "mut_rtl"), help="scratch directory")
    ap.add_argument("--prove", action="store_true",
                    help="try yosys equivalence proofs on the survivors of the last run (--out)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mutant's verdict")
    args = ap.parse_args(argv)
    stats = {}
    if args.prove:
        return prove_survivors(args)
    if not args.list:
        # a snapshot of rtl/: the design may be edited while a run is going on
        snap = os.path.join(args.work, "rtl_snapshot")
        make_mutant_dir(None, snap, args.rtl)
        args.rtl = snap
    sites = enumerate_sites(args.rtl, args.module, stats)
    if args.list:
        for s in sites:
            print(f"{s.file}:{s.line}  {s.cls:<6} {_one_line(s.desc)}")
        per = Counter(s.module for s in sites)
        print(f"{len(sites)} sites: " + ", ".join(f"{m} {n}" for m, n in sorted(per.items())))
        print("unmapped AST events (no site made): " + json.dumps(stats.get("unmapped", {})))
        return 0
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    return run(args, sites, stats)


if __name__ == "__main__":
    sys.exit(main())
