"""Reset while busy, the part every op module's reset_programs hook shares.

cut_at_starts(prog, img, first, stop) gives the entries of a self-contained program cut by
rst around the instructions first .. stop - 1 of its schedule (tb/stimulus/programs.py
reset_programs): for each, three quarters into its busy time, one cycle before its issue
and at its issue (the cut's reset edge ends cycle at + 1: a reset must win over a start),
each cut followed by the same program run in full. Why here: the op modules
(tb/stimulus/ops/) differ only in their program and which of its instructions are theirs;
this module names no operation.
"""
from model import timing
from tb.stimulus.suitecfg import CFG


def cut_at_starts(prog, img, first, stop):
    """[(label, prog, img, abort_at) and (label, prog, img)]: prog cut in and around
    instructions first .. stop - 1 of its schedule (CFG's timing), each cut then the
    program in full."""
    out = []
    for ev in timing.schedule(prog, CFG).events[first:stop]:
        busy = ev.end - ev.start + 1
        for at in (ev.issue + (busy * 3) // 4, ev.issue - 1, ev.issue):
            out.append((f"reset in {ev.op} ({at})", prog, img, at))
            out.append((f"after reset in {ev.op} ({at})", prog, img))
    return out
