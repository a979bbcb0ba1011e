"""Reset while busy: the self-contained programs of the op modules and their cuts.

program(*ops) is an op module's self-contained program (tb/stimulus/ops/, its
self_contained_program()): LD of the image's first 64 words to the scratchpad, the
module's instructions, HALT. cut_at_starts(prog, img, first, stop) gives the entries of
such a program cut by rst around its instructions first .. stop - 1 (an op module's
RESET_CUTS; tb/stimulus/programs.py reset_programs): for each, three quarters into its
busy time, one cycle before its issue and at its issue (the cut's reset edge ends cycle
at + 1: a reset must win over a start), each cut followed by the same program run in
full. Why here: the op modules differ only in their instructions and which of them are
theirs; this module names no operation.
"""
from model import isa, timing
from tb.stimulus.suitecfg import CFG


def program(*ops):
    """[LD of 64 image words to sp[0 ..)] + the instructions of ops ((name, fields) each;
    CFG's chip) + [HALT]."""
    return ([isa.build("LD", cfg=CFG, dst=0, src=0, len=64)]
            + [isa.build(op, cfg=CFG, **fields) for op, fields in ops] + [isa.build("HALT", cfg=CFG)])


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
