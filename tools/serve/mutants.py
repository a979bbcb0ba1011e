"""Serving: testing the test. Broken engines against the serving check (make mutants-serve).

Each mutant changes ONE line of a copy of tools/serve/paged.py (the paged step builder) or
tools/serve/engine.py (the scheduler and its block pool) into a mistake a server could
make; the broken variants live only here (the product has no bug switches). "Caught" =
`python -m tools.serve.engine --check` prints a PROBLEM line and exits non-zero
(tb/mutation/__init__.py: crashes, refusals and timeouts are their own columns, not
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
    python -m tools.serve.mutants --lm       # the language-model server's mutants (LM_SPECS),
                                             # judged by python -m tools.serve.lm_check
"""
import os
import sys

from tb import ROOT
from tb.mutation import command, outcomes

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

# The language-model server's scheduler, pool, speculative decoding and address functions
# (tools/serve/lm_engine.py, spec.py, lm_memory.py) and the same-sequence rows of the step
# compiler (tools/lm/compiler/emit.py), judged by CHECK_LM.
CHECK_LM = [PY, "-m", "tools.serve.lm_check"]
LM_SPECS = [
    ("a preempted request resumed at its old position (its cache not recomputed)",
     "tools/serve/lm_engine.py", "        self.fed[b] = 0", "        pass", ("preempt",)),
    ("a request's blocks freed while its table still references them",
     "tools/serve/lm_engine.py",
     "        self.free.extend(blk for blk in self.tables.pop(b, []) if blk is not None)",
     "        self.free.extend(blk for blk in self.tables.get(b, []) if blk is not None)", ("pool",)),
    ("reservation admitting on the current need only (runs out of blocks)",
     "tools/serve/lm_engine.py", "                n = self.need_total(b)",
     "                n = self.blocks_for(len(self.seq(b)))", ("pool",)),
    ("every chunk's last row generates (a mid-prompt chunk overwrites the prompt)",
     "tools/serve/lm_engine.py",
     "            rows += [C.Row(b, t, t == last) for t in range(t0, t0 + n)]",
     "            rows += [C.Row(b, t, t == t0 + n - 1) for t in range(t0, t0 + n)]", ("chunked",)),
    ("a draft token accepted without verification",
     "tools/serve/spec.py", "                while a < kk[b] and props[b][a] == ys[a]:",
     "                while a < kk[b]:", ("spec",)),
    ("the main model's cache advanced past the accepted tokens",
     "tools/serve/spec.py", "                self.fed[b] = L[b] + a",
     "                self.fed[b] = L[b] + kk[b]", ("spec",)),
    ("a KV row stored one row further in its block",
     "tools/serve/lm_memory.py",
     "        return self.pool.row(layer, kind, self.tables[b][t // bt], t % bt)",
     "        return self.pool.row(layer, kind, self.tables[b][t // bt], (t + 1) % bt)", ()),
    ("runs of blocks merged without checking adjacency",
     "tools/serve/lm_memory.py",
     "            if runs and runs[-1][1] + runs[-1][2] * rw == a:",
     "            if runs:", ("isolation",)),
    ("a sequence's rows attending in batch order (before the rows they must see)",
     "tools/lm/compiler/emit.py", "        att.sort(key=lambda r: rows[r].t)", "        pass", ("chunked",)),
    # the remedies in the server: the window's block release, the pool's row size
    ("a window's block returned to the pool one position (a step) early",
     "tools/serve/lm_engine.py",
     "        last = self.fed[b] - (self.window - self.sinks)     # the newest dead position",
     "        last = self.fed[b] - (self.window - self.sinks) + 1", ("window", "pool")),
    ("a window's blocks never returned to the pool",
     "tools/serve/lm_engine.py",
     "            if blk is not None and k * self.bt >= self.sinks and (k + 1) * self.bt - 1 <= last:",
     "            if False:", ("window", "pool")),
    ("a sink's block returned to the pool with the window",
     "tools/serve/lm_engine.py",
     "            if blk is not None and k * self.bt >= self.sinks and (k + 1) * self.bt - 1 <= last:",
     "            if blk is not None and (k + 1) * self.bt - 1 <= last:", ("window", "pool")),
    ("the pool's rows d words wide under a remedied step's narrower rows",
     "tools/serve/lm_memory.py",
     "        self.row_words = lay.row_words",
     "        self.row_words = lay.desc.d", ("remedies",)),
    ("a remedied sequence's rows attending in batch order (before the rows they must see)",
     "tools/lm/compiler/emit.py", "        self.rows, self.att = order_rows(rows, lay.batch)",
     "        self.rows, self.att = order_rows(rows, lay.batch)[0], list(range(len(rows)))", ("chunked",)),
]
LM_REMEDIES = tuple(spec[0] for spec in LM_SPECS if spec[4] and spec[4][0] in ("window", "remedies")) + \
    ("a remedied sequence's rows attending in batch order (before the rows they must see)",)
LM_FAST = ("a preempted request resumed at its old position (its cache not recomputed)",
           "a request's blocks freed while its table still references them",
           "a draft token accepted without verification")

# the CI subset: the bus-only isolation mutant, the neighbour read, a pool mistake
FAST = ("each gather reads one block past its last one (a freed or another request's block)",
        "a slot's first block read from the next slot's table",
        "a block handed out without leaving the free list (shared by two requests)")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [outcomes.Mutant(label, f, old, new, must_catch=True, tags=tags)
            for label, f, old, new, tags in SPECS if not fast or label in FAST]


def lm_mutants(fast=False, labels=None):
    """The language-model server's mutants (the --fast subset if fast, or those of
    labels, e.g. LM_REMEDIES); all must be caught."""
    keep = LM_FAST if fast else labels
    return [outcomes.Mutant(label, f, old, new, must_catch=True, tags=tags)
            for label, f, old, new, tags in LM_SPECS if keep is None or label in keep]


def run_lm(fast=False, jobs=2, timeout=180, quick=False, labels=None):
    """(results, wall seconds): every LM mutant (or those of labels) judged by the LM
    serving check."""
    return command.timed_run(lm_mutants(fast, labels), CHECK_LM, quick, timeout, jobs)


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise)."""
    return outcomes.by_label(mutants(), label, "serving")


def run(fast=False, jobs=2, timeout=120, quick=False):
    """(results, wall seconds): every mutant judged by the serving check."""
    return command.timed_run(mutants(fast), CHECK, quick, timeout, jobs)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--lm" in argv:
        argv.remove("--lm")
        return command.cli(argv, __doc__.splitlines()[0], lm_mutants, CHECK_LM,
                           os.path.join(ROOT, "out", "mut_serve_lm.json"),
                           title="mutant of the LM server", quick_help="the check's quick subset")
    return command.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_serve.json"),
                       title="mutant of the serving engine", quick_help="the check's quick subset (staggered only)")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
