"""The small expression language of the operation records (model/ops).

An operation's record states its extents, bounds, busy cycles and counts as expressions
over its fields and the chip's Config, once; two back ends read them:

  py(expr)       Python source over `a` (the instruction's field values in encoding
                 order) and `cfg` (a model.config.Config), compiled once per record by
                 model/ops into the functions isa, func and timing call;
  verilog(expr)  Verilog-2001 source over 32-bit zero-extended field wires and the
                 chip's parameters, for the generated decoder and the formal wrappers
                 (tools/flow/headers.py, tb/formal).

Why not Python functions: a function can be called but not translated, and the RTL's
range checks, hazard hulls and the busy proofs need the same formulas as Verilog. The
language is what the records need and no more: integer fields, constants, Config
parameters, + - *, and a two-way choice on a one-bit field (MM's tb).
"""


class Expr:
    """An integer expression (nodes below); + - * build new ones."""

    def __add__(self, other):
        return Bin("+", self, lift(other))

    def __radd__(self, other):
        return Bin("+", lift(other), self)

    def __sub__(self, other):
        return Bin("-", self, lift(other))

    def __rsub__(self, other):
        return Bin("-", lift(other), self)

    def __mul__(self, other):
        return Bin("*", self, lift(other))

    def __rmul__(self, other):
        return Bin("*", lift(other), self)


class Field(Expr):
    """An instruction field by name."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class Const(Expr):
    """An integer constant."""

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"a constant is a non-negative integer, got {value!r}")
        self.value = value

    def __repr__(self):
        return str(self.value)


class Param(Expr):
    """A property of the chip's Config (sp_words, array, sm_max_len, mm_fill, ...); in
    Verilog the parameter or macro named in PARAMS."""

    def __init__(self, name):
        if name not in PARAMS:
            raise ValueError(f"unknown Config parameter {name!r} (known: {', '.join(PARAMS)})")
        self.name = name

    def __repr__(self):
        return self.name


class Bin(Expr):
    """a op b for op in + - *."""

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def __repr__(self):
        a, b = repr(self.a), repr(self.b)
        if self.op == "*":
            a = f"({a})" if isinstance(self.a, Bin) and self.a.op != "*" else a
            b = f"({b})" if isinstance(self.b, Bin) and self.b.op != "*" else b
        elif self.op == "-" and isinstance(self.b, Bin):
            b = f"({b})"
        return f"{a}{self.op}{b}" if self.op == "*" else f"{a} {self.op} {b}"


class Cond(Expr):
    """then if the field `flag` is not 0, else `other`."""

    def __init__(self, flag, then, other):
        self.flag, self.then, self.other = flag, lift(then), lift(other)

    def __repr__(self):
        return f"({self.flag} ? {self.then!r} : {self.other!r})"


def lift(x):
    """An Expr from an Expr, a field name or a non-negative int."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, str):
        return Field(x)
    return Const(x)


# Config properties an expression may name: (Python attribute of Config, Verilog text).
# The Verilog names are ga2_top's parameters or ga2_cfg.vh's macros (rtl/).
PARAMS = {
    "sp_words": "SP_WORDS",
    "ext_words": "EXT_WORDS",
    "array": "`GA2_ARRAY",
    "sm_max_len": "SM_MAX_LEN",
    "mm_fill": "`GA2_MM_FILL",
    "sm_div_cycles": "`GA2_SM_DIV_CYCLES",
}


def fields_of(e):
    """The field names an expression reads (in first-use order)."""
    out = []

    def walk(x):
        if isinstance(x, Field):
            if x.name not in out:
                out.append(x.name)
        elif isinstance(x, Bin):
            walk(x.a)
            walk(x.b)
        elif isinstance(x, Cond):
            walk(Field(x.flag))
            walk(x.then)
            walk(x.other)
    walk(lift(e))
    return out


def py(e, index):
    """Python source of e over `a` (field values by position: index[name]) and `cfg`."""
    e = lift(e)
    if isinstance(e, Field):
        return f"a[{index[e.name]}]"
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Param):
        return f"cfg.{e.name}"
    if isinstance(e, Bin):
        return f"({py(e.a, index)} {e.op} {py(e.b, index)})"
    if isinstance(e, Cond):
        return f"({py(e.then, index)} if a[{index[e.flag]}] else {py(e.other, index)})"
    raise TypeError(f"not an expression: {e!r}")


def compile_py(e, index):
    """A function (a, cfg) -> int computing e (a: the field values in encoding order)."""
    return eval(f"lambda a, cfg: {py(e, index)}", {})


def verilog(e, wire, param=None):
    """Verilog source of e in 32-bit unsigned arithmetic: wire(name) names a field's
    32-bit zero-extended wire; constants are 32-bit literals; param(name) names a Config
    property (default: PARAMS)."""
    e = lift(e)
    param = param or PARAMS.get
    if isinstance(e, Field):
        return wire(e.name)
    if isinstance(e, Const):
        return f"32'd{e.value}"
    if isinstance(e, Param):
        return param(e.name)
    if isinstance(e, Bin):
        return f"({verilog(e.a, wire, param)} {e.op} {verilog(e.b, wire, param)})"
    if isinstance(e, Cond):
        # the flag compared, not indexed: wire() may be an expression (the formal wrappers
        # take a field from the instruction word as a concatenation, model/rtl.instr_field)
        return f"(({wire(e.flag)} != 32'd0) ? {verilog(e.then, wire, param)} : {verilog(e.other, wire, param)})"
    raise TypeError(f"not an expression: {e!r}")


def params_of(e):
    """The Config properties an expression names."""
    out = set()

    def walk(x):
        if isinstance(x, Param):
            out.add(x.name)
        elif isinstance(x, Bin):
            walk(x.a)
            walk(x.b)
        elif isinstance(x, Cond):
            walk(x.then)
            walk(x.other)
    walk(lift(e))
    return out


def interval(e, widths, params, caps=None, lows=None):
    """(least, largest) value of e for fields in [lows[name] or 0, caps[name] or 2^width -
    1] (widths[name]) and Config properties in [0, params[name]]; products of non-negative
    factors."""
    e = lift(e)
    if isinstance(e, Field):
        top = (1 << widths[e.name]) - 1
        return (lows or {}).get(e.name, 0), min(top, (caps or {}).get(e.name, top))
    if isinstance(e, Const):
        return e.value, e.value
    if isinstance(e, Param):
        return 0, params[e.name]
    if isinstance(e, Bin):
        (a0, a1), (b0, b1) = (interval(x, widths, params, caps, lows) for x in (e.a, e.b))
        return {"+": (a0 + b0, a1 + b1), "-": (a0 - b1, a1 - b0), "*": (a0 * b0, a1 * b1)}[e.op]
    if isinstance(e, Cond):
        (t0, t1), (o0, o1) = (interval(x, widths, params, caps, lows) for x in (e.then, e.other))
        return min(t0, o0), max(t1, o1)
    raise TypeError(f"not an expression: {e!r}")


def bound(e, widths, params, caps=None, lows=None):
    """An upper bound of e (interval's largest value)."""
    return interval(e, widths, params, caps, lows)[1]
