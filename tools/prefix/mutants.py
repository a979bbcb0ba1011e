"""Shared prefixes: testing the test. Broken engines against the shared-prefix check.

Each mutant changes ONE line of tools/prefix/attention.py (shared-prefix attention) or
tools/prefix/cache.py (the prefix cache) into a mistake an engine could make; "caught" =
`python -m tools.prefix.cache --check`
prints a PROBLEM line and exits non-zero (tb/mutation/__init__.py, as tools/serve/mutants.py).
The check runs random shared-prefix decode runs and random prefix-cache runs on the
reference, holds every token to each request alone and, from the programs' bus ranges
and the block tables alone, every write to the blocks other requests or the cache hold
and every block's position. Two mutants leave every answer right (the values a missing
copy-on-write writes into the shared block are the same; a key without position maps a
block of repeated rows onto an equal one): only those structural checks see them.

    python -m tools.prefix.mutants            # all mutants, out/mut_prefix.json
    python -m tools.prefix.mutants --fast     # the CI subset
"""
import os
import sys

from tb import ROOT
from tb.mutation import command, outcomes

PY = sys.executable
CHECK = [PY, "-m", "tools.prefix.cache", "--check"]
FILES = {"attention": "tools/prefix/attention.py", "cache": "tools/prefix/cache.py"}

# (label, old line, new line, tags); each old line occurs exactly once in its file (FILES[tags[0]]).
# The broken engines are written here, as the new line, and nowhere in the product.
SPECS = [
    ("copy-on-write dropped: a fully cached prompt writes its last row into the shared block",
     "            cow = bool(hit) and len(hit) * BT >= first_t     # the last prompt row is in a hit",
     "            cow = False", ("cache",)),
    ("a block's key without position or parent",
     "    return hash((parent, i, tuple(tuple(r) for r in rows)))",
     "    return hash(tuple(tuple(r) for r in rows))", ("cache",)),
    ("a revived block left on the LRU list (evictable while in use)",
     "                if ref[b] == 0 and b in lru:",
     "                if False:", ("cache",)),
    ("a freed cached block returned to the free list (its key kept)",
     "                            (lru if b in key_of else free).append(b)",
     "                            free.append(b)", ("cache",)),
    ("the prefix part of the weighted sum written with acc = 0",
     "            acc = 1                                       # added onto each member's suffix part",
     "            acc = 0", ("attention",)),
    ("the prefix scores one 4-key tile short",
     "                for c in range(0, S, A):                  # the prefix's 4-key tiles",
     "                for c in range(0, S - A if S > A else S, A):", ("attention",)),
    ("sharers grouped by their first block only (later blocks not compared)",
     "            while c < s and tk[c] == t0[c]:",
     "            while c < s:", ("attention",)),
]

FAST = ("copy-on-write dropped: a fully cached prompt writes its last row into the shared block",
        "a block's key without position or parent")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [outcomes.Mutant(label, FILES[tags[0]], old, new, must_catch=True, tags=tags)
            for label, old, new, tags in SPECS if not fast or label in FAST]


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise)."""
    return outcomes.by_label(mutants(), label, "shared-prefix")


def run(fast=False, jobs=2, timeout=120, quick=False):
    """(results, wall seconds): every mutant (the --fast subset if fast) judged by the check."""
    return command.timed_run(mutants(fast), CHECK, quick, timeout, jobs)


def main(argv=None):
    return command.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_prefix.json"),
                       title="mutant of the shared-prefix engine", quick_help="the check's quick subset")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
