"""The RTL mutation run's formal step: a mutant the suite does not catch goes to a miter.

`python -m tb.mutation.rtl.run` calls formal_step() on its survivors after the run, and
`--prove` calls it on the survivors of the last run (out/mut_rtl.json). Each goes to
tb/formal/miter.py (the original module and the mutant side by side on the same inputs,
compared as the chip observes them: addresses and write data only while their enable is
high; ABC pdr, dprove, then bmc3): its verdict is "equivalent (proven by abc ...)" -- a
line for tb/mutation/rtl/equivalents.txt is printed -- or "not caught" (a counterexample,
its trace in the build folder, or no proof), never an argued sentence.
"""
import json
import os
from pathlib import Path

from tb.formal import miter
from tb.mutation.rtl.equivalents import equiv_line
from tb.mutation.rtl.sites import ALL_CLASSES, enumerate_sites, one_line


def formal_step(sites, work, rtl_dir, pdr_timeout=300):
    """[(site, verdict text, proven)] of the miter of every site (tb/formal/miter.py)."""
    out = []
    for i, s in enumerate(sites):
        text, _ = miter.verdict(s, Path(work) / "formal" / f"m{i}", pdr_timeout=pdr_timeout, rtl_dir=rtl_dir)
        proven = text.startswith("equivalent")
        out.append((s, text, proven))
        print(("  equivalent  " + equiv_line(s, text, rtl_dir)) if proven
              else f"  not caught  {s.file}:{s.line} {one_line(s.desc)}: {text}", flush=True)
    return out


def prove_survivors(args):
    """--prove: the formal step on every survivor of the last run (args.out)."""
    data = json.load(open(args.out))
    snap = os.path.join(args.work, "rtl_snapshot")
    rtl = snap if os.path.isdir(snap) else args.rtl
    sites = {(s.file, s.line, s.cls, one_line(s.desc)): s for s in enumerate_sites(rtl, classes=ALL_CLASSES)}
    todo = [sv for sv in data["survivors"] if not args.module or sv["file"][:-2] in args.module]
    found = []
    for sv in todo:
        s = sites.get((sv["file"], sv["line"], sv["cls"], sv["change"]))
        if s is None:
            print(f"  (gone from the design) {sv['file']}:{sv['line']} {sv['change']}")
            continue
        found.append(s)
    res = formal_step(found, args.work, rtl)
    print(f"{sum(p for _, _, p in res)} of {len(todo)} survivors proven equivalent by a miter")
    return 0
