#!/usr/bin/env python3
"""`make formal`: properties of the GA-2 RTL proven by yosys 0.23, yosys-smtbmc/z3 and ABC.

Why: simulation checks only the programs someone ran; these checks hold for every input
sequence (every program, data value, start and reset) of the configuration they state.
The checks are tb/formal/props.py's (the overlap mode's scratchpad safety, ga2_hazard's
local invariant, the host contract, each unit's busy length, each unit's scratchpad
accesses inside the ranges the hazard check reserves for it, planted bugs that must fail) and one miter per entry of
tb/mutation/rtl/equivalents.txt (tb/formal/miter.py: the shared-state, invariant and masked miters, ABC pdr and
dprove, z3 induction; a counterexample's trace is written beside its witness), or, for the
three entries no unit miter closes, its compositional proof (tb/formal/compose.py: the
reciprocal constants, ga2_mm_ctrl's early read on the scratchpad miter). Prints the table
(property, engine, depth or induction, result, wall time) and writes it to
out/formal.txt; exits 1 when a check fails or errs, or a listed equivalent is not proven
(`--limit`: seconds per engine step of a miter). `--only GROUP` (overlap, chip, busy, link, equiv; repeatable) runs a
part; `--fast` the seconds-long subset that `make test` runs (tests/flow/test_formal.py).
"""
import sys
import time

from tb import ROOT, cli
from tb.formal import compose, engine, miter, props

OUT = ROOT / "out" / "formal.txt"
GROUPS = ("overlap", "chip", "busy", "link", "equiv")


def checks_of(groups, fast):
    if fast:
        return props.fast_checks()
    out = []
    if "overlap" in groups:
        out += [props.hazard(8), props.seq_issue(), props.seq_planted()]
    if "chip" in groups:
        out += [props.chip(1, 30, timeout=1800), props.chip(0, 40)]
    if "busy" in groups:
        out += props.busy_checks() + props.busy_planted()
    if "link" in groups:
        out += props.link_checks()
    return out


def row(name, engine_, depth, result, secs):
    return f"| {name} | {engine_} | {depth} | {result} | {secs:.1f} |"


def main(argv=None):
    ap = cli.Parser(prog="tools.flow.formal", description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", choices=GROUPS, help="run only this group (repeatable)")
    ap.add_argument("--fast", action="store_true", help="only the fast subset (make test)")
    ap.add_argument("--out", default=str(OUT), type=cli.out_file())
    ap.add_argument("--limit", default=600, type=cli.integer(10, 7200),
                    help="seconds per engine step of an equivalent's miter (pdr, dprove; bmc3 half)")
    args = ap.parse_args(argv)
    groups = args.only or GROUPS
    t0 = time.perf_counter()
    lines = ["| property | engine | depth / induction | result | wall s |", "|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    bad = 0
    for c in checks_of(groups, args.fast):
        v = engine.run(c)
        ok = v.ok_for(c)
        bad += not ok
        res = v.result + (" (expected: planted bug)" if c.expect_fail and ok else "")
        ln = row(v.name, v.engine, v.depth, res + (f" ({v.detail})" if v.detail and not ok else ""), v.secs)
        lines.append(ln)
        print(ln, flush=True)
    if "equiv" in groups and not args.fast:
        for i, (key, _why, site) in enumerate(miter.listed_sites()):
            name = f"equiv/{key[0]} {key[1]}: {key[3]}"
            steps = compose.steps_for(key, site) if site is not None else None
            if site is None:
                ln = row(name, "-", "-", "gone from the design", 0.0)
            elif steps:
                # a compositional proof (tb/formal/compose.py): every step a tool's verdict
                text, vs = compose.verdict(steps)
                bad += not text.startswith("equivalent")
                ln = row(name, " + ".join(v.engine for v in vs), "composition", text, sum(v.secs for v in vs))
            else:
                text, vs = miter.verdict(site, engine.BUILD / "equiv" / f"e{i}", pdr_timeout=args.limit,
                                         bmc_timeout=max(10, args.limit // 2))
                bad += not text.startswith("equivalent")
                ln = row(name, " + ".join(v.engine for v in vs), vs[-1].depth, text, sum(v.secs for v in vs))
            lines.append(ln)
            print(ln, flush=True)
    secs = time.perf_counter() - t0
    lines.append(f"\n{len(lines) - 2} checks, {bad} not proven, {secs:.0f} s (python -m tools.flow.formal"
                 + "".join(f" --only {g}" for g in (args.only or ())) + (" --fast" if args.fast else "") + ")")
    print(lines[-1].strip())
    from pathlib import Path
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
