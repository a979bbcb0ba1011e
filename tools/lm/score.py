"""The addition model's score on the chip: a seeded sample of problems, decoded on a
simulator (or the reference chip), every answer held to the integer reference's.

python -m tools.lm.score [--sim model|icarus|verilator] [--n 200] [--batch 16] [--seed 1]
    [--mode inorder|overlap]

Problems are drawn without replacement from all 10,000 (numpy's default_rng(seed)),
decoded in batches of --batch on one chip (tools/lm/generate.py: each batch one
generation of 3 tokens, prefilled on chip), and judged twice: against the integer
reference's answer (tools/lm/int8.py, the bar: equal on every problem) and against
Python's own a + b (the score). Exit 0 when every chip answer equals the reference's.
"""
import sys
import time

import numpy as np

from tb import cli
from tb.hw import ToolFault
from tools.lm import data
from tools.lm.compiler import LM_CHIP, LM_CHIP_OVERLAP
from tools.lm.generate import load_model, run
from tools.lm.generation import Generation


def sample(n, seed):
    """n distinct problems (a, b) of 0..99, seeded."""
    if not 1 <= n <= 10 ** (2 * data.NDIGIT):
        raise ValueError(f"--n {n}: outside 1..{10 ** (2 * data.NDIGIT)}")
    idx = np.random.default_rng(seed).choice(10 ** (2 * data.NDIGIT), size=n, replace=False)
    return [(int(i) // 10 ** data.NDIGIT, int(i) % 10 ** data.NDIGIT) for i in idx]


def score(probs, sim, batch=16, cfg=LM_CHIP_OVERLAP):
    """(right by Python's a + b, equal to the reference, cycles, wrong list) over probs."""
    model = load_model("add")
    right = same = cycles = 0
    wrong = []
    for k in range(0, len(probs), batch):
        part = probs[k:k + batch]
        prompts = [data.add_problem(a, b)[:2 * data.NDIGIT] for a, b in part]
        g = Generation(model, prompts, data.NDIGIT + 1, chip=cfg)
        out = run(g, sim)
        if out.error:
            raise RuntimeError(f"batch {k // batch}: {out.error}")
        cycles += sum(int(c.cycles) for c in out.counters)
        for (a, b), t, r in zip(part, out.tokens, out.ref_tokens):
            want = [int(c) for c in f"{a + b:0{data.NDIGIT + 1}d}"[::-1]]
            right += t == want
            same += t == r and out.steps_ok
            if t != want:
                wrong.append((a, b, t))
    return right, same, cycles, wrong


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.score", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--n", type=cli.integer(1, 10 ** (2 * data.NDIGIT)), default=200)
    ap.add_argument("--batch", type=cli.integer(1, 16), default=16)
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    a = ap.parse_args(argv)
    try:
        probs = sample(a.n, a.seed)
        if not 1 <= a.batch <= 16:
            raise ValueError(f"--batch {a.batch}: outside 1..16")
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    cfg = LM_CHIP if a.mode == "inorder" else LM_CHIP_OVERLAP
    t0 = time.perf_counter()
    try:
        right, same, cycles, wrong = score(probs, a.sim, a.batch, cfg)
    except ToolFault as e:              # nothing is known of the chip: not a FAIL of it
        print(f"FAULT {a.sim}: {e}")
        return 4
    n = len(probs)
    print(f"addition on {a.sim} ({a.mode}), {n} problems (seed {a.seed}), batches of {a.batch}: "
          f"{right}/{n} right ({100 * right / n:.2f}%), {same}/{n} equal to the integer "
          f"reference, {cycles} cycles ({time.perf_counter() - t0:.0f} s)")
    for a_, b_, t in wrong[:10]:
        print(f"  wrong: {a_}+{b_} -> {t}")
    ok = same == n
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
