"""The overlap mode's hazard mutants (issue 10's list), judged by the RTL mutation bench.

The generic operator classes (sites.py) swap operators inside ga2_hazard.v; these are
the named bugs a hazard unit ships with, written as one textual change each:

  drop K for X on Y   the hazard kind K (RAW, WAR, WAW) is ignored when the instruction in
                      DECODE belongs to unit X and the busy unit is Y (18: every ordered
                      pair of the three units, every kind);
  hull one word short the last word of one scratchpad range ga2_decode gives the hazard
                      unit is one less (20: every op's read and write ranges, MM B for
                      tb = 0 and 1, ADD's src and src2, PACK4 / UNPACK4's (2*len or len
                      words, by the op), LDX's index word and ARGMAX's
                      result word, whose one-word ranges then are empty; the range
                      checks that fault keep the true hull);
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

from tb import ROOT, cli
from tb.mutation import outcomes, pool, report
from tb.mutation.rtl import runner, suite
from tb.mutation.rtl.sites import RTL_DIR, Site
from tb.stimulus import suitecfg

UNITS = ("dma", "mm", "vec")
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
    for y, busy_unit in enumerate(UNITS):
        m = re.search(rf"wire hz_{busy_unit}\s*=\s*(busy\[{y}\] && \([^;]*\));", text)
        if not m:
            raise ValueError(f"ga2_hazard.v: no 'wire hz_{busy_unit} = busy[{y}] && (...)'")
        r0, r1, w = regs[busy_unit]
        line = text[:m.start(1)].count("\n") + 1
        for x, new_unit in enumerate(UNITS):
            if new_unit == busy_unit:
                continue
            for k in KINDS:
                full = _conflict_text(KINDS, r1)
                less = _conflict_text([q for q in KINDS if q != k], r1)
                def sub(e, r0=r0, r1=r1, w=w):      # the loop's values, bound now (used at once)
                    return e.replace("R0", r0).replace("R1", r1 or "").replace("W", w)
                repl = f"busy[{y}] && (unit_sel[{x}] ? {sub(less)} : {sub(full)})"
                out.append(Site(fn, "ga2_hazard", line, "hazard", m.start(1), m.end(1), repl, m.group(1),
                                f"drop {k} for new {new_unit} on busy {busy_unit}"))
    fn = "ga2_decode.v"
    text = open(os.path.join(rtl_dir, fn)).read()
    hulls = [("rd0_last", "st_last", "ST read"), ("rd0_last", "mm_a_last", "MM A read"),
             ("rd0_last", "rq_rlast", "RQ read"), ("rd0_last", "sm_rlast", "SM read"),
             ("rd1_last", "mm_bt_last", "MM B read (tb = 1)"),
             ("rd1_last", "mm_bn_last", "MM B read (tb = 0)"), ("wr_last", "ld_last", "LD write"),
             ("wr_last", "mm_d_last", "MM write"), ("wr_last", "rq_wlast", "RQ write"),
             ("wr_last", "sm_wlast", "SM write"),
             ("rd0_last", "add_rlast", "ADD src read"), ("rd1_last", "add_r2last", "ADD src2 read"),
             ("rd0_last", "amax_rlast", "ARGMAX read"), ("rd0_last", "norm_rlast", "NORM read"),
             ("wr_last", "add_wlast", "ADD write"), ("wr_last", "norm_wlast", "NORM write"),
             ("rd0_last", "dma_idx", "LDX index read"), ("wr_last", "amax_dst", "ARGMAX write"),
             ("rd0_last", "pk_rlast", "PACK4/UNPACK4 read"), ("wr_last", "pk_wlast", "PACK4/UNPACK4 write")]
    for out_name, sig, what in hulls:
        one = not sig.endswith("last")            # a one-word range: the field itself
        word = sig if one else f"{sig}[AW-1:0]"
        m = re.search(rf"assign {out_name}\s*=[^;]*?({re.escape(word)})", text, re.S)
        if not m:
            raise ValueError(f"ga2_decode.v: no {word} in 'assign {out_name}'")
        line = text[:m.start(1)].count("\n") + 1
        out.append(Site(fn, "ga2_decode", line, "hazard", m.start(1), m.end(1),
                        f"({word} - 16'd1)", m.group(1), f"{what} hull one word short"))
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
