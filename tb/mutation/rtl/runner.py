"""The RTL judge on the one mutation engine: a site through suite.py, the run loop, the report.

judge() makes one mutant directory (sites.make_mutant_dir), compiles it with the bench
(suite.compile_mutant) and runs the suite (suite.run_mutant); its verdict becomes an
engine outcome (status_of):
  compile fails                          incompetent
  MUT PASS                               survived (equivalent when listed with a tool's proof)
  MUT FAIL <check> ...                   caught
  MUT FAIL timeout ... (a program ran    caught, and counted in the "hang" column: the chip
    past its cycle limit)                  hung against the reference's predicted cycles
  neither verdict (e.g. $fatal, $error)  crashed, not caught
  no verdict within the wall limit       timed out, not caught
run() checks mutant 0 and the known-bad mutant, then judges the sites on the engine's job
pool (engine.run_pool, one scratch directory per worker) and report() prints the engine's
summary table per module and per class and writes out/mut_rtl.json through engine.write_json.
"""
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict

from tb import ROOT
from tb.mutation import outcomes, pool
from tb.mutation import report as mut_report
from tb.mutation.rtl import prove
from tb.mutation.rtl.equivalents import equiv_key, load_equivalents, proven
from tb.mutation.rtl.sites import RTL_DIR, enumerate_sites, make_mutant_dir, one_line

OUT_JSON = os.path.join(ROOT, "out", "mut_rtl.json")
MUTANT0 = "(mutant 0)"
MUTANT0_LIMIT = 600              # seconds: mutant 0 runs before any limit is known


def known_bad_site(sites):
    """A mutant that must break the chip: the scratchpad's write removed (else the first
    inverted reset of the sequencer)."""
    for s in sites:
        if s.module == "ga2_sram" and s.cls == "nba" and s.desc.startswith("removed") and "[" in s.desc:
            return s
    for s in sites:
        if s.module == "ga2_top" and s.cls == "if" and re.search(r"\brst\b", s.desc):
            return s
    raise ValueError("no known-bad mutant found (ga2_sram write / ga2_top reset)")


def status_of(verdict, check):
    """(engine status, hang) for suite.run_mutant's verdict and check."""
    if verdict == "pass":
        return outcomes.SURVIVED, False
    if verdict == "fail":
        return outcomes.CAUGHT, False
    if verdict == "timeout":
        # the bench's own cycle limit (MUT FAIL timeout) is a detected mismatch against the
        # reference's cycles: caught, and a hang; the wall-clock limit is the runner's
        return (outcomes.CAUGHT, True) if check == "timeout" else (outcomes.TIMED_OUT, False)
    if verdict == "crash":
        return outcomes.CRASHED, False
    raise ValueError(f"unknown suite verdict {verdict!r}")


def judge(site, work, manifests, timeout, rtl_dir=RTL_DIR, restart=True):
    """Make, compile and run one mutant (None: mutant 0) in work/: an engine.Result whose
    info holds file, line, module, cls, change, check (the first failing check), mode
    (the suite that caught it), compile_s and run_s. restart=False leaves out the units'
    start-while-busy check (suite.run_mutant's): for tests of the runner's machinery only
    (tests/tb/test_mut_rtl.py in make test); a mutant run always judges with it.

    manifests: one suite's manifest or a list of them (suite.build_suite; the full run
    passes suite.build_suites': in-order, overlap, wide). The suites run in order on a
    build of the mutant for each one's Config, and the first that does not pass decides: a
    mutant caught by the in-order suite costs one compile, as before the overlap mode."""
    from tb.mutation.rtl import suite
    from tb.stimulus import suitecfg
    manifests = [manifests] if isinstance(manifests, dict) else list(manifests)
    t0 = time.time()
    mdir = make_mutant_dir(site, os.path.join(work, "rtl"), rtl_dir)
    change = one_line(site.desc) if site else "none (mutant 0)"
    info = {"file": site.file if site else None, "line": site.line if site else None,
            "module": site.module if site else None, "cls": site.cls if site else None,
            "change": change, "compile_s": 0.0, "run_s": 0.0}
    status, hang, check, detail = outcomes.SURVIVED, False, "", ""
    for man in manifests:
        cfg = man.get("cfg", suitecfg.CFG)
        ok, ct, log, vvp = suite.compile_mutant(mdir, os.path.join(work, f"build-{man.get('name', cfg.mode)}"),
                                                cfg=cfg)
        info["compile_s"] = round(info["compile_s"] + ct, 3)
        info["mode"] = man.get("name", cfg.mode)
        if not ok:
            status, hang, check, detail = outcomes.INCOMPETENT, False, "compile", one_line(log)
            break
        verdict, check, detail, rt = suite.run_mutant(vvp, man, timeout, restart=restart)
        info["run_s"] = round(info["run_s"] + rt, 3)
        status, hang = status_of(verdict, check)
        if status != outcomes.SURVIVED:
            break
    info["check"] = check
    label = MUTANT0 if site is None else f"{site.file}:{site.line} {site.cls} {change}"
    return outcomes.Result(label, site.file if site else "", status, True, (info["cls"] or "",), None,
                           round(time.time() - t0, 3), detail[:300], hang, info)


def site_key(site):
    """A site's journal key: where it is and what it changes."""
    return f"{site.file}:{site.line}:{site.start} {site.cls} {one_line(site.desc)}"


def run(args, sites, stats):
    """Self-checks, then every site (or a seeded sample) on args.jobs workers; the report."""
    from tb.mutation.rtl import suite
    t_start = time.time()
    work = args.work
    os.makedirs(work, exist_ok=True)
    manifest = suite.build_suites(work)
    for man in manifest:
        print(f"suite [{man.get('name', man['mode'])}]: {man['nprog']} programs "
              f"({man['total_cycles']} reference cycles), "
              f"{man['rq_n']} requant and {man['dv_n']} divu vectors")
    # self-check 1: mutant 0 (unchanged text, same path) passes the whole suite
    base = judge(None, os.path.join(work, "w0"), manifest, MUTANT0_LIMIT, args.rtl)
    if base.status != outcomes.SURVIVED:
        print(f"ABORT: mutant 0 (the unchanged design) does not pass the suite: {base.status} "
              f"{base.info.get('check', '')} {base.detail}", file=sys.stderr)
        return 2
    timeout = pool.limit_from_baseline(base.seconds)
    print(f"mutant 0 passes: compile {base.info['compile_s']:.2f} s, suite {base.info['run_s']:.2f} s; "
          f"per-mutant wall limit {timeout:.1f} s")
    # self-check 2: a mutant known to break the chip is caught
    full_sites = enumerate_sites(args.rtl) if args.module or "nba" not in getattr(args, "classes", ("nba",)) else sites
    bad = known_bad_site(full_sites)
    kb = judge(bad, os.path.join(work, "w0"), manifest, timeout, args.rtl)
    if not kb.caught:
        print(f"ABORT: the known-bad mutant {bad.file}:{bad.line} {kb.info['change']} was not caught "
              f"({kb.status})", file=sys.stderr)
        return 2
    print(f"known-bad mutant {bad.file}:{bad.line} ({kb.info['change']}) caught by {kb.info['check']}")
    if args.sample:
        rng = random.Random(args.seed)
        sites = sorted(rng.sample(sites, min(args.sample, len(sites))), key=lambda s: (s.file, s.start))
    equiv = load_equivalents(args.equiv)
    args.site_of = {" | ".join(equiv_key(s, args.rtl)): s for s in sites}    # the formal step's sites

    def judge_listed(site, slot):
        r = judge(site, os.path.join(work, f"w{slot + 1}"), manifest, timeout, args.rtl)
        key = equiv_key(site, args.rtl)
        r.info["key"] = " | ".join(key)
        if key in equiv:
            r.info["equiv_why"] = equiv[key]
            # only a tool's proof makes a listed survivor equivalent (equivalents.proven)
            if r.status == outcomes.SURVIVED and proven(equiv[key]):
                r = r._replace(status=outcomes.EQUIVALENT)
        return r

    journal = getattr(args, "journal_log", None)     # an engine.Journal: resume, and record as we go
    resumed = {i: journal.get(site_key(s)) for i, s in enumerate(sites)} if journal else {}
    resumed = {i: r for i, r in resumed.items() if r is not None}
    todo = [s for i, s in enumerate(sites) if i not in resumed]
    if resumed:
        print(f"resumed {len(resumed)} of {len(sites)} mutants from {journal.path}")

    def progress(i, r, done):
        s = todo[i]
        if journal is not None:
            journal.add(site_key(s), r)
        if args.verbose or r.status == outcomes.SURVIVED:
            print(f"  [{done + len(resumed)}/{len(sites)}] {s.file}:{s.line} {s.cls} {r.info['change'][:70]}: "
                  f"{r.status} {r.info.get('check', '')}", flush=True)

    t_run = time.time()
    judged = iter(pool.run_pool(todo, judge_listed, args.jobs, progress,
                                scheduler=getattr(args, "scheduler", None), progress=True, desc="RTL mutants"))
    results = [resumed[i] if i in resumed else next(judged) for i in range(len(sites))]
    wall = time.time() - t_run
    return report(args, results, wall, time.time() - t_start, base, kb, manifest, stats)


def report(args, results, wall, total, base, kb, manifest, stats):
    """Print the per-module table, the survivors and the score; write args.out."""
    mods = defaultdict(list)
    for r in results:
        mods[r.info["module"]].append(r)
    mods = {m: mods[m] for m in sorted(mods)}
    classes = defaultdict(list)
    for r in results:
        classes[r.info["cls"]].append(r)
    order = list(getattr(args, "classes", ())) or sorted(classes)
    classes = {c: classes[c] for c in order if c in classes}
    print()
    print(mut_report.format_summary(mods, "module"))
    print()
    print(mut_report.format_summary(classes, "class"))
    survivors = [r for r in results if r.status == outcomes.SURVIVED]
    if survivors:
        print("\nsurvivors (neither caught nor proven equivalent in tb/mutation/rtl/equivalents.txt):")
        for r in survivors:
            note = "  [listed, not proven: " + r.info["equiv_why"][:60] + "]" if r.info.get("equiv_why") else ""
            print(f"  {r.info['file']}:{r.info['line']}  {r.info['cls']:<6} {r.info['change']}{note}")
        if getattr(args, "formal", False) and getattr(args, "site_of", None):
            # the formal step: each new survivor's miter (tb/mutation/rtl/prove.py); only a
            # proof makes it equivalent (add the printed line to equivalents.txt). Listed
            # entries without a proof are not sent again: `make formal` runs their miters.
            print("\nformal step (miter of the original module and the mutant):")
            prove.formal_step([args.site_of[r.info["key"]] for r in survivors
                               if r.info["key"] in args.site_of and not r.info.get("equiv_why")],
                              args.work, args.rtl)
    stopped = [r for r in results if r.status in outcomes.STOPPED]
    if stopped:
        print("\nended without a verdict of the bench (not caught):")
        for r in stopped:
            print(f"  {r.info['file']}:{r.info['line']}  {r.info['cls']:<6} {r.info['change']}: "
                  f"{r.status} {r.detail[:100]}")
    stale = [r for r in results if r.info.get("equiv_why") and r.status not in (outcomes.EQUIVALENT, outcomes.SURVIVED)]
    for r in stale:
        print(f"  note: listed equivalent but {r.status}: {r.info['file']}:{r.info['line']} {r.info['change']}")
    rate = len(results) / (wall / 60) if wall > 0 else 0.0
    kills = Counter(r.info.get("check", "") for r in results if r.caught)
    print()
    print(mut_report.score_line(results))
    print(f"{len(results)} mutants in {wall:.0f} s with {args.jobs} jobs: {rate:.1f} mutants/minute "
          f"(whole run {total:.0f} s)")
    print("first failing check of caught mutants: " + ", ".join(f"{k} {v}" for k, v in kills.most_common()))
    pick = ("file", "line", "cls", "change", "key")
    mut_report.write_json(args.out, results, {
        "mutants": len(results),
        "modules": {m: mut_report.score(rs) for m, rs in mods.items()},
        "classes": {c: mut_report.score(rs) for c, rs in classes.items()},
        "classes_selected": list(getattr(args, "classes", ())),
        "survivors": [{k: r.info[k] for k in pick} for r in survivors],
        "stale_equivalents": [{"file": r.info["file"], "line": r.info["line"], "change": r.info["change"],
                               "status": r.status} for r in stale],
        "wall_seconds": round(wall, 1), "total_seconds": round(total, 1), "jobs": args.jobs,
        "mutants_per_minute": round(rate, 2), "sample": args.sample, "seed": args.seed,
        "modules_selected": args.module, "mutant0": base.as_dict(), "known_bad": kb.as_dict(),
        "suite": {m.get("name", m["mode"]): {k: m[k] for k in ("nprog", "rq_n", "dv_n", "total_cycles")}
                  for m in manifest},
        "suite_programs": {m.get("name", m["mode"]): m["programs"] for m in manifest}, "caught_by": dict(kills),
        "caught_by_mode": dict(Counter(r.info.get("mode", "") for r in results if r.caught)),
        "unmapped_ast_events": stats.get("unmapped", {})})
    print(f"wrote {args.out}")
    return 0
