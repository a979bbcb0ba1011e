"""The text a module's mutation sites come from (tb/mutation/rtl/sites.py parses it).

A module's body may include a generated part of itself (an `include inside module ...
endmodule: ga2_decode's per-op checks, ga2_decode_ops.vh; ga2_top's vector units,
ga2_units.vh): expand_body_includes puts it in place, and to_source names a site found
there by the included file and its own line. The simulation-only regions (sim_only_spans:
checkers of the test bench inside the design) hold no site.
"""
import os
import re

from tb.sim.files import rtl_files

_INCLUDE_RE = re.compile(r'^[ \t]*`include[ \t]+"([^"]+)"[^\n]*', re.M)
_MODULE_RE = re.compile(r"^[ \t]*(module|endmodule)\b", re.M)


def body_includes(text):
    """[(start, end, name)] of text's `include lines inside a module's body (between
    `module` and `endmodule`): a generated part of that module, not a header of macros."""
    marks = [(m.start(), m.group(1)) for m in _MODULE_RE.finditer(text)]
    out = []
    for m in _INCLUDE_RE.finditer(text):
        last = [kind for pos, kind in marks if pos < m.start()]
        if last and last[-1] == "module":
            out.append((m.start(), m.end(), m.group(1)))
    return out


def expand_body_includes(fn, text, rtl_dir):
    """(expanded text, pieces) of file fn: each body include's line replaced by the included
    file's text (its last newline dropped); pieces [(start, end, file, offset)] cover the
    expanded text, each span taken from file at offset (to name a site by its own file)."""
    out, pieces, pos, at = [], [], 0, 0
    for a, b, name in body_includes(text):
        with open(os.path.join(rtl_dir, name)) as f:
            inc = f.read().rstrip("\n")
        for piece, src, off in ((text[pos:a], fn, pos), (inc, name, 0)):
            pieces.append((at, at + len(piece), src, off))
            out.append(piece)
            at += len(piece)
        pos = b
    pieces.append((at, at + len(text) - pos, fn, pos))
    out.append(text[pos:])
    return "".join(out), pieces


def body_include_owners(rtl_dir):
    """{included file: the module whose body includes it} (expand_body_includes)."""
    out = {}
    for p in rtl_files(rtl_dir):
        for _a, _b, name in body_includes(p.read_text()):
            out[name] = p.stem
    return out


def to_source(site, pieces, texts):
    """site (offsets and line in the expanded text) named by the file its text comes from,
    or None when it spans two files."""
    for a, b, src, off in pieces:
        if a <= site.start <= b and site.end <= b and (site.start < b or site.end == site.start == b):
            start, end = off + site.start - a, off + site.end - a
            line = texts[src].count("\n", 0, start) + 1
            return site._replace(file=src, start=start, end=end, line=line)
    return None


def sim_only_spans(text):
    """[(start, end)] of the simulation-only regions of a file (`synthesis translate_off`
    to `translate_on`, and `` `ifndef SYNTHESIS`` to its `` `endif``): checkers of the test
    bench inside the design (e.g. ga2_sp_xbar's missed-hazard check), not chip logic, so
    no mutation site lies in them; a checker is tested by the tests that show it fire on a
    broken chip."""
    out, pos = [], 0
    while True:
        a = text.find("synthesis translate_off", pos)
        if a < 0:
            break
        b = text.find("synthesis translate_on", a)
        b = len(text) if b < 0 else b
        out.append((a, b))
        pos = b + 1
    for m in re.finditer(r"`ifndef\s+SYNTHESIS\b", text):
        depth = 0
        for d in re.finditer(r"`(ifdef|ifndef|endif)\b", text[m.end():]):
            if d.group(1) != "endif":
                depth += 1
            elif depth:
                depth -= 1
            else:
                out.append((m.start(), m.end() + d.end()))
                break
        else:
            out.append((m.start(), len(text)))
    return sorted(out)
