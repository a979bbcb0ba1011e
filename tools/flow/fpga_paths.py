"""The worst paths of a routed ECP5 design, and the modules they cross (`make fpga`).

Why: nextpnr reports one critical path per clock; the analysis of what limits GA-2's
clock needs the next few too, and the RTL modules each path runs through. This module
reads what nextpnr-ecp5 wrote and makes no timing model of its own:
  - the SDF (--sdf): every cell's delay arcs (IOPATH), every routed connection's delay
    (INTERCONNECT), every flip-flop's and RAM's setup time (SETUPHOLD), in ps;
  - the report (--report, with --detailed-timing-report): the routed net of each
    connection (its name) and the achieved Fmax;
  - yosys's JSON of the synthesised design: each net's other names in the RTL (its
    public aliases, e.g. u_chip.u_sp.g_rd[9].dout_q), each cell's source lines.
worst_paths() is a static timing analysis over the SDF's graph (longest arrival from
every clocked output, setup added at every clocked input), the worst path into each
endpoint register, the N worst registers; its worst equals nextpnr's own critical path
(tests/flow/test_fpga.py checks it on a stored report). modules_of() names the RTL
instances a path's nets and cells belong to.
"""
import collections
import json
import re

CLOCK_PINS = ("CLK", "CLKA", "CLKB", "WCK")   # the clock inputs of ECP5's FF, DP16KD, RAMW

_TRIPLE = r"\((-?[\d.]*):(-?[\d.]*):(-?[\d.]*)\)"


def _unescape(name):
    """An SDF identifier as nextpnr named it (SDF escapes [ ] $ . / with a backslash)."""
    return re.sub(r"\\(.)", r"\1", name)


def _pin(text):
    """'inst/PORT' (the divider is the last unescaped slash) -> (inst, PORT)."""
    m = re.match(r"^(.*[^\\])/([^/]+)$", text)
    if not m:
        raise ValueError(f"SDF pin {text!r} has no cell/port divider")
    return _unescape(m.group(1)), m.group(2)


def _worst(*triples):
    """The largest max-corner value of (min:typ:max) triples, in ps."""
    return max(float(t[2] or 0) for t in triples)


def parse_sdf(text):
    """(arcs, launches, setups) of nextpnr's SDF: arcs [(from pin, to pin, ps)] for every
    INTERCONNECT and every combinational IOPATH; launches {pin: clock-to-out ps} for the
    IOPATHs out of a clock input; setups {pin: setup ps} of every input checked against
    a clock's posedge. A pin is (cell, port)."""
    arcs, launches, setups = [], {}, {}
    for m in re.finditer(r"\(INTERCONNECT\s+(\S+)\s+(\S+)\s+" + _TRIPLE + r"(?:\s*" + _TRIPLE + r")?", text):
        g = m.groups()
        arcs.append((_pin(g[0]), _pin(g[1]), _worst(g[2:5], g[5:8] if g[5] is not None else g[2:5])))
    for cell in re.finditer(r"\(INSTANCE\s*([^)]*)\)(.*?)(?=\(CELL\b|\Z)", text, re.S):
        inst, body = _unescape(cell.group(1).strip()), cell.group(2)
        for m in re.finditer(r"\(IOPATH\s+(\S+)\s+(\S+)\s+" + _TRIPLE + r"(?:\s*" + _TRIPLE + r")?", body):
            a, b = m.group(1), m.group(2)
            d = _worst(m.groups()[2:5], m.groups()[5:8] if m.group(6) is not None else m.groups()[2:5])
            if a in CLOCK_PINS:
                launches[(inst, b)] = max(d, launches.get((inst, b), 0.0))
            else:
                arcs.append(((inst, a), (inst, b), d))
        for m in re.finditer(r"\(SETUPHOLD\s+\((?:posedge|negedge)\s+(\S+)\)\s+\(posedge\s+(\S+)\)\s+" + _TRIPLE,
                             body):
            pin = (inst, m.group(1))
            setups[pin] = max(float(m.group(5) or 0), setups.get(pin, 0.0))
    return arcs, launches, setups


def analyse(arcs, launches, setups):
    """Longest arrival (ps) at every pin from the clocked outputs, and each pin's
    predecessor on its longest path. Returns (arrival, pred, loops): loops counts the pins
    left out because they sit on a combinational cycle (none in a legal netlist)."""
    succ = collections.defaultdict(list)
    indeg = collections.Counter()
    for a, b, d in arcs:
        succ[a].append((b, d))
        indeg[b] += 1
    arrival = dict(launches)
    pred = {}
    nodes = set(succ) | set(indeg) | set(launches)
    ready = collections.deque(n for n in nodes if indeg[n] == 0)
    done = 0
    while ready:
        n = ready.popleft()
        done += 1
        t = arrival.get(n)
        for b, d in succ.get(n, ()):
            if t is not None and (b not in arrival or t + d > arrival[b]):
                arrival[b] = t + d
                pred[b] = (n, d)
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    return arrival, pred, len(nodes) - done


def trace(pin, pred, launches):
    """The path into pin: [(pin, arrival step ps, kind)] from its clocked start, where kind
    is 'clk-to-q', 'routing' (between cells) or 'logic' (inside one)."""
    steps = []
    while pin in pred:
        prev, d = pred[pin]
        steps.append((pin, d, "logic" if prev[0] == pin[0] else "routing"))
        pin = prev
    steps.append((pin, launches.get(pin, 0.0), "clk-to-q"))
    return steps[::-1]


_BIT = re.compile(r"^(.*)\[(\d+)\]$")
_FLAT = re.compile(r"^\$flatten((?:\\?[\w\[\]]+\.)+)")        # $flatten\u_chip.\u_norm.$mul...
_PACKED = re.compile(r"\$CCU2_COMB([01])$")                   # nextpnr's halves of a CCU2C


def worst_paths(sdf_text, n=5, register_of=lambda cell: cell):
    """The worst path into each of the n worst endpoint registers, worst first:
    [{"ps", "end", "register", "steps", "setup_ps"}], and the count of pins left out on
    combinational cycles. register_of(cell) names the register a flip-flop or RAM cell
    belongs to (Names.register_of: all bits of one RTL register are one)."""
    arcs, launches, setups = parse_sdf(sdf_text)
    arrival, pred, loops = analyse(arcs, launches, setups)
    ends = sorted(((arrival[p] + s, p) for p, s in setups.items() if p in arrival), reverse=True)
    out, seen = [], set()
    for ps, pin in ends:
        reg = register_of(pin[0])
        if reg in seen:
            continue
        seen.add(reg)
        out.append({"ps": ps, "end": pin, "register": reg, "steps": trace(pin, pred, launches),
                    "setup_ps": setups[pin]})
        if len(out) == n:
            break
    return out, loops


# ---------------------------------------------------------------------- the RTL's names
class Names:
    """What the synthesised design (yosys's JSON, the cells nextpnr placed keep their
    names) knows of names: each net bit's public aliases (the RTL's wires at every level
    of the hierarchy, e.g. u_chip.u_sp.mem[6]), each cell's connections and source lines,
    each instance's module (yosys's $scopeinfo cells)."""

    def __init__(self, design_json):
        d = json.loads(design_json) if isinstance(design_json, str) else design_json
        mods = list(d["modules"].values())
        (top,) = [m for m in mods if m.get("attributes", {}).get("top")] or mods[:1]
        self.aliases = collections.defaultdict(list)   # bit -> public names "name[i]"
        for name, nn in top["netnames"].items():
            if nn.get("hide_name") or name.startswith("$"):
                continue
            bits = nn["bits"]
            for i, b in enumerate(bits):
                if isinstance(b, int):
                    self.aliases[b].append(name if len(bits) == 1 else f"{name}[{i}]")
        self.cells = top["cells"]
        self.module = {}                                # instance path -> module name
        for n, c in self.cells.items():
            if c["type"] == "$scopeinfo":
                a = c.get("attributes", {})
                mod = a.get("module_hdlname") or a.get("module", "")
                m = re.match(r"^\$paramod\$?\w*\\(\w+)", mod)          # $paramod\ga2_x\P=... -> ga2_x
                self.module[n] = m.group(1) if m else mod.lstrip("\\")

    def _cell(self, name):
        """(yosys cell, output port map) of a cell nextpnr names: the same name, or the
        CCU2C a packed half comes from."""
        m = _PACKED.search(name)
        if m:
            k = m.group(1)
            return self.cells.get(name[:m.start()]), {"F": f"S{k}", "FCO": "COUT"}
        return self.cells.get(name), {"F": "Z", "OFX": "Z"}

    def net_names(self, pin):
        """The public names of the net a cell's output pin drives (deepest first)."""
        cell, rename = self._cell(pin[0])
        if cell is None:
            return []
        conn = cell["connections"].get(pin[1]) or cell["connections"].get(rename.get(pin[1], ""))
        if not conn or not isinstance(conn[0], int):
            return []
        return sorted(self.aliases.get(conn[0], ()), key=lambda a: (-a.count("."), a))

    def register_of(self, cell):
        """The RTL register a flip-flop or RAM cell holds a bit of: its output's public
        name without the bit index (u_chip.u_sp.mem[6] -> u_chip.u_sp.mem), a name ending
        _q first (the RTL names its registers so), else the deepest; else the cell's own."""
        for port in ("Q", "DOA0", "DOB0", "DO0"):
            regs = [re.sub(r"(\[\d+\])+$", "", a) for a in self.net_names((cell, port))]   # mem[6][5] -> mem
            if regs:
                return sorted(regs, key=lambda r: (not r.endswith("_q"), -r.count("."), r))[0]
        return cell

    def instance_of_cell(self, name):
        """The instance a cell's name places it in ($flatten\\u_chip.\\u_norm.$mul... ->
        u_chip.u_norm; u_chip.u_softmax.ebuf.0.0 -> u_chip.u_softmax), or None."""
        m = _FLAT.match(name)
        if m:
            return m.group(1).replace("\\", "").rstrip(".")
        if name.startswith("u_chip.") and "$" not in name:
            return ".".join(name.split(".")[:2])
        if name.startswith("g_lane["):                   # the wrapper's instruction memory lanes
            return "ga2_fpga imem"
        if name.startswith("ext."):                      # the wrapper's external memory
            return "ga2_fpga ext"
        return None

    def source_modules(self, name):
        """The RTL modules (ga2_*.v files) a cell's source lines name."""
        cell, _ = self._cell(name)
        src = (cell or {}).get("attributes", {}).get("src", "")
        return sorted({m.group(1) for m in re.finditer(r"(?:^|[/|])(ga2_\w+)\.v:", src)})

    def label(self, inst):
        mod = self.module.get(inst)
        return f"{inst} ({mod})" if mod else inst


def modules_of(steps, names):
    """The RTL instances a path crosses, in order of first meeting: the instance a cell's
    name places it in (multipliers, memories), the RTL file a cell's source lines name
    (carry chains: 'ga2_norm.v'), and the deepest public name of each net it drives."""
    out = []

    def add(x):
        if x and x not in out:
            out.append(x)
    for pin, _, kind in steps:
        inst = names.instance_of_cell(pin[0])
        if inst:
            add(names.label(inst))
        else:
            for m in names.source_modules(pin[0]):
                add(f"{m}.v")
        if kind in ("clk-to-q", "logic"):
            for a in names.net_names(pin)[:1]:
                add(names.label(a.rsplit(".", 1)[0]) if "." in a else "(top)")
    return out


def critical_path_ns(report):
    """nextpnr's own critical path of the clock domain (posedge -> posedge), in ns."""
    for cp in report.get("critical_paths", ()):
        if cp["from"].startswith("posedge") and cp["to"].startswith("posedge"):
            return sum(s["delay"] for s in cp["path"])
    return None


def fmax(report):
    """(achieved MHz, target MHz) of the design's one clock."""
    (v,) = report["fmax"].values()
    return v["achieved"], v["constraint"]
