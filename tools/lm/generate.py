"""Generating with the model on the chip: the runner behind `ga2 generate` and `make lm`.

run(gen, sim) runs a Generation's step programs (tools/lm/generation.py, compiled by
tools/lm/compiler) one after another on
one chip -- the reference Machine ("model") or a simulated RTL ("icarus", "verilator",
where every step is also judged against the reference Machine by tb.hw, cycle for cycle)
-- and returns an Outcome: the generated ids, the per-step counters, and whether the ids
and the KV cache equal the integer reference's (tools/lm/int8.py: greedy decoding of the
whole model written from the spec, not from the compiler).

A Generation with remedies (compiler.Remedies: grouped-query attention, a 4-bit cache,
a sliding window with sinks, tiled long contexts) runs the same way; its ids and the rows
its cache holds at the end are held to tools/lm/remedies_ref.py instead (`reference`,
`remedied_kv_ok`).

The host writes the external memory once (weights, prompts), loads and starts each
step's program, and reads the token ids at the end; on a simulator the whole generation
is one job (tb.sim.run's KEEP_EXT: each step starts from the memory the last one left).
"""
from collections import namedtuple
from pathlib import Path

import numpy as np

from model.machine import GA2Error, Machine
from tools.lm import data, generation
from tools.lm.compiler import describe, matrices, weights
from tools.lm.int8 import Int8Model, greedy

WEIGHTS = Path(__file__).resolve().parent / "weights"
TASKS = ("text", "add")

Outcome = namedtuple("Outcome", "tokens counters steps_ok ref_tokens kv_ok error")
Outcome.__doc__ = """tokens: the generated ids per sequence (read from the chip's final
external memory); counters: isa.Counters per step (the chip's, or the reference's on
"model"); steps_ok: every step equal to the reference Machine (True on "model"); ref_tokens:
the integer reference's ids; kv_ok: every cached K and V row equal to the reference's;
error: "" or the chip's error (a step that faulted)."""


def variant(task, kv_heads=0, kv_bits=8, ctx=0):
    """The name of a task's committed model with the remedies' options (tools/lm/train.py's
    VARIANTS; docs/lm.md "Remedies"): kv_heads 1 the multi-query model (<task>_kv1), ctx
    past 64 the text model of 256 learned positions (text_ctx256), kv_bits 4 its export
    with a 4-bit KV cache (<name>_kv4). ValueError for a combination not trained."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r} (tasks: {', '.join(TASKS)})")
    if kv_heads not in (0, 1, 2):
        raise ValueError(f"--kv-heads {kv_heads}: the models have 2 query heads and 2 or 1 KV heads")
    name = task + ("_kv1" if kv_heads == 1 else "")
    if ctx > 64 and task == "text":
        if kv_heads == 1:
            raise ValueError("no multi-query model of 256 positions is trained: --kv-heads 1 "
                             "runs at --ctx 64 or less (or with --weights)")
        name += "_ctx256"
    return name + ("_kv4" if kv_bits == 4 else "")


def load_model(task=None, path=None, kv_heads=0, kv_bits=8, ctx=0):
    """The int8 model of a task (the committed export; with remedies' options, the variant
    of variant()), or of a weights file; ValueError naming the file when it is not an
    export of a model the chip can run."""
    if path is None:
        path = WEIGHTS / f"{variant(task, kv_heads, kv_bits, ctx)}_int8.npz"
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such weights file")
    try:
        model = Int8Model.load(p)
    except Exception as e:  # noqa: BLE001 -- a corrupt or foreign file, whatever numpy raises: say which
        raise ValueError(f"{path}: not a GA-2 int8 model export ({type(e).__name__}: {e})") from None
    cfg = model.cfg
    vocab = {"text": len(data.TEXT_CHARS), "add": data.ADD_VOCAB}.get(task)
    if vocab is not None and cfg.vocab != vocab:
        raise ValueError(f"{path}: a model of {cfg.vocab} tokens, the {task} task's has {vocab} "
                         "(another task's weights?)")
    for name, r, c in matrices(describe(model)):
        w = weights(model, name) if name.startswith("wout.") or name in model.w else None
        if w is None or w.shape != (r, c):
            raise ValueError(f"{path}: matrix {name.split('.')[0]} is "
                             f"{'missing' if w is None else w.shape}, the model needs {(r, c)}")
        if w.min() < -128 or w.max() > 127:
            raise ValueError(f"{path}: matrix {name.split('.')[0]} has values outside int8")
    needed = {"weights", "nf"} | {f"h{i}.{n}" for i in range(cfg.layers)
                                  for n in ("n1", "n2", "q", "k", "v", "scores", "o", "attn",
                                            "u", "mlp")} | {f"res{j}" for j in range(2 * cfg.layers)}
    missing = sorted(needed - set(model.rq))
    if missing:
        raise ValueError(f"{path}: requantization(s) {', '.join(missing)} missing")
    if kv_bits != model.kv_bits:
        raise ValueError(f"{path}: a model with a {model.kv_bits}-bit KV cache, not {kv_bits}-bit")
    return model


def encode_prompt(task, text):
    """A prompt's token ids: characters for "text"; for "add", "A+B" (two numbers of at
    most two digits) as the model reads it (the digits of A and of B)."""
    if task == "add":
        parts = text.replace(" ", "").split("+")
        if len(parts) != 2 or not all(p.isdigit() and len(p) <= data.NDIGIT for p in parts):
            raise ValueError(f"addition prompt {text!r}: expected A+B with A, B in 0..99")
        return [int(t) for t in data.add_problem(int(parts[0]), int(parts[1]))[:2 * data.NDIGIT]]
    if not text:
        raise ValueError("an empty prompt")
    return [int(t) for t in data.encode(text)]


def show(task, prompt_ids, ids):
    """The text of a prompt and what the model wrote."""
    if task == "add":
        a = int("".join(map(str, prompt_ids[:data.NDIGIT])))
        b = int("".join(map(str, prompt_ids[data.NDIGIT:])))
        digits = "".join(str(t) if t < 10 else "?" for t in ids)[::-1]
        return f"{a}+{b}={int(digits) if digits.isdigit() else digits}"
    return data.decode(prompt_ids) + data.decode(ids)


def reference(model, gen):
    """The integer reference's ids and KV cache of every sequence of gen (a remedied one's
    from tools/lm/remedies_ref.py: its cache per layer (k, v) of the positions fed)."""
    if gen.remedies is not None:
        from tools.lm import remedies_ref
        w, s = gen.remedies.window, gen.remedies.sinks
        return [remedies_ref.decode(model, p, n, w, s) for p, n in zip(gen.prompts, gen.new)]
    out = []
    for p, n in zip(gen.prompts, gen.new):
        ids = greedy(model.logits, np.array([p]), n, model.cfg.ctx)[0]
        out.append((ids[len(p):].tolist(), model.cache(ids[None, :-1])))
    return out


def _kv_ok(model, gen, ext, ref):
    if gen.remedies is not None:
        return remedied_kv_ok(model, gen, ext, ref)
    return all(np.array_equal(gen.cache(ext, i, kind, b), ref[b][1][i][kind][0])
               for b in range(len(gen.prompts)) for i in range(model.cfg.layers) for kind in (0, 1))


def remedied_kv_ok(model, gen, ext, ref):
    """Every row a remedied cache holds at the end (its positions' values, and for a
    4-bit cache its packed words) equal to the reference's rows at those positions."""
    from tools.lm import remedies_ref
    for b in range(len(gen.prompts)):
        for i in range(model.cfg.layers):
            for kind in (0, 1):
                pos, words, vals = generation.cache_rows(gen, ext, i, kind, b)
                want = ref[b][1][i][kind][pos]
                if not np.array_equal(vals, want):
                    return False
                if gen.remedies.kv_bits == 4 and not np.array_equal(words,
                                                                    remedies_ref.pack4(want)):
                    return False
    return True


def garbage_sp(seed, k, cfg):
    """Step k's scratchpad garbage of a run seeded seed: random 32-bit words."""
    return np.random.default_rng([seed, k]).integers(-2 ** 31, 2 ** 31, size=cfg.sp_words)


def machine_steps(progs, ext, cfg, sp=None, on_step=None):
    """Step programs one after another on one reference Machine of cfg from the external
    memory ext (sp(k): step k's scratchpad to start from, or None to keep it): (the final
    external memory, the steps' counters, "" or the first error's words). on_step(k, ext)
    after each step."""
    m, counters = Machine(cfg), []
    for k, prog in enumerate(progs):
        junk = sp(k) if sp is not None else None
        if junk is not None:
            m.sp[:] = junk
        try:
            r = m.run(prog, ext)
        except GA2Error as e:
            return ext, counters, str(e)
        ext = r.ext
        counters.append(r.counters)
        if on_step:
            on_step(k, ext)
    return ext, counters, ""


def hw_item(prog, ext, k, sp=None):
    """Step k's tb.hw.Item: the first step writes ext, the others keep the memory."""
    from tb import hw
    return hw.Item(prog, ext if k == 0 else hw.KEEP_EXT, sp)


def chip_steps(sim, items, cfg, **kw):
    """The items (tb.hw.Items) as one job on sim, each judged against the Machine: (the last
    outcome's external memory, the counters, every step equal to the Machine, "" or the
    first error or mismatch in words). kw: tb.hw.run_programs's (on_outcome, window)."""
    from tb import hw
    if sim not in hw.available_sims():
        raise ValueError(f"simulator {sim} is not installed (make setup installs it)")
    ext, counters, ok, error = None, [], True, ""
    for k, r in enumerate(hw.run_programs(sim, items, cfg=cfg, **kw)):
        counters.append(r.counters)
        ok = ok and r.ok
        if r.error and not error:
            error = f"step {k}: chip error {r.error_code} at pc {r.error_pc}"
        if not r.ok and not error:
            error = f"step {k}: {r.mismatch}"
        ext = r.ext
    return ext, counters, ok, error


def run(gen, sim="model", on_step=None, garbage=None):
    """Run gen on sim ("model", "icarus" or "verilator"); an Outcome. on_step(k, ext) is
    called after each step with the external memory the chip left (on a simulator, as
    each step's outcome lands while the job still runs). garbage=SEED fills the scratchpad with random words
    before every step (the chip's and the reference's alike: tb.hw's Item.sp)."""
    cfg = gen.layout.chip
    progs = gen.programs()
    ref = reference(gen.net, gen)
    ext, counters, ok, error = gen.image(), [], True, ""
    junk = (lambda k: None) if garbage is None else (lambda k: garbage_sp(garbage, k, cfg))
    if sim == "model":
        ext, counters, error = machine_steps(progs, ext, cfg, junk, on_step)
    else:
        items = [hw_item(p, ext, k, junk(k)) for k, p in enumerate(progs)]
        landed = None if on_step is None else (lambda k, raw: on_step(k, raw["ext"]))
        ext, counters, ok, error = chip_steps(sim, items, cfg, on_outcome=landed)
    tokens = gen.tokens(ext)
    return Outcome(tokens, counters, ok and not error, [r[0] for r in ref],
                   not error and _kv_ok(gen.net, gen, ext, ref), error)
