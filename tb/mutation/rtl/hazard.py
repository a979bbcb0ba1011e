"""The overlap mode's hazard mutants (issue 10's list), judged by the RTL mutation bench.

The generic operator classes (sites.py) swap operators inside ga2_hazard.v; these are
the named bugs a hazard unit ships with, written as one textual change each:

  drop K for X on Y   the hazard kind K (RAW, WAR, WAW) is ignored when the instruction in
                      DECODE belongs to unit X and the busy unit is Y (18: every ordered
                      pair of the three units, every kind);
  hull one word short the last word of one scratchpad range ga2_decode gives the hazard
                      unit is one less (every op's read and write ranges, from its
                      record: one-word ranges then are empty; the range checks that
                      fault keep the true hull);
  no external check   not a mutant here: only the DMA unit touches the external memory
                      and it runs one transfer at a time in program order, so there is no
                      store-to-load external check to remove (docs/isa.md "Timing modes").

Each is judged like any RTL mutant (runner.judge: the in-order suite, then the overlap
suite with its colliding and one-word-edge programs, tb/stimulus/collide.py).

    python -m tb.mutation.rtl.hazard [--jobs 2]        # out/mut_hazard.json
"""
import os
import re
import sys
import tempfile
import time

from model import ops, rtl
from tb import ROOT, cli
from tb.mutation import outcomes, pool, report
from tb.mutation.rtl import runner, suite
from tb.mutation.rtl.sites import RTL_DIR, Site

UNITS = ops.UNITS
KINDS = ("RAW", "WAR", "WAW")
OUT = os.path.join(ROOT, "out", "mut_hazard.json")


# ga2_hazard.v's per-unit conflict (inside its generate loop over the units u) and the
# three kinds' terms in it: RAW (any read slot against the unit's write), WAR (its write
# against any slot the unit keeps), WAW
HZ_RE = r"assign hz\[u\]\s*=\s*busy\[u\] && (\((\(\|raw\)) \|\| (\(\|war\)) \|\| (meet\(new_wr, wr_q\))\));"


def _conflict_text(terms, kinds):
    """The conflict expression with only `kinds` ({kind: its term})."""
    kept = [terms[k] for k in KINDS if k in kinds]
    return "(" + " || ".join(kept) + ")" if kept else "1'b0"


def hazard_sites(rtl_dir=RTL_DIR):
    """The named hazard mutants as sites.Site objects (class "hazard")."""
    out = []
    fn = "ga2_hazard.v"
    text = open(os.path.join(rtl_dir, fn)).read()
    m = re.search(HZ_RE, text)
    if not m:
        raise ValueError("ga2_hazard.v: no 'assign hz[u] = busy[u] && ((|raw) || (|war) || meet(new_wr, wr_q));'")
    terms = dict(zip(KINDS, m.group(2, 3, 4)))
    line = text[:m.start(1)].count("\n") + 1
    for busy_unit in UNITS:
        y = f"`GA2_T_{busy_unit.upper()}"
        for new_unit in UNITS:
            if new_unit == busy_unit:
                continue
            x = f"`GA2_T_{new_unit.upper()}"
            for k in KINDS:
                less = _conflict_text(terms, [q for q in KINDS if q != k])
                repl = f"((u == {y} && unit_sel[{x}]) ? {less} : {m.group(1)})"
                out.append(Site(fn, "ga2_hazard", line, "hazard", m.start(1), m.end(1), repl, m.group(1),
                                f"drop {k} for new {new_unit} on busy {busy_unit}"))
    # the decoder's hulls (generated from the op records into ga2_decode_ops.vh): each
    # op's term of each range output, one word short
    fn = "ga2_decode_ops.vh"
    text = open(os.path.join(rtl_dir, fn)).read()
    for rec in ops.TABLE.values():
        rd, wr = rtl.hazard_ranges(rec)
        for out_name, r, what in [(f"rd{k}_last", x, "read") for k, x in enumerate(rd)] + \
                ([("wr_last", wr, "write")] if wr else []):
            word = f"{rec.name.lower()}_end{rec.ranges.index(r)}_m1[`GA2_ADDR_W-1:0]"
            m = re.search(rf"assign {out_name}\s*=[^;]*?({re.escape(word)})", text, re.S)
            if not m:
                raise ValueError(f"{fn}: no {word} in 'assign {out_name}'")
            line = text[:m.start(1)].count("\n") + 1
            out.append(Site(fn, "ga2_decode", line, "hazard", m.start(1), m.end(1),
                            f"({word} - 16'd1)", m.group(1), f"{rec.name} {r.base} {what} hull one word short"))
    return out


def main(argv=None):
    ap = cli.Parser(prog="tb.mutation.rtl.hazard", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=cli.jobs, default=2, help="mutants at once (default 2)")
    ap.add_argument("--out", type=cli.out_file(regular=True), default=OUT,
                    help="the results' JSON (default %(default)s)")
    a = ap.parse_args(argv)
    work = tempfile.mkdtemp(prefix="ga2-hazard-")
    manifests = suite.build_suites(work)
    sites = hazard_sites()
    base = runner.judge(None, os.path.join(work, "w0"), manifests, runner.MUTANT0_LIMIT)
    if base.status != outcomes.SURVIVED:
        print(f"ABORT: the unchanged design fails the suite: {base.detail}", file=sys.stderr)
        return 2
    timeout = pool.limit_from_baseline(base.seconds)
    t0 = time.time()
    res = pool.run_pool(sites, lambda s, slot: runner.judge(s, os.path.join(work, f"w{slot + 1}"), manifests,
                                                             timeout), a.jobs, None, progress=False)
    for s, r in zip(sites, res):
        print(f"  {s.desc:<40} {r.status:<10} {r.info.get('mode', '')}:{r.info.get('check', '')}")
    print(report.score_line(res))
    print(f"{len(res)} hazard mutants in {time.time() - t0:.0f} s with {a.jobs} jobs")
    report.write_json(a.out, res, {"mutants": [s.desc for s in sites]})
    print(f"wrote {a.out}")
    return 0 if all(r.caught for r in res) else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
