"""Measure the committed models, float against int8: `python -m tools.lm.eval` (make lm-eval).

1. Addition: every one of the 10,000 problems (and the 500 held out of training), the sum
   written greedily (ARGMAX) from its two operands, right when its digits spell a + b as
   Python computes it.
2. Text: held-out loss (nats per character) of the float model and of the int8 model (its
   int32 logits times the logit scale: the only float step, for measuring), teacher-forced
   top-1 agreement of int8 with float over every held-out position, and greedy samples.
Prints a table and writes out/lm_eval.json; with --record (make train does) also
tools/lm/weights/measured.json, the committed figures docs/lm.md quotes and the tests
hold the int8 model's answers to.
"""
import json
import os
import time

import numpy as np

from tb import ROOT, cli
from tools.lm import data, int8
from tools.lm import model as M
from tools.lm.train import WEIGHTS

PROMPTS = ("The ", "A list is ", "def ", "The \"for\" statement ", "Exceptions ")
SAMPLE_LEN = 64


def load(task, weights=WEIGHTS):
    """(float params, Config, Int8Model) of a task's committed weights."""
    p, cfg = M.load(os.path.join(weights, f"{task}.npz"))
    return p, cfg, int8.Int8Model.load(os.path.join(weights, f"{task}_int8.npz"))


def add_right(logits, idx, ctx):
    """Booleans: problem i in idx answered a + b (a = i // 100, b = i % 100) by greedy decoding."""
    idx = np.asarray(idx)
    prompt = data.add_all()[idx, :data.ADD_PROMPT]
    out = int8.greedy(logits, prompt, data.NDIGIT + 1, ctx)[:, data.ADD_PROMPT:]
    n = 10 ** data.NDIGIT
    return np.array([data.add_answer(o) == i // n + i % n for o, i in zip(out, idx)])


def addition(weights=WEIGHTS):
    """Problems right out of all 10,000 and out of the 500 held out, float and int8."""
    p, cfg, q = load("add", weights)
    every, (_, held) = np.arange(10 ** (2 * data.NDIGIT)), data.add_split()
    res = {}
    for name, fn in (("float", lambda X: M.forward(p, cfg, X)), ("int8", q.logits)):
        ok = add_right(fn, every, cfg.ctx)
        res[name] = {"right": int(ok.sum()), "of": len(ok), "held_out_right": int(ok[held].sum()),
                     "held_out_of": len(held),
                     "wrong": [f"{i // 100}+{i % 100}" for i in every[~ok]]}
    return res


def text(weights=WEIGHTS, chunk=64):
    """Held-out loss float and int8, top-1 agreement, top-1 accuracy, greedy samples."""
    p, cfg, q = load("text", weights)
    X, Y = data.text_windows(data.text_split()[1], cfg.ctx)
    mask = np.ones(Y.shape, dtype=bool)
    lf, lq = [], []
    for k in range(0, len(X), chunk):
        lf.append(M.forward(p, cfg, X[k:k + chunk]))
        lq.append(q.logits(X[k:k + chunk]))
    lf, lq = np.concatenate(lf), np.concatenate(lq)
    af, aq = int8.argmax(lf), int8.argmax(lq)
    res = {"positions": int(Y.size),
           "loss_float": M.cross_entropy(lf, Y, mask),
           "loss_int8": M.cross_entropy(lq * q.logit_scale, Y, mask),
           "top1_agreement": float(np.mean(af == aq)),
           "top1_accuracy_float": float(np.mean(af == Y)),
           "top1_accuracy_int8": float(np.mean(aq == Y)), "samples": []}
    for pr in PROMPTS:
        ids = data.encode(pr)[None]
        n = SAMPLE_LEN - ids.shape[1]
        res["samples"].append({
            "prompt": pr,
            "float": data.decode(int8.greedy(lambda Z: M.forward(p, cfg, Z), ids, n, cfg.ctx)[0]),
            "int8": data.decode(int8.greedy(q.logits, ids, n, cfg.ctx)[0])})
    return res


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.eval", description=__doc__.splitlines()[0])
    ap.add_argument("--task", choices=("add", "text", "both"), default="both")
    ap.add_argument("--weights", default=WEIGHTS, type=cli.in_dir)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "lm_eval.json"), type=cli.out_file())
    ap.add_argument("--record", action="store_true",
                    help="also write the committed figures, <weights>/measured.json")
    a = ap.parse_args(argv)
    if a.record and a.task != "both":
        ap.error("--record writes the figures of both tasks: leave --task at both")
    for task in ("add", "text") if a.task == "both" else (a.task,):
        for name in (f"{task}.npz", f"{task}_int8.npz"):
            if not os.path.isfile(os.path.join(a.weights, name)):
                return cli.refuse(ap.prog, f"--weights {a.weights}: no {name} in it")
        try:
            load(task, a.weights)
        except Exception as e:  # noqa: BLE001 -- a corrupt or foreign file: say which
            return cli.refuse(ap.prog, f"--weights {a.weights}: the {task} model does not load "
                                       f"({type(e).__name__}: {e})")
    if a.record:
        try:
            cli.out_file()(os.path.join(a.weights, "measured.json"))
        except Exception as e:  # noqa: BLE001 -- the path check's argparse.ArgumentTypeError, as one line
            return cli.refuse(ap.prog, f"--record: {e}")
    out, t0 = {}, time.time()
    if a.task in ("add", "both"):
        r = out["add"] = addition(a.weights)
        print("addition: problems right (greedy, ARGMAX)")
        for name in ("float", "int8"):
            x = r[name]
            print(f"  {name:5s}  all {x['right']:5d}/{x['of']} ({100 * x['right'] / x['of']:.2f}%)"
                  f"  held out {x['held_out_right']}/{x['held_out_of']}"
                  + (f"  wrong: {', '.join(x['wrong'][:10])}" if x["wrong"] else ""))
    if a.task in ("text", "both"):
        r = out["text"] = text(a.weights)
        print(f"text: {r['positions']} held-out positions")
        print(f"  held-out loss (nats/char)  float {r['loss_float']:.4f}  int8 {r['loss_int8']:.4f}"
              f"  (int8 {100 * (r['loss_int8'] / r['loss_float'] - 1):+.2f}%)")
        print(f"  top-1 agreement int8 vs float {100 * r['top1_agreement']:.2f}%;"
              f"  top-1 accuracy float {100 * r['top1_accuracy_float']:.2f}%"
              f"  int8 {100 * r['top1_accuracy_int8']:.2f}%")
        for s in r["samples"]:
            print(f"  prompt {s['prompt']!r}\n    float: {s['float']!r}\n    int8:  {s['int8']!r}")
    print(f"({time.time() - t0:.0f} s)")
    paths = [a.out] + ([os.path.join(a.weights, "measured.json")] if a.record else [])
    for path in paths:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    raise SystemExit(guard(main))
