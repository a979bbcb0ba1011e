"""The language model on the chip: testing the test. Broken step builders against the check.

Each mutant changes ONE line of tools/lm/chip.py (the step program and the generation)
into a mistake a builder could make; "caught" = `python -m tools.lm.check` prints a
PROBLEM line and exits non-zero (tb/mutation/engine.py, as tools/prefix/mutants.py). The
check holds every token and every cached K and V row to the integer reference on the
reference chip, from a garbage scratchpad each step, in both timing modes; it also counts
each step's weight loads and times the overlap mode's B = 4 step, which is how the one
mutant that leaves every value right (one weight buffer for every tile: correct, but the
next tile's load can no longer run under the current tile's products) is caught.

    python -m tools.lm.mutants            # all mutants, out/mut_lm.json
    python -m tools.lm.mutants --fast     # the CI subset
"""
import os
import sys

from tools import ROOT

from tb.mutation import engine as mutation

PY = sys.executable
CHECK = [PY, "-m", "tools.lm.check"]
FILE = "tools/lm/chip.py"

# (label, old line, new line); each old line occurs exactly once in FILE.
SPECS = [
    ("the last score (this step's key) left out of the softmax",
     '                rqv(s8, s32, t + 1, f"h{i}.scores")',
     '                rqv(s8, s32, t, f"h{i}.scores") if t else rqv(s8, s32, 1, f"h{i}.scores")'),
    ("this step's key read from the attention buffer (stale) instead of the fresh row",
     "                I(\"MM\", dst=s32 + t, A=q, B=kr + 16 * c, M=1, K=16, N=1, tb=1, lda=16,",
     "                I(\"MM\", dst=s32 + t, A=q, B=kb + t * d + 16 * c, M=1, K=16, N=1, tb=1, lda=16,"),
    ("this step's value overwrites the cached rows' weighted sum (acc = 0)",
     "                      tb=0, lda=1, ldb=d, ldc=4, acc=1 if t else 0)",
     "                      tb=0, lda=1, ldb=d, ldc=4, acc=0)"),
    ("the attention residual rescaled with the MLP's requant",
     '        residual(2 * i, sp["t1"])',
     '        residual(2 * i + 1, sp["t1"])'),
    ("the MLP without its ReLU",
     '        project(f"h{i}.w1", sp["h"], d, m.mlp, sp["u"], f"h{i}.u", relu=1)',
     '        project(f"h{i}.w1", sp["h"], d, m.mlp, sp["u"], f"h{i}.u", relu=0)'),
    ("every row given position 0's embedding",
     '        I("LD", dst=sp["t0"] + r * d, src=lay.w["wpe"] + row.t * d, len=d)',
     '        I("LD", dst=sp["t0"] + r * d, src=lay.w["wpe"], len=d)'),
    ("the next token stored over the current one",
     '            I("ST", src=sp["nxt"] + r, dst=lay.tokens + row.b * lay.ctx + row.t + 1, len=1)',
     '            I("ST", src=sp["nxt"] + r, dst=lay.tokens + row.b * lay.ctx + row.t, len=1)'),
    ("keys written into the value cache",
     '            I("ST", src=kr, dst=lay.kv(i, 0, row.b) + t * d, len=d)',
     '            I("ST", src=kr, dst=lay.kv(i, 1, row.b) + t * d, len=d)'),
    ("the cached rows not loaded at position 1 (the buffer's garbage used)",
     "            if t:       # the cached rows 0 .. t-1 (row t is this step's, on chip)",
     "            if t > 1:   # the cached rows 0 .. t-1 (row t is this step's, on chip)"),
    ("the first generated token not written (the last prompt row's output dropped)",
     "                    rows.append(Row(b, t, t + 1 >= len(p)))",
     "                    rows.append(Row(b, t, t + 1 > len(p)))"),
    ("one weight buffer for every tile (right values, no streaming under the products)",
     '        buf = sp[f"wb{wbuf[0] % WEIGHT_BUFFERS}"]',
     '        buf = sp["wb0"]'),
]

FAST = ("this step's value overwrites the cached rows' weighted sum (acc = 0)",
        "one weight buffer for every tile (right values, no streaming under the products)")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [mutation.Mutant(label, FILE, old, new, must_catch=True, tags=("lm",))
            for label, old, new in SPECS if not fast or label in FAST]


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise)."""
    for m in mutants():
        if m.label == label:
            return m
    raise KeyError(f"no language-model mutant {label!r}")


def main(argv=None):
    return mutation.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_lm.json"),
                        title="mutant of the model's step builder", quick_help="the check's quick subset")


if __name__ == "__main__":
    sys.exit(main())
