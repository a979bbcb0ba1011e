"""Reordering a program for the overlap timing mode: the same instructions, an order the
chip's in-order issue can overlap.

In the overlap mode (docs/isa.md "Timing modes") the chip issues in program order, one
instruction in flight per unit, so an instruction that must wait -- for its unit, or for
a conflicting instruction to finish -- holds up every instruction behind it. A load
placed behind a long matrix product leaves the DMA idle; a product placed behind a load
it does not need waits for nothing. reorder(prog, cfg) is a list scheduler over the
program's dependence graph: it keeps every pair of instructions that touch a common
word (read after write, write after read, write after write, on the scratchpad or the
external memory, by the hulls of model/func.py) in their original order -- so the
result is the same program up to the order of instructions that commute, and its
outputs are identical bit for bit -- and among the instructions whose predecessors are
all placed it picks the one that issues earliest on the overlap timing model. Ties: the
DMA first, as memory is the bottleneck of a decode step; between two transfers, the one
with the longest chain of work that must follow it before HALT (its tail: the critical
path of the dependence graph from its dependants, each link an instruction's busy
cycles + 1, as a dependant issues at the earliest in the cycle after the last busy
cycle); then the original order. The DMA's total work is the same in every order, so
what decides when the step ends is what is left to do after each transfer: its last
transfers should be the ones with the least behind them (a decode step's output store,
which frees the buffer the next sequence's attention writes, goes before a cache load
whose dependants are shorter). Ties between compute instructions keep the builder's
order: the same rule on them (docs/journal/2026-measurements.md) takes 66 cycles
off chapter 9's B = 1 step but makes the language model's B = 8 and 16 steps, whose
matrix and vector units are nearly as busy as the DMA, 4..8% slower than the old order.

The order depends on the program alone, never on data, and HALT stays last.
"""
import bisect

from . import config, func, isa, timing

_UNITS = ("dma", "mm", "vec")


_EXT_OFFSET = 1 << 17        # external addresses sit above every scratchpad address
def _edges(rw):
    """The dependence graph of rw = [(reads, writes)] (Range hulls, in program order): for
    each instruction the set of earlier ones it must follow. Not every conflicting pair
    (two instructions touching a common word, at least one writing) is an edge, but every
    one is a path: each word's last writer and its readers since are tracked (an interval
    map over the scratchpad and, above it, the external memory), so a read follows the
    word's last writer (who follows every earlier writer), and a write follows the last
    writer and the readers since (an earlier reader precedes that writer). The graph has
    the conflict relation's transitive closure, so readiness and every longest path below
    are the same as with every pair, in O(n log n) memory instead of n^2 (a SmolLM2 step
    has 10^5 instructions)."""
    starts, state = [0], [(-1, [])]          # interval k: [starts[k], starts[k+1]), (writer, readers)

    def split(a):
        k = bisect.bisect_right(starts, a) - 1
        if starts[k] != a:
            w, rd = state[k]
            starts.insert(k + 1, a)
            state.insert(k + 1, (w, list(rd)))
            return k + 1
        return k

    def span(r):
        off = _EXT_OFFSET if r.space == func.EXT else 0
        lo = split(r.first + off)
        hi = split(r.last + off + 1)
        return lo, hi

    preds = []
    for i, (rd, wr) in enumerate(rw):
        assert len(wr) <= 1, "reorder: an op with more than one written range"
        p = set()
        for r in rd:
            lo, hi = span(r)
            for k in range(lo, hi):
                w, readers = state[k]
                if w >= 0:
                    p.add(w)
                readers.append(i)
        for r in wr:
            lo, hi = span(r)
            for k in range(lo, hi):
                w, readers = state[k]
                if w >= 0:
                    p.add(w)
                p.update(readers)
            del starts[lo + 1:hi]
            del state[lo + 1:hi]
            state[lo] = (i, [])
        p.discard(i)
        preds.append(p)
    return preds


# Speed: chapter 9's oracle builds the same programs again and again, so the order is
# memoised per (Config, instruction words); bounded.
_MEMO = {}
_MEMO_MAX = 256


def reorder(prog, cfg=None):
    """prog (Instr list ending in HALT, every instruction valid on cfg) in an order for
    the overlap mode; a new list of the same Instr objects. ValueError for a program
    that does not end in exactly one HALT or that cfg refuses."""
    cfg = config.resolve(cfg)
    prog = list(prog)
    if not prog or prog[-1].op != "HALT" or any(p.op == "HALT" for p in prog[:-1]):
        raise ValueError("reorder: the program must end in its only HALT")
    key = (cfg, tuple(isa.as_words(prog)))
    order = _MEMO.get(key)
    if order is None:
        order = _order(prog[:-1], cfg)
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = order
    return [prog[i] for i in order] + [prog[-1]]


def _order(body, cfg):
    """The list scheduler (module docstring): indices of body in their new order."""
    for i, ins in enumerate(body):
        bad = isa.check(ins, cfg)
        if bad:
            raise ValueError(f"reorder: instruction {i} ({ins.op}) is refused: {bad[2]}")
    rw = [(func.reads(ins), func.writes(ins)) for ins in body]
    n = len(body)
    edges = _edges(rw)
    preds = [len(p) for p in edges]
    succs = [[] for _ in range(n)]
    for i, p in enumerate(edges):
        for j in p:
            succs[j].append(i)
    unit = [timing.UNIT[ins.op] for ins in body]
    busy = [timing.busy_cycles(ins, cfg) for ins in body]
    # the longest chain after i to HALT, for a transfer (0 for the others: their ties keep
    # the program order); every edge goes from a lower index to a higher one, so one pass
    # from the end sees every dependant first
    cp, dma_tail = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        tail = max([cp[k] for k in succs[i]], default=0)
        cp[i] = busy[i] + 1 + tail
        if unit[i] == "dma":
            dma_tail[i] = tail
    sp = [(tuple((r.first, r.last) for r in rd if r.space == func.SP),
           tuple((r.first, r.last) for r in wr if r.space == func.SP)) for rd, wr in rw]
    # the overlap model's state: per unit (end, sp reads, sp writes) of its last instruction
    last = {u: (0, (), ()) for u in _UNITS}
    t = 0
    # the ready instructions per unit, sorted in their tie order: (-dma_tail, index)
    ready = {u: [] for u in _UNITS}
    for i in range(n):
        if preds[i] == 0:
            ready[unit[i]].append((-dma_tail[i], i))
    for u in _UNITS:
        ready[u].sort()
    out = []

    def issue_at(i):
        decode = t + 2
        u = unit[i]
        at = max(decode, last[u][0] + 1)
        rd, wr = sp[i]
        for v, (end, vrd, vwr) in last.items():
            if v != u and end >= decode and (timing._meet(wr, vrd) or timing._meet(wr, vwr)
                                             or timing._meet(rd, vwr)):
                at = max(at, end + 1)
        return at

    # Each step picks min over the ready i of (issue_at(i), unit != "dma", -dma_tail[i], i).
    # Speed: no instruction issues before its unit is free (bound), so a unit whose bound
    # is past the best found is skipped, and a unit's scan stops at the first of its
    # instructions (in tie order) that issues at the bound.
    for _ in range(n):
        decode = t + 2
        bounds = sorted((max(decode, last[u][0] + 1), u != "dma", u) for u in _UNITS if ready[u])
        best = None
        for bound, not_dma, u in bounds:
            if best is not None and (bound, not_dma) > best[:2]:
                break
            for key in ready[u]:
                at = issue_at(key[1])
                cand = (at, not_dma, key)
                if best is None or cand < best:
                    best = cand
                if at == bound:
                    break
        if best is None:
            break
        at, _, key = best
        i = key[1]
        ready[unit[i]].remove(key)
        last[unit[i]] = (at + busy[i], sp[i][0], sp[i][1])
        t = at
        out.append(i)
        for k in succs[i]:
            preds[k] -= 1
            if preds[k] == 0:
                bisect.insort(ready[unit[k]], (-dma_tail[k], k))
    assert len(out) == n, "reorder: dependence graph is not acyclic"
    return out
