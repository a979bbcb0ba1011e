"""Why a unit idles in the overlap timing mode: every wait of a schedule given its cause.

Why: a decode step that falls short of its roofline bound loses those cycles where its
binding unit idles. In the overlap mode (docs/isa.md "Timing modes") an instruction issues
at its DECODE unless it waits: for its own unit to finish (busy), or for an instruction in
flight on another unit that it conflicts with on the scratchpad (raw: it reads what that
one writes; war: it writes what that one reads; waw: both write). Issue is in order, so
an instruction also waits, with its DECODE late, behind an earlier one that waits. This
module replays the schedule's issue rule (model/timing.py _overlap) keeping each wait's
cause, checks that it lands on the schedule's own issue cycles (a ValueError otherwise:
the two would have drifted apart), and sums a unit's idle cycles by cause.

  waits(prog, cfg)        [Wait(pc, op, unit, decode, issue, cause, other)] in program order
  idle(prog, cfg, unit)   {cause: cycles}: every idle cycle of the unit, from cycle 1 to
                          the schedule's last, attributed (their sum is cycles - busy)
  describe(causes)        one line of them, the largest first
  by_unit(causes)         the same cycles grouped by what held the unit: issue, dma, mm,
                          vec (a wait on that unit: its own or one it is queued behind), end

The causes of idle() (each an English phrase, the keys of its dict):
  "its FETCH and DECODE"                   the unit's instruction's own FETCH and issue cycle
  "own: <kind> on <unit>"                  it waited for a conflicting earlier instruction of
                                           another unit (raw, war, waw): in its DECODE, or
                                           before it until that one ended (queued or running)
  "behind <op>: <kind> on <unit>"          an earlier instruction's DECODE waited (in-order
                                           issue holds everything behind it) while the
                                           unit's own next one depended on nothing pending
  "in-order issue of earlier instructions" their FETCH and issue cycles (two an instruction)
The "behind" and "in-order" cycles are those another order of the same program (its
dependences kept, model/reorder.py's freedom) could give back to the unit's next
instruction; the "own" cycles no order could.
  "after its last instruction"             from its last busy cycle to the schedule's end
  "no instruction of its own"              every cycle, for a unit the program never uses
"""
from collections import Counter, namedtuple

from . import config, isa, timing

# the units in the chip's slot order (timing.SLOT: dma, mm, vec): the order of ties
UNITS = tuple(sorted((u for u in timing.SLOT if u), key=timing.SLOT.get))

Wait = namedtuple("Wait", "pc op unit decode issue cause other")
Wait.__doc__ = """One issued instruction: its DECODE's first cycle, its issue cycle and why they
differ: cause None (no wait), "busy" (its own unit), "raw", "war" or "waw" (a scratchpad
conflict with the instruction in flight on unit `other`)."""


def waits(prog, cfg=None):
    """The Waits of prog's overlap-mode schedule on cfg (Instr objects or words), in
    program order, HALT and a refused instruction left out. ValueError for an in-order
    cfg, or when the replay's issue cycles differ from the schedule's."""
    cfg = config.resolve(cfg)
    if cfg.mode != "overlap":
        raise ValueError(f"stalls: the waits are the overlap mode's; cfg.mode is {cfg.mode!r}")
    words = isa.as_words(prog)
    events = sorted((e for e in timing.schedule(words, cfg).events if e.unit is not None), key=lambda e: e.pc)
    last = {u: (0, (), ()) for u in UNITS}       # per unit: (end, sp reads, sp writes) of its last
    out, t = [], 0
    for e in events:
        decode = t + 2                         # FETCH the cycle after the last issue, then DECODE
        rd, wr = timing._sp_ranges(words[e.pc])
        why = [(last[e.unit][0] + 1, "busy", e.unit)]
        for u, (end, urd, uwr) in last.items():
            if u == e.unit or end < decode:
                continue
            for kind, hit in (("war", timing._meet(wr, urd)), ("waw", timing._meet(wr, uwr)),
                              ("raw", timing._meet(rd, uwr))):
                if hit:
                    why.append((end + 1, kind, u))
        at, cause, other = max(why, key=lambda w: w[0])
        if max(decode, at) != e.issue:
            raise ValueError(f"stalls: pc {e.pc} ({e.op}) issues at {e.issue} in the schedule, "
                             f"{max(decode, at)} in the replay")
        out.append(Wait(e.pc, e.op, e.unit, decode, e.issue, cause if at > decode else None,
                        other if at > decode else None))
        last[e.unit] = (e.end, rd, wr)
        t = e.issue
    return out


def idle(prog, cfg=None, unit="dma"):
    """{cause: cycles} of unit's idle cycles in prog's overlap-mode schedule (the module
    docstring's causes): the cycles of the schedule the unit is not busy, every one of them
    attributed once.

    The unit's idle stretch before its instruction k runs from the cycle after its previous
    one ends up to k's issue. Instruction i owns the cycles (issue of i - 1, issue of i]:
    its FETCH, the cycles its DECODE waits (decode .. issue - 1) and the cycle it issues, so
    the stretch is the union of k's window and those before it. A cycle before k's DECODE in
    which k could not have issued under any order, because an earlier instruction it
    conflicts with (queued or running) has not ended, is k's own wait (the conflict that
    ends last); every other cycle goes to its window's instruction: those are the cycles an
    order that keeps the program's dependences could give back."""
    if unit not in UNITS:
        raise ValueError(f"stalls: unit {unit!r} is not one of {', '.join(UNITS)}")
    cfg = config.resolve(cfg)
    words = isa.as_words(prog)
    sched = timing.schedule(words, cfg)
    ws = waits(words, cfg)
    end_of = {e.pc: e.end for e in sched.events}
    ranges = {w.pc: timing._sp_ranges(words[w.pc]) for w in ws}
    latest = {u: -1 for u in UNITS}           # per unit, its last instruction so far (a ws index)
    before = []                                # before[i]: latest as it was before ws[i]
    for i, w in enumerate(ws):
        before.append(dict(latest))
        latest[w.unit] = i
    out = Counter()
    free, seen = 1, False                      # the unit's first idle cycle; an instruction of its own
    for k, w in enumerate(ws):
        if w.unit != unit:
            continue
        seen = True
        segs, cands, i = [], set(), k          # segs: (first, last, cause) of the stretch's windows
        while i >= 0:
            wi = ws[i]
            lo = ws[i - 1].issue + 1 if i else 1        # its FETCH
            if wi.issue < free:
                break
            edge = "its FETCH and DECODE" if i == k else "in-order issue of earlier instructions"
            if lo >= free:
                segs.append((lo, lo, edge))
            if wi.issue > max(wi.decode, free):
                wait = (f"own: {wi.cause} on {wi.other}" if i == k else f"behind {wi.op}: {wi.cause} on {wi.other}")
                segs.append((max(wi.decode, free), wi.issue - 1, wait))
            segs.append((wi.issue, wi.issue, edge))
            if i < k:
                cands.add(i)
            if lo <= free:
                break
            i -= 1
        cands.update(j for j in before[max(i, 0)].values() if j >= 0)   # in flight at the stretch's start
        held = _held(ws, ranges, end_of, k, cands, free)
        for first, last, cause in segs:
            n = last - first + 1 - sum(max(0, min(last, b) - max(first, a) + 1) for a, b, _ in held)
            if n:
                out[cause] += n
        for a, b, cause in held:
            out[cause] += b - a + 1
        free = end_of[w.pc] + 1
    tail = sched.cycles - free + 1
    if tail > 0:
        out["after its last instruction" if seen else "no instruction of its own"] += tail
    return dict(out)


KINDS = ("war", "waw", "raw")


def _held(ws, ranges, end_of, k, cands, free):
    """[(first, last, cause)], disjoint: the cycles from free up to ws[k]'s DECODE - 1 in
    which an earlier instruction of another unit that conflicts with ws[k] has not ended
    (queued or running: ws[k] cannot issue before it ends, whatever the order of the rest),
    each cycle given to the conflict that ends last (ties: dma, mm, vec; war, waw, raw)."""
    w = ws[k]
    rd, wr = ranges[w.pc]
    spans = []
    for j in cands:
        v = ws[j]
        if v.unit == w.unit:
            continue
        vrd, vwr = ranges[v.pc]
        hits = (timing._meet(wr, vrd), timing._meet(wr, vwr), timing._meet(rd, vwr))
        if not any(hits):
            continue
        a, b = free, min(end_of[v.pc], w.decode - 1)      # queued or running: it must end first
        if a <= b:
            kind = KINDS[hits.index(True)]
            spans.append((-end_of[v.pc], UNITS.index(v.unit), KINDS.index(kind), a, b, f"own: {kind} on {v.unit}"))
    out = []
    for *_, a, b, cause in sorted(spans):     # the conflict that ends last first takes its cycles
        for x, y in _minus(a, b, [(p, q) for p, q, _ in out]):
            out.append((x, y, cause))
    return out


def _minus(a, b, taken):
    """The parts of [a, b] outside the disjoint intervals `taken`."""
    parts, at = [], a
    for p, q in sorted(taken):
        if q < at or p > b:
            continue
        if p > at:
            parts.append((at, p - 1))
        at = max(at, q + 1)
    if at <= b:
        parts.append((at, b))
    return parts


def describe(causes, share=0.01):
    """idle()'s causes as one line: "N cycles: n1 cause1; n2 cause2; ...", the largest
    first, those under `share` of the total summed as "n in k other causes"."""
    items = sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))
    total = sum(v for _, v in items)
    big = [(k, v) for k, v in items if v >= share * total]
    rest = total - sum(v for _, v in big)
    parts = [f"{v:,} {k}" for k, v in big]
    if rest:
        parts.append(f"{rest:,} in {len(items) - len(big)} other causes")
    return f"{total:,} cycles: " + "; ".join(parts)


GROUPS = ("issue",) + UNITS + ("end",)


def by_unit(causes):
    """idle()'s causes grouped (GROUPS): "issue" the FETCH and DECODE cycles (the unit's own
    and its predecessors'), "dma" / "mm" / "vec" every wait on that unit (for it to finish,
    or for a conflicting instruction of it), whether the unit's own instruction waited or
    one it was queued behind, "end" after its last instruction (or all of them, for a unit
    without instructions). ValueError for a cause idle() does not give."""
    out = dict.fromkeys(GROUPS, 0)
    for k, v in causes.items():
        if k in ("its FETCH and DECODE", "in-order issue of earlier instructions"):
            g = "issue"
        elif k in ("after its last instruction", "no instruction of its own"):
            g = "end"
        else:
            g = k.rsplit(" on ", 1)[-1]
            if " on " not in k or g not in UNITS:
                raise ValueError(f"stalls: {k!r} is not a cause of idle()")
        out[g] += v
    return out
