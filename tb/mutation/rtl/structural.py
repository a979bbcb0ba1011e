"""Structural RTL mutation classes: widths, carries, register stages, bypasses, priorities.

These classes model real RTL bugs rather than single-token slips. Each site is still ONE
contiguous text edit of the original file, at a position found through the AST events of
sites.Walker (the `?` of a conditional, the `=` of a continuous assignment, an `if`, a
binary operator, a non-blocking `<=`), the extent of an operand found in the token stream
by operator precedence. Widths come from the module's declarations (token scan of
input/output/wire/reg [M:L] names, a port-list macro's ports among them); a width is
checked with the module's parameter defaults (a parameter-list macro's among them) and
the `define values of the .vh headers, but the edited text keeps M and L symbolic, so a
mutant stays right under another instance's parameters.

  narrow  the outermost `-` or `*` of an assignment whose target has a known width W > 1
          computed one bit narrow: `a - b` -> `({1'b0, {((M)-(L)){1'b1}}} & (a - b))`
          (the target's top bit is cleared); or a comparison operand (an identifier of
          known width > 1) with its top bit cleared the same way
  carry   the top bit of a sum dropped, the same edit on the outermost `+` of such an
          assignment (`{1'b0, sum[W-2:0]}`); the carry-in of a sum of three or more terms
          dropped (`a + b + cin` -> `a + b`, cin a 1-bit identifier or 1'b1); or the
          carry-out of a sum whose target is wider than its widest identifier operand
          dropped: `a + b` -> `({((M)-(L)+1){1'b1}} & (a + b))`, M:L that operand's range.
          (Dropping an operand's zero extension `{1'b0, x}` -> `x` was tried and removed:
          Verilog extends the operand to the context width anyway, all 8 were equivalent.)
  delay   a one-cycle register inserted on a continuous assignment whose target is a
          module output or a handshake/enable (..._en, _we, start, busy, last, done, valid,
          retire, issue), in a module with a clk: `assign x = e;` ->
          `reg [M:L] mut_dly_x = 0; always @(posedge clk) mut_dly_x <= (e); assign x = mut_dly_x;`
  bypass  a bypass removed: a conditional whose false arm reads a memory and whose
          condition compares addresses (ga2_sram's write-first path) -> the memory read;
          or a register stage removed: `assign x = r;` where r is written by exactly one
          unconditional `r <= e;` -> `assign x = (e);`
  prio    two adjacent arms of a priority chain swapped: `c1 ? a : c2 ? b : d` ->
          `c2 ? b : c1 ? a : d`, and `if (c1) s1 else if (c2) s2` -> `if (c2) s2 else if (c1) s1`
"""
import os
import re

from tb.mutation.rtl.tokenizer import tokenize
from tb.sim.files import macro_bodies

NEW_CLASSES = ("narrow", "carry", "delay", "bypass", "prio")
HANDSHAKE = re.compile(r"(_en|_we|start|busy|last|done|valid|retire|issue)$")

_PREC = {"**": 11, "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<<<": 8, ">>>": 8,
         "<": 7, "<=": 7, ">": 7, ">=": 7, "==": 6, "!=": 6, "===": 6, "!==": 6, "&": 5,
         "^": 4, "~^": 4, "^~": 4, "|": 3, "&&": 2, "||": 1}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_STOP = {",", ";", "?", ":", "=", "@", "#", "+:", "-:"}


def _operand_end_tok(t):
    return t.kind in ("id", "num", "macro") or t.text in _CLOSE


def _binary(toks, j):
    """Is the operator token toks[j] binary (preceded by an operand)?"""
    return j > 0 and _operand_end_tok(toks[j - 1])


def _match(toks, j, partner, ks):
    """The index of the bracket partner[toks[j].text] matching toks[j], scanning ks."""
    depth, this = 0, toks[j].text
    for k in ks:
        if toks[k].text == this:
            depth += 1
        elif toks[k].text == partner[this]:
            depth -= 1
            if depth == 0:
                return k
    raise ValueError("unbalanced brackets")


def _match_back(toks, j):
    return _match(toks, j, _CLOSE, range(j, -1, -1))


def _match_fwd(toks, j):
    return _match(toks, j, _OPEN, range(j, len(toks)))


def left_start(toks, i, prec, nba):
    """First token index of the left operand of the binary operator at toks[i] (precedence prec)."""
    j = i - 1
    while j >= 0:
        t = toks[j]
        if t.text in _CLOSE:
            j = _match_back(toks, j) - 1
            continue
        if t.text in _OPEN or t.text in _STOP or t.kind == "kw" or j in nba:
            break
        if t.kind == "op" and t.text in _PREC and _binary(toks, j) and _PREC[t.text] < prec:
            break
        j -= 1
    return j + 1


def right_end(toks, i, prec, cond=False):
    """Index after the last token of the operand starting at toks[i] (binary operators of
    precedence <= prec end it; cond: a conditional `? :` belongs to it)."""
    j, depth_q = i, 0
    while j < len(toks):
        t = toks[j]
        if t.text in _OPEN:
            j = _match_fwd(toks, j) + 1
            continue
        if cond and t.text == "?":
            depth_q += 1
            j += 1
            continue
        if cond and t.text == ":" and depth_q > 0:
            depth_q -= 1
            j += 1
            continue
        if t.text in _CLOSE or t.text in _STOP or t.kind == "kw":
            break
        if t.kind == "op" and t.text in _PREC and _binary(toks, j) and _PREC[t.text] <= prec:
            break
        j += 1
    return j


def cond_colon(toks, q):
    """Index of the `:` of the conditional whose `?` is toks[q]."""
    depth, j = 0, q + 1
    while j < len(toks):
        t = toks[j].text
        if t in _OPEN:
            j = _match_fwd(toks, j) + 1
            continue
        if t == "?":
            depth += 1
        elif t == ":":
            if depth == 0:
                return j
            depth -= 1
        elif t in (";", ",") or t in _CLOSE:
            return None
        j += 1
    return None


def stmt_end(toks, i):
    """Index after a procedural statement starting at toks[i] (a begin-end block or a simple
    statement up to its `;`); None for if/case/for statements."""
    t = toks[i]
    if t.text == "begin":
        depth = 0
        for k in range(i, len(toks)):
            if toks[k].text == "begin":
                depth += 1
            elif toks[k].text == "end":
                depth -= 1
                if depth == 0:
                    return k + 1
        return None
    if t.kind == "kw":
        return None
    depth = 0
    for k in range(i, len(toks)):
        x = toks[k].text
        if x in _OPEN:
            depth += 1
        elif x in _CLOSE:
            depth -= 1
        elif x == ";" and depth == 0:
            return k + 1
    return None


def swap_pairs(text, x1, y1, x2, y2):
    """Text of the region x1[0]..y2[1] with (x1, y1) and (x2, y2) exchanged (spans in order)."""
    def seg(a, b):
        return text[a:b]
    return (seg(*x2) + seg(x1[1], y1[0]) + seg(*y2) + seg(y1[1], x2[0]) + seg(*x1)
            + seg(x2[1], y2[0]) + seg(*y1))


# ------------------------------------------------------------------ declarations, widths
def declarations(toks):
    """{name: (msb text, lsb text) or None (1 bit), output?, memory?}; ambiguous names dropped."""
    out, bad = {}, set()
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "kw" and t.text in ("input", "output", "inout", "wire", "reg"):
            is_out = t.text == "output"
            j = i + 1
            while j < len(toks) and toks[j].text in ("wire", "reg", "signed"):
                j += 1
            rng = None
            if j < len(toks) and toks[j].text == "[":
                close = _match_fwd(toks, j)
                colon = None
                depth = 0
                for k in range(j + 1, close):
                    x = toks[k].text
                    if x in _OPEN:
                        depth += 1
                    elif x in _CLOSE:
                        depth -= 1
                    elif x == ":" and depth == 0:
                        colon = k
                if colon is None:
                    i = close + 1
                    continue
                rng = ((toks[j + 1].start, toks[colon - 1].end), (toks[colon + 1].start, toks[close - 1].end))
                j = close + 1
            while j < len(toks) and toks[j].kind == "id":
                name, mem = toks[j].text, False
                j += 1
                if j < len(toks) and toks[j].text == "[":
                    mem = True
                    j = _match_fwd(toks, j) + 1
                entry = (rng, is_out, mem)
                if name in out and out[name] != entry:
                    # an output port also declared reg: keep the output flag
                    old = out[name]
                    if old[0] is not None and rng is not None and old[0] != rng:
                        bad.add(name)
                    out[name] = (old[0] or rng, old[1] or is_out, old[2] or mem)
                else:
                    out[name] = entry
                if j < len(toks) and toks[j].text == "," and j + 1 < len(toks) and toks[j + 1].kind == "id":
                    j += 1
                    continue
                break
            i = j
            continue
        i += 1
    for n in bad:
        del out[n]
    return out


def _defines(rtl_dir):
    out = {}
    for fn in sorted(os.listdir(rtl_dir)):
        if fn.endswith(".vh"):
            for line in open(os.path.join(rtl_dir, fn)):
                m = re.match(r"\s*`define\s+(\w+)\s+([^/\n]+)", line)
                if m:
                    out[m.group(1)] = m.group(2).strip()
    return out


_PORT_RE = re.compile(r"(input|output|inout)\s+(?:wire|reg)?\s*(?:signed\s+)?(?:\[[^\]]*\]\s*)?(\w+)")


_PARAM_RE = re.compile(r"parameter\s+(\w+)\s*=\s*(.+)", re.S)


def _items(body):
    return [x.strip() for x in re.sub(r"/\*.*?\*/|//[^\n]*", " ", body, flags=re.S).split(",")]


def port_list(body):
    """[(direction, name)] when a macro's body is an ANSI port list (`GA2_VEC_PORTS), else []."""
    ports = [_PORT_RE.fullmatch(x) for x in _items(body)]
    return [(m.group(1), m.group(2)) for m in ports] if all(ports) else []


def param_list(body):
    """[(name, default text)] when a macro's body is a parameter list (`GA2_TOP_PARAMS), else []."""
    params = [_PARAM_RE.fullmatch(x) for x in _items(body)]
    return [(m.group(1), m.group(2).strip()) for m in params] if all(params) else []


def expand_decl_macros(toks, text, rtl_dir):
    """(tokens, text): toks with each use of a port-list or parameter-list macro replaced
    by the tokens of its body, appended to text (the declarations' ranges, and the
    parameters' defaults, are offsets into or text of the text returned)."""
    bodies = {f"`{n}": b for n, a, b in macro_bodies(rtl_dir)
              if b is not None and not a and (port_list(b) or param_list(b))}
    out = []
    for t in toks:
        if t.kind == "macro" and t.text in bodies:
            base = len(text) + 1
            text = text + "\n" + bodies[t.text]
            out += [b._replace(start=b.start + base, end=b.end + base, line=t.line)
                    for b in tokenize(bodies[t.text])]
        else:
            out.append(t)
    return out, text


def parameters(text):
    """{name: default expression}: each value runs to the first `,` `;` or newline outside
    parentheses, a comment, or an unmatched `)` (the end of a #( ... ) parameter list)."""
    out = {}
    for m in re.finditer(r"\b(?:parameter|localparam)\s+(?:integer\s+)?(?:\[[^\]]*\]\s*)?(\w+)\s*=\s*", text):
        depth, k = 0, m.end()
        while k < len(text):
            c = text[k]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif (c in ",;\n" and depth == 0) or text.startswith(("//", "/*"), k):
                break
            k += 1
        out[m.group(1)] = text[m.end():k].strip()
    return out


class Evaluator:
    """Constant expressions at the module's parameter defaults (None when not evaluable)."""

    def __init__(self, text, rtl_dir):
        self.params = parameters(text)
        self.macros = _defines(rtl_dir)

    def _param(self, name, depth):
        return _param_value(self, name, depth)

    def __call__(self, expr, depth=0):
        if depth > 8:
            return None
        expr = expr.strip()
        # c ? a : b at the top level (a width `(N > 1) ? $clog2(N) : 1`)
        q = _top_level(expr, "?")
        if q is not None:
            c = _top_level(expr[q + 1:], ":")
            if c is None:
                return None
            cond = self(expr[:q], depth + 1)
            if cond is None:
                return None
            return self(expr[q + 1:q + 1 + c] if cond else expr[q + 2 + c:], depth + 1)
        # $clog2(x): the width of the values 0 .. x-1 (Verilog-2005, as the RTL uses it)
        m = re.search(r"\$clog2\s*\(", expr)
        if m:
            end = _paren_end(expr, m.end() - 1)
            if end is None:
                return None
            x = self(expr[m.end():end], depth + 1)
            if x is None:
                return None
            return self(expr[:m.start()] + str(max(x - 1, 0).bit_length()) + expr[end + 1:], depth + 1)
        e = re.sub(r"`(\w+)", lambda m: f"({self.macros.get(m.group(1), 'None')})", expr)
        e = re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: f"({self._param(m.group(1), depth)})", e)
        if "None" in e:
            return None
        if re.search(r"[A-Za-z_`]", e):
            return self(e, depth + 1)
        if not re.fullmatch(r"[\d\s+\-*/()<>%]*", e):
            return None
        try:
            return int(eval(e.replace("/", "//")))    # digits and operators only
        except Exception:  # noqa: BLE001 -- any error of the constant expression means: no value
            return None


def _param_value(ev, name, depth):
    v = ev.params.get(name)
    r = None if v is None else ev(v, depth + 1)
    return "None" if r is None else str(r)


def _paren_end(s, i):
    """The index of the `)` closing the `(` at s[i] (None when unbalanced)."""
    depth = 0
    for k in range(i, len(s)):
        depth += {"(": 1, ")": -1}.get(s[k], 0)
        if depth == 0:
            return k
    return None


def _top_level(s, ch):
    """The index of the first ch outside parentheses in s (None when there is none)."""
    depth = 0
    for k, c in enumerate(s):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == ch and depth == 0:
            return k
    return None


def _width(decl, name, text, ev):
    d = decl.get(name)
    if d is None:
        return None, None
    rng = d[0]
    if rng is None:
        return 1, None
    msb, lsb = text[rng[0][0]:rng[0][1]], text[rng[1][0]:rng[1][1]]
    m, l_ = ev(msb), ev(lsb)
    return (None if m is None or l_ is None else abs(m - l_) + 1), (msb, lsb)


def _top_clear_mask(rng):
    msb, lsb = rng
    return f"{{1'b0, {{(({msb})-({lsb})){{1'b1}}}}}}"


def _ones_mask(rng):
    msb, lsb = rng
    return f"{{(({msb})-({lsb})+1){{1'b1}}}}"


def _tgt(ctx):
    for c in ctx:
        if c.startswith("tgt:"):
            return c[4:]
    return None


def _short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


# ------------------------------------------------------------------ the sites
def structural_sites(module, text, toks, located, rtl_dir, add, classes, skip_ctx):
    """Call add(line, cls, start, end, repl, desc) for each site of the classes wanted."""
    # the declarations and parameters, a port or parameter list macro's among them (dtext:
    # what their ranges index)
    dtoks, dtext = expand_decl_macros(toks, text, rtl_dir)
    ev = Evaluator(dtext, rtl_dir)
    decl = declarations(dtoks)
    nba_toks = {ti for e, ti in located if e.kind == "nba"}
    node_tok = {id(e.node): ti for e, ti in located if e.kind in ("if", "cond", "binop")}
    has_clk = "clk" in decl
    # registers written by exactly one NBA, for register-stage removal
    nba_count = {}
    for e, ti in located:
        if e.kind == "nba":
            n = _tgt(e.ctx)
            if n:
                nba_count[n] = nba_count.get(n, []) + [(e, ti)]

    def span(a, b):          # token index range [a, b) -> text offsets
        return toks[a].start, toks[b - 1].end

    def _carry_sites(e, ti):
        t = toks[ti]
        rn = e.node.right
        rname = type(rn).__name__
        # a carry-in: the last term of a sum of three or more, one bit wide
        one_bit = (rname == "IntConst" and re.fullmatch(r"1'[bdh]1", rn.value.replace(" ", ""))) or \
            (rname == "Identifier" and _width(decl, rn.name, dtext, ev)[0] == 1)
        if t.text == "+" and one_bit and type(e.node.left).__name__ in ("Plus", "Minus") \
                and right_end(toks, ti + 1, _PREC["+"]) == ti + 2:
            add(t.line, "carry", t.start, toks[ti + 1].end, "", f"carry-in dropped: + {toks[ti + 1].text}")
        # the carry-out of a sum whose target is wider than its widest (identifier) operand
        name = _tgt(e.ctx)
        if t.text == "+" and name and not e.ctx & {"sub", "inarith"}:
            w, _ = _width(decl, name, dtext, ev)
            widths = [_width(decl, o.name, dtext, ev) if type(o).__name__ == "Identifier" else (None, None)
                      for o in (e.node.left, e.node.right)]
            if w and all(x[0] for x in widths):
                ow, orng = max(widths, key=lambda x: x[0])
                if orng and w > ow:
                    a, b = left_start(toks, ti, 9, nba_toks), right_end(toks, ti + 1, 9)
                    s0, s1 = span(a, b)
                    orig = text[s0:s1]
                    add(t.line, "carry", s0, s1, f"({_ones_mask(orng)} & ({orig}))",
                        f"{name} = {_short(orig)}: carry-out dropped")

    def _delay_site(e, ti):
        t = toks[ti]
        name = _tgt(e.ctx)
        if not name or "generate" in e.ctx or name not in decl:
            return
        if not (decl[name][1] or HANDSHAKE.search(name)):
            return
        j = ti - 1
        while j >= 0 and not (toks[j].kind == "kw" and toks[j].text in ("assign", "wire", "reg")):
            if toks[j].text == ";" or (toks[j].kind == "kw" and toks[j].text != "signed"):
                return
            j -= 1
        end = stmt_end(toks, ti + 1)
        if j < 0 or end is None or toks[j].text == "reg":
            return
        w, rng = _width(decl, name, dtext, ev)
        rdecl = f"reg [{rng[0]}:{rng[1]}]" if rng else "reg"
        rhs = text[toks[ti + 1].start:toks[end - 2].end]
        head = text[toks[j].start:t.end]
        r = f"mut_dly_{name}"
        add(t.line, "delay", toks[j].start, toks[end - 1].end,
            f"{rdecl} {r} = 0; always @(posedge clk) {r} <= ({rhs}); {head} {r};",
            f"{name} = {_short(rhs)}: one cycle late")

    for e, ti in located:
        if e.ctx & skip_ctx:
            continue
        t = toks[ti]
        nt = type(e.node).__name__
        if e.kind == "binop" and nt in ("Plus", "Minus", "Times") and not e.ctx & {"sub", "inarith"}:
            # the outermost +, -, * of an assignment: its result one bit narrow; for a sum
            # that is the top bit (the carry into it) dropped: class carry
            cls = "carry" if nt == "Plus" else "narrow"
            name = _tgt(e.ctx)
            if name and cls in classes:
                w, rng = _width(decl, name, dtext, ev)
                if w is not None and w > 1 and rng:
                    p = _PREC[t.text]
                    a, b = left_start(toks, ti, p, nba_toks), right_end(toks, ti + 1, p)
                    s0, s1 = span(a, b)
                    orig = text[s0:s1]
                    add(t.line, cls, s0, s1, f"({_top_clear_mask(rng)} & ({orig}))",
                        f"{name} = {_short(orig)}: " +
                        ("top bit of the sum dropped" if cls == "carry" else "result one bit narrow"))
        if e.kind == "binop" and "narrow" in classes and t.text in ("<", "<=", ">", ">=", "==", "!="):
            for side, k in (("left", ti - 1), ("right", ti + 1)):
                opnd = getattr(e.node, side)
                if type(opnd).__name__ != "Identifier" or not (0 <= k < len(toks)):
                    continue
                ot = toks[k]
                if ot.text != opnd.name or (side == "right" and k + 1 < len(toks) and toks[k + 1].text == "["):
                    continue
                w, rng = _width(decl, opnd.name, dtext, ev)
                if w is not None and w > 1 and rng:
                    add(ot.line, "narrow", ot.start, ot.end, f"({_top_clear_mask(rng)} & {ot.text})",
                        f"{ot.text} in {t.text}: top bit dropped")
        if e.kind == "binop" and "carry" in classes and nt == "Plus":
            _carry_sites(e, ti)
        if e.kind == "assign" and "delay" in classes and has_clk:
            _delay_site(e, ti)
        if e.kind == "assign" and "bypass" in classes:
            name = _tgt(e.ctx)
            end = stmt_end(toks, ti + 1)
            if end == ti + 3 and toks[ti + 1].kind == "id":
                r = toks[ti + 1].text
                writes = nba_count.get(r, [])
                if len(writes) == 1 and "cond" not in writes[0][0].ctx:
                    we, wti = writes[0]
                    wend = stmt_end(toks, wti + 1)
                    if wend is not None:
                        rhs = text[toks[wti + 1].start:toks[wend - 2].end]
                        add(toks[ti + 1].line, "bypass", toks[ti + 1].start, toks[ti + 1].end, f"({rhs})",
                            f"register stage {r} removed: {name} = {_short(rhs)}")
        if e.kind == "cond":
            col = cond_colon(toks, ti)
            if col is None:
                continue
            fv = e.node.false_value
            if "bypass" in classes and type(fv).__name__ == "Pointer" and \
                    type(fv.var).__name__ == "Identifier" and decl.get(fv.var.name, (0, 0, False))[2] \
                    and "==" in text[toks[left_start(toks, ti, 0, nba_toks)].start:t.start]:
                a = left_start(toks, ti, 0, nba_toks)
                b = right_end(toks, col + 1, -1, cond=True)
                s0, s1 = span(a, b)
                add(t.line, "bypass", s0, s1, text[toks[col + 1].start:s1],
                    f"bypass removed: {_short(text[s0:t.start])} ? ... -> {_short(text[toks[col + 1].start:s1])}")
            if "prio" in classes and type(fv).__name__ == "Cond" and id(fv) in node_tok:
                q2 = node_tok[id(fv)]
                col2 = cond_colon(toks, q2)
                if col2 is None:
                    continue
                c1 = span(left_start(toks, ti, 0, nba_toks), ti)
                a1 = span(ti + 1, col)
                c2 = span(left_start(toks, q2, 0, nba_toks), q2)
                b2 = span(q2 + 1, col2)
                new = swap_pairs(text, c1, a1, c2, b2)
                add(t.line, "prio", c1[0], b2[1], new,
                    f"?: arms swapped: {_short(text[c1[0]:c1[1]], 30)} <-> {_short(text[c2[0]:c2[1]], 30)}")
        if e.kind == "if" and "prio" in classes and "proc" in e.ctx:
            inner = e.node.false_statement
            if type(inner).__name__ != "IfStatement" or id(inner) not in node_tok:
                continue
            if ti + 1 >= len(toks) or toks[ti + 1].text != "(":
                continue
            i2 = node_tok[id(inner)]
            if toks[i2 - 1].text != "else" or toks[i2 + 1].text != "(":
                continue
            p1 = _match_fwd(toks, ti + 1)
            p2 = _match_fwd(toks, i2 + 1)
            s1e, s2e = stmt_end(toks, p1 + 1), stmt_end(toks, p2 + 1)
            if s1e is None or s2e is None or toks[s1e].text != "else":
                continue
            c1, s1 = span(ti + 1, p1 + 1), span(p1 + 1, s1e)
            c2, s2 = span(i2 + 1, p2 + 1), span(p2 + 1, s2e)
            add(t.line, "prio", c1[0], s2[1], swap_pairs(text, c1, s1, c2, s2),
                f"if arms swapped: {_short(text[c1[0]:c1[1]], 30)} <-> {_short(text[c2[0]:c2[1]], 30)}")
