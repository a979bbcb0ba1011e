"""Serving: testing the test. Broken engines against the serving check (make mutants-serve).

Each mutant changes ONE line of a copy of tools/serve/paged.py (the paged step builder) or
tools/serve/engine.py (the scheduler and its block pool) into a mistake a server could
make; the broken variants live only here (the product has no bug switches). "Caught" =
`python -m tools.serve.engine --check` prints a PROBLEM line and exits non-zero
(tb/mutation/engine.py: crashes, refusals and timeouts are their own columns, not
catches). Tests that need a broken builder build it from its mutant (`mutant(label)`,
applied to a temporary copy of the file). The check runs every step of example B and a
staggered workload under both schedulers on the reference, holds every token to each
request alone, every admitted request's K/V rows after every step, and every program's
LD/ST ranges to the step's allowed set (the model side of the bus monitor;
tests/tools/serve/test_serve_cosim.py shows the chip's own bus monitor catching the
"reads a block past its last" mutant).

The isolation mutant ("each gather reads one block past its last one") leaves every
answer right: only the bus monitor can catch it.

    python -m tools.serve.mutants            # all mutants, out/mut_serve.json
    python -m tools.serve.mutants --fast     # the CI subset
"""
import os
import sys
import time

from tools import ROOT

from tb.mutation import engine as mutation

PY = sys.executable
CHECK = [PY, "-m", "tools.serve.engine", "--check"]

# (label, file, old line, new line, tags); each old line occurs exactly once in its file.
# The broken builders are written here, as the new line, and nowhere in the product.
_GATHER = "        gather = runs(table, t - 1, BT)"
_NEW_ROW = "        blk = table[row // BT]                    # the block that holds the new row"
SPECS = [
    ("each gather reads one block past its last one (a freed or another request's block)",
     "tools/serve/paged.py", _GATHER,
     _GATHER + " + ([(len(table) * BT, (table[-1] + 1) % lay.n_blocks, BT)]"
               " if t > 1 and len(table) * BT + BT <= MAX_CTX else [])", ("isolation",)),
    ("a slot's first block read from the next slot's table",
     "tools/serve/paged.py",
     "        table = list(table)",
     "        table = [entries[(j + 1) % n][2][0]] + list(table)[1:] if n > 1 and t > 1 else list(table)",
     ("isolation",)),
    ("the last, partly filled block not gathered",
     "tools/serve/paged.py", _GATHER,
     "        gather = runs(table, (t - 1) - (t - 1) % BT, BT)", ()),
    ("the new K/V rows stored into the first block of the table",
     "tools/serve/paged.py", _NEW_ROW,
     "        blk = table[0]", ()),
    ("runs of adjacent blocks merged without checking adjacency",
     "tools/serve/paged.py",
     "        while j + 1 < nblk and table[j + 1] == table[j] + 1:",
     "        while j + 1 < nblk:", ()),
    ("the new row's block index off by one at a block boundary",
     "tools/serve/paged.py", _NEW_ROW,
     "        blk = table[(row - 1) // BT]", ()),
    ("a block handed out without leaving the free list (shared by two requests)",
     "tools/serve/engine.py",
     "        blk = heapq.heappop(self.free)",
     "        blk = self.free[0]", ("pool",)),
    ("admission forgetting what admitted requests will still allocate",
     "tools/serve/engine.py",
     "        outstanding = sum(self.need(a) - len(self.tables[a]) for a in self.active())",
     "        outstanding = 0", ("pool",)),
    ("a finished request's blocks never returned to the pool",
     "tools/serve/engine.py",
     "            heapq.heappush(self.free, blk)",
     "            pass", ("pool",)),
    ("a request retired one token early",
     "tools/serve/engine.py",
     "            if self.done[r] == self.requests[r].tokens:",
     "            if self.done[r] == self.requests[r].tokens - 1:", ()),
]

# the CI subset: the bus-only isolation mutant, the neighbour read, a pool mistake
FAST = ("each gather reads one block past its last one (a freed or another request's block)",
        "a slot's first block read from the next slot's table",
        "a block handed out without leaving the free list (shared by two requests)")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [mutation.Mutant(label, f, old, new, must_catch=True, tags=tags)
            for label, f, old, new, tags in SPECS if not fast or label in FAST]


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise): for tests that build a
    broken engine from its text edit."""
    for m in mutants():
        if m.label == label:
            return m
    raise KeyError(f"no serving mutant {label!r}")


def run(fast=False, jobs=2, timeout=120, quick=False):
    """(results, wall seconds): every mutant judged by the serving check."""
    t0 = time.time()
    res = mutation.run_mutants(mutants(fast), CHECK + (["--quick"] if quick else []), ROOT, timeout, jobs)
    return res, time.time() - t0


def main(argv=None):
    return mutation.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_serve.json"),
                        title="mutant of the serving engine", quick_help="the check's quick subset (staggered only)")


if __name__ == "__main__":
    sys.exit(main())
