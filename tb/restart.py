"""The restart check's vector-unit part, generated from the op records (model/ops).

The restart check (tb/hdl/restart_chk.v, docs/rtl.md "Start while busy") runs scenarios:
a unit's job P1, a second job P2 started in P1's busy cycle c, and the unit restarted so
compared cycle by cycle with a twin started from idle in that cycle. The DMA, the matrix
unit and the divider have hand-written pairs and scenarios (tb/hdl/restart/); every
vector unit -- the one-port units that take the instruction word -- gets its pair and its
scenarios from this module, so a new operation's unit is checked with no edit here:

  variants()    the vector units as checked (tb/vecunits.py);
  jobs(v)       two small instructions of each op of the unit, drawn from its record
                (lengths at the bottom of their shape range, addresses apart or over each
                other, row strides small, one-bit fields 0 in the first and 1 in the
                second, other fields from a seeded generator);
  cycles(L)     the restart cycles of a job busy L cycles: every cycle up to 24, else the
                first three, nine spread over the job and the last three;
  scenarios()   (variant, P1, P2, c) for every variant, job pair (P1, P2: each job then
                its successor) and restart cycle;
  module_text() the module restart_vec: the scenario table, one pair of instances per
                variant (each with its read-only memory models, restart_rd, and its
                comparison, restart_cmp1), the outputs of the scenario's variant.

tb.sim.files.restart_files() writes module_text() into the build folder and adds it to
the check's files.
"""
import random

from model import config, isa, ops, rtl, timing
from tb.vecunits import NAME_W, ascii_const, instance, module_head, select_end, variants
from tb.vecunits import write as write_module

SEED = 20261206
SP = 1024                       # the addresses the jobs use (below every bench's scratchpad)


def _job(rec, rng, overlap_dst):
    """One small valid instruction of rec: shape fields at the bottom of their range, the
    scratchpad ranges placed in SP words (dst over src when overlap_dst), other fields
    random."""
    f = {}
    cfg = config.DEFAULT
    for s in rec.shape:
        lo = ops.shape_limits(rec, s, cfg)[0]
        f[s.field] = lo + rng.randrange(2, 6)
    bases = {r.base for r in rec.ranges}
    for name, w in rec.fields:
        if name not in f and name not in bases:
            kind = str(rec.stim.get(name, ""))
            if kind.startswith("stride:"):         # a row stride: small, rows apart or over each other
                row = kind[len("stride:"):]
                f[name] = rng.randrange(0, (int(row) if row.isdigit() else f.get(row, 1)) + 4)
            else:
                f[name] = rng.getrandbits(w)     # drawn always: the other fields stay the seed's
                if w == 1:
                    # a mode bit (relu, w, acc, pair): 0 in the first job, 1 in the
                    # second, so the scenarios restart from each mode into the other
                    f[name] = int(overlap_dst)
    a = tuple(f.get(n, 0) for n, _ in rec.fields)
    spans = {r.base: n(a, cfg) for r, n in zip(rec.ranges, ops.VIEWS[rec.name]["extents"])}
    at = rng.randrange(0, 64)
    for r in rec.sp_ranges():
        if overlap_dst and r.wr and any(x.rd is True for x in rec.sp_ranges()):
            src = next(x for x in rec.sp_ranges() if x.rd is True)
            f[r.base] = f.get(src.base, at) + 1
        else:
            f[r.base] = at
            at += spans[r.base] + rng.randrange(4, 40)
    ins = isa.build(rec.name, cfg=cfg.replace(sp_words=SP), **{n: f.get(n, 0) for n, _ in rec.fields})
    return ins


def jobs(variant):
    """Two small instructions of each op of the variant's unit (a seeded draw)."""
    name, module, _ = variant
    rng = random.Random(f"{SEED}:{name}")
    return [_job(rec, rng, k == 1) for rec in rtl.ops_of(module) for k in range(2)]


def cycles(busy):
    """The restart cycles of a job busy `busy` cycles (0-based busy cycles of P1)."""
    if busy <= 24:
        return list(range(busy))
    mid = sorted({busy * k // 10 for k in range(1, 10)})
    return sorted({0, 1, 2, *mid, busy - 3, busy - 2, busy - 1})


def scenarios():
    """[(variant index, P1, P2, c)] in the check's order."""
    out = []
    for v, var in enumerate(variants()):
        js = jobs(var)
        mode = "overlap" if var[2] else "inorder"
        cfg = config.DEFAULT.replace(mode=mode)
        for k, p1 in enumerate(js):
            p2 = js[(k + 1) % len(js)]
            for c in cycles(timing.busy_cycles(p1, cfg)):
                out.append((v, p1, p2, c))
    return out


def module_text():
    """The Verilog of module restart_vec (see the module docstring)."""
    vs = variants()
    sc = scenarios()
    nv = len(vs)
    if len(sc) > 1023 or nv > 31:
        raise ValueError(f"{len(sc)} vector restart scenarios of {nv} units: past the table's widths")
    out = module_head("tb/restart.py", "restart_vec", [
        "restart_vec: the restart check's vector units (tb/restart.py), one pair of instances per",
        "variant, started only in its scenarios; k picks the scenario (0 .. n_scn - 1), j2 the",
        "job (0: P1, 1: P2) whose instruction both instances see."]) + [
           "  input  wire            clk,",
           "  input  wire            rst,",
           "  input  wire            st_a,",
           "  input  wire            st_b,",
           "  input  wire [9:0]      k,",
           "  input  wire            j2,",
           "  output wire [9:0]      n_scn,",
           "  output reg  [8:0]      c,",
           f"  output reg  [{8 * NAME_W - 1}:0] name,",
           "  output reg             busy_a,",
           "  output reg             busy_b,",
           "  output reg             last_b,",
           "  output reg  [15:0]     mis,",
           "  output reg  [127:0]    obs_a,",
           "  output reg  [127:0]    obs_b",
           ");",
           "  localparam AW = `GA2_ADDR_W;",
           f"  assign n_scn = 10'd{len(sc)};",
           "  reg [4:0] v;",
           "  reg [`GA2_INSTR_W-1:0] i1, i2;",
           "  always @* begin",
           "    case (k)"]
    for n, (v, p1, p2, cyc) in enumerate(sc):
        w1, w2 = isa.encode(p1), isa.encode(p2)
        out.append(f"      10'd{n}: begin v = 5'd{v}; c = 9'd{cyc}; i1 = 128'h{w1:032x}; "
                   f"i2 = 128'h{w2:032x}; end   // {vs[v][0]}: {p1.op} then {p2.op}")
    out += ["      default: begin v = 5'd0; c = 9'd0; i1 = {`GA2_INSTR_W{1'b0}}; i2 = {`GA2_INSTR_W{1'b0}}; end",
            "    endcase",
            "  end",
            "  wire [`GA2_INSTR_W-1:0] instr = j2 ? i2 : i1;", ""]
    for v, var in enumerate(vs):
        name, module, overlap = var
        pre = f"v{v}_"
        mode = f" (OVERLAP {overlap})" if "OVERLAP" in rtl.unit_params(module).values() else ""
        out += [f"  // {name}: {module}{mode}",
                f"  wire {pre}on = (v == 5'd{v});"]
        for side in "ab":
            q = f"{pre}{side}_"
            out += [f"  wire [31:0]   {q}q;",
                    f"  restart_rd #(.AW(AW)) {q}rd (.clk(clk), .en({q}re), .addr({q}ra), .q({q}q));"]
            out += instance(var, f"{q}u", f"st_{side} && {pre}on", "instr", q, f"{q}q")
        out += [f"  wire [15:0]  {pre}mis;",
                f"  wire [127:0] {pre}obs_a, {pre}obs_b;",
                f"  restart_cmp1 #(.AW(AW)) {pre}cmp (",
                f"    .a_busy({pre}a_busy), .a_last({pre}a_last), .a_rd_en({pre}a_re), .a_wr_en({pre}a_we),",
                f"    .a_rd_addr({pre}a_ra), .a_wr_addr({pre}a_wa), .a_wr_data({pre}a_wd),",
                f"    .b_busy({pre}b_busy), .b_last({pre}b_last), .b_rd_en({pre}b_re), .b_wr_en({pre}b_we),",
                f"    .b_rd_addr({pre}b_ra), .b_wr_addr({pre}b_wa), .b_wr_data({pre}b_wd),",
                f"    .mis({pre}mis), .obs_a({pre}obs_a), .obs_b({pre}obs_b)",
                "  );", ""]
    out += ["  // the scenario's variant"]
    out += select_end("v", ["busy_a = 1'b0; busy_b = 1'b0; last_b = 1'b0; mis = 16'd0;",
                            f"obs_a = 128'd0; obs_b = 128'd0; name = {8 * NAME_W}'d0;"],
                      [[f"busy_a = v{v}_a_busy; busy_b = v{v}_b_busy; last_b = v{v}_b_last; mis = v{v}_mis;",
                        f"obs_a = v{v}_obs_a; obs_b = v{v}_obs_b; name = {ascii_const(name)};"]
                       for v, (name, _, _) in enumerate(vs)])
    return "\n".join(out)


def write(folder):
    """module_text() in folder (content-addressed); its path."""
    return write_module(folder, "restart_vec", module_text())

