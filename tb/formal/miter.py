"""Equivalence miters of an RTL module and a mutant of it (the RTL mutation run's formal step).

A miter puts the original module (gold) and the mutated one (gate) side by side on the
same inputs and asserts that the chip can not tell them apart. What it compares is the
chip's contract (docs/rtl.md "Start while busy"): every enable, busy, last and every other
output in every cycle, but an address or write data only in the cycles its enable is high
(OBSERVED: the pairing by port name, one table for every module; a vector enable masks
its slice of the address vector, e.g. ga2_mm_ctrl's read ports). Both copies start from
the same state (registers without an initial value at 0, ZERO_INIT; the reset input free
in every cycle, so every reset sequence is covered); every other input is free in every
cycle, read data included (a superset of what the scratchpad can deliver), except for the
module's documented input contract (CONTRACT: the decoder's limits, stated once).

Strengthened miter (strengthen=True): the same, plus every register of the two copies
(`expose -dff`, the memories mapped to registers) asserted equal in every cycle. That is
a stronger statement, so its proof is a proof of the plain one; when the registers do stay
equal it makes the property inductive, and pdr closes at once where the plain miter's pdr
has to find that invariant itself (a counterexample of the strengthened miter proves
nothing: its registers may differ while its outputs agree).

Verdicts (verdict()):
  equivalent (proven by abc ...)       no reachable state tells them apart: a proof;
  NOT equivalent                       a counterexample (its trace: tb/formal/witness.py);
  NOT PROVEN (...)                     neither within the time limits (bmc3's clean
                                       frames), or a proof only at the small size.
listed_sites() gives the Site of every entry of tb/mutation/rtl/equivalents.txt.
"""
import json
import os
import re

from model import config, isa
from tb.formal import engine
from tb.formal.engine import Check
from tb.sim.files import rtl_files

_SIDE = """read_verilog -formal -I{d} {files}
{chparam}hierarchy -top {mod}
proc
flatten
{strengthen}opt_clean
rename {mod} {name}
write_rtlil {il}
write_json {js}
"""
# the strengthened miter's extra step: every register becomes an output of its copy
_EXPOSE = "memory_map\nopt_clean\nexpose -dff\n"

# both copies start from one state: every register without an initial value at 0
# (otherwise the AIGER gives each copy's such registers their own free start values)
ZERO_INIT = "setundef -zero -init"

# What the chip observes of a unit (docs/rtl.md "Start while busy": "busy, last, every
# enable, and each address and write data while its enable is high"): an output whose
# name matches a pattern is compared only while the output named by the replacement is
# high; every other output in every cycle.
OBSERVED = (
    (r"^(\w*)_addr$", r"\1_en"),        # rd_addr, wr_addr, ext_addr, sp_rd_addr ...
    (r"^(\w*wr)_data$", r"\1_en"),      # wr_data, sp_wr_data (read data is not masked)
    (r"^(\w*)_wdata$", r"\1_en"),       # ext_wdata
    (r"^(\w*)_we$", r"\1_en"),          # ext_we: the direction of an access
)

# The documented input contract of a unit: the decoder starts it only with fields that
# pass its checks (docs/isa.md "Faults": code 4 "bad shape", len = 0 and the length
# limits; code 2, the last word touched below the scratchpad's size). Verilog conditions
# over the miter's inputs, assumed in every cycle with start high ({SP_WORDS} and
# {SM_MAX_LEN} are the miter's configuration; 32-bit arithmetic, no wrap). Nothing else
# is assumed: restarts while busy, reset and every data input stay free.
CONTRACT = {
    "ga2_argmax": ("len >= 1", "src + len <= {SP_WORDS}", "dst < {SP_WORDS}"),
    "ga2_vec_add": ("len >= 1", "src + len <= {SP_WORDS}", "src2 + len <= {SP_WORDS}",
                    "dst + len <= {SP_WORDS}"),
    "ga2_vec_rq": ("len >= 1", "src + len <= {SP_WORDS}", "dst + len <= {SP_WORDS}"),
    "ga2_softmax": ("len >= 1", "len <= {SM_MAX_LEN}", "src + len <= {SP_WORDS}",
                    "dst + len <= {SP_WORDS}"),
    "ga2_norm": ("len >= 1", f"len <= {isa.NORM_MAX_LEN}", "src + len <= {SP_WORDS}",
                 "dst + len <= {SP_WORDS}"),
    "ga2_pack4": ("len >= 1", "src + (unpack ? len : 2 * len) <= {SP_WORDS}",
                  "dst + (unpack ? 2 * len : len) <= {SP_WORDS}"),
    "ga2_mm_ctrl": ("m >= 1", "m <= 4", "n >= 1", "n <= 4", "k >= 1"),   # the shape (code 4)
}


def contract(module, params=None):
    """The assumed conditions of module's miter (CONTRACT, its configuration filled in)."""
    size = {"SP_WORDS": config.DEFAULT.sp_words, "SM_MAX_LEN": config.DEFAULT.sm_max_len, **(params or {})}
    return tuple(f"!start || ({c.format(**size)})" for c in CONTRACT.get(module, ()))

# the small configuration of a second proof attempt: a unit with a 16-word scratchpad
SMALL = {"SP_WORDS": 16}


def _esc(name):
    """A Verilog identifier for a port name (escaped when it is not a plain one)."""
    return name if re.fullmatch(r"[A-Za-z_]\w*", name) else f"\\{name} "


def observed(ports):
    """[(output, enable or None)] of the outputs in ports {name: (direction, width)}:
    the enable that masks each one (OBSERVED), None for 'every cycle'."""
    outs = {n: w for n, (d, w) in ports.items() if d == "output"}
    res = []
    for n in outs:
        en = None
        for pat, rep in OBSERVED:
            if re.match(pat, n):
                cand = re.sub(pat, rep, n)
                if cand in outs and outs[n] % outs[cand] == 0:
                    en = cand
                break
        res.append((n, en))
    return res


def wrapper(ports_gold, ports_gate, contract=()):
    """(Verilog, labels) of ga2_miter: gold and gate on the same inputs, the masked comparison of
    every output both have (and every register, when both expose them) as one assertion
    `ok`, each compared item's bit in the public vector `ok_v` (labels: their names, bit 0
    first; the trace shows which failed)."""
    ins = [(n, w) for n, (d, w) in ports_gold.items() if d == "input"]
    gate_ins = {n: w for n, (d, w) in ports_gate.items() if d == "input"}
    if gate_ins != dict(ins):
        raise ValueError(f"gold and gate inputs differ: {sorted(set(gate_ins) ^ set(dict(ins)))}")
    both = {n: v for n, v in ports_gold.items() if v[0] == "output" and ports_gate.get(n) == v}
    lines = ["module ga2_miter (" + ", ".join(f"input wire [{w - 1}:0] {_esc(n)}" for n, w in ins) + ");"]
    for side, tag in (("gold", "g"), ("gate", "t")):
        for n, (_, w) in both.items():
            lines.append(f"  wire [{w - 1}:0] {_esc(tag + '_' + n)};")
        conns = [f".{_esc(n)}({_esc(n)})" for n, _ in ins]
        conns += [f".{_esc(n)}({_esc(tag + '_' + n)})" for n in both]
        lines.append(f"  {side} u_{side} (" + ", ".join(conns) + ");")
    checks, labels = [], []
    for n, en in observed(both):
        g, t = _esc("g_" + n), _esc("t_" + n)
        if en is None:
            checks.append(f"({g} == {t})")
            labels.append(n)
            continue
        w, k = both[n][1], both[en][1]
        s = w // k                     # a vector enable: bit i masks slice i
        for i in range(k):
            checks.append(f"(!g_{en}[{i}] || ({g}[{i * s + s - 1}:{i * s}] == {t}[{i * s + s - 1}:{i * s}]))")
            labels.append(f"{n}[{i}] while {en}[{i}]" if k > 1 else f"{n} while {en}")
    lines.append(f"  (* keep *) wire [{len(checks) - 1}:0] ok_v = {{" + ", ".join(reversed(checks)) + "};")
    lines.append("  always @* begin")
    for c in contract:
        lines.append(f"    assume ({c});")
    lines.append("    assert (&ok_v);")
    lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n", labels


def build_sides(module, gold_dir, gate_dir, work, params=None, strengthen=False, timeout=300):
    """Elaborate gold and gate (yosys) into work/{gold,gate}.il; their {port: (dir, width)}."""
    work.mkdir(parents=True, exist_ok=True)
    ch = "".join(f"chparam -set {k} {v} {module}\n" for k, v in (params or {}).items())
    ports = {}
    for name, d in (("gold", gold_dir), ("gate", gate_dir)):
        files = " ".join(str(f) for f in rtl_files(d))
        script = _SIDE.format(d=d, files=files, mod=module, name=name, chparam=ch,
                              strengthen=_EXPOSE if strengthen else "",
                              il=work / f"{name}.il", js=work / f"{name}.json")
        (work / f"{name}.ys").write_text(script)
        rc, out = engine._run(["yosys", "-q", str(work / f"{name}.ys")], work / f"{name}.out", timeout)
        if rc != 0:
            raise RuntimeError(f"yosys ({name} of {module}): " + ("timed out" if rc is None else out.strip()[-300:]))
        m = json.load(open(work / f"{name}.json"))["modules"][name]
        ports[name] = {n: (p["direction"], len(p["bits"])) for n, p in m["ports"].items()}
    return ports["gold"], ports["gate"]


def site_check(site, work, mode="pdr", timeout=600, rtl_dir=None, name=None, params=None,
               strengthen=False):
    """The masked miter Check of one mutation site (tb.mutation.rtl.sites.Site), the
    module's parameters set to params (default: its own defaults)."""
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    rtl_dir = rtl_dir or RTL_DIR
    gold = make_mutant_dir(None, str(work / "gold"), rtl_dir)
    gate = make_mutant_dir(site, str(work / "gate"), rtl_dir)
    tag = ("strong" if strengthen else "masked") + ("_" + "_".join(f"{k}{v}" for k, v in params.items()) if params else "")
    sides = work / tag
    pg, pt = build_sides(site.module, gold, gate, sides, params, strengthen)
    text, labels = wrapper(pg, pt, contract(site.module, params))
    (sides / "miter.v").write_text(text)
    front = (f"read_rtlil {sides / 'gold.il'}\nread_rtlil {sides / 'gate.il'}\n"
             f"read_verilog -formal {sides / 'miter.v'}\nhierarchy -top ga2_miter\n")
    what = "strengthened (every register equal), " if strengthen else ""
    size = (", " + ", ".join(f"{k} = {v}" for k, v in params.items())) if params else ""
    c = Check(name or f"equiv/{site.file}:{site.line} {site.cls} {tag} {mode}", "ga2_miter", [], 0, mode,
              front=front, post=ZERO_INIT, timeout=timeout,
              what=f"{site.module}{size}: {what}mutant {site.desc.splitlines()[0][:80]}")
    c.labels = labels                  # the names of ok_v's bits (counterexample())
    return c


def counterexample(check, show=("rst", "start", "len", "src", "dst")):
    """The trace of check's counterexample (tb/formal/witness.py): its rows as text."""
    from tb.formal import witness
    rows, failed = witness.trace(engine.work_dir(check), getattr(check, "labels", ()), show)
    return witness.format_trace(rows) + ("" if failed else "\n(the replay did not fail an assertion)")


# The configurations of a module the mutation suites run (tb/mutation/rtl/suite.py: the
# in-order suite builds ga2_softmax with FAST = 0, the overlap suite with FAST = 1): a
# mutant is equivalent only when it is in every one of them (at FAST = 0 the fast path's
# constants are not even used, so a proof there alone says nothing about them).
CONFIGS = {"ga2_softmax": ({"FAST": 0}, {"FAST": 1})}


def verdict(site, work, pdr_timeout=600, bmc_depth=40, bmc_timeout=300, rtl_dir=None):
    """(text, [Verdict]) for one mutant: equivalent only when proven in every
    configuration of CONFIGS (a module's defaults when it has none); NOT equivalent
    when one has a counterexample; otherwise NOT PROVEN."""
    cfgs = CONFIGS.get(site.module, ({},))
    texts, vs = [], []
    for cfg in cfgs:
        text, v = _verdict1(site, work, cfg, pdr_timeout, bmc_depth, bmc_timeout, rtl_dir)
        texts.append(text)
        vs += v
        if not text.startswith("equivalent"):
            break
    if len(cfgs) == 1 or not texts[-1].startswith("equivalent"):
        return texts[-1], vs
    both = " and ".join(", ".join(f"{k} = {n}" for k, n in c.items()) for c in cfgs)
    return f"equivalent (proven in each of {both}: " + "; ".join(t[len("equivalent (proven by "):-1]
                                                                for t in texts) + ")", vs


def _verdict1(site, work, cfg, pdr_timeout, bmc_depth, bmc_timeout, rtl_dir):
    """(text, [Verdict]) for one mutant in one configuration cfg. The order: pdr on the
    masked miter (a proof or a counterexample), ABC's dprove on it (signal correspondence
    first: it proves a mutant whose copies keep equal registers, e.g. a tie in a running
    maximum, without re-proving the datapath), pdr on the strengthened miter; pdr and
    dprove at the small size when the module has SP_WORDS; then bmc3 for a counterexample
    or a bound. Each step has pdr_timeout seconds (yosys included)."""
    tries = [({}, False, "pdr"), ({}, False, "dprove"), ({}, True, "pdr")]
    if _has_params(site, rtl_dir):
        tries += [(SMALL, False, "pdr"), (SMALL, False, "dprove")]
    vs = []
    at = "".join(f", {k} = {n}" for k, n in cfg.items())
    for small, strong, how in tries:
        params = {**cfg, **small}
        c = site_check(site, work, how, pdr_timeout, rtl_dir, params=params or None, strengthen=strong)
        v = engine.run(c)
        vs.append(v)
        if v.result == "FAILED" and not strong:
            # the counterexample as a trace, one line a cycle, beside the witness
            (engine.work_dir(c) / "cex.txt").write_text(counterexample(c) + "\n")
            v.detail = f"trace: {engine.work_dir(c) / 'cex.txt'}"
        how = (f"abc {how}" + (", strengthened miter" if strong else ", masked miter")
               + ("".join(f", {k} = {n}" for k, n in params.items())))
        if v.result == "proven" and small:
            # not a verdict on the chip's size: the mutated logic may not even act at the
            # small one (e.g. a counter's top bit the small lengths never set); it counts
            # only with an argument that the small proof covers the default size
            return (f"NOT PROVEN at the default size{at}; at {', '.join(f'{k} = {n}' for k, n in small.items())} "
                    f"equivalent by {how.split(',')[0]} ({v.secs:.0f} s): a small proof, not counted"), vs
        if v.result == "proven":
            return f"equivalent (proven by {how}, miter of {site.module}, {v.secs:.0f} s)", vs
        if v.result == "FAILED" and not strong:
            return (f"NOT equivalent (abc {c.mode} counterexample, masked miter of {site.module}"
                    + "".join(f", {k} = {n}" for k, n in params.items()) + f": {v.detail})"), vs
    c = site_check(site, work, "bmc3", bmc_timeout, rtl_dir, params=cfg or None)
    c.depth = bmc_depth
    vs.append(engine.run(c))
    if vs[-1].result == "FAILED":
        return f"NOT equivalent (abc bmc3 counterexample, masked miter of {site.module}{at})", vs
    tried = "; ".join(f"{v.engine} {v.result.lower()}" for v in vs[:-1])
    return f"NOT PROVEN{at} (undecided: {tried}; bmc3 {vs[-1].depth} equal)", vs


def _has_params(site, rtl_dir):
    from tb.mutation.rtl.sites import RTL_DIR
    text = open(os.path.join(rtl_dir or RTL_DIR, site.file)).read()
    return all(f"parameter {k}" in text for k in SMALL)


def listed_sites(rtl_dir=None):
    """[(key, argument, Site or None)] of every entry of equivalents.txt."""
    from tb.mutation.rtl import equivalents
    from tb.mutation.rtl.sites import ALL_CLASSES, RTL_DIR, enumerate_sites
    rtl_dir = rtl_dir or RTL_DIR
    listed = equivalents.load_equivalents()
    mods = sorted({k[0][:-2] for k in listed})          # parse only the listed entries' files
    sites = {equivalents.equiv_key(s, rtl_dir): s
             for s in enumerate_sites(rtl_dir, modules=mods, classes=ALL_CLASSES)}
    return [(k, why, sites.get(k)) for k, why in listed.items()]
