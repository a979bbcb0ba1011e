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
from tb.stimulus import suitecfg

UNITS = ops.UNITS
KINDS = ("RAW", "WAR", "WAW")
OUT = os.path.join(ROOT, "out", "mut_hazard.json")


def _conflict_text(kinds, r1):
    """The conflict expression of ga2_hazard.v with only `kinds` (r0, w: the unit's
    registers; r1 its second read range or None)."""
    terms = []
    if "RAW" in kinds:
        terms += ["meet(new_rd0, W)", "meet(new_rd1, W)"]
    if "WAR" in kinds:
        terms += ["meet(new_wr, R0)"] + (["meet(new_wr, R1)"] if r1 else [])
    if "WAW" in kinds:
        terms += ["meet(new_wr, W)"]
    return "(" + " || ".join(terms) + ")" if terms else "1'b0"


def hazard_sites(rtl_dir=RTL_DIR):
    """The named hazard mutants as sites.Site objects (class "hazard")."""
    out = []
    fn = "ga2_hazard.v"
    text = open(os.path.join(rtl_dir, fn)).read()
    regs = {"dma": ("dma_rd_q", None, "dma_wr_q"), "mm": ("mm_rd0_q", "mm_rd1_q", "mm_wr_q"),
            "vec": ("vec_rd_q", "vec_rd1_q", "vec_wr_q")}
    for busy_unit in UNITS:
        y = f"`GA2_T_{busy_unit.upper()}"
        m = re.search(rf"wire hz_{busy_unit}\s*=\s*(busy\[{y}\] && \([^;]*\));", text)
        if not m:
            raise ValueError(f"ga2_hazard.v: no 'wire hz_{busy_unit} = busy[{y}] && (...)'")
        r0, r1, w = regs[busy_unit]
        line = text[:m.start(1)].count("\n") + 1
        for new_unit in UNITS:
            if new_unit == busy_unit:
                continue
            x = f"`GA2_T_{new_unit.upper()}"
            for k in KINDS:
                full = _conflict_text(KINDS, r1)
                less = _conflict_text([q for q in KINDS if q != k], r1)
                def sub(e, r0=r0, r1=r1, w=w):      # the loop's values, bound now (used at once)
                    return e.replace("R0", r0).replace("R1", r1 or "").replace("W", w)
                repl = f"busy[{y}] && (unit_sel[{x}] ? {sub(less)} : {sub(full)})"
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
    manifests = [suite.build_suite(os.path.join(work, "suite"), cfg=suitecfg.CFG),
                 suite.build_suite(os.path.join(work, "suite-overlap"), cfg=suitecfg.CFG_OVERLAP)]
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
