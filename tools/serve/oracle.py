"""Serving on GA-2: the data, the oracle and the reference run of a plan (docs/serving.md).

The model is chapter 9's weights with one set of scales; a request's prompt is its hidden
rows, seeded by the model seed and the request id (the same whatever company it keeps).
The oracle is independent of the paged builder: each request alone, through chapter 9's
plain-Python integer reference (model/batch.py int_reference / int_kv on a one-request
batch holding only its rows), no instructions, no addresses but the output rows.
reference_run builds every step program of a plan (tools/serve/engine.py), runs them on the
reference Machine with the external memory carried from step to step and the scratchpad
garbage at every step's start, and checks every step against the oracle (step_issues,
final_issues, pool_issues); tools/serve/run.py runs the same programs on the chip.
"""
import random

import numpy as np

from model import batch, config, timing
from model.machine import Machine
from model.quant import quantize
from tools.serve import paged

CFG = config.CH09


def model_data(seed=1):
    """The model: chapter 9's weights and ONE set of scales (batch.make_batch(4, 16, seed)),
    its integer weights Wi and requantization parameters P."""
    ex = batch.make_batch(batch.BMAX, batch.LMAX, seed)
    return {"seed": seed, "Wi": ex["Wi"], "scales": ex["scales"], "P": batch.rq_params(ex)}


def request_rows(model, req):
    """A request's prompt: req.tokens int8 hidden rows, N(0, 1) from random.Random of the
    model seed and the request id (the same whatever company it keeps), quantized with the
    model's x scale."""
    rng = random.Random(f"serve {model['seed']} {req.id}")
    sx = model["scales"]["x"]
    return [[quantize(rng.gauss(0, 1), sx) for _ in range(paged.DM)] for _ in range(req.tokens)]


class Oracle:
    """Each request decoded ALONE by chapter 9's plain-Python integer reference."""

    def __init__(self, model, requests):
        self.model = model
        self.ex = [{"nseq": 1, "L": q.tokens, "Xi": [request_rows(model, q)], "Wi": model["Wi"],
                    "scales": model["scales"]} for q in requests]
        self._out = {}

    def output(self, r, t):
        """Request r's attention output at its t-th token (16 ints)."""
        if (r, t) not in self._out:
            self._out[(r, t)] = batch.int_reference(self.ex[r], 0, t)
        return self._out[(r, t)]

    def kv(self, r, t):
        """Request r's K and V rows 0..t-1."""
        return batch.int_kv(self.ex[r], 0, t)


def base_image(lay, model, oracle, seed=0):
    """The external memory of layout lay before the first program: the weights and the
    hidden rows of every request of the oracle; the rest (the pool, the output rows) holds
    seeded garbage (an engine that reads a K/V row or an output it never wrote gets a
    wrong answer)."""
    rng = np.random.default_rng(seed)
    img = rng.integers(-128, 128, size=lay.ext_words, dtype=np.int64)
    w = np.concatenate([np.array(model["Wi"][n]).ravel() for n in ("wq", "wk", "wv")])
    img[paged.EXT_W:paged.EXT_W + paged.W_WORDS] = w
    for r in range(len(oracle.ex)):
        rows = np.array(oracle.ex[r]["Xi"][0]).ravel()
        a = paged.in_addr(lay, r)
        img[a:a + rows.size] = rows
    return img


def ext_image(plan_, model, oracle, seed=0):
    """The external memory before a plan's first step (base_image of its layout)."""
    return base_image(plan_.layout, model, oracle, seed)


def build_programs(plan_, model, cfg=CFG):
    """Every step's program, in order."""
    return [paged.step_program(st.entries, plan_.layout, model["P"], cfg) for st in plan_.steps]


def garbage_sps(plan_, tag, cfg=CFG):
    """Each step's garbage scratchpad image (batch.garbage_sp, seeded by tag and step)."""
    return [batch.garbage_sp(batch.garbage_seed(f"serve {tag} step {i}"), cfg) for i in range(len(plan_.steps))]


def step_issues(ext, plan_, i, oracle, where):
    """Findings after step i in an external memory image: the step's outputs against each
    request alone, and every active request's K/V rows in its blocks against the oracle."""
    st = plan_.steps[i]
    lay = plan_.layout
    probs = []
    for r, t, table in st.entries:
        rid = plan_.requests[r].id
        a = paged.out_addr(lay, r) + paged.D * (t - 1)
        got = [int(v) for v in ext[a:a + paged.D]]
        if got != oracle.output(r, t):
            probs.append(f"{where} step {i}: request {rid!r} token {t}: output {got} != alone {oracle.output(r, t)}")
        K, V = oracle.kv(r, t)
        for row in range(t):
            blk = table[row // lay.block_tokens]
            off = paged.D * (row % lay.block_tokens)
            k = [int(v) for v in ext[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + paged.D]]
            v = [int(x) for x in ext[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + paged.D]]
            if k != K[row] or v != V[row]:
                probs.append(f"{where} step {i}: request {rid!r} K/V row {row} in block {blk} corrupted")
                break
    return probs


def final_issues(ext, plan_, oracle, where):
    """Every token of every request in the final external memory against it alone."""
    probs = []
    lay = plan_.layout
    for r, q in enumerate(plan_.requests):
        for t in range(1, q.tokens + 1):
            a = paged.out_addr(lay, r) + paged.D * (t - 1)
            got = [int(v) for v in ext[a:a + paged.D]]
            if got != oracle.output(r, t):
                probs.append(f"{where}: request {q.id!r} token {t}: final output != alone")
                break
    return probs


def pool_issues(plan_, where):
    """Block-table invariants of each step: tables disjoint, the right length."""
    probs = []
    for i, st in enumerate(plan_.steps):
        seen = {}
        for r, t, table in st.entries:
            if len(table) != paged.blocks_needed(t, plan_.layout.block_tokens):
                probs.append(f"{where} step {i}: request {plan_.requests[r].id!r} has {len(table)} blocks at token {t}")
            for b in table:
                if b in seen:
                    probs.append(f"{where} step {i}: block {b} in the tables of "
                                 f"{plan_.requests[seen[b]].id!r} and {plan_.requests[r].id!r}")
                seen[b] = r
    return probs


def reference_run(plan_, model, cfg=CFG, tag="run", oracle=None, check=True):
    """Run every step on ONE reference Machine (external memory carried, scratchpad garbage
    at each step), checking as it goes. Returns a dict: programs, image, sps, step_cycles
    (from the counters), predicted (timing.schedule), bus (the model-side monitor's
    ranges per step), problems, final ext."""
    oracle = oracle or Oracle(model, plan_.requests)
    progs = build_programs(plan_, model, cfg)
    image = ext_image(plan_, model, oracle)
    paged.check_config(cfg, plan_.layout)
    sps = garbage_sps(plan_, tag, cfg)
    m = Machine(cfg)
    ext = image.copy()
    probs = pool_issues(plan_, tag) if check else []
    cycles, bus = [], []
    for i, (prog, sp) in enumerate(zip(progs, sps)):
        m.sp[:] = sp
        res = m.run(prog, ext)
        ext = res.ext
        cycles.append(int(res.counters.cycles))
        acc = paged.accesses(prog)
        bus.append(acc)
        if check:
            probs += paged.isolation_issues(acc, plan_.steps[i].entries, plan_.layout, f"{tag} step {i}")
            probs += step_issues(ext, plan_, i, oracle, tag)
    if check:
        probs += final_issues(ext, plan_, oracle, tag)
    predicted = [timing.schedule(p, cfg).cycles for p in progs]
    return {"programs": progs, "image": image, "sps": sps, "step_cycles": cycles,
            "predicted": predicted, "bus": bus, "problems": probs, "ext": ext, "oracle": oracle}


# ---------------------------------------------------------------- figures of merit
def metrics(plan_, step_cycles):
    """Steps, total cycles, cycles per generated token, completion times (cycles from the
    start of the request's arrival tick to the end of the step of its last token), idle
    slot-steps, and the KV memory figures (words; paging against a fixed reservation of
    the maximum context per admitted request)."""
    lay = plan_.layout
    clock_at = {}                # tick -> cycles at the start of that tick
    clock, end_of = 0, {}
    for st, c in zip(plan_.steps, step_cycles):
        clock_at.setdefault(st.tick, clock)
        clock += c
        end_of[st.tick] = clock

    def start_of(tick):
        # an arrival tick with no step (idle) starts when the clock stood then
        before = [t for t in end_of if t < tick]
        return end_of[max(before)] if before else 0

    comp = {}
    for r, q in enumerate(plan_.requests):
        comp[q.id] = end_of[plan_.completion_tick[r]] - start_of(q.arrival)
    tokens = sum(q.tokens for q in plan_.requests)
    bw = 2 * paged.block_words(lay)                          # K page + V page
    alloc_words = [st.blocks_in_use * bw for st in plan_.steps]
    used_words = [st.rows_in_use * 2 * paged.D for st in plan_.steps]
    reserve = [len(st.entries) * paged.MAX_CTX * 2 * paged.D for st in plan_.steps]
    peak = int(np.argmax(alloc_words))
    frag = [1 - u / a for u, a in zip(used_words, alloc_words)]
    return {
        "steps": len(plan_.steps), "idle_ticks": plan_.idle_ticks, "block_waits": plan_.block_waits,
        "total_cycles": int(clock),
        "tokens": tokens, "cycles_per_token": clock / tokens,
        "completion": comp, "mean_completion": float(np.mean(list(comp.values()))),
        "worst_completion": int(max(comp.values())),
        "idle_slot_steps": sum(plan_.capacity - len(st.entries) for st in plan_.steps),
        "kv": {"block_tokens": lay.block_tokens, "pool_blocks": lay.n_blocks,
               "pool_words": lay.n_blocks * bw,
               "peak_blocks": max(st.blocks_in_use for st in plan_.steps),
               "peak_words_paged": max(alloc_words), "peak_words_used": max(used_words),
               "peak_words_reserved": max(reserve),
               "reserved_per_request": paged.MAX_CTX * 2 * paged.D,
               "slot_reservation_words": plan_.capacity * paged.MAX_CTX * 2 * paged.D,
               "fragmentation_at_peak": frag[peak],
               "mean_fragmentation": float(np.mean(frag))},
        "occupancy": [st.blocks_in_use for st in plan_.steps],
    }


# ---------------------------------------------------------------- workloads shipped
