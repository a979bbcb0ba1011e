"""The language model on the chip: testing the test. Broken step builders against the check.

Each mutant changes ONE line of tools/lm/chip.py (the step program and the generation)
into a mistake a builder could make; "caught" = `python -m tools.lm.check` prints a
PROBLEM line and exits non-zero (tb/mutation/__init__.py, as tools/prefix/mutants.py). The
check holds every token and every cached K and V row to the integer reference on the
reference chip, from a garbage scratchpad each step, in both timing modes; it also counts
each step's weight loads and times the overlap mode's B = 4 step and its B = 16 step at
position 7, which is how the two mutants that leave every value right are caught (one
weight buffer for every tile: correct, but the next tile's load can no longer run under
the current tile's products; the pipelined step without its one-group lag: correct, but
the matrix unit waits for the vector unit's norms).

    python -m tools.lm.mutants            # all mutants, out/mut_lm.json
    python -m tools.lm.mutants --fast     # the CI subset
"""
import os
import sys

from tb import ROOT
from tb.mutation import command, outcomes

PY = sys.executable
# --first: a mutant needs only to be caught, so the check stops at its first part with a
# PROBLEM (the baseline, which has none, runs every part)
CHECK = [PY, "-m", "tools.lm.check", "--first"]
FILE = "tools/lm/chip.py"

# (label, old line, new line); each old line occurs exactly once in FILE.
SPECS = [
    ("the softmax one score short (this step's key left out)",
     "                I(\"SM\", dst=p, src=s8, len=n)",
     "                I(\"SM\", dst=p, src=s8, len=max(1, n - 1))"),
    ("this step's key copied from its value",
     '            I("RQ", dst=kb + t * d, src=kr, len=d, m=1, s=0)      # this step\'s rows join',
     '            I("RQ", dst=kb + t * d, src=vr, len=d, m=1, s=0)      # this step\'s rows join'),
    ("the weighted sum one value short",
     "                    I(\"MM\", dst=o32 + j0, A=w8, B=vb + 16 * c + j0, M=1, K=n, N=4,",
     "                    I(\"MM\", dst=o32 + j0, A=w8, B=vb + 16 * c + j0, M=1, K=max(1, t), N=4,"),
    ("the attention residual rescaled with the MLP's requant",
     '        residual(g0, gn, 2 * i, sp["t1"])',
     '        residual(g0, gn, 2 * i + 1, sp["t1"])'),
    ("the MLP without its ReLU",
     '        project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=1)',
     '        project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=0)'),
    ("every row given position 0's embedding",
     '    E.embed(rows, mem, groups, lambda row: row.t)',
     '    E.embed(rows, mem, groups, lambda row: 0)'),
    ("the next token stored over the current one",
     '        I("ST", src=sp["nxt"] + r, dst=mem.token(row.b, row.t + 1), len=1)',
     '        I("ST", src=sp["nxt"] + r, dst=mem.token(row.b, row.t), len=1)'),
    ("the output head for the first rows of the step, not the generating ones",
     '    rows = sorted(rows, key=lambda row: not row.write)',
     '    rows = list(rows)'),
    ("keys written into the value cache",
     '            I("ST", src=kr, dst=mem.kv_row(i, 0, row.b, t), len=d)',
     '            I("ST", src=kr, dst=mem.kv_row(i, 1, row.b, t), len=d)'),
    ("the cached rows not loaded at position 1 (the buffer's garbage used)",
     "            if t:       # the cached rows 0 .. t-1 (row t is this step's, on chip)",
     "            if t > 1:   # the cached rows 0 .. t-1 (row t is this step's, on chip)"),
    ("the first generated token not written (the last prompt row's output dropped)",
     "                    rows.append(Row(b, t, t + 1 >= len(p)))",
     "                    rows.append(Row(b, t, t + 1 > len(p)))"),
    ("one weight buffer for every tile (right values, no streaming under the products)",
     '        buf = self.sp[f"wb{self.wbuf % self.nbuf}"]',
     '        buf = self.sp["wb0"]'),
    ("the pipelined step rotating four weight buffers (the next layer's over the layer end's)",
     "    E = Emitter(lay, model.rq, lay.weight_buffers if pipe else WEIGHT_BUFFERS)",
     "    E = Emitter(lay, model.rq, WEIGHT_BUFFERS)"),
    ("the pipelined step without its lag (right values; the matrix unit idles in the norms)",
     "        lag = 1                            # group k's follow-up after group k + 1's end",
     "        lag = 0                            # group k's follow-up after group k + 1's end"),
]

# the remedies' builder (tools/lm/remedies.py), caught by the check's remedies part
FILE_REMEDIES = "tools/lm/remedies.py"
SPECS_REMEDIES = [
    ("tiles: the weighted sum overwritten by each value tile, not accumulated",
     "                      N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)",
     "                      N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0)"),
    ("tiles: the softmax over the first tile's scores only",
     '                I("SM", dst=p, src=s32, len=n)',
     '                I("SM", dst=p, src=s32, len=min(n, TR))'),
    ("GQA: query head c reads KV head c, not c // group",
     "                    I(\"MM\", dst=sc[c][0] + k0, A=q, B=buf + (k0 - u0) * dk + 16 * (c // g),",
     "                    I(\"MM\", dst=sc[c][0] + k0, A=q, B=buf + (k0 - u0) * dk + 16 * c,"),
    ("window: the ring's slots overwrite the sinks",
     "        return t if not W or t < S else S + (t - S) % (W - S)",
     "        return t if not W or t < S else (t - S) % (W - S)"),
    ("window: a full ring's last slot not loaded",
     "        hi = n if t >= lay.slots else t",
     "        hi = n - 1 if t >= lay.slots else t"),
    ("4-bit: this step's row copied packed (no UNPACK4)",
     '                I("UNPACK4", dst=buf + (slot - u0) * dk, src=cur, len=rw)',
     '                I("RQ", dst=buf + (slot - u0) * dk, src=cur, len=dk, m=1, s=0)'),
    ("4-bit: a group's last packed word left unpacked",
     '                    I("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=gn * rw)',
     '                    I("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=max(1, gn * rw - 1))'),
    ("long contexts: positions past the learned ones read past the table",
     '    E.embed(rows, mem, groups, lambda row: min(row.t, m.ctx - 1))',
     '    E.embed(rows, mem, groups, lambda row: row.t)'),
    ("past 64K words: xhi dropped (every transfer in the first page)",
     '            hi = {"xhi": exa // PAGE} if exa >= PAGE else {}',
     '            hi = {}'),
]

FAST = ("the weighted sum one value short",
        "tiles: the weighted sum overwritten by each value tile, not accumulated",
        "one weight buffer for every tile (right values, no streaming under the products)")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [outcomes.Mutant(label, f, old, new, must_catch=True, tags=("lm",))
            for f, specs in ((FILE, SPECS), (FILE_REMEDIES, SPECS_REMEDIES))
            for label, old, new in specs if not fast or label in FAST]


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise)."""
    for m in mutants():
        if m.label == label:
            return m
    raise KeyError(f"no language-model mutant {label!r}")


def main(argv=None):
    return command.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_lm.json"),
                       title="mutant of the model's step builder", quick_help="the check's quick subset")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
