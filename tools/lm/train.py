"""Train a task's model: `python -m tools.lm.train --task add|text` (make train: both).

Seeded and deterministic: the initial weights and the batch order come from numpy
Generators seeded by the task's seed, the arithmetic is float64 in a fixed order, so the
same steps give the same losses bit for bit on one BLAS kernel (OpenBLAS picks its kernels
by CPU: across CPUs the last bit may differ; tests/tools/lm/test_train.py replays the first
steps against the committed trace to 1e-12 relative, docs/lm.md "Training").

Writes tools/lm/weights/<task>.npz (the float weights and the Config),
<task>_int8.npz (the integer export, tools/lm/int8.py: fixed-order arithmetic without
BLAS, the same bits on any machine) and <task>_trace.json (the loss of every step, the
held-out loss at the end, the wall time).

AdamW (betas 0.9, 0.99; weight decay 0.01 on the matrices and tables, not the gains), a
linear warm-up, cosine decay to a tenth of the peak rate, gradients clipped to norm 1.
"""
import json
import math
import os
import platform
import time

import numpy as np

from tb import cli
from tools.lm import data, int8
from tools.lm import model as M

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")

TASKS = {
    "add": dict(cfg=M.Config(vocab=data.ADD_VOCAB), seed=1, steps=3000, batch=128,
                lr=3e-3, warmup=100),
    "text": dict(cfg=M.Config(vocab=len(data.TEXT_CHARS)), seed=1, steps=4000, batch=32,
                 lr=3e-3, warmup=100),
}
# The remedies' variants (docs/lm.md "Remedies"), trained the same way from the same seeds:
# <task>_kv1 shares one key-value head between both query heads (multi-query attention);
# text_ctx256 learns 256 positions, on windows of 256 characters (8 a batch: the same
# characters a step as the base model's 32 of 64), in half the steps (its attention costs
# four times as much a character).
VARIANTS = {
    "add_kv1": dict(TASKS["add"], cfg=M.Config(vocab=data.ADD_VOCAB, kv_heads=1), data="add"),
    "text_kv1": dict(TASKS["text"], cfg=M.Config(vocab=len(data.TEXT_CHARS), kv_heads=1),
                     data="text"),
    "text_ctx256": dict(TASKS["text"], cfg=M.Config(vocab=len(data.TEXT_CHARS), ctx=256),
                        batch=8, steps=2000, data="text"),
}
TASKS.update(VARIANTS)
# --size draft: a smaller model of the same task, trained the same way (same seed, data,
# optimizer), for speculative decoding (tools/serve/spec.py): one layer, one head of 16
DRAFT = dict(d=16, heads=1, layers=1, mlp=16)
SIZES = ("main", "draft")
BETAS = (0.9, 0.99)
WEIGHT_DECAY = 0.01     # decoupled (AdamW), on the matrices and tables, not on the gains
FLOOR = 0.1             # the cosine decays the rate to FLOOR * lr
CLIP = 1.0              # global gradient norm


def source(task):
    """The data a task or variant trains on: "add" or "text"."""
    return TASKS[task].get("data", task)


def batches(task, rng):
    """The task's endless training batches (X, Y, mask), in rng's order."""
    if source(task) == "add":
        return data.add_batches(rng, data.add_split()[0], TASKS[task]["batch"])
    return data.text_batches(rng, data.text_split()[0], TASKS[task]["batch"],
                             TASKS[task]["cfg"].ctx)


def rate(step, hp):
    """Learning rate of step (0-based): linear warm-up, then cosine to lr / 10."""
    if step < hp["warmup"]:
        return hp["lr"] * (step + 1) / hp["warmup"]
    t = (step - hp["warmup"]) / max(1, hp["steps"] - hp["warmup"])
    return hp["lr"] * (FLOOR + (1 - FLOOR) * 0.5 * (1 + math.cos(math.pi * t)))


def hyper(task, size="main"):
    """The hyper-parameters of a task's model of a size ("main": TASKS's; "draft": the
    same with DRAFT's smaller Config)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r} (sizes: {', '.join(SIZES)})")
    hp = dict(TASKS[task])
    if size == "draft":
        hp["cfg"] = M.Config(vocab=hp["cfg"].vocab, ctx=hp["cfg"].ctx, **DRAFT)
    return hp


def stem(task, size="main"):
    """The weights files' stem: <task> for the main model, <task>_draft for the draft."""
    return task if size == "main" else f"{task}_{size}"


def train(task, steps=None, log=None, size="main"):
    """(params, losses): train task's model of size for steps (default its full run) from
    its seed."""
    hp = hyper(task, size)
    cfg, steps = hp["cfg"], hp["steps"] if steps is None else steps
    p = M.init(cfg, hp["seed"])
    m = {n: np.zeros_like(v) for n, v in p.items()}
    v2 = {n: np.zeros_like(v) for n, v in p.items()}
    gen = batches(task, np.random.default_rng(hp["seed"] + 1000))
    losses = []
    for step in range(steps):
        X, Y, mask = next(gen)
        loss, g = M.loss_and_grad(p, cfg, X, Y, mask)
        losses.append(loss)
        norm = math.sqrt(sum(float(np.sum(g[n] * g[n])) for n in M.names(cfg)))
        k = min(1.0, CLIP / (norm + 1e-12))
        lr = rate(step, hp)
        b1, b2 = BETAS
        for n in M.names(cfg):
            gn = g[n] * k
            m[n] = b1 * m[n] + (1 - b1) * gn
            v2[n] = b2 * v2[n] + (1 - b2) * gn * gn
            mh = m[n] / (1 - b1 ** (step + 1))
            vh = v2[n] / (1 - b2 ** (step + 1))
            if p[n].ndim == 2:
                p[n] = p[n] * (1 - lr * WEIGHT_DECAY)
            p[n] = p[n] - lr * mh / (np.sqrt(vh) + 1e-8)
        if log and (step % 100 == 0 or step == steps - 1):
            log(f"{task} step {step:5d}  loss {loss:.4f}  lr {lr:.2e}")
    return p, losses


def calibration(task):
    """The token windows the int8 export calibrates its activation scales on (training data)."""
    if source(task) == "add":
        return data.add_all()[data.add_split()[0], :-1]
    return data.text_windows(data.text_split()[0], TASKS[task]["cfg"].ctx)[0][::10]


def held_out(task):
    """(X, Y, mask) of the task's held-out data: its 500 problems, or its last 10% of text."""
    if source(task) == "add":
        return data.add_xy(data.add_split()[1])
    X, Y = data.text_windows(data.text_split()[1], TASKS[task]["cfg"].ctx)
    return X, Y, np.ones(Y.shape, dtype=bool)


def export_kv4(task, out=WEIGHTS):
    """Write <out>/<task>_kv4_int8.npz: the 4-bit-cache export of the trained <task>.npz."""
    from tools.lm import remedies_ref
    path = os.path.join(out, f"{task}.npz")
    if not os.path.isfile(path):
        return cli.refuse("tools.lm.train", f"--kv4: no {path} (train --task {task} first)")
    p, cfg = M.load(path)
    remedies_ref.export_kv4(p, cfg, calibration(task)).save(
        os.path.join(out, f"{task}_kv4_int8.npz"))
    print(f"{task}: wrote {task}_kv4_int8.npz")
    return 0


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.train", description=__doc__.splitlines()[0])
    ap.add_argument("--task", choices=sorted(TASKS), required=True)
    ap.add_argument("--size", choices=SIZES, default="main",
                    help="main (default) or draft: the small model speculative decoding drafts with")
    ap.add_argument("--out", default=WEIGHTS, type=cli.out_dir)
    ap.add_argument("--kv4", action="store_true",
                    help="no training: export <out>/<task>.npz with a 4-bit KV cache "
                         "(remedies_ref.export_kv4) to <task>_kv4_int8.npz")
    a = ap.parse_args(argv)
    if a.kv4:
        return export_kv4(a.task, a.out)
    hp, t0, c0 = hyper(a.task, a.size), time.time(), time.process_time()
    p, losses = train(a.task, log=lambda s: print(s, flush=True), size=a.size)
    name = stem(a.task, a.size)
    wall, cpu = time.time() - t0, time.process_time() - c0
    cfg = hp["cfg"]
    q = int8.export(p, cfg, calibration(a.task))
    X, Y, mask = held_out(a.task)
    ho = M.cross_entropy(M.forward(p, cfg, X), Y, mask)
    os.makedirs(a.out, exist_ok=True)
    M.save(os.path.join(a.out, f"{name}.npz"), p, cfg)
    q.save(os.path.join(a.out, f"{name}_int8.npz"))
    trace = {"task": a.task, "size": a.size, "cfg": cfg.as_dict(),
             **{k: v for k, v in hp.items() if k != "cfg"},
             "train_seconds": round(wall, 1), "train_cpu_seconds": round(cpu, 1),
             "load_average_after": os.getloadavg()[0], "python": platform.python_version(),
             "numpy": np.__version__, "corpus_sha256": data.corpus_sha256() if source(a.task) == "text"
             else None, "final_loss_mean_last_100": float(np.mean(losses[-100:])),
             "held_out_loss_float": ho, "losses": losses}
    with open(os.path.join(a.out, f"{name}_trace.json"), "w") as f:
        json.dump(trace, f, indent=0)
    print(f"{name}: {len(losses)} steps in {wall:.0f} s ({cpu:.0f} s of CPU); mean loss of "
          f"the last 100 {trace['final_loss_mean_last_100']:.4f}; held-out loss (float) {ho:.4f}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    raise SystemExit(guard(main))
