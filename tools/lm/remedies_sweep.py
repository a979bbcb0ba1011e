"""What each of the chapter's remedies buys on the chip: `python -m tools.lm.remedies_sweep` (make remedies).

For each remedy (REMEDIES: the unmodified model, grouped-query attention with one KV head,
the 4-bit KV cache, a sliding window of 32 with 4 sinks, all three together), context T
(64 and 256: beyond 64 the cached rows stream in tiles of 64) and batch B (1..16): one
decode step of B rows at position T - 1, in the overlap mode (--mode inorder: in-order). Its counters come from the
cycle-exact model (timing.schedule) or, with --sim, from a simulator (each step judged
against the reference chip by tb.hw: counters, trace, memory; --job-cycles batches
consecutive steps into one simulator job, a process start per job). Per step: KV words per token
(the cache words the step moves, per row), words per step, intensity (MACs per word),
cycles per token, tokens per 1,000 cycles; the batch at which the step's cache words
equal its weight words, measured and by the chapter's formula (weights / cache per
request, tools/ch09/run.py's llm()); the capacity planner of chapter 9's example A
(tools/ch09/example_a.py) with the 7B model's KV bytes per token scaled by each remedy's
measured words per cached token (derived); the tiled attention's cycles against the untiled
step where both fit; each remedy's quality (addition on all 10,000 problems, text
held-out loss) from the integer reference (tools/lm/remedies_ref.py).

Writes out/lm_remedies.json and out/lm_remedies.png (tokens per 1,000 cycles against B,
every remedy and the unmodified model, T = 64 and 256; --out another path).
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

from model import isa, timing
from tb import ROOT, cli
from tb.hw import ToolFault
from tools.ch09 import example_a
from tools.lm import compiler as C
from tools.lm import data, generation, train
from tools.lm import model as M
from tools.lm import remedies_ref as REF
from tools.lm.generate import load_model

OUT = ROOT / "out"
CTX = (64, 256)
BATCH = (1, 2, 4, 8, 16)
WINDOW, SINKS = 32, 4
# name -> (load_model's kv_heads, kv_bits; the Remedies)
REMEDIES = {
    "unmodified": (0, 8, C.Remedies()),
    "GQA (1 KV head)": (1, 8, C.Remedies()),
    "4-bit KV": (0, 4, C.Remedies(kv_bits=4)),
    f"window {WINDOW}, {SINKS} sinks": (0, 8, C.Remedies(window=WINDOW, sinks=SINKS)),
    "all three": (1, 4, C.Remedies(kv_bits=4, window=WINDOW, sinks=SINKS)),
}


def step(model, rem, B, T, mode="overlap", tile=None):
    """(Generation, program) of one step of B rows at position T - 1 (attending T rows, or
    the window's) with remedies rem."""
    if tile is not None:
        rem = C.Remedies(rem.kv_bits, rem.window, rem.sinks, tile)
    g = generation.generation(model, [[0] * T] * B, 1, rem, mode)
    return g, C.step_program(model, g.layout, g.steps[-1])


def measure(name, model, rem, B, T, sim=None, tile=None, mode="overlap"):
    """One row: the step's program figures and counters (the model's, or sim's)."""
    g, prog, row = _program_row(name, model, rem, B, T, tile, mode)
    if sim:
        from tb import hw
        (r,) = hw.run_programs(sim, [(prog, g.image())], cfg=g.layout.chip)
        _judged(row, sim, r)
    else:
        _counted(row, timing.schedule(prog, g.layout.chip).counters)
    return row


def _program_row(name, model, rem, B, T, tile, mode):
    """(Generation, program, row of the program's figures and the model's cycles)."""
    g, prog = step(model, rem, B, T, mode, tile=tile)
    lay = g.layout
    kv = sum(i.len for i in prog if (i.op == "LD" and (i.src + 65536 * i.fields().get("xhi", 0))
                                     >= lay.kv0) or (i.op == "ST" and
                                     (i.dst + 65536 * i.fields().get("xhi", 0)) >= lay.kv0))
    words, macs = isa.program_words(prog), isa.program_macs(prog)
    c = timing.schedule(prog, lay.chip).counters
    row = dict(remedy=name, B=B, T=T, mode=mode, tile=lay.tile, instructions=len(prog),
               words=words, macs=macs, kv_words=kv, kv_per_token=kv / B,
               weight_words=words - kv, intensity=macs / words, source="model",
               model_cycles=c.cycles)
    return g, prog, row


def _counted(row, c):
    row.update(cycles=c.cycles, dma=c.dma, mm=c.mm, vec=c.vec, cycles_per_token=c.cycles / row["B"],
               tok_per_kcycle=1000 * row["B"] / c.cycles)


def _judged(row, sim, r):
    """row takes sim's counters and the judgement of result r (tb.judge: counters, trace,
    memory against the reference chip; the cycles against the model's too)."""
    row.update(source=sim, ok=bool(r.ok) and r.counters.cycles == row["model_cycles"],
               mismatch=r.mismatch)
    _counted(row, r.counters)


def jobs(items, job_cycles):
    """Pack items (program, image, cfg, predicted cycles, row), in order, into simulator
    jobs: consecutive items of one chip configuration whose predicted cycles sum to at most
    job_cycles (an item alone above it gets a job of its own); one process start per job."""
    out = []
    for it in items:
        if out and out[-1][-1][2] == it[2] and sum(x[3] for x in out[-1]) + it[3] <= job_cycles:
            out[-1].append(it)
        else:
            out.append([it])
    return out


def run_batched(sim, items, job_cycles, log=print, on_row=None):
    """Run items (see jobs()) on sim, job by job; each row judged and given sim's counters,
    the job's wall seconds and its index, then logged and given to on_row (so a run cut
    short keeps the jobs it finished). A step is logged as its outcome lands."""
    from tb import hw
    for j, job in enumerate(jobs(items, job_cycles)):
        t0 = time.time()

        def landed(k, raw, job=job, t0=t0, j=j):
            r = job[k][4]
            log(f"  [{sim} job {j}] {r['remedy']} T {r['T']} B {r['B']} {r['mode']}: landed at "
                f"{time.time() - t0:.0f} s")
        res = hw.run_programs(sim, [(it[0], it[1]) for it in job], cfg=job[0][2], on_outcome=landed)
        wall = time.time() - t0
        for it, r in zip(job, res):
            _judged(it[4], sim, r)
            it[4].update(job=j, job_wall=wall, job_cycles=sum(x[3] for x in job))
            r = it[4]
            log(f"  [{sim} job {j}] {r['remedy']} T {r['T']} B {r['B']} {r['mode']}: {r['cycles']} "
                f"cycles (model {r['model_cycles']}), {'equal to' if r['ok'] else 'MISMATCH against'} "
                f"the reference")
            if on_row is not None:
                on_row(r)
        log(f"  [{sim} job {j}] {len(job)} steps, {sum(x[3] for x in job)} cycles predicted, "
            f"{sum(bool(it[4]['ok']) for it in job)} equal to the reference, {wall:.0f} s wall")


def cache_equals_weights(rows, name, T):
    """(measured, formula) batch at which a step's cache words equal its weight words: the
    step's non-cache words over the cache words per row at B = 1; the chapter's formula:
    the model's weights over its cache per request (2 x layers x kv heads x 16 x the rows
    attended, at kv_bits / 8 words each)."""
    r = next(r for r in rows if r["remedy"] == name and r["T"] == T and r["B"] == 1)
    kvh, bits, rem = REMEDIES[name]
    cfg = M.Config(vocab=len(data.TEXT_CHARS), kv_heads=kvh)
    weights = sum(a * b for n, a, b in C.matrices(C.describe_shape(cfg, bits, rem)))
    attended = min(T, rem.window or T)
    per_request = 2 * cfg.layers * cfg.dk * attended * bits / 8
    return r["weight_words"] / r["kv_per_token"], weights / per_request


def planner(rows, T=256):
    """Example A's plan with the 7B model's KV per token scaled by each remedy's measured
    cache words per row of context at T (unmodified = 1): derived, not measured."""
    base = next(r for r in rows if r["remedy"] == "unmodified" and r["T"] == T and r["B"] == 1)
    out = {}
    for name in REMEDIES:
        r = next(r for r in rows if r["remedy"] == name and r["T"] == T and r["B"] == 1)
        f = r["kv_per_token"] / base["kv_per_token"]
        kv = example_a.KV_PER_TOKEN * f
        out[name] = dict(factor=f, kv_bytes_per_token=kv, plan=example_a.plan(kv_tok=kv))
    return out


def quality(log=print):
    """Each remedy's quality from the integer reference: addition problems right of 10,000
    (greedy), text held-out loss (teacher-forced windows of 64), against the unmodified
    int8 model; and the long-context text model's loss on windows of 256."""
    out = {}
    probs = data.add_all()[:, :data.ADD_PROMPT]
    want = [i // 100 + i % 100 for i in range(10000)]
    X, Y = data.text_windows(data.text_split()[1], 64)
    for name, (kvh, bits, rem) in REMEDIES.items():
        t0 = time.time()
        add = load_model("add", kv_heads=kvh, kv_bits=bits)
        ids = probs.astype(np.int64)
        for _ in range(data.NDIGIT + 1):
            lg, _ = REF.forward(add, ids, rem.window, rem.sinks)
            ids = np.concatenate([ids, np.argmax(lg[:, -1], axis=-1)[:, None]], axis=1)
        right = sum(data.add_answer(o) == w for o, w in zip(ids[:, data.ADD_PROMPT:], want))
        txt = load_model("text", kv_heads=kvh, kv_bits=bits)
        nll = _loss(txt, X, Y, rem)
        out[name] = dict(add_right=int(right), add_of=10000, text_loss=nll)
        log(f"  {name:<22} addition {right:5d}/10000  text held-out loss {nll:.4f}  "
            f"({time.time() - t0:.0f} s)")
    X2, Y2 = data.text_windows(data.text_split()[1], 256)
    base = load_model("text")
    long = load_model("text", ctx=256)
    out["long"] = {"text (64 positions) at 256": _loss(base, X2, Y2, C.Remedies()),
                   "text_ctx256 at 256": _loss(long, X2, Y2, C.Remedies()),
                   "text_ctx256 at 64": _loss(long, X, Y, C.Remedies())}
    p, cfg = M.load(train.WEIGHTS + "/text_ctx256.npz")
    out["long"]["text_ctx256 float at 256"] = M.cross_entropy(
        np.concatenate([M.forward(p, cfg, X2[k:k + 16]) for k in range(0, len(X2), 16)]),
        Y2, np.ones(Y2.shape, bool))
    for k, v in out["long"].items():
        log(f"  {k:<28} held-out loss {v:.4f}")
    return out


def _loss(model, X, Y, rem, chunk=32):
    lg = np.concatenate([REF.forward(model, X[k:k + chunk], rem.window, rem.sinks)[0]
                         for k in range(0, len(X), chunk)])
    return M.cross_entropy(lg * model.logit_scale, Y, np.ones(Y.shape, bool))


def figure(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, T in zip(axes, CTX):
        for k, name in enumerate(REMEDIES):
            pts = [(r["B"], r["tok_per_kcycle"]) for r in rows if r["remedy"] == name and r["T"] == T]
            if not pts:
                continue
            x, y = zip(*pts)
            base = name == "unmodified"
            ax.plot(x, y, linestyle="--" if base else "-", marker="o",
                    color="k" if base else f"C{k}", label=name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("batch B (sequences per step)")
        ax.set_title(f"context {T}" + (" (tiled attention but the window's)" if T > 64 else ""))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("generated tokens per 1,000 cycles")
    axes[0].legend(fontsize=8)
    src = sorted({r["source"] for r in rows})
    modes = " and ".join(sorted({r.get("mode", "overlap") for r in rows}))
    fig.suptitle(f"GA-2, the text model's decode step with the chapter's remedies ({modes} mode; "
                 + " and ".join({"model": "cycle-exact model", "verilator": "Verilator",
                                 "icarus": "Icarus"}[x] for x in src) + " counters)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = cli.Parser(prog="tools.lm.remedies_sweep", description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--ctx", type=cli.integer(2, C.SM_MAX), nargs="+", default=list(CTX))
    ap.add_argument("--batch", type=cli.integer(1, 16), nargs="+", default=list(BATCH))
    ap.add_argument("--sim-max-cycles", type=cli.integer(1), default=200000,
                    help="steps the cycle-exact model puts above this run on the model only")
    ap.add_argument("--mode", default="overlap", choices=("overlap", "inorder"),
                    help="the chip's timing mode of the steps (default overlap)")
    ap.add_argument("--job-cycles", type=cli.integer(1), default=1,
                    help="with --sim: consecutive steps run in one simulator job up to this "
                         "many predicted cycles (default 1: a job per step); each judged step "
                         "is also appended to OUT.steps.jsonl as its job ends")
    ap.add_argument("--no-quality", action="store_true", help="skip the quality table")
    ap.add_argument("--out", default=str(OUT / "lm_remedies"), type=cli.out_file(),
                    help="the results' path without its suffix (.json, .png)")
    ap.add_argument("--remedy", nargs="+", choices=sorted(REMEDIES), default=None,
                    help="only these (default: all; the planner needs unmodified)")
    a = ap.parse_args(argv)
    if a.remedy:
        for k in [k for k in REMEDIES if k not in a.remedy]:
            del REMEDIES[k]
    sim = None if a.sim == "model" else a.sim
    models = {name: load_model("text", kv_heads=kvh, kv_bits=bits)
              for name, (kvh, bits, _) in REMEDIES.items()}
    rows, items, t0 = [], [], time.time()
    try:
        for name, (_, _, rem) in REMEDIES.items():
            for T in a.ctx:
                for B in a.batch:
                    g, prog, r = _program_row(name, models[name], rem, B, T, None, a.mode)
                    if sim and r["model_cycles"] <= a.sim_max_cycles:
                        items.append((prog, g.image(), g.layout.chip, r["model_cycles"], r))
                    else:
                        _counted(r, timing.schedule(prog, g.layout.chip).counters)
                    rows.append(r)
        if items:
            steps = Path(a.out).with_suffix(".steps.jsonl")
            steps.parent.mkdir(parents=True, exist_ok=True)
            steps.write_text("")

            def keep(r):
                with steps.open("a") as f:
                    f.write(json.dumps(r, default=float) + "\n")
            run_batched(sim, items, a.job_cycles, on_row=keep)
    except ToolFault as e:
        print(f"FAULT of the simulator: {e}")
        return 4
    for r in rows:
        print(f"{r['remedy']:<22} T {r['T']:>4} B {r['B']:>2}  {r['cycles']:>8} cycles ({r['source']})"
              f"  KV/token {r['kv_per_token']:>7.0f}  words {r['words']:>7}"
              f"  MAC/word {r['intensity']:5.2f}  cycles/token {r['cycles_per_token']:>8.0f}"
              f"  tokens/kcycle {r['tok_per_kcycle']:.3f}", flush=True)
    out = dict(rows=rows)
    print("\nthe batch at which a step's cache words equal its weight words (measured / "
          "the chapter's formula)")
    out["crossover"] = {}
    for name in REMEDIES if 1 in a.batch else ():     # measured from the B = 1 step
        for T in a.ctx:
            meas, form = cache_equals_weights(rows, name, T)
            out["crossover"][f"{name} T{T}"] = dict(measured=meas, formula=form)
            print(f"  {name:<22} T {T:>4}: {meas:6.2f} / {form:6.2f}")
    if 256 in a.ctx and 1 in a.batch and "unmodified" in REMEDIES:
        out["planner"] = planner(rows)
        print("\nexample A's planner, the 7B model's KV per token scaled by the measured factor "
              "(derived): max batch / tokens per s at the max batch")
        for name, p in out["planner"].items():
            cells = "  ".join(f"{r['chip']}@{r['context']}: {r['max_batch']}/"
                              f"{(r['best'] or 0):.0f}" for r in p["plan"])
            print(f"  {name:<22} x{p['factor']:.3f}  {cells}")
    out["tiles"] = []
    base = models.get("unmodified")
    if base is not None:
        print("\ntiled against untiled where both fit (T = 64, cycle-exact model)")
    for B in a.batch if base is not None else ():
        for tile in (0, 32, 16):
            r = measure("unmodified", base, C.Remedies(), B, 64, tile=tile or None)
            out["tiles"].append(dict(B=B, tile=r["tile"], cycles=r["model_cycles"]))
        g = generation.Generation(base, [[0] * 16] * B, 1, chip=C.LM_CHIP_OVERLAP)
        c0 = timing.schedule(C.step_program(base, g.layout, g.steps[-1]),
                             C.LM_CHIP_OVERLAP).counters.cycles
        c1 = measure("unmodified", base, C.Remedies(), B, 16)["model_cycles"]
        out["tiles"].append(dict(B=B, T=16, whole=c0, tiled=c1))
        print(f"  B {B:>2}: " + "  ".join(f"tile {x['tile']}: {x['cycles']}" for x in out["tiles"][-4:-1])
              + f"   (T 16: the whole plan's step {c0}, the tiled plan's {c1})")
    if not a.no_quality:
        print("\nquality (the integer reference of each remedy)")
        out["quality"] = quality()
    bad = [r for r in rows if r.get("ok") is False]
    base = Path(a.out)
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".json").write_text(json.dumps(out, indent=1, default=float))
    figure(rows, base.with_suffix(".png"))
    print(f"wrote {base.with_suffix('.json')}, {base.with_suffix('.png')} ({time.time() - t0:.0f} s)")
    if sim:
        n = sum(1 for r in rows if r["source"] == sim)
        print(f"{'FAIL' if bad else 'PASS'}: {n - len(bad)}/{n} steps on {sim} equal to the "
              "reference (counters, trace, memory)")
    return 1 if bad else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
