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

Shared-state miter (shared=True): ONE set of registers for both copies. Each copy is built
with every flip-flop turned into an input (its value) and an output (its next value),
`expose -evert-dff`, the memories mapped to flip-flops first; the wrapper holds the
registers (the gold's initial values; the two copies must have the same registers, names,
widths and initial values, or ValueError), loads them from the gold's next values, feeds
them to both copies, and asserts, besides the masked outputs, that the gate's next value of
every register equals the gold's. Sound: by induction over the cycles, if in every state the
gold reaches, on every input, the gate's next state and observed outputs are the gold's,
then the gate run alone from the same initial state is in the gold's state in every cycle
(same initial values; one step of the gate from a gold-reachable state lands on the gold's
next state), so its outputs are the gold's -- the statement of the masked miter. The copies'
logic downstream of the registers (a multiplier, a divider) has the same inputs in both, so
ABC's structural hashing merges it and only the mutated logic is left to check: a tie in a
running maximum (x >= mx loads the value mx holds) closes at once. A failure proves nothing
(the registers may differ without an output doing so): like the strengthened miter's.

yosys's equivalence flow (equiv_check, tried first): every signal the two copies share by
name paired and proven equal in every cycle (equiv_simple from its cone, equiv_induct by
induction from the one initial state): a mutant whose changed logic is the same function
of the paired signals closes in seconds, the multipliers behind it untouched.

Related shared-state miter (RELATION, per mutant): the shared-state miter, but the gate
reads the named registers from free inputs constrained by a stated predicate over the
gold's registers, and their next values must meet it over the gold's next values: for a
mutant whose register steps differently where no output shows it (a pointer one phase
late, a counter counting down).

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
import time

from model import config, rtl
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
# the shared-state miter's extra step: every flip-flop (the memories mapped to them, the
# enables and resets to logic) turned into an input R.q (its value) and an output R.d (its
# next value), so the copy is its combinational logic only; R.q keeps R's initial value
# as its init attribute (an unset one 0, as ZERO_INIT)
_EVERT = "memory_map\nopt_clean\nasync2sync\ndffunmap\nsetundef -zero -init\nexpose -evert-dff t:$dff\n"

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

# The documented input contract of a unit: the decoder starts it only with an instruction
# that selects it and passes its checks (docs/isa.md "Faults": code 4 "bad shape", the
# length limits; code 2, the last word touched below the scratchpad's size). Verilog
# conditions over the miter's inputs, assumed in every cycle with start high (the miter's
# configuration: SP_WORDS, SM_MAX_LEN; 32-bit arithmetic, no wrap). The units that take the
# instruction word have it from their op records (model/rtl.py accepts); the matrix unit,
# which takes its fields, its shape (code 4) here. Nothing else is assumed: restarts while
# busy, reset and every data input stay free.
CONTRACT = {"ga2_mm_ctrl": ("m >= 1", "m <= 4", "n >= 1", "n <= 4", "k >= 1")}


def contract(module, params=None):
    """The assumed conditions of module's miter (its configuration filled in)."""
    size = {"SP_WORDS": config.DEFAULT.sp_words, "SM_MAX_LEN": config.DEFAULT.sm_max_len,
            "EXT_WORDS": config.DEFAULT.ext_words, **(params or {})}
    if module in rtl.modules() and module not in CONTRACT:
        sizes = {"sp_words": size["SP_WORDS"], "sm_max_len": size["SM_MAX_LEN"],
                 "ext_words": size["EXT_WORDS"], "array": config.DEFAULT.array}
        return (f"!start || ({rtl.accepts(module, sizes)})",)
    return tuple(f"!start || ({c.format(**size)})" for c in CONTRACT.get(module, ()))

# Stated invariants (the invariant miter: the strengthened one, every register of the two
# copies compared, except those in "while", compared only while the condition holds; the
# lemmas, properties of the gold's registers, asserted as well). A proof of it proves the
# masked miter (its assertions include the masked miter's); the invariant is what makes
# the property inductive, where pdr on the plain miter did not find one in its limit.
#   ga2_argmax, written for cnt_q's top bit dropped in have_v (proven so on 2026-12-01; that
#   mutant is caught since ARGMAX's pair writes the maximum a cycle after the last compare,
#   issue 37): the two differed only at cnt_q = 2^12 = len_q (the lemmas: len_q <= SP_WORDS,
#   the decoder's bound, and cnt_q <= len_q while busy), where they update best_q and bi_q
#   differently; kept as the unit's stated invariant for a survivor the shared-state
#   miter does not close.
INVARIANT = {
    "ga2_argmax": {"while": {"best_q": "g_busy_q", "bi_q": "g_busy_q"},
                   "lemmas": ("g_len_q <= {SP_WORDS}", "!g_busy_q || (g_cnt_q <= g_len_q)")},
}


# Stated relations (the related shared-state miter: wrapper(relation=...)): for a mutant whose
# registers step differently from the gold's but are observed only where they agree, the
# relation between the gate's register T and the gold's registers G(name) that holds in every
# reachable state; keyed as equivalents.equiv_key (file, class, code line, change). pdr then
# proves that every step (the first from the one initial state) keeps the relation, and that
# the observed outputs agree wherever it holds: every other register is shared, so the
# copies' datapaths (the multipliers, the divider) read the same values and merge.
RELATION = {
    # the source pointer steps in P_U instead of P_G: one behind in P_U, where rd_addr shows
    # bp_q (ph_q[0] = 1); an idle unit stays in P_U after its last P_G
    ("ga2_swiglu.v", "timing", "if (ph_q == P_G) ap_q <= ap_q + 1'b1;", "== x -> == x+1"):
        {"ap_q": "T == ((G(ph_q) == 3'd1) ? G(ap_q) - 1'b1 : G(ap_q))"},
    # the second source's pointer steps in P_SIG instead of P_U: one behind in P_SIG, where
    # rd_addr shows ap_q (ph_q[0] = 0)
    ("ga2_swiglu.v", "timing", "if (ph_q == P_U) bp_q <= bp_q + 1'b1;", "== x -> == x+1"):
        {"bp_q": "T == ((G(ph_q) == 3'd2) ? G(bp_q) - 1'b1 : G(bp_q))"},
    # the division step counts down: 14 - the gold's count (mod 16) in S_DIV, both 15 at
    # its boundaries, the only value st_q is compared with; outside S_DIV unused (any value)
    ("ga2_smw.v", "arith", "if (step) st_q <= st_q + 4'd1; // 15 wraps to 0: the next element's first step",
     "+ -> -"):
        {"st_q": "(G(state_q) != 2'd2) || (T == 4'd14 - G(st_q))"},
}


def relation_of(site, rtl_dir=None):
    """The stated relation (RELATION) of site's mutant, or None."""
    from tb.mutation.rtl import equivalents
    from tb.mutation.rtl.sites import RTL_DIR
    return RELATION.get(equivalents.equiv_key(site, rtl_dir or RTL_DIR))


# the invariant miter's engine: yosys-smtbmc (z3), bmc to k steps and k-induction (the
# stated invariant is what makes it inductive; ABC pdr on the same miter had not closed
# ga2_argmax's in 600 s)
INDUCTION_K = 2


def invariant(module, params=None):
    """module's stated invariant (INVARIANT) with its configuration filled in, or None."""
    inv = INVARIANT.get(module)
    if inv is None:
        return None
    size = {"SP_WORDS": config.DEFAULT.sp_words, **(params or {})}
    return {"while": inv["while"], "lemmas": tuple(c.format(**size) for c in inv["lemmas"])}


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


# yosys cell types that hold state: none may be left in a copy built with _EVERT
SEQUENTIAL = {"$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
              "$aldff", "$aldffe", "$ff", "$dlatch", "$adlatch", "$dlatchsr", "$mem", "$mem_v2",
              "$memrd", "$memrd_v2", "$memwr", "$memwr_v2"}


def state_of(ports, inits):
    """{register: (width, init bits)} of a copy built with _EVERT: its R.q inputs (inits:
    {port: init bit string, MSB first}, from the copy's JSON)."""
    return {n[:-2]: (w, inits.get(n, "0" * w)) for n, (d, w) in ports.items()
            if d == "input" and n.endswith(".q")}


def wrapper(ports_gold, ports_gate, contract=(), state=None, invariant=None, relation=None):
    """(Verilog, labels) of ga2_miter: gold and gate on the same inputs, the masked comparison of
    every output both have (and every register, when both expose them) as one assertion
    `ok`, each compared item's bit in the public vector `ok_v` (labels: their names, bit 0
    first; the trace shows which failed).
    state ({register: (width, init)}, both copies built with _EVERT): the shared-state
    miter -- ONE set of registers, in the wrapper, loaded from gold's next values and read
    by both copies; besides the outputs, every register's next value is compared.
    invariant ({"while": {output: condition}, "lemmas": (condition, ...)}, Verilog over the
    g_ / t_ names; the strengthened miter's register outputs): the stated invariant -- those
    outputs compared only while their condition holds, the lemmas asserted too.
    relation ({register: predicate}, with state; RELATION): the related shared-state miter --
    in the first cycle the gate reads the one initial state (its initial values are the
    gold's); after it, it reads such a register from a free input T constrained by the
    predicate over the one state (G(name): the gold's value of a register) and T; in every
    cycle its next value must meet the predicate over the gold's next values. Sound by
    induction: the gate's real value meets the predicate in every cycle after the first
    (the check of the cycle before), so its run is one the miter covers."""
    relation = relation or {}
    if set(relation) - set(state or {}):
        raise ValueError(f"relation on registers not in the state: {sorted(set(relation) - set(state or {}))}")
    evert = set()
    if state is not None:
        evert = {f"{r}.{x}" for r in state for x in "qdc"}
    ins = [(n, w) for n, (d, w) in ports_gold.items() if d == "input" and n not in evert]
    gate_ins = {n: w for n, (d, w) in ports_gate.items() if d == "input" and n not in evert}
    if gate_ins != dict(ins):
        raise ValueError(f"gold and gate inputs differ: {sorted(set(gate_ins) ^ set(dict(ins)))}")
    both = {n: v for n, v in ports_gold.items()
            if v[0] == "output" and ports_gate.get(n) == v and n not in evert}
    rel_ins = [(f"rel{i}", state[r][0]) for i, r in enumerate(state or {}) if r in relation]
    lines = ["module ga2_miter (" + ", ".join(f"input wire [{w - 1}:0] {_esc(n)}" for n, w in ins + rel_ins)
             + ");"]
    index = {r: i for i, r in enumerate(state or {})}
    cur = {r: f"s{i}" for r, i in index.items()}
    nxt = {r: _esc("g_" + r + ".d") for r in index}

    def pred(r, values, t):
        """relation[r] over values ({register: Verilog}) with T = t."""
        def g(m):
            if m.group(1) not in values:
                raise ValueError(f"relation of {r}: {m.group(1)} is not a register of the state")
            return f"({values[m.group(1)]})"
        return "(" + re.sub(r"\bT\b", lambda _: f"({t})", re.sub(r"G\(([\w.\[\]]+)\)", g, relation[r])) + ")"
    if relation:
        lines.append("  reg first = 1'b1;")
        lines.append("  always @(posedge clk) first <= 1'b0;")
    for i, (r, (w, init)) in enumerate((state or {}).items()):
        # register i of the one state: its value s<i>, the copies' next values g_/t_ R.d
        lines.append(f"  reg [{w - 1}:0] s{i} = {w}'b{init.replace('x', '0')};")
        for tag in "gt":
            lines.append(f"  wire [{w - 1}:0] {_esc(tag + '_' + r + '.d')};")
        lines.append(f"  always @(posedge clk) s{i} <= {_esc('g_' + r + '.d')};")
    for side, tag in (("gold", "g"), ("gate", "t")):
        for n, (_, w) in both.items():
            lines.append(f"  wire [{w - 1}:0] {_esc(tag + '_' + n)};")
        conns = [f".{_esc(n)}({_esc(n)})" for n, _ in ins]
        conns += [f".{_esc(n)}({_esc(tag + '_' + n)})" for n in both]
        for i, r in enumerate(state or {}):
            q = f"(first ? s{i} : rel{i})" if tag == "t" and r in relation else f"s{i}"
            conns += [f".{_esc(r + '.q')}({q})", f".{_esc(r + '.d')}({_esc(tag + '_' + r + '.d')})"]
        lines.append(f"  {side} u_{side} (" + ", ".join(conns) + ");")
    checks, labels = [], []
    for r in state or {}:
        if r in relation:
            checks.append(pred(r, nxt, _esc("t_" + r + ".d")))
            labels.append(f"next {r} related")
            continue
        checks.append(f"({_esc('g_' + r + '.d')} == {_esc('t_' + r + '.d')})")
        labels.append(f"next {r}")
    only = (invariant or {}).get("while", {})
    for n, en in observed(both):
        g, t = _esc("g_" + n), _esc("t_" + n)
        if en is None:
            checks.append(f"(!({only[n]}) || ({g} == {t}))" if n in only else f"({g} == {t})")
            labels.append(f"{n} while {only[n]}" if n in only else n)
            continue
        w, k = both[n][1], both[en][1]
        s = w // k                     # a vector enable: bit i masks slice i
        for i in range(k):
            checks.append(f"(!g_{en}[{i}] || ({g}[{i * s + s - 1}:{i * s}] == {t}[{i * s + s - 1}:{i * s}]))")
            labels.append(f"{n}[{i}] while {en}[{i}]" if k > 1 else f"{n} while {en}")
    for c in (invariant or {}).get("lemmas", ()):
        checks.append(f"({c})")
        labels.append(f"lemma {c}")
    lines.append(f"  (* keep *) wire [{len(checks) - 1}:0] ok_v = {{" + ", ".join(reversed(checks)) + "};")
    lines.append("  always @* begin")
    for c in contract:
        lines.append(f"    assume ({c});")
    for r in relation:
        lines.append(f"    assume (first || {pred(r, cur, f'rel{index[r]}')});")
    lines.append("    assert (&ok_v);")
    lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n", labels


def build_sides(module, gold_dir, gate_dir, work, params=None, strengthen=False, timeout=300, shared=False):
    """Elaborate gold and gate (yosys) into work/{gold,gate}.il; their {port: (dir, width)}
    (shared: built with _EVERT; then also the state, state_of(), the same in both copies
    or ValueError)."""
    work.mkdir(parents=True, exist_ok=True)
    ch = "".join(f"chparam -set {k} {v} {module}\n" for k, v in (params or {}).items())
    ports, states = {}, {}
    for name, d in (("gold", gold_dir), ("gate", gate_dir)):
        files = " ".join(str(f) for f in rtl_files(d))
        script = _SIDE.format(d=d, files=files, mod=module, name=name, chparam=ch,
                              strengthen=_EVERT if shared else _EXPOSE if strengthen else "",
                              il=work / f"{name}.il", js=work / f"{name}.json")
        (work / f"{name}.ys").write_text(script)
        rc, out = engine._run(["yosys", "-q", str(work / f"{name}.ys")], work / f"{name}.out", timeout)
        if rc != 0:
            raise RuntimeError(f"yosys ({name} of {module}): " + ("timed out" if rc is None else out.strip()[-300:]))
        m = json.load(open(work / f"{name}.json"))["modules"][name]
        ports[name] = {n: (p["direction"], len(p["bits"])) for n, p in m["ports"].items()}
        if shared:
            seq = {c["type"] for c in m["cells"].values()} & SEQUENTIAL
            if seq:
                raise ValueError(f"{module} ({name}): state left after expose -evert-dff: {sorted(seq)}")
            inits = {n: str(w["attributes"]["init"]) for n, w in m["netnames"].items()
                     if n in m["ports"] and "init" in w["attributes"]}
            states[name] = state_of(ports[name], inits)
    if not shared:
        return ports["gold"], ports["gate"]
    if states["gold"] != states["gate"]:
        diff = sorted(set(states["gold"].items()) ^ set(states["gate"].items()))
        raise ValueError(f"{module}: the mutant changes the registers (shared-state miter n/a): {diff[:4]}")
    return ports["gold"], ports["gate"], states["gold"]


def site_check(site, work, mode="pdr", timeout=600, rtl_dir=None, name=None, params=None,
               strengthen=False, shared=False, inv=False, relation=None):
    """The masked miter Check of one mutation site (tb.mutation.rtl.sites.Site), the
    module's parameters set to params (default: its own defaults); strengthen: every
    register also compared; shared: the shared-state miter (wrapper(), docs/formal.md);
    inv: the strengthened miter with the module's stated invariant (INVARIANT); relation
    (with shared): the related shared-state miter ({register: predicate}, RELATION)."""
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    rtl_dir = rtl_dir or RTL_DIR
    gold = make_mutant_dir(None, str(work / "gold"), rtl_dir)
    gate = make_mutant_dir(site, str(work / "gate"), rtl_dir)
    strengthen = strengthen or inv
    kind = "related" if relation else "shared" if shared else "inv" if inv else "strong" if strengthen else "masked"
    tag = kind + ("_" + "_".join(f"{k}{v}" for k, v in params.items()) if params else "")
    sides = work / tag
    got = build_sides(site.module, gold, gate, sides, params, strengthen, shared=shared)
    text, labels = wrapper(*got[:2], contract(site.module, params), state=got[2] if shared else None,
                           invariant=invariant(site.module, params) if inv else None,
                           relation=relation if shared else None)
    (sides / "miter.v").write_text(text)
    front = (f"read_rtlil {sides / 'gold.il'}\nread_rtlil {sides / 'gate.il'}\n"
             f"read_verilog -formal {sides / 'miter.v'}\nhierarchy -top ga2_miter\n")
    what = ("shared state but the related registers (" + "; ".join(f"{r}: {p}" for r, p in relation.items())
            + "), " if relation and shared
            else "shared state (one set of registers, every next value compared), " if shared
            else "the stated invariant (INVARIANT), " if inv
            else "strengthened (every register equal), " if strengthen else "")
    size = (", " + ", ".join(f"{k} = {v}" for k, v in params.items())) if params else ""
    c = Check(name or f"equiv/{site.file}:{site.line} {site.cls} {tag} {mode}", "ga2_miter", [], 0, mode,
              front=front, post=ZERO_INIT, timeout=timeout,
              what=f"{site.module}{size}: {what}mutant {site.desc.splitlines()[0][:80]}")
    c.labels = labels                  # the names of ok_v's bits (counterexample())
    if mode == "induction":
        c.depth = INDUCTION_K
    return c


# yosys's own equivalence flow on the two elaborated copies (equiv_check): equiv_make pairs
# every signal the two share by name ($equiv cells), equiv_simple proves each pair from its
# combinational cone (cut at the other pairs), equiv_induct proves the rest by induction
# over the cycles (every pair equal in a cycle gives every pair equal in the next), and
# equiv_status -assert fails unless every pair is proven. The base case is the miters'
# convention, one initial state for both copies (equiv_check refuses copies whose
# registers' initial values differ), so a proof says every shared signal -- every output
# among them -- is equal in every cycle: a stronger statement than the masked miter's.
_EQUIV = """read_rtlil {gold}
read_rtlil {gate}
memory_map
opt_clean
equiv_make gold gate equiv
hierarchy -top equiv
equiv_simple
equiv_induct
equiv_status -assert
"""


# the equivalence flow's own time limit (seconds): it decides in seconds or not at all
# (ga2_qnt's mul_b: 7 s; on ga2_softmax's divider and multipliers equiv_induct runs on)
EQUIV_LIMIT = 120


def _inits(js, name):
    """{net: init} of the copy name's netnames with an initial value (its yosys JSON)."""
    m = json.load(open(js))["modules"][name]
    return {n: str(w["attributes"]["init"]) for n, w in m["netnames"].items() if "init" in w["attributes"]}


def equiv_check(site, work, timeout=600, rtl_dir=None, params=None):
    """The Verdict of yosys's equivalence flow (_EQUIV) on site's unit and its mutant: proven
    when every signal the two copies share by name (every output) is equal in every cycle;
    a failure proves nothing (a register may differ while no output does). ValueError when
    the copies' initial values differ (the induction's base case would not hold)."""
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    rtl_dir = rtl_dir or RTL_DIR
    gold = make_mutant_dir(None, str(work / "gold"), rtl_dir)
    gate = make_mutant_dir(site, str(work / "gate"), rtl_dir)
    sides = work / ("equiv" + ("_" + "_".join(f"{k}{v}" for k, v in params.items()) if params else ""))
    return equiv_dirs(site.module, gold, gate, sides, params, timeout,
                      f"equiv/{site.file}:{site.line} {site.cls} yosys-equiv")


def equiv_dirs(module, gold, gate, sides, params=None, timeout=600, name="equiv/yosys-equiv"):
    """equiv_check on module as the RTL folders gold and gate hold it (built in sides)."""
    t0 = time.perf_counter()
    build_sides(module, gold, gate, sides, params)
    gi, ti = _inits(sides / "gold.json", "gold"), _inits(sides / "gate.json", "gate")
    # an unset initial value is 0 (ZERO_INIT), and so is an x
    width = {n: len(v) for n, v in {**gi, **ti}.items()}
    if any(gi.get(n, "0" * w).replace("x", "0") != ti.get(n, "0" * w).replace("x", "0") for n, w in width.items()):
        raise ValueError(f"{module}: the mutant changes an initial value (yosys equiv n/a)")
    (sides / "equiv.ys").write_text(_EQUIV.format(gold=sides / "gold.il", gate=sides / "gate.il"))
    rc, out = engine._run(["yosys", "-q", "-l", str(sides / "equiv.log"), str(sides / "equiv.ys")],
                          sides / "equiv.out", timeout)
    secs = time.perf_counter() - t0
    if rc is None:
        return engine.Verdict(name, "TIMEOUT", "yosys equiv", "-", secs)
    if rc == 0 and "Equivalence successfully proven" in open(sides / "equiv.log").read():
        return engine.Verdict(name, "proven", "yosys equiv", "equiv_simple + equiv_induct", secs)
    left = re.search(r"Found (\d+) unproven", out)
    return engine.Verdict(name, "FAILED" if left else "ERROR", "yosys equiv", "-", secs,
                          f"{left.group(1)} pairs unproven" if left else out.strip()[-200:])


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
    """(text, [Verdict]) for one mutant in one configuration cfg. The order: yosys's
    equivalence flow (equiv_check: seconds; its failure proves nothing), pdr on the
    shared-state miter (a proof; its failure proves nothing), the invariant miter's
    2-induction when the module has a stated invariant (INVARIANT), pdr on the
    masked miter (a proof or a counterexample), ABC's dprove on it (signal correspondence
    first: it proves a mutant whose copies keep equal registers, e.g. a tie in a running
    maximum, without re-proving the datapath), pdr on the strengthened miter; pdr and
    dprove at the small size when the module has SP_WORDS; then bmc3 for a counterexample
    or a bound. Each step has pdr_timeout seconds (yosys included)."""
    tries = [({}, "yosys", "equiv")] + ([({}, "related", "pdr")] if relation_of(site, rtl_dir) else [])
    tries += [({}, "shared", "pdr")]
    tries += [({}, "inv", "induction")] if site.module in INVARIANT else []
    tries += [({}, "masked", "pdr"), ({}, "masked", "dprove"), ({}, "strong", "pdr")]
    if _has_params(site, rtl_dir):
        tries += [(SMALL, "masked", "pdr"), (SMALL, "masked", "dprove")]
    vs = []
    at = "".join(f", {k} = {n}" for k, n in cfg.items())
    for small, kind, how in tries:
        params = {**cfg, **small}
        if kind == "yosys":
            # yosys's equivalence flow: seconds; its failure proves nothing
            try:
                v = equiv_check(site, work, min(pdr_timeout, EQUIV_LIMIT), rtl_dir, params or None)
            except ValueError:
                continue
            vs.append(v)
            if v.result == "proven":
                at_p = "".join(f", {k} = {n}" for k, n in params.items())
                return (f"equivalent (proven by yosys equiv_simple + equiv_induct{at_p}, every shared "
                        f"signal of {site.module}'s two copies equal in every cycle, {v.secs:.0f} s)"), vs
            continue
        try:
            c = site_check(site, work, how, pdr_timeout, rtl_dir, params=params or None,
                           strengthen=kind == "strong", shared=kind in ("shared", "related"), inv=kind == "inv",
                           relation=relation_of(site, rtl_dir) if kind == "related" else None)
        except ValueError:
            if kind not in ("shared", "related"):
                raise
            continue                   # the mutant has other registers: no one state to share
        v = engine.run(c)
        vs.append(v)
        # a failure of the strengthened or the shared-state miter is no counterexample: its
        # registers (or next values) may differ while no output does
        cex = v.result == "FAILED" and kind == "masked"   # (and the invariant's: maybe not true)
        if cex:
            # the counterexample as a trace, one line a cycle, beside the witness
            (engine.work_dir(c) / "cex.txt").write_text(counterexample(c) + "\n")
            v.detail = f"trace: {engine.work_dir(c) / 'cex.txt'}"
        rel = relation_of(site, rtl_dir) if kind == "related" else {}
        how = ((f"smtbmc z3 {INDUCTION_K}-induction" if how == "induction" else f"abc {how}")
               + f", {KINDS[kind]}" + "".join(f", {r}: {p}" for r, p in rel.items())
               + "".join(f", {k} = {n}" for k, n in params.items()))
        if v.result == "proven" and small:
            # not a verdict on the chip's size: the mutated logic may not even act at the
            # small one (e.g. a counter's top bit the small lengths never set); it counts
            # only with an argument that the small proof covers the default size
            return (f"NOT PROVEN at the default size{at}; at {', '.join(f'{k} = {n}' for k, n in small.items())} "
                    f"equivalent by {how.split(',')[0]} ({v.secs:.0f} s): a small proof, not counted"), vs
        if v.result == "proven":
            return f"equivalent (proven by {how}, miter of {site.module}, {v.secs:.0f} s)", vs
        if cex:
            return (f"NOT equivalent (abc {c.mode} counterexample, masked miter of {site.module}"
                    + "".join(f", {k} = {n}" for k, n in params.items()) + f": {v.detail})"), vs
    c = site_check(site, work, "bmc3", bmc_timeout, rtl_dir, params=cfg or None)
    c.depth = bmc_depth
    vs.append(engine.run(c))
    if vs[-1].result == "FAILED":
        return f"NOT equivalent (abc bmc3 counterexample, masked miter of {site.module}{at})", vs
    tried = "; ".join(f"{v.engine} {v.result.lower()}" for v in vs[:-1])
    return f"NOT PROVEN{at} (undecided: {tried}; bmc3 {vs[-1].depth} equal)", vs


# the miters verdict() tries, as its text names them
KINDS = {"shared": "shared-state miter", "related": "related shared-state miter",
         "masked": "masked miter", "strong": "strengthened miter",
         "inv": "invariant miter"}


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
