"""The serving report of the language-model server (docs/serving_lm.md): what a serving
engineer reads, from a Run (lm_engine) and the cycles of its steps.

metrics(run, cycles): throughput (generated tokens per 1,000 cycles, requests per
million cycles, both over the span from the first arrival to the last finish), time to
first token (TTFT: arrival to the end of the step that wrote the first token) and time
per output token (TPOT: first token to last, over the tokens after the first) with
p50 / p90 / p99, end-to-end latency, slot and row utilization and pool occupancy
(cycle-weighted means over the steps), preemptions, recomputed rows. The cycles are the
chip's counters (or the reference chip's, on the model): the run's clock is re-timed
from them, the gaps with nothing to run kept, so the figures are the chip's own.
Milliseconds are derived at the measured clock of the run's timing mode (tools/flow/clock.py:
`make fpga`'s ECP5 build of that mode).
"""
import numpy as np

from tools.flow.clock import clock

PCTS = (50, 90, 99)


def timeline(run, cycles):
    """Each step's (start, end) with the run's idle gaps, re-timed from cycles."""
    out, end = [], 0
    prev_model_end = 0
    for st, c in zip(run.steps, cycles):
        gap = st.start - prev_model_end
        start = end + gap
        end = start + int(c)
        out.append((start, end))
        prev_model_end = st.start + st.cycles
    return out


def pct(v):
    v = np.asarray([x for x in v if x is not None], dtype=float)
    if not v.size:
        return {p: None for p in PCTS}
    return {p: float(np.percentile(v, p)) for p in PCTS}


def metrics(run, cycles=None):
    """The report's figures (a dict) of a Run from per-step cycles (default: the
    reference chip's counters)."""
    cycles = [st.cycles for st in run.steps] if cycles is None else list(cycles)
    tl = timeline(run, cycles)
    n = len(run.requests)
    toks = [len(t) for t in run.tokens]
    first = [tl[k][1] for k in run.first_step]
    fin = [tl[k][1] for k in run.finish_step]
    t0 = min(run.arrival)
    span = max(fin) - t0
    ttft = [f - a for f, a in zip(first, run.arrival)]
    tpot = [(e - f) / (k - 1) for f, e, k in zip(first, fin, toks) if k > 1]
    lat = [e - a for e, a in zip(fin, run.arrival)]
    w = np.asarray(cycles, dtype=float)
    W = w.sum()
    rows = run.mm.rows
    return {
        "policy": run.policy, "prefill": run.prefill, "requests": n, "tokens": sum(toks),
        "steps": len(run.steps), "busy_cycles": int(W), "span_cycles": int(span),
        "tokens_per_kcycle": 1000 * sum(toks) / span, "requests_per_mcycle": 1e6 * n / span,
        "ttft": pct(ttft), "tpot": pct(tpot), "latency": pct(lat),
        "ttft_mean": float(np.mean(ttft)), "tpot_mean": float(np.mean(tpot)) if tpot else None,
        "slot_util": float(np.dot(w, [st.running for st in run.steps]) / W / run.slots),
        "row_util": float(np.dot(w, [len(st.rows) for st in run.steps]) / W / rows),
        "pool_mean": float(np.dot(w, [st.blocks for st in run.steps]) / W / run.mm.pool.n_blocks),
        "pool_max": max(st.blocks for st in run.steps) / run.mm.pool.n_blocks,
        "preemptions": int(sum(run.preemptions)), "recomputed": int(sum(run.recomputed)),
        "stopped": sum(1 for t, q in zip(run.tokens, run.requests) if len(t) < q.max_new),
        "kinds": {k: sum(1 for st in run.steps if st.kind == k) for k in
                  sorted({st.kind for st in run.steps})},
    }


def name(m):
    return m["policy"] + ("+chunked" if m["prefill"] == "chunked" else "")


HEAD = ("| policy | steps | tokens / 1,000 cycles | requests / M cycles | TTFT p50 | TTFT p90 | "
        "TTFT p99 | TPOT p50 | TPOT p99 | slot util | pool mean / max | preemptions | recomputed rows |")


def row(m):
    def f(v):
        return "-" if v is None else f"{v:,.0f}"
    def rate(v, digits):                  # a real model's rates are 1e-5 where the toy's are 0.05
        return f"{v:.{digits}f}" if v >= 10 ** (1 - digits) else f"{v:.3g}"
    return (f"| {name(m)} | {m['steps']} | {rate(m['tokens_per_kcycle'], 3)} | "
            f"{rate(m['requests_per_mcycle'], 2)} | "
            f"{f(m['ttft'][50])} | {f(m['ttft'][90])} | {f(m['ttft'][99])} | {f(m['tpot'][50])} | "
            f"{f(m['tpot'][99])} | {100 * m['slot_util']:.0f}% | {100 * m['pool_mean']:.0f}% / "
            f"{100 * m['pool_max']:.0f}% | {m['preemptions']} | {m['recomputed']} |")


def table(ms, label, mode="overlap"):
    """The policy comparison table (markdown lines); label names where the cycles came from,
    mode the timing mode whose measured clock converts cycles to milliseconds."""
    c = clock(mode, "lm")
    out = [f"cycles: {label}; TTFT, TPOT in cycles (ms derived at {c.label}: cycles / {c.mhz * 1000:g})",
           "", HEAD, "|" + "---|" * (HEAD.count("|") - 1)]
    return out + [row(m) for m in ms]
