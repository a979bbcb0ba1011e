"""The Verilog tokenizer of the RTL mutation tool: where in the original text a token is.

pyverilog's AST only tells a node's line; the mutation sites (sites.py) find the column
by matching the k-th AST event of a kind on a line with the k-th token of that kind on
that line of this independent tokenizer. Comments, strings and directive lines are
dropped; a macro use is one token.
"""
import re
from collections import namedtuple

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


def match_paren(toks, i):
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


def stmt_bounds(toks, i):
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
