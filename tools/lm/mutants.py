"""The language model on the chip: testing the test. A broken step compiler against the check.

Each mutant changes ONE line of the step compiler (tools/lm/compiler: the emitter, the
layout's address protocol, the description's ring slots) or of the generation
(tools/lm/generation.py) into a mistake a compiler could make; "caught" = `python -m
tools.lm.check` prints a PROBLEM line and exits non-zero (tb/mutation/__init__.py, as
tools/prefix/mutants.py). The
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
EMIT = "tools/lm/compiler/emit.py"
LAYOUT = "tools/lm/compiler/layout.py"
DESC = "tools/lm/compiler/desc.py"
GENERATION = "tools/lm/generation.py"

# (label, file, old line, new line); each old line occurs exactly once in its file.
SPECS = [
    ("the softmax one score short (this step's key left out)", EMIT,
     '            self("SM", dst=vec("p", c), src=vec("s8", c), len=n)',
     '            self("SM", dst=vec("p", c), src=vec("s8", c), len=max(1, n - 1))'),
    ("this step's key copied from its value", EMIT,
     "                own(0, 0, 0, n)",
     "                own(1, 0, 0, n)"),
    ("the weighted sum one value short", EMIT,
     "                     M=1, K=u1 - u0, N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)",
     "                     M=1, K=max(1, u1 - u0 - 1), N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)"),
    ("the attention residual rescaled with the MLP's requant", EMIT,
     '        self.residual(g0, gn, 2 * i, sp["t1"])',
     '        self.residual(g0, gn, 2 * i + 1, sp["t1"])'),
    ("the MLP without its ReLU", EMIT,
     '        self.project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=1)',
     '        self.project(g0, gn, w1, sp["h"], sp["u"], f"h{i}.u", relu=0)'),
    ("every row given position 0's embedding", EMIT,
     '            self("LD", dst=sp["t0"] + r * d, src=w["wpe"] + min(row.t, self.desc.ctx - 1) * d, len=d)',
     '            self("LD", dst=sp["t0"] + r * d, src=w["wpe"], len=d)'),
    ("the next token stored over the current one", EMIT,
     '            self("ST", src=sp["nxt"] + r, dst=self.mem.token(row.b, row.t + 1), len=1)',
     '            self("ST", src=sp["nxt"] + r, dst=self.mem.token(row.b, row.t), len=1)'),
    ("the output head for the first rows of the step, not the generating ones", EMIT,
     '    rows = sorted(rows, key=lambda row: not row.write)',
     '    rows = list(rows)'),
    ("keys written into the value cache (the key cache never written)", EMIT,
     '            self.xfer("ST", cur[kind], mem.kv_row(i, kind, row.b, row.t), rw)',
     '            self.xfer("ST", cur[kind], mem.kv_row(i, 1, row.b, row.t), rw)'),
    ("the cached rows not loaded at position 1 (the buffer's garbage used)", LAYOUT,
     "        return ([(0, lay.kv(layer, kind, b), hi)] if hi else []), lay.desc.slot(t), n",
     "        return ([(0, lay.kv(layer, kind, b), hi)] if hi > 1 else []), lay.desc.slot(t), n"),
    ("the first generated token not written (the last prompt row's output dropped)", GENERATION,
     "                    rows.append(Row(b, t, t + 1 >= len(p)))",
     "                    rows.append(Row(b, t, t + 1 > len(p)))"),
    ("one weight buffer for every tile (right values, no streaming under the products)", EMIT,
     '        buf = self.sp[f"wb{self.wbuf % self.nbuf}"]',
     '        buf = self.sp["wb0"]'),
    ("the pipelined step rotating four weight buffers (the next layer's over the layer end's)", EMIT,
     "        self.pipe, self.nbuf = pipe, lay.weight_buffers if pipe else WEIGHT_BUFFERS",
     "        self.pipe, self.nbuf = pipe, WEIGHT_BUFFERS"),
    ("the pipelined step without its lag (right values; the matrix unit idles in the norms)", EMIT,
     "            lag = 1                          # group k's follow-up after group k + 1's end",
     "            lag = 0                          # group k's follow-up after group k + 1's end"),
    # the remedies (the tiled plan), caught by the check's remedies part
    ("tiles: the weighted sum overwritten by each value tile, not accumulated", EMIT,
     "                     M=1, K=u1 - u0, N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0 if first else 1)",
     "                     M=1, K=u1 - u0, N=4, tb=0, lda=u1 - u0, ldb=dk, ldc=4, acc=0)"),
    ("tiles: the softmax over the first tile's scores only", EMIT,
     '            self("SM", dst=vec("p", c), src=vec("s8", c), len=n)',
     '            self("SM", dst=vec("p", c), src=vec("s8", c), len=min(n, lay.tile))'),
    ("GQA: query head c reads KV head c, not c // group", EMIT,
     '                self("MM", dst=vec("s32", c) + k0, A=q, B=buf + (k0 - u0) * dk + hd * (c // g),',
     '                self("MM", dst=vec("s32", c) + k0, A=q, B=buf + (k0 - u0) * dk + hd * c,'),
    ("window: the ring's slots overwrite the sinks", DESC,
     "        return t if not W or t < S else S + (t - S) % (W - S)",
     "        return t if not W or t < S else (t - S) % (W - S)"),
    ("window: a full ring's last slot not loaded", LAYOUT,
     "        hi = n if t >= lay.slots else t",
     "        hi = n - 1 if t >= lay.slots else t"),
    ("4-bit: this step's row copied packed (no UNPACK4)", EMIT,
     '                    self("UNPACK4", dst=bufs[k] + (slot - u0) * dk, src=cur[kind], len=rw)',
     '                    self("RQ", dst=bufs[k] + (slot - u0) * dk, src=cur[kind], len=dk, m=1, s=0)'),
    ("4-bit: a group's last packed word left unpacked", EMIT,
     '                self("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=gn * rw)',
     '                self("PACK4", dst=sp[f"{n}p"] + g0 * rw, src=sp[n] + g0 * dk, len=max(1, gn * rw - 1))'),
    ("long contexts: positions past the learned ones read past the table", EMIT,
     '            self("LD", dst=sp["t0"] + r * d, src=w["wpe"] + min(row.t, self.desc.ctx - 1) * d, len=d)',
     '            self("LD", dst=sp["t0"] + r * d, src=w["wpe"] + row.t * d, len=d)'),
    ("past 64K words: xhi dropped (every transfer in the first page)", EMIT,
     '            hi = {"xhi": exa // PAGE} if exa >= PAGE else {}',
     '            hi = {}'),
]

FAST = ("the weighted sum one value short",
        "tiles: the weighted sum overwritten by each value tile, not accumulated",
        "one weight buffer for every tile (right values, no streaming under the products)")


def mutants(fast=False):
    """The mutants as mutation.Mutant objects (the --fast subset if fast); all must be caught."""
    return [outcomes.Mutant(label, f, old, new, must_catch=True, tags=("lm",))
            for label, f, old, new in SPECS if not fast or label in FAST]


def mutant(label):
    """The one mutant called label (KeyError naming it otherwise)."""
    return outcomes.by_label(mutants(), label, "language-model")


def main(argv=None):
    return command.cli(argv, __doc__.splitlines()[0], mutants, CHECK, os.path.join(ROOT, "out", "mut_lm.json"),
                       title="mutant of the step compiler", quick_help="the check's quick subset")


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
