"""The formal wrappers the op records imply, generated into build/formal/gen (make formal).

range_wrapper(variant, regs) is the link check of a vector unit: the unit behind the chip's
own decoder (tb/formal/range_dec.vh) on a free instruction word, every scratchpad access
inside the ranges the decoder reports for the started instruction and only while busy
(tb/formal/range_chk.vh, with its planted bugs BUG 1..3). A unit whose k-induction needs
lemmas (props.LINK_INDUCTION) has them in tb/formal/link/<unit>.vh, the one hand-written
part: its exposed registers' declarations, then after a line "// -- lemmas" the asserted
lemmas; the wrapper splices both in under LINK_LEMMAS, with the unit's instance wired to
the registers `regs` (which props.link exposes).

busy_wrapper(variant) is the busy-length check of a vector unit (tb/vecunits.py's
variants): the unit on a free instruction word; a start is assumed only for an
instruction that selects the unit and passes its checks on a SP_WORDS-word scratchpad
(model/rtl.py accepts: the decoder's verdict), with its shape fields at most LMAX (the
proof's bound); L_new, the busy cycles the instruction must take, is its record's busy
formula (by opcode, in the variant's timing mode) in Verilog over the instruction's
fields; tb/formal/busy_chk.vh asserts busy exactly in cycles 1..L of the latest start and
last in cycle L. A new vector unit gets its busy proof with no edit here or in props.py
(props.busy_checks lists every variant).
"""
from model import config, ops, rtl
from model.ops import expr
from tb import ROOT
from tb.formal.engine import BUILD
from tb.vecunits import params, variants, write

GEN = BUILD / "gen"
LINK = ROOT / "tb" / "formal" / "link"     # the units' link lemmas (<unit>.vh)
# the units that use only the low byte of a read word: their link wrappers read 8 free bits
# (a smaller state for the induction), the others a free 32-bit word
RD_BYTE = ("vec_add", "norm", "pack4", "softmax")
CW = 20                      # the busy counter's width (busy_chk.vh)


def _busy_verilog(module, mode):
    """The busy cycles of an instruction of `module`'s ops, by opcode (32 bits)."""
    terms = []
    for rec in rtl.ops_of(module):
        v = expr.verilog(rec.busy_expr(mode), lambda n, rec=rec: rtl.instr_field(rec, n),
                         lambda k: f"32'd{getattr(config.DEFAULT, k)}")
        terms.append((rec.code, v))
    out = "32'd0"
    for code, v in reversed(terms):
        val, width = ops.opcode_bits(code)
        out = f"((instr[{width - 1}:0] == {width}'d{val}) ? {v} : {out})"
    return out


def _bounds(module):
    """Verilog of "every shape field of the instruction's op is at most LMAX"."""
    terms = []
    for rec in rtl.ops_of(module):
        conds = [f"{rtl.instr_field(rec, s.field)} <= LMAX" for s in rec.shape]
        val, width = ops.opcode_bits(rec.code)
        terms.append(f"((instr[{width - 1}:0] != {width}'d{val})" +
                     (" || (" + " && ".join(conds) + "))" if conds else " || 1'b1)"))
    return " && ".join(terms) or "1'b1"


def busy_wrapper(variant, sp_words=16, offset=0):
    """(module name, Verilog text) of a variant's busy wrapper; offset (a planted bug, which
    must fail): the formula's cycles plus offset."""
    name, module, overlap = variant
    top = f"gen_{name}_busy_f" + (f"_plus{offset}" if offset else "")
    sizes = {"sp_words": sp_words, "ext_words": 16, "sm_max_len": config.DEFAULT.sm_max_len,
             "array": config.DEFAULT.array}
    mode = "overlap" if overlap else "inorder"
    p = params(variant)
    plist = ", ".join(f".{a}({b})" for a, b in p.items())
    text = "\n".join([
        rtl.GENERATED.replace("tools/flow/headers.py", "tb/formal/gen.py"),
        "`default_nettype none",
        f"// {top}: {module} busy for exactly its record's busy cycles ({mode} mode), for every",
        "// instruction the decoder accepts for it on a SP_WORDS-word scratchpad with shape fields",
        "// at most LMAX (tb/formal/gen.py).",
        f"module {top} #(",
        "  parameter SP_WORDS = 16, parameter LMAX = 16, parameter SM_MAX_LEN = 64",
        ") (",
        "  input wire clk, input wire rst, input wire start,",
        "  input wire [`GA2_INSTR_W-1:0] instr, input wire [31:0] rd_data",
        ");",
        f"  localparam CW = {CW};",
        "  wire busy, last, rd_en, wr_en;",
        "  wire [`GA2_ADDR_W-1:0] rd_addr, wr_addr;",
        "  wire [31:0] wr_data;",
        f"  {module} #({plist}) dut (",
        "    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last),",
        "    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data), .wr_en(wr_en), .wr_addr(wr_addr),",
        "    .wr_data(wr_data)",
        "  );",
        f"  wire legal = ({rtl.accepts(module, sizes)}) && {_bounds(module)};",
        f"  wire [31:0] busy_new = {_busy_verilog(module, mode)};",
        f"  wire [CW-1:0] L_new = busy_new[CW-1:0] + {CW}'d{offset};",
        '`include "busy_chk.vh"',
        "endmodule", ""])
    return top, text


def busy_files(sp_words=16, offset=0):
    """{variant name: (top, wrapper path)} of every vector unit's generated busy wrapper
    (offset: busy_wrapper's planted bug)."""
    out = {}
    for v in variants():
        top, text = busy_wrapper(v, sp_words, offset)
        out[v[0]] = (top, write(GEN, top, text))
    return out


def lemmas(unit):
    """(registers, lemmas): the two parts of tb/formal/link/<unit>.vh as Verilog lines, or
    None when the unit has none."""
    p = LINK / f"{unit}.vh"
    if not p.exists():
        return None
    lines = p.read_text().rstrip("\n").split("\n")
    if lines.count("// -- lemmas") != 1:
        raise ValueError(f"{p}: needs one line '// -- lemmas' between the registers and the lemmas")
    cut = lines.index("// -- lemmas")
    return lines[:cut], lines[cut + 1:]


def link_variant(unit):
    """The variant a link check of `unit` (ga2_<unit>) runs: for a unit whose parameters
    follow the timing mode, the overlap one (the softmax's FAST = 1)."""
    vs = [v for v in variants() if v[1] == f"ga2_{unit}"]
    if not vs:
        raise ValueError(f"no vector unit ga2_{unit}")
    return vs[-1]


def range_wrapper(variant, regs=()):
    """(module name, Verilog text) of a variant's link (range) wrapper; regs: the unit's
    registers its lemmas read (tb/formal/link/<unit>.vh), exposed as ports under LINK_LEMMAS."""
    name, module, _ = variant
    unit = module[len("ga2_"):]
    top = f"gen_{name}_range_f"
    rdw = int(any(isinstance(r.rd, str) for rec in rtl.ops_of(module) for r in rec.sp_ranges()))
    plist = ", ".join(f".{a}({b})" for a, b in params(variant).items())
    rd_in, rd = (("[7:0] rd_byte", "{24'd0, rd_byte}") if unit in RD_BYTE else ("[31:0] rd_data", "rd_data"))
    ports = ["    .clk(clk), .rst(rst), .start(start), .instr(instr), .busy(busy), .last(last),",
             f"    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data({rd}), .wr_en(wr_en), .wr_addr(wr_addr),",
             "    .wr_data(wr_data)"]
    dut = [f"  {module} #({plist}) dut ("] + ports + ["  );"]
    lem = lemmas(unit) if regs else None
    if lem:
        exposed = ", ".join(f".{r}({r})" for r in regs)
        dut = (["`ifdef LINK_LEMMAS"] + lem[0] + [f"  {module} dut ("] + ports[:-1] + [ports[-1] + ",",
               f"    {exposed}", "  );", "`else"] + dut + ["`endif"])
    text = "\n".join([
        rtl.GENERATED.replace("tools/flow/headers.py", "tb/formal/gen.py"),
        "`default_nettype none",
        f"// {top}: {module}'s scratchpad accesses inside the ranges ga2_decode reports for",
        "// its instruction, only while busy (tb/formal/gen.py; range_chk.vh"
        + (f"; the lemmas of tb/formal/link/{unit}.vh)." if lem else ")."),
        f"module {top} #(",
        "  parameter SP_WORDS = 16, parameter EXT_WORDS = 16, parameter SM_MAX_LEN = 64, parameter BUG = 0",
        ") (",
        "  input wire clk, input wire rst, input wire start, input wire [`GA2_INSTR_W-1:0] instr,",
        f"  input wire {rd_in}",
        ");",
        f"  localparam UNIT = `{rtl.unit_macro(module)};",
        "  localparam NR = 1;",
        f"  localparam RDW = {rdw};",
        '`include "range_dec.vh"',
        "  wire busy, last, wr_en;",
        "  wire [NR-1:0] rd_en;",
        "  wire [NR*AW-1:0] rd_addr;",
        "  wire [AW-1:0] wr_addr;",
        "  wire [31:0] wr_data;"] + dut + [
        '`include "range_chk.vh"'] + (["`ifdef LINK_LEMMAS"] + lem[1] + ["`endif"] if lem else []) + [
        "endmodule", ""])
    return top, text


def range_file(unit, regs=()):
    """(top, wrapper path) of the link wrapper of ga2_<unit>'s link variant (regs: as
    range_wrapper)."""
    top, text = range_wrapper(link_variant(unit), regs)
    return top, write(GEN, top, text)


def range_files():
    """{variant name: (top, wrapper path)} of every vector unit's generated link wrapper."""
    out = {}
    for v in variants():
        top, text = range_wrapper(v)
        out[v[0]] = (top, write(GEN, top, text))
    return out
