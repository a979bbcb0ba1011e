"""Mutation sites of the GA-2 Verilog: pyverilog walk, site classes, literal variants, mutant dirs.

pyverilog parses every file of rtl/ga2.f; Walker records the AST events (operators,
literals, `if`, `<=`) in source order with their context; each event is located in the
ORIGINAL text through tokenizer.py (the k-th event of a kind on a line is the k-th token
of that kind on that line; a line where the counts disagree yields no site of that kind,
counted as "unmapped"). A Site is one textual change at that position; make_mutant_dir
writes it into a copy of rtl/.

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
checks), generate and procedural for-loop headers, generate ifs, the generated tables' case
statements (TABLES: ga2_exp_lut, ga2_sig_lut, ga2_exp2_lut).

The text parsed is the module's with its body includes in place (tb/mutation/rtl/source.py),
a site found there named by the included file; simulation-only regions hold no site.
"""
import os
import re
import shutil
import tempfile
from collections import defaultdict, namedtuple

from tb import ROOT
from tb.mutation.rtl import structural
from tb.mutation.rtl.source import expand_body_includes, sim_only_spans, to_source
from tb.mutation.rtl.structural import NEW_CLASSES, structural_sites
from tb.mutation.rtl.tokenizer import match_paren, stmt_bounds, tokenize
from tb.sim.files import macro_bodies, rtl_files
from tb.sim.process import ToolFault

RTL_DIR = os.path.join(ROOT, "rtl")


def one_line(text):
    """text with every run of whitespace made one space (how a change or a code line is keyed)."""
    return " ".join(text.split())


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
_SHIFTS = {"Sll", "Srl", "Sla", "Sra"}
_SELF_SIZED = {"LessThan", "GreaterThan", "LessEq", "GreaterEq", "Eq", "NotEq", "Eql", "NotEql"}
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


def _target(node):
    """{"tgt:NAME"} when an assignment's left side is a plain identifier (structural classes)."""
    v = getattr(node.left, "var", node.left)
    return {"tgt:" + v.name} if type(v).__name__ == "Identifier" else set()


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
            # operands of an arithmetic operator: not the outermost result (structural.py);
            # nor are a comparison's operands or a shift amount (their width is not the
            # assignment target's, so narrowing them to it would change nothing)
            sub = ctx | {"inarith"} if name in ("Plus", "Minus", "Times") else ctx
            if name in _SELF_SIZED:
                sub = ctx | {"sub"}
            self.walk(node.left, sub)
            self.ev(None, _BINOPS[name], "binop", node, ctx)     # line fixed later
            self.walk(node.right, sub | ({"sub"} if name in _SHIFTS else set()))
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
            self.walk(node.msb, ctx | {"sub"})
            self.ev(_last_line(node.msb), "+:" if type(lsb).__name__ == "Plus" else "-:", "idx", lsb, ctx)
            self.walk(lsb.right, ctx | {"width"})
            return
        self.walk(node.msb, ctx | {"width"})
        self.walk(node.lsb, ctx | {"width"})

    def w_Pointer(self, node, ctx):
        self.walk(node.var, ctx)
        self.walk(node.ptr, ctx | {"sub"})      # an index: not the assignment's result

    def w_Concat(self, node, ctx):
        for c in node.list:
            self.walk(c, ctx | {"sub"})

    def w_FunctionCall(self, node, ctx):
        self.walk(node.name, ctx)
        for c in node.args:
            self.walk(c, ctx | {"sub"})

    def w_Cond(self, node, ctx):
        self.walk(node.cond, ctx)
        self.ev(_last_line(node.cond), "?", "cond", node, ctx)
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
        self.walk(node.true_statement, ctx | {"cond"})
        self.walk(node.false_statement, ctx | {"cond"})

    def w_NonblockingSubstitution(self, node, ctx):
        ctx = ctx | _target(node)
        self.walk(node.left, ctx | {"lhs"})
        self.ev(node.lineno, "<=", "nba", node, ctx)
        self.walk(node.right, ctx)

    def w_BlockingSubstitution(self, node, ctx):
        ctx = ctx | _target(node)
        self.walk(node.left, ctx | {"lhs"})
        self.walk(node.right, ctx)

    def w_Assign(self, node, ctx):
        ctx = ctx | _target(node)
        self.walk(node.left, ctx | {"lhs"})
        self.ev(_last_line(node.left), "=", "assign", node, ctx)
        self.walk(node.right, ctx)

    def w_CaseStatement(self, node, ctx):
        ctx = ctx | {"case", "cond"}
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
# the generated tables (tools/flow/exp_lut.py, sig_lut.py): their case items are checked
# against their formulas by their own tests, not mutated
TABLES = {"ga2_exp_lut", "ga2_sig_lut", "ga2_exp2_lut"}


def _isa_defines(rtl_dir):
    """`define NAME from the .vh headers, each mapped to a placeholder for parsing: an
    identifier, or for a macro with arguments a system task (`NAME(args); parses as a
    `$`-task call, whose arguments hold no site), or for a macro without arguments of
    several lines one line on the line of its use: a port list (`GA2_VEC_PORTS) its
    ports without their ranges, a parameter list (`GA2_TOP_PARAMS) its parameters with
    placeholder defaults, else (the declarations of an op's fields, `GA2_<OP>_FIELDS) one
    wire declaration (declarations hold no site)."""
    out = []
    for name, args, body in macro_bodies(rtl_dir):
        if name.endswith("_VH"):
            continue
        if body is not None and not args:
            ports, params = structural.port_list(body), structural.param_list(body)
            out.append(f"{name}=" + (", ".join(f"{d} wire {n}" for d, n in ports) if ports
                                     else ", ".join(f"parameter {n} = MUTMACRO_{n}" for n, _ in params) if params
                                     else f"wire MUTMACRO_{name};"))
        else:
            out.append(f"{name}={'$' if args else ''}MUTMACRO_{name}")
    return out


_PARSER = {}


def _parser():
    """One pyverilog parser for every file (building its LALR tables costs seconds)."""
    if "p" not in _PARSER:
        import contextlib
        import io

        from pyverilog.vparser.parser import VerilogParser
        tabdir = os.path.join(tempfile.gettempdir(), "mut_rtl_pyverilog")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            _PARSER["p"] = VerilogParser(outputdir=tabdir, debug=False)
    return _PARSER["p"]


def parse_file(path, rtl_dir, text=None):
    """pyverilog AST of one file (text: its text, if not the file's own), line numbers those
    of that text.

    pyverilog preprocesses with iverilog -E. The `include line is blanked and the
    header's macros are passed as -D placeholders (identifiers; `$`-task names for macros
    with arguments), so line numbers are not shifted and a macro never looks like a literal.
    """
    from pyverilog.vparser.preprocessor import preprocess
    text = open(path).read() if text is None else text
    blank = re.sub(r"^[ \t]*`include[^\n]*", "", text, flags=re.M)
    # pyverilog 1.3 has no `function integer` / `input integer`: parse them as [31:0]
    blank = re.sub(r"\b(function|input)(\s+)integer\b", r"\1\2[31:0]", blank)
    with tempfile.TemporaryDirectory() as td:
        tmp = os.path.join(td, os.path.basename(path))
        with open(tmp, "w") as f:
            f.write(blank)
        try:
            pp = preprocess([tmp], output=os.path.join(td, "pp.out"), include=[rtl_dir],
                            define=_isa_defines(rtl_dir))
        except OSError as e:    # iverilog missing or broken: a fault of the tools, not of the design
            raise ToolFault(f"iverilog -E (pyverilog's preprocessor) gave no output for {path}: "
                            f"{type(e).__name__}: {e}") from None
    parser = _parser()
    parser.lexer.reset_lineno()
    try:
        ast = parser.parse(pp)
    except Exception as e:  # noqa: BLE001 -- whatever pyverilog's parser raises, the file is named in one ValueError
        raise ValueError(f"pyverilog cannot parse {path}: {e}") from None
    return ast, text


DEFAULT_CLASSES = ("arith", "cmp", "logic", "const", "if", "nba", "timing")
ALL_CLASSES = DEFAULT_CLASSES + NEW_CLASSES


def parse_classes(spec):
    """--classes: None/''/'token' -> the token classes, 'all' -> every class, else a comma list."""
    if not spec or spec == "token":
        return DEFAULT_CLASSES
    if spec == "all":
        return ALL_CLASSES
    out = tuple(c.strip() for c in spec.split(",") if c.strip())
    bad = [c for c in out if c not in ALL_CLASSES]
    if bad:
        raise ValueError(f"unknown mutation class(es) {bad}; known: {', '.join(ALL_CLASSES)}")
    return out


def _zero_localparam(text, name):
    """True when name is a localparam of this module's text defined as a zero literal."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    return re.search(rf"\blocalparam\b[^;]*\b{name}\s*=\s*(\d*'[bdh]0+|0|\{{\w+\{{1'b0\}}\}})\s*[,;]", text) is not None


def enumerate_sites(rtl_dir=RTL_DIR, modules=None, stats=None, classes=DEFAULT_CLASSES):
    """All mutation sites of the classes wanted in the files of rtl_dir/ga2.f, in file-name
    and text order (the default: the token classes; structural.NEW_CLASSES with classes=ALL)."""
    sites = []
    stats = {} if stats is None else stats
    for fn in sorted(p.name for p in rtl_files(rtl_dir)):
        module = fn[:-2]
        if modules and module not in modules:
            continue
        path = os.path.join(rtl_dir, fn)
        own = open(path).read()
        text, pieces = expand_body_includes(fn, own, rtl_dir)
        ast, text = parse_file(path, rtl_dir, text)
        spans = sim_only_spans(text)
        found = _file_sites(fn, module, ast, text, stats, classes, rtl_dir)
        kept = [s for s in found if not any(a <= s.start < b for a, b in spans)]
        stats.setdefault("sim_only", {})[module] = len(found) - len(kept)
        if len(pieces) > 1:
            texts = {src: (own if src == fn else open(os.path.join(rtl_dir, src)).read())
                     for _a, _b, src, _o in pieces}
            named = [to_source(s, pieces, texts) for s in kept]
            stats.setdefault("across_files", {})[module] = named.count(None)
            kept = [s for s in named if s is not None]
        sites.extend(kept)
    return _told_apart(sites)


def _told_apart(sites):
    """The sites, each one whose file, line, class and description another site of its line
    shares (three `> x -> > x+1` on one line of three compares) with " [k of n on the
    line]" after its description (k in text order): the equivalents list
    (tb/mutation/rtl/equivalents.py) names a mutant by its line's code and its change, and
    one entry must not cover its neighbours."""
    groups = defaultdict(list)
    for i, s in enumerate(sites):
        groups[(s.file, s.line, s.cls, s.desc)].append(i)
    out = list(sites)
    for idx in groups.values():
        if len(idx) > 1:
            for k, i in enumerate(sorted(idx, key=lambda j: sites[j].start), 1):
                out[i] = out[i]._replace(desc=f"{sites[i].desc} [{k} of {len(idx)} on the line]")
    return out


def _file_sites(fn, module, ast, text, stats, classes=DEFAULT_CLASSES, rtl_dir=RTL_DIR):
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
        if repl != orig and cls in classes:
            sites.append(Site(fn, module, line, cls, start, end, repl, orig, desc))

    for e, ti in located:
        if e.ctx & _NO_SITE_CTX:
            continue
        if module in TABLES and "case" in e.ctx:
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
                for _d, v in literal_variants(nt.text):
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
            for _d, v in literal_variants(t.text):
                add(t.line, "const", t.start, t.end, v, f"{t.text} -> {v}")
        elif e.kind == "if":
            if ti + 1 >= len(toks) or toks[ti + 1].text != "(":
                continue
            close = match_paren(toks, ti + 1)
            a, b = toks[ti + 1].end, toks[close].start
            inner = text[a:b]
            add(t.line, "if", a, b, f"!({inner})", f"if ({inner.strip()}) -> if (!({inner.strip()}))")
        elif e.kind == "nba":
            first, last = stmt_bounds(toks, ti)
            s0, s1 = toks[first].start, toks[last].end
            stmt = text[s0:s1]
            add(t.line, "nba", s0, s1, ";", f"removed: {stmt}")
            rhs = text[t.end:toks[last].start].strip()
            # not when the value is already zero: a zero literal, or a localparam defined
            # as zero (state_q <= S_IDLE with S_IDLE = 3'd0 would be the same text's value)
            if not re.fullmatch(r"(\d*'[bdh]0+|0|\{[\w()+\-*]+\{1'b0\}\})", rhs.replace(" ", "")) \
                    and not _zero_localparam(text, rhs):
                add(t.line, "nba", t.end, toks[last].start, " 0", f"stuck at 0: {stmt}")
    if set(classes) & set(NEW_CLASSES):
        structural_sites(module, text, toks, located, rtl_dir, add, classes,
                         _NO_SITE_CTX | ({"case"} if module in TABLES else set()))
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

