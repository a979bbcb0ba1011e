"""rtl/ga2_decode_ops.vh from the operation records (model/ops): the body of ga2_decode,
every op's field wires, shape and range checks (faults 4, 2, 3), the units it selects and
the scratchpad ranges the overlap mode's hazard check reserves (read slots rd0, rd1, ..
packed into rd_v / rd_first / rd_last, and wr).

The range arithmetic is unsigned, each wire as wide as its largest value for a shape-valid
instruction (expr.interval over the fields' widths and shape limits and the largest
Config; past a shape limit the instruction faults 4 before any range check), each operand
zero-extended to it: no sum wraps, a range reaching past a memory faults, and every
wire's top bit is reachable (an RTL mutant dropping it is a real bug, not an equivalent).
Every extent and sum stays below 2^31 (_check_bounds). tools/flow/headers.py writes the
file; tb/stimulus/edges.py top_bit_faults reads range_widths().
"""
from . import config, ops
from .ops import expr
from .rtl import GENERATED, W, hazard_ranges, modules, num_rd, ops_of, unit_macro

# the Config properties an expression may name, as 32-bit localparams of the generated code
PARAM_DECLS = {
    "sp_words": "localparam [31:0] GA2P_SP_WORDS = SP_WORDS;",
    "ext_words": "localparam [31:0] GA2P_EXT_WORDS = EXT_WORDS;",
    "array": "localparam [31:0] GA2P_ARRAY = `GA2_ARRAY;",
    "sm_max_len": "localparam [31:0] GA2P_SM_MAX_LEN = SM_MAX_LEN;",
    "mm_fill": "localparam [31:0] GA2P_MM_FILL = `GA2_MM_FILL;",
    "sm_div_cycles": "localparam [31:0] GA2P_SM_DIV_CYCLES = `GA2_SM_DIV_CYCLES;",
}
PARAM_NAMES = {k: f"GA2P_{k.upper()}" for k in PARAM_DECLS}
# the largest value of each Config property (the bounds check of the range arithmetic)
PARAM_MAX = {"sp_words": 1 << ops.ADDR_W, "ext_words": 1 << config.EXT_ADDR_W,
             "array": 4, "sm_max_len": config.SM_LEN_LIMIT, "mm_fill": 7, "sm_div_cycles": 34}


def field_wire(op, name):
    """The wire of a field in the generated code, as wide as the field: <op>_<field> (lower case)."""
    return f"{op.lower()}_{name.lower()}"


def field_decls(rec, names, src="instr"):
    """Declarations of wires of rec's fields `names` from `src`, each as wide as its field."""
    w = rec.widths
    out = []
    for n in names:
        key = f"`GA2_{rec.name}_{n.upper()}"
        out.append(f"  wire [{w[n] - 1}:0] {field_wire(rec.name, n)} = {src}[{key}_LSB +: {key}_W];")
    return out


def _bits(v):
    """The bits of the unsigned value v (at least 1)."""
    return max(1, int(v).bit_length())


def _ext(text, have, width):
    """Verilog of a `have`-bit value zero-extended to `width` bits."""
    if have > width:
        raise ValueError(f"{text}: {have} bits do not fit {width}")
    return text if have == width else f"{{{width - have}'d0, {text}}}"


def shape_caps(rec):
    """{field: its largest shape-valid value} of rec's fields whose shape check has an
    upper bound (a constant or a Config property at its largest): an instruction past it
    faults with code 4 before any range check, so no range sum of it needs more."""
    return {s.field: expr.bound(s.hi, rec.widths, PARAM_MAX) for s in rec.shape if s.hi is not None}


def shape_lows(rec):
    """{field: its smallest shape-valid value} of rec's fields whose shape check has a
    constant lower bound."""
    return {s.field: s.lo for s in rec.shape if isinstance(s.lo, int)}


def _bound(rec, e):
    """The largest value of e on rec's shape-valid fields and the largest Config (expr.bound)."""
    return expr.bound(e, rec.widths, PARAM_MAX, shape_caps(rec), shape_lows(rec))


def _width(rec, e):
    """The bits of e's largest value on rec's shape-valid fields and the largest Config."""
    return _bits(_bound(rec, e))


def _vw(rec, e, width):
    """Verilog of an expression of rec's fields in `width`-bit unsigned arithmetic: each
    field wire zero-extended to `width` bits, constants `width`-bit literals, a Config
    property its GA2P_ localparam's low `width` bits. Exact when `width` holds the
    expression's bound (every sum, product and difference of a valid instruction is then
    its value modulo 2^width, and that value lies below 2^width)."""
    e = expr.lift(e)
    if isinstance(e, expr.Field):
        have = rec.widths[e.name]
        if have > width:                    # a shape-capped field: its low bits (past the cap: fault 4)
            return f"{field_wire(rec.name, e.name)}[{width - 1}:0]"
        return _ext(field_wire(rec.name, e.name), have, width)
    if isinstance(e, expr.Const):
        if e.value >= 1 << width:
            raise ValueError(f"{rec.name}: the constant {e.value} does not fit {width} bits")
        return f"{width}'d{e.value}"
    if isinstance(e, expr.Param):
        if PARAM_MAX[e.name] >= 1 << width:
            raise ValueError(f"{rec.name}: {e.name} may not fit {width} bits")
        return PARAM_NAMES[e.name] if width == W else f"{PARAM_NAMES[e.name]}[{width - 1}:0]"
    if isinstance(e, expr.Bin):
        return f"({_vw(rec, e.a, width)} {e.op} {_vw(rec, e.b, width)})"
    if isinstance(e, expr.Cond):
        flag = field_wire(rec.name, e.flag)
        return (f"(({flag} != {rec.widths[e.flag]}'d0) ? {_vw(rec, e.then, width)} : "
                f"{_vw(rec, e.other, width)})")
    raise TypeError(f"not an expression: {e!r}")


def _cmp_width(rec, field, e):
    """The width of a shape compare of a field with the bound e: both fit, a Config
    property at its localparam's 32 bits."""
    if expr.params_of(e):
        return W
    return max(rec.widths[field], _width(rec, e))


def _first_max(rec, r):
    """The largest first word of a range: its base field's (EXT: with xhi * 2^16 above it)."""
    top = (1 << rec.widths[r.base]) - 1
    if r.space == ops.EXT and "xhi" in rec.widths:
        top += ((1 << rec.widths["xhi"]) - 1) << ops.ADDR_W
    return top


def range_widths(rec):
    """[(span bits, end bits)] of each of rec's ranges: the widths of the decoder's
    <op>_span<k> and <op>_end<k> wires (decode_body)."""
    return [(_width(rec, r.extent), _bits(_first_max(rec, r) + _bound(rec, r.extent))) for r in rec.ranges]


def _first(rec, r, width):
    """Verilog of a range's first word in `width` bits: the base field (EXT: xhi * 2^16
    above it)."""
    base = _ext(field_wire(rec.name, r.base), rec.widths[r.base], width)
    if r.space == ops.EXT and "xhi" in rec.widths:
        xhi = _ext(field_wire(rec.name, "xhi"), rec.widths["xhi"], width)
        return f"(({xhi} << {ops.ADDR_W}) + {base})"
    return base


def _used_fields(rec):
    names = set()
    for s in rec.shape:
        names |= {s.field} | set(expr.fields_of(expr.lift(s.lo)))
        if s.hi is not None:
            names |= set(expr.fields_of(expr.lift(s.hi)))
    for r in rec.ranges:
        names |= {r.base} | set(expr.fields_of(r.extent))
        if r.space == ops.EXT and "xhi" in rec.widths:
            names.add("xhi")
    return [n for n, _ in rec.fields if n in names]


def _check_bounds(rec):
    """ValueError unless every extent and range sum of rec stays below 2^31."""
    widths = rec.widths
    for r in rec.ranges:
        top = expr.bound(r.extent, widths, PARAM_MAX) + (1 << widths[r.base])
        if r.space == ops.EXT and "xhi" in widths:
            top += 1 << (ops.ADDR_W + widths["xhi"])
        if top >= 1 << (W - 1):
            raise ValueError(f"{rec.name}: the range at {r.base} may reach {top}, past 32-bit arithmetic")


def decode_body():
    """The text of rtl/ga2_decode_ops.vh (the body of ga2_decode, see its header)."""
    T = ops.TABLE
    out = [GENERATED,
           "// The per-op part of ga2_decode (rtl/ga2_decode.v includes it in its body): every",
           "// op's field wires, its shape check (fault 4), its scratchpad and external range",
           "// checks (faults 2 and 3: first + extent past the memory), the units it starts and",
           "// its scratchpad ranges for ga2_hazard. Every wire is as wide as its largest value",
           "// (its top bit reachable), each operand zero-extended to it.",
           "  /* verilator lint_off UNUSEDSIGNAL */",
           "  // the range sums' high bits only reach the compares; the hulls take the low ADDR_W"]
    need = set()
    for rec in T.values():
        for e in [s.lo for s in rec.shape] + [s.hi for s in rec.shape if s.hi is not None] + \
                 [r.extent for r in rec.ranges]:
            need |= expr.params_of(e)
    need |= {"sp_words", "ext_words"}
    out += ["  " + PARAM_DECLS[k] for k in PARAM_DECLS if k in need]
    out += ["  wire [`GA2_OP_W-1:0] op = instr[`GA2_OP_W-1:0];", ""]
    out.append("  wire [`GA2_XOP_W-1:0] xop = instr[`GA2_OP_W +: `GA2_XOP_W];")
    for rec in T.values():
        if rec.code < ops.EXT_BASE:
            out.append(f"  wire is_{rec.name.lower()} = (op == `GA2_OP_{rec.name});")
        else:
            out.append(f"  wire is_{rec.name.lower()} = (op == `GA2_OP_EXT) && (xop == `GA2_XOP_{rec.name});")
    out.append("")
    for rec in T.values():
        out.append(f"  assign op_oh[`GA2_OPI_{rec.name}] = is_{rec.name.lower()};")
    codes = {r.code for r in T.values()}
    for c in range(1, max(codes) + 1):
        if c not in codes:
            out.append(f"  assign op_oh[{c - 1}] = 1'b0;   // opcode {c}: unassigned")
    out += ["  wire op_ok = |op_oh;", ""]
    for m in modules():
        terms = " | ".join(f"is_{r.name.lower()}" for r in ops_of(m))
        out.append(f"  assign unit_sel[`{unit_macro(m)}] = {terms};")
    for u in ops.UNITS:
        terms = " | ".join(f"is_{r.name.lower()}" for r in T.values() if r.unit == u) or "1'b0"
        out.append(f"  assign tunit_sel[`GA2_T_{u.upper()}] = {terms};")
    out.append("")
    shape, spb, extb = [], [], []
    nrd = num_rd()
    hz = {**{f"rd{k}": [] for k in range(nrd)}, "wr": []}
    for rec in T.values():
        _check_bounds(rec)
        op = rec.name.lower()
        used = _used_fields(rec)
        if not used:
            continue
        out.append(f"  // {rec.name}")
        out += field_decls(rec, used)
        conds = []
        for s in rec.shape:
            for cmp, e in (("<", s.lo), (">", s.hi)):
                if e is None:
                    continue
                cw = _cmp_width(rec, s.field, expr.lift(e))
                x = _ext(field_wire(rec.name, s.field), rec.widths[s.field], cw)
                conds.append(f"({x} {cmp} {_vw(rec, expr.lift(e), cw)})")
        if conds:
            out.append(f"  wire {op}_shape_bad = {' || '.join(conds)};")
            shape.append(f"(is_{op} && {op}_shape_bad)")
        sp_c, ext_c = [], []
        for k, r in enumerate(rec.ranges):
            n = f"{op}_span{k}"
            ws, we = range_widths(rec)[k]
            out.append(f"  wire [{ws - 1}:0] {n} = {_vw(rec, r.extent, ws)};")
            out.append(f"  wire [{we - 1}:0] {op}_end{k} = {_first(rec, r, we)} + {_ext(n, ws, we)};     "
                       f"// one past the last word of {r.base}'s range")
            size = "sp_words" if r.space == ops.SP else "ext_words"
            cw = max(we, _bits(PARAM_MAX[size]))
            lim = PARAM_NAMES[size] if cw == W else f"{PARAM_NAMES[size]}[{cw - 1}:0]"
            (sp_c if r.space == ops.SP else ext_c).append(f"({_ext(f'{op}_end{k}', we, cw)} > {lim})")
        if sp_c:
            out.append(f"  wire {op}_sp_bad = {' || '.join(sp_c)};")
            spb.append(f"(is_{op} && {op}_sp_bad)")
        if ext_c:
            out.append(f"  wire {op}_ext_bad = {' || '.join(ext_c)};")
            extb.append(f"(is_{op} && {op}_ext_bad)")
        rd, wr = hazard_ranges(rec)
        for slot, r in [(f"rd{k}", x) for k, x in enumerate(rd)] + ([("wr", wr)] if wr else []):
            k = rec.ranges.index(r)
            hz[slot].append((op, field_wire(rec.name, r.base), f"{op}_end{k}"))
        out.append("")
    out += ["  wire shape_bad = " + (" || ".join(shape) or "1'b0") + ";",
            "  wire sp_bad    = " + (" || ".join(spb) or "1'b0") + ";",
            "  wire ext_bad   = " + (" || ".join(extb) or "1'b0") + ";",
            "",
            "  // the first failing check, in the order shape > scratchpad > external; an",
            "  // illegal opcode faults with the opcode code",
            "  always @* begin",
            "    if (!op_ok)         fault_code = `GA2_ERR_OPCODE;",
            "    else if (shape_bad) fault_code = `GA2_ERR_SHAPE;",
            "    else if (sp_bad)    fault_code = `GA2_ERR_SP_RANGE;",
            "    else if (ext_bad)   fault_code = `GA2_ERR_EXT_RANGE;",
            "    else                fault_code = 3'd0;",
            "  end", "",
            "  // the scratchpad ranges for ga2_hazard (the opcode is one-hot: AND-OR, exact for",
            "  // an instruction without fault, the only kind issued)"]
    for slot, items in hz.items():
        valid = " || ".join(f"is_{op}" for op, _, _ in items) or "1'b0"
        first = " |\n      ".join(f"({{`GA2_ADDR_W{{is_{op}}}}} & {f}[`GA2_ADDR_W-1:0])"
                                  for op, f, _ in items) or "{`GA2_ADDR_W{1'b0}}"
        last = " |\n      ".join(f"({{`GA2_ADDR_W{{is_{op}}}}} & {e}_m1[`GA2_ADDR_W-1:0])"
                                 for op, _, e in items) or "{`GA2_ADDR_W{1'b0}}"
        for _, _, e in items:
            decl = f"  wire [`GA2_ADDR_W-1:0] {e}_m1 = {e}[`GA2_ADDR_W-1:0] - {ops.ADDR_W}'d1;"
            if decl not in out:
                out.append(decl)
        if slot != "wr":
            out.append(f"  wire {slot}_v;\n  wire [`GA2_ADDR_W-1:0] {slot}_first, {slot}_last;")
        out += [f"  assign {slot}_v = {valid};",
                f"  assign {slot}_first =\n      {first};",
                f"  assign {slot}_last =\n      {last};"]
    slots = [f"rd{k}" for k in reversed(range(nrd))]
    out += ["  // the read slots packed (slot k: rd_v[k], rd_first / rd_last[k*GA2_ADDR_W +: GA2_ADDR_W])"]
    for part in ("v", "first", "last"):
        out.append(f"  assign rd_{part} = {{{', '.join(f'{x}_{part}' for x in slots)}}};")
    out += ["  /* verilator lint_on UNUSEDSIGNAL */", ""]
    return "\n".join(out)
