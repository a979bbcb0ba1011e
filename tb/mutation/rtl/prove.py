"""Yosys equivalence proofs for surviving RTL mutants (`python -m tb.mutation.rtl.run --prove`).

For every survivor of the last run (out/mut_rtl.json) the mutated module is compared with
the original by yosys 0.23 (a miter with induction, then equiv_make / equiv_induct); a
proved mutant is printed as a line for tb/mutation/rtl/equivalents.txt.
"""
import json
import os
import subprocess

from tb.sim.files import rtl_files  # noqa: E402
from tb.mutation.rtl.sites import ALL_CLASSES, RTL_DIR, enumerate_sites, make_mutant_dir, one_line  # noqa: E402
from tb.mutation.rtl.equivalents import equiv_line  # noqa: E402

_YOSYS_SIDE = """read_verilog -I{d} {files}
hierarchy -top {mod}
proc
flatten
opt_clean
rename {mod} {name}
design -stash {name}
"""


def _yosys(script, path, timeout):
    with open(path, "w") as f:
        f.write(script)
    try:
        p = subprocess.run(["yosys", "-q", path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"yosys timed out after {timeout} s"
    err = [ln for ln in (p.stdout + p.stderr).splitlines() if "ERROR" in ln]
    return p.returncode == 0, (err[0] if err else "")[:200]


def yosys_prove(site, work, rtl_dir=RTL_DIR, timeout=60):
    """Try to prove the mutated module equivalent to the original with yosys 0.23:
    (1) miter -equiv -flatten -make_assert; sat -verify -prove-asserts -tempinduct
    -set-init-zero (the outputs, for every input sequence from an all-zero start);
    (2) equiv_make; equiv_simple -seq 5; equiv_induct -seq 5; equiv_status -assert.
    Returns (proved, note)."""
    gold = make_mutant_dir(None, os.path.join(work, "gold"), rtl_dir)
    gate = make_mutant_dir(site, os.path.join(work, "gate"), rtl_dir)
    script = ""
    for name, d in (("gold", gold), ("gate", gate)):
        files = " ".join(str(f) for f in rtl_files(d))
        script += _YOSYS_SIDE.format(d=d, files=files, mod=site.module, name=name)
    load = script + "design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
    ok, note = _yosys(load + "memory\nmiter -equiv -flatten -make_assert gold gate miter\nhierarchy -top miter\n"
                      "sat -verify -prove-asserts -tempinduct -set-init-zero miter\n",
                      os.path.join(work, "miter.ys"), timeout)
    if ok:
        return True, (f"yosys 0.23 proof: {site.module} outputs equal for all inputs "
                      "(miter -equiv -flatten; sat -prove-asserts -tempinduct -set-init-zero)")
    ok, note2 = _yosys(load + "equiv_make gold gate equiv\nhierarchy -top equiv\nequiv_simple -seq 5\n"
                       "equiv_induct -seq 5\nequiv_status -assert\n", os.path.join(work, "equiv.ys"), timeout)
    if ok:
        return True, (f"yosys 0.23 proof: {site.module} mutated == original "
                      "(equiv_make; equiv_simple -seq 5; equiv_induct -seq 5; equiv_status -assert)")
    return False, note or note2 or "not proved"


def prove_survivors(args):
    """--prove: try yosys on every survivor of the last run (args.out) and print the
    proved ones as lines for tb/mutation/rtl/equivalents.txt."""
    data = json.load(open(args.out))
    snap = os.path.join(args.work, "rtl_snapshot")
    rtl = snap if os.path.isdir(snap) else args.rtl
    sites = {(s.file, s.line, s.cls, one_line(s.desc)): s for s in enumerate_sites(rtl, classes=ALL_CLASSES)}
    proved = 0
    todo = [sv for sv in data["survivors"] if not args.module or sv["file"][:-2] in args.module]
    for sv in todo:
        s = sites.get((sv["file"], sv["line"], sv["cls"], sv["change"]))
        if s is None:
            print(f"  (gone from the design) {sv['file']}:{sv['line']} {sv['change']}")
            continue
        ok, note = yosys_prove(s, os.path.join(args.work, "prove"), rtl)
        proved += ok
        print(("PROVED  " + equiv_line(s, note, rtl)) if ok else f"no proof {s.file}:{s.line} {one_line(s.desc)}: {note}",
              flush=True)
    print(f"{proved} of {len(todo)} survivors proved equivalent by yosys")
    return 0
