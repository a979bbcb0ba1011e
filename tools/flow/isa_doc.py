"""docs/isa.md's tables of the operations, generated from their records (model/ops).

Three blocks of docs/isa.md are written here and nowhere else, each between the markers
`<!-- generated: NAME -->` and `<!-- end generated: NAME -->`:

  encoding   op, opcode, fields (width; the scratchpad or external range a field starts)
  timing     op, timing unit, RTL unit, busy cycles (per timing mode when they differ)
  ranges     op, the scratchpad and external ranges it reads and writes, its shape checks

`python -m tools.flow.isa_doc` rewrites them; `--check` exits 1 when one is stale
(tests/flow/test_isa_header.py runs it, as for the RTL headers).
"""
import re
import sys

from model import ops
from model.ops import expr
from tb import ROOT, cli
from tools.flow.generated import write_or_check

DOC = ROOT / "docs" / "isa.md"


def _field_note(rec, name):
    """What a field is, from the record's ranges: the memory and the words it starts."""
    for r in rec.ranges:
        if r.base == name:
            where = "scratchpad" if r.space == ops.SP else "external"
            verb = ("reads" if r.rd is True else f"reads with {r.rd}" if r.rd else "") + \
                (" and writes" if r.rd and r.wr else "writes" if r.wr else "")
            return f"{where}, {verb} {expr.lift(r.extent)!r}"
    return ""


def encoding():
    rows = ["| op | code | fields (width; what a field starts) |", "|---|---|---|"]
    for rec in ops.TABLE.values():
        fields = ", ".join(f"{n} ({w}" + (f"; {_field_note(rec, n)}" if _field_note(rec, n) else "") + ")"
                           for n, w in rec.fields) or "none"
        rows.append(f"| {rec.name} | {rec.code} | {fields} |")
    return "\n".join(rows)


def timing():
    rows = ["| op | unit | RTL unit | busy cycles (in-order) | busy cycles (overlap) |", "|---|---|---|---|---|"]
    for rec in ops.TABLE.values():
        ino, ovl = repr(rec.busy_expr("inorder")), repr(rec.busy_expr("overlap"))
        rows.append(f"| {rec.name} | {rec.unit or 'none'} | {rec.module or '-'} | {ino} | "
                    f"{'same' if ovl == ino else ovl} |")
    return "\n".join(rows)


def ranges():
    rows = ["| op | summary | shape (fault 4) | reads | writes |", "|---|---|---|---|---|"]
    for rec in ops.TABLE.values():
        shape = ", ".join(f"{s.lo!r} <= {s.field}" + (f" <= {s.hi!r}" if s.hi is not None else "")
                          for s in rec.shape) or "-"

        def rng(r):
            return f"{r.space} {r.base} .. +{expr.lift(r.extent)!r}"
        rd = ", ".join(rng(r) + (f" (when {r.rd})" if isinstance(r.rd, str) else "")
                       for r in rec.ranges if r.rd) or "-"
        wr = ", ".join(rng(r) for r in rec.ranges if r.wr) or "-"
        cells = [rec.name, rec.summary, shape, rd, wr]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)


BLOCKS = {"encoding": encoding, "timing": timing, "ranges": ranges}


def render(text):
    """text with every generated block replaced by its current content; ValueError when a
    block's markers are missing."""
    for name, fn in BLOCKS.items():
        pat = re.compile(rf"(<!-- generated: {name} -->\n)(?:.*?\n)?(<!-- end generated: {name} -->)", re.S)
        if not pat.search(text):
            raise ValueError(f"{DOC.name}: no block <!-- generated: {name} --> ... <!-- end generated: {name} -->")
        text = pat.sub(lambda m, fn=fn: m.group(1) + fn() + "\n" + m.group(2), text)
    return text


def main(argv=None):
    ap = cli.Parser(prog="tools.flow.isa_doc", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/isa.md's generated tables are stale")
    args = ap.parse_args(argv)
    old = DOC.read_text()
    try:
        new = render(old)
    except ValueError as e:
        print(f"tools.flow.isa_doc: {e}", file=sys.stderr)
        return 2
    return write_or_check(DOC, new, args.check, "python -m tools.flow.isa_doc")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
