"""The language-model server's check on the reference chip: `python -m tools.serve.lm_check
[--quick]` prints a PROBLEM line per finding and exits 1 if there is one (the mutation
harness, tools/serve/mutants.py --lm, runs it against broken schedulers).

Scenarios (a dense Poisson workload of 8 requests, seed 2; a pool too small for it):
every policy with chunked prefill and preempt / reserve with whole prefill, each
request's tokens held to it served alone (lm_engine.reference_tokens: greedy decoding of
the integer reference), admissions in arrival order, every step's program inside its
isolation set, the pool's invariant before every step, cycles equal to the timing
model; the preempting run must preempt (the pool is too small) and the reserving one
must not; speculative decoding of 2 requests at k = 2 held to plain greedy decoding.
The remedies (docs/serving_lm.md "Remedies in the server"): long prompts served with a
window of WINDOW and SINKS sinks (preempt with chunked prefill, reserve with whole) and
by the multi-query 4-bit model with the window, each request held to
tools/lm/remedies_ref.py's greedy decoding alone; a windowed run must return blocks to
the pool while requests run, and hold no request to more than its window's blocks.
--quick: the preempting, the speculative and one windowed scenario only.
"""
import sys

from tb import cli
from tools.lm import compiler as C
from tools.lm import generate
from tools.serve import lm_engine as E
from tools.serve import lm_memory as lmm
from tools.serve import requests as rq
from tools.serve import spec as S

BLOCKS = 9           # too small for 4 slots of this workload: the preempting run preempts
WINDOW, SINKS = 8, 2


def returned(run):
    """Blocks returned to the pool while their request ran: the None entries of the
    tables the steps saw (a request's table loses a block to its window)."""
    return sum(blk is None for st in run.steps for t in st.tables.values() for blk in t)


def remedied(kv_heads, kv_bits, pol, pf, blocks):
    """A windowed scenario's findings: long prompts (16..22 characters, past the window),
    every request held to remedies_ref alone."""
    model = generate.load_model("text", kv_heads=kv_heads, kv_bits=kv_bits)
    rem = C.Remedies(kv_bits=kv_bits, window=WINDOW, sinks=SINKS)
    reqs = rq.poisson(4, 60, seed=1, prompt_len=(16, 22), max_new=(6, 10))
    run = E.serve(model, reqs, "text", pol, pf, blocks, remedies=rem)
    what = f"kv_heads {kv_heads} kv_bits {kv_bits} window {WINDOW}/{SINKS} {pol}/{pf}"
    out = [f"{what}: {p}" for p in E.check_run(run, model, "text")]
    if not returned(run):
        out.append(f"{what}: no block returned to the pool as requests left the window")
    return out


def problems(quick=False):
    """Every scenario's findings, a list per scenario as it ends (printed as they come, so a
    later scenario that raises does not hide an earlier one's findings)."""
    model = generate.load_model("text")
    reqs = rq.poisson(8, 60, seed=2, max_new=(6, 14))
    alone = [E.reference_tokens(model, rq.ids("text", q), q.max_new, rq.stop_token("text"), lmm.CTX)
             for q in reqs]
    cases = [("preempt", "chunked"), ("preempt", "whole")]
    if not quick:
        cases += [("reserve", "chunked"), ("reserve", "whole"), ("static", "chunked")]
    yield remedied(1, 4, "preempt", "chunked", 8)
    if not quick:
        yield remedied(0, 8, "preempt", "chunked", 8)
        yield remedied(0, 8, "reserve", "whole", 8)
    for pol, pf in cases:
        run = E.serve(model, reqs, "text", pol, pf, BLOCKS)
        out = [f"{pol}/{pf}: {p}" for p in E.check_run(run, model, "text", alone)]
        if pol == "preempt" and not sum(run.preemptions):
            out.append(f"{pol}/{pf}: no preemption with a pool of {BLOCKS} blocks")
        if pol != "preempt" and sum(run.preemptions):
            out.append(f"{pol}/{pf}: {sum(run.preemptions)} preemptions under reservation")
        yield out
    draft = S.load_draft()
    sreq = rq.poisson(2, 10, seed=3, prompt_len=(4, 8), max_new=(8, 8), ctx=S.SPEC_CTX)
    salone = [E.reference_tokens(model, rq.ids("text", q), q.max_new, (), S.SPEC_CTX) for q in sreq]
    run, proposed, accepted = S.spec_serve(model, draft, sreq, 2)
    out = [f"spec k=2: {p}" for p in E.check_run(run, model, "text", salone)]
    if not 0 <= accepted <= proposed:
        out.append(f"spec k=2: accepted {accepted} of {proposed} proposals")
    yield out


def main(argv=None):
    ap = cli.Parser(prog="tools.serve.lm_check", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the preempting and speculative scenarios only")
    a = ap.parse_args(argv)
    probs = []
    for found in problems(a.quick):
        for p in found:
            print("PROBLEM", p, flush=True)
        probs += found
    print(f"{'FAIL' if probs else 'PASS'}: {len(probs)} problem(s)")
    return 1 if probs else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
