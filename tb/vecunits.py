"""The vector units as the benches see them, from the op records (model/ops, model/rtl.py).

A vector unit is an RTL unit of the timing contract's vec unit: one scratchpad read port,
one write port, started with the instruction word. The benches check every one of them
with no per-unit code:

  variants()     the units as checked: one per RTL unit, two (OVERLAP 0 and 1) for a unit
                 whose parameters follow the timing mode (the softmax's FAST), each named
                 <unit>[<overlap>] in at most 8 characters;
  params(v)      a variant's parameters (SP_WORDS, the unit's own from its record);
  units_text()   the module units_vec of the units bench (tb/hdl/units_tb.v): one instance
                 of each variant on the bench's scratchpad port, the selected one's
                 outputs (f_var: the variant's index);
  write(text, name)  a generated module into build/gen, content-addressed.

tb/restart.py builds the restart check's pairs from the same variants.
"""
import hashlib
import random
from pathlib import Path

from model import rtl

NAME_W = 8                       # a variant's name: 8 ASCII characters


def variants():
    """[(name, module, overlap)] of the vector units."""
    out = []
    for m in rtl.vec_modules():
        short = m[len("ga2_"):]
        if "OVERLAP" in rtl.unit_params(m).values():
            out += [(f"{short}{o}"[:NAME_W], m, o) for o in (0, 1)]
        else:
            out.append((short[:NAME_W], m, 0))
    return out


def params(variant):
    """{parameter: value text} of a variant's instance."""
    _, module, overlap = variant
    p = {"SP_WORDS": "SP_WORDS"}
    for key, val in rtl.unit_params(module).items():
        p[key] = str(overlap) if val == "OVERLAP" else val
    return p


def instance(variant, name, start, instr, pre, rd_data, indent="  "):
    """An instance of a variant with its port wires <pre>busy, <pre>last, <pre>re,
    <pre>ra, <pre>we, <pre>wa, <pre>wd (declared here)."""
    module = variant[1]
    plist = ", ".join(f".{a}({b})" for a, b in params(variant).items())
    return [f"{indent}wire          {pre}busy, {pre}last, {pre}re, {pre}we;",
            f"{indent}wire [`GA2_ADDR_W-1:0] {pre}ra, {pre}wa;",
            f"{indent}wire [31:0]   {pre}wd;",
            f"{indent}{module} #({plist}) {name} (",
            f"{indent}  .clk(clk), .rst(rst), .start({start}), .instr({instr}),",
            f"{indent}  .busy({pre}busy), .last({pre}last), .rd_en({pre}re), .rd_addr({pre}ra), .rd_data({rd_data}),",
            f"{indent}  .wr_en({pre}we), .wr_addr({pre}wa), .wr_data({pre}wd)",
            f"{indent});"]


def ascii_const(text, n=NAME_W):
    b = text.encode()[:n].rjust(n, b"\0")
    return f"{8 * n}'h{b.hex()}"


def module_head(by, name, doc):
    """A generated bench module's first lines (units_vec, tb/restart.py's restart_vec) up
    to its port list: the note that `by` generates it, the headers, the comment lines doc
    and the parameters SP_WORDS and SM_MAX_LEN."""
    return [rtl.GENERATED.replace("tools/flow/headers.py", by),
            "`timescale 1ns/1ps", "`default_nettype none", '`include "ga2_isa.vh"', '`include "ga2_cfg.vh"'] \
        + [f"// {d}" for d in doc] \
        + [f"module {name} #(", "  parameter SP_WORDS   = `GA2_SP_WORDS,", "  parameter SM_MAX_LEN = `GA2_SM_MAX_LEN",
           ") ("]


def units_text():
    """The Verilog of module units_vec (see the module docstring)."""
    vs = variants()
    out = module_head("tb/vecunits.py", "units_vec", [
        "units_vec: every vector unit of the op records on one scratchpad port (the units",
        "bench, tb/hdl/units_tb.v): variant f_var is started by start with the instruction",
        "word instr; the outputs are the selected variant's."]) + [
           "  input  wire                    clk,",
           "  input  wire                    rst,",
           "  input  wire                    start,",
           "  input  wire [4:0]              f_var,",
           "  input  wire [`GA2_INSTR_W-1:0] instr,",
           "  input  wire [31:0]             rd_data,",
           "  output wire [4:0]              n_var,",
           f"  output reg  [{8 * NAME_W - 1}:0]    name,",
           "  output reg                     busy,",
           "  output reg                     last,",
           "  output reg                     rd_en,",
           "  output reg  [`GA2_ADDR_W-1:0]  rd_addr,",
           "  output reg                     wr_en,",
           "  output reg  [`GA2_ADDR_W-1:0]  wr_addr,",
           "  output reg  [31:0]             wr_data",
           ");",
           f"  assign n_var = 5'd{len(vs)};"]
    for v, var in enumerate(vs):
        out += instance(var, f"u_v{v}", f"start && f_var == 5'd{v}", "instr", f"v{v}_", "rd_data")
    zero = "{`GA2_ADDR_W{1'b0}}"
    out += select_end("f_var", [f"busy = 1'b0; last = 1'b0; rd_en = 1'b0; rd_addr = {zero};",
                                f"wr_en = 1'b0; wr_addr = {zero}; wr_data = 32'd0; name = {8 * NAME_W}'d0;"],
                      [[f"busy = v{v}_busy; last = v{v}_last; rd_en = v{v}_re; rd_addr = v{v}_ra;",
                        f"wr_en = v{v}_we; wr_addr = v{v}_wa; wr_data = v{v}_wd; name = {ascii_const(var[0])};"]
                       for v, var in enumerate(vs)])
    return "\n".join(out)


def select_end(sel, defaults, arms):
    """The end of a generated module that passes on one variant's outputs: an always @*
    block with the outputs' defaults (lines), then a case over sel (5 bits) with arm v's
    assignment lines for variant v; endmodule."""
    out = ["  always @* begin"] + [f"    {d}" for d in defaults] + [f"    case ({sel})"]
    for v, lines in enumerate(arms):
        out += [f"      5'd{v}: begin"] + [f"        {x}" for x in lines] + ["      end"]
    return out + ["      default: ;", "    endcase", "  end", "endmodule", "`resetall", ""]


def write(folder, name, text):
    """text as folder/<name>_<digest>.v (content-addressed: concurrent builds write the
    same file once); its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}_{hashlib.sha256(text.encode()).hexdigest()[:12]}.v"
    if not p.exists():
        tmp = p.with_suffix(f".{random.getrandbits(32):08x}.tmp")
        tmp.write_text(text)
        tmp.replace(p)
    return p
