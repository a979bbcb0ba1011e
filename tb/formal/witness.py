"""A counterexample of a formal check as a readable trace.

ABC (`pdr`, `bmc3`) writes its counterexample as an AIGER witness (`pdr.aiw` / `bmc3.aiw`:
the initial latches, then the inputs of every frame, by AIGER index; `model.aim` maps an
index to its port and bit). engine.build_aiger keeps the design just before it is
lowered to an AIG (`pre.il`); yosys's `sim` replays the witness on it (`-r WITNESS -map
model.aim`, registers without an initial value at 0 as in the AIGER, `-zinit`) and writes
a VCD of every net (`cex.vcd`). trace() reads that VCD into one row per cycle; the
replay is independent of ABC (a witness that does not make an assertion fail in the
replay is reported as such: `replay_fails`).
"""
import re
from pathlib import Path

from tb.formal import engine


def replay(work, witness=None, timeout=300, clock="clk"):
    """Replay work's witness on work/pre.il (its clock input: clock); (vcd path, True when
    an assertion failed)."""
    work = Path(work)
    wit = Path(witness) if witness else next(p for p in (work / "pdr.aiw", work / "bmc3.aiw") if p.exists())
    vcd = work / "cex.vcd"
    rc, out = engine._run(["yosys", "-p", f"read_rtlil {work / 'pre.il'}; flatten; sim -clock {clock} -zinit "
                           f"-r {wit} -map {work / 'model.aim'} -vcd {vcd}"], work / "replay.log", timeout)
    if rc is None or not vcd.exists():
        raise RuntimeError(f"witness replay failed: see {work / 'replay.log'}")
    return vcd, bool(re.search(r"Assert .* failed", out))


def read_vcd(path):
    """{signal name (scope.name): [value per time step as int or None for x]}."""
    names, vals, cur, steps = {}, {}, {}, []
    scope = []
    text = Path(path).read_text()
    head, _, body = text.partition("$enddefinitions")
    for m in re.finditer(r"\$scope \w+ (\S+) \$end|\$upscope \$end"
                         r"|\$var \w+ \d+ (\S+) (\S+)(?: \[[^\]]*\])? \$end", head):
        if m.group(0).startswith("$scope"):
            scope.append(m.group(1))
        elif m.group(0).startswith("$upscope"):
            scope.pop()
        else:
            full = ".".join(scope[1:] + [m.group(3)])
            names.setdefault(m.group(2), []).append(full)
    for tok in body.split():
        if tok.startswith("#"):
            if cur:
                steps.append(dict(cur))
            continue
        if tok.startswith("$"):
            continue
        if tok[0] in "01xz" and len(tok) > 1 and not tok.startswith("b"):
            cur[tok[1:]] = None if tok[0] in "xz" else int(tok[0])
        elif tok.startswith("b"):
            pending = tok[1:]
            cur["__pending"] = pending
        elif "__pending" in cur:
            v = cur.pop("__pending")
            cur[tok] = None if re.search("[xz]", v) else int(v, 2)
    if cur:
        steps.append(dict(cur))
    for ident, ns in names.items():
        for n in ns:
            vals[n] = [s.get(ident) for s in steps]
    return vals


def trace(work, labels=(), show=(), witness=None):
    """(rows, failed): one dict per cycle of the replayed counterexample, each with the
    inputs named in show, every g_X / t_X pair that differs, and the failed checks
    (labels: the names of ok_v's bits, bit 0 first); failed: the replay made an assertion fail."""
    vcd, failed = replay(work, witness)
    v = read_vcd(vcd)
    n = max(len(x) for x in v.values())
    # one row per clock cycle: the values where clk is low (after the update of the last edge)
    cyc = [i for i in range(n) if v.get("clk", [0] * n)[i] == 0] or list(range(n))
    rows = []
    outs = sorted(k[2:] for k in v if k.startswith("g_") and "t_" + k[2:] in v)
    for c, i in enumerate(cyc):
        r = {"cycle": c}
        for s in show:
            if s in v:
                r[s] = v[s][i]
        for o in outs:
            if v["g_" + o][i] != v["t_" + o][i]:
                r[o] = (v["g_" + o][i], v["t_" + o][i])
        ok = v.get("ok_v", [None] * n)[i]
        if ok is not None and labels:
            r["failed"] = [labels[b] for b in range(len(labels)) if not (ok >> b) & 1]
        rows.append(r)
    return rows, failed


def format_trace(rows):
    """The rows as text, one line a cycle ((gold, gate) for an output that differs)."""
    out = []
    for r in rows:
        out.append(f"cycle {r['cycle']:3d}: " + ", ".join(
            f"{k}={hex(x) if isinstance(x, int) and x > 9 else x}" for k, x in r.items() if k != "cycle"))
    return "\n".join(out)
