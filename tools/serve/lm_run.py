"""Serving the language model on the chip (make serve-lm; docs/serving_lm.md, "Serving the
language model").

    python -m tools.serve.lm_run --sim verilator --requests 64 --rate 12   # every policy
    python -m tools.serve.lm_run --sim icarus --requests 8
    python -m tools.serve.lm_run --sim model --sweep          # latency against throughput
    python -m tools.serve.lm_run --sim model --spec           # speculative decoding table
    python -m tools.serve.lm_run --workload FILE.json --sim model
    python -m tools.serve.lm_run --kv-heads 1 --kv-bits 4 --window 16 --sinks 4   # remedies
    python -m tools.serve.lm_run --sim model --spec --kv-bits 4 --tile 8   # speculative, remedied

A workload (a file, or --requests N Poisson arrivals at --rate requests per million
cycles, seeded) is served under each policy (lm_engine: static, reserve, preempt, each
with whole and with chunked prefill). On --sim model every step runs on the reference
chip. On --sim icarus|verilator the server runs live on the circuit: ONE simulator
process (tb.hw.Live) waits for each step, the server builds the step from what it knows,
the chip runs it, the session judges it against the reference chip (memory, trace,
counters: a disagreement stops the run, exit 1) and the server then decides the next
step from the chip's own outcome (the tokens in its memory image end requests at their
stop token; the draft's proposals and the verifier's tokens decide acceptance; the clock,
hence admissions, arrivals and preemptions, follows the chip's counters), holding each
step's external-bus record (the wrapper's monitor) to the step's allowed set. Checked at
the end: every request's tokens equal to the request served alone (greedy decoding of
the integer reference), admissions in arrival order, every step's program inside its
isolation set, every step's cycles equal to the timing model. The figures are the chip's
counters; on --sim model, the reference chip's (= the timing model's), labelled so.
The chapter's remedies are `ga2 generate`'s options (--kv-heads 1: the multi-query model;
--kv-bits 4: its 4-bit-cache export; --window W --sinks S: attend the first S and the
last W - S positions, blocks returned to the pool as they leave the window; --tile T: the
attended rows in tiles of T): the model variant of generate.load_model, each request held
to tools/lm/remedies_ref.py's greedy decoding (docs/serving_lm.md "Remedies in the
server"); with --spec too (the draft stays the unmodified draft model: it only proposes).
Exit 1 on any problem; bad arguments exit 2; a fault of the simulator exits 4.
"""
import contextlib
import json
import os
import time

from tb import ROOT, cli, hw
from tools.lm import compiler as C
from tools.lm import generate
from tools.serve import lm_engine as E
from tools.serve import lm_memory as lmm
from tools.serve import report as R
from tools.serve import requests as rq
from tools.serve import spec as S

OUT = os.path.join(ROOT, "out")
ALL = [(p, f) for p in E.POLICIES for f in E.PREFILLS]
MAX_NEW = (4, 20)        # the generation limits of the Poisson workloads: uniform


def chip_cfg(mode):
    return C.LM_CHIP_OVERLAP if mode == "overlap" else C.LM_CHIP


def live(sim, mode, **kw):
    """The live simulator session every step of a --sim run goes through (tb.hw.Live)."""
    if sim not in hw.available_sims():
        raise ValueError(f"simulator {sim} is not installed (make setup installs it)")
    return hw.Live(sim, cfg=chip_cfg(mode), **kw)


def serve_all(model, reqs, n_blocks, mode, policies=ALL, slots=E.SLOTS, chip=None, log=None,
              remedies=None):
    """Every policy's Run and its problems: on the reference chip, or live on chip= (a
    tb.hw.Live session: the policies one after the other in its simulator process).
    remedies: a compiler.Remedies for the servers (model: its variant)."""
    servers = [E.Server(model, reqs, "text", pol, pf, n_blocks, slots=slots, chip_cfg=chip_cfg(mode),
                        chip=chip, remedies=remedies)
               for pol, pf in policies]          # ValueError first, before any work
    alone = [E.reference_tokens(model, rq.ids("text", q), q.max_new, rq.stop_token("text"), lmm.CTX,
                                remedies)
             for q in reqs]
    runs, probs = [], []
    for (pol, pf), srv in zip(policies, servers):
        t0 = time.time()
        run = srv.run()
        probs += [f"{pol}/{pf}: {p}" for p in E.check_run(run, model, "text", alone)]
        runs.append(run)
        if log:
            log(f"{pol}/{pf}: {len(run.steps)} steps, {sum(st.cycles for st in run.steps):,} cycles, "
                f"{time.time() - t0:.1f} s")
    return runs, probs


def workload(a):
    if a.workload:
        return rq.load(a.workload, "text", lmm.CTX)
    return rq.poisson(a.requests, a.rate, a.seed, max_new=MAX_NEW)


def add_remedies(ap):
    """ga2 generate's remedy options (tools/ga2.py), for the server."""
    ap.add_argument("--kv-heads", type=cli.integer(1, 2), default=0,
                    help="remedy: 1 = the multi-query model (one KV head for both query heads)")
    ap.add_argument("--kv-bits", type=cli.integer(4, 8), default=8,
                    help="remedy: 4 = the 4-bit KV cache (PACK4 / UNPACK4 on chip)")
    ap.add_argument("--window", type=cli.integer(2, lmm.CTX - 1), default=0,
                    help="remedy: attend the last W positions (with --sinks S, the first S and the last W - S)")
    ap.add_argument("--sinks", type=cli.integer(0, lmm.CTX - 2), default=0, help="attention sinks of --window")
    ap.add_argument("--tile", type=cli.integer(0, C.MAX_TILE), default=0,
                    help="remedy: the attended K and V rows in tiles of T rows (0: untiled)")


def remedied(a):
    """(the model variant, the Remedies or None) of parsed remedy options; ValueError on a
    bad value or combination."""
    if a.kv_bits not in (4, 8):
        raise ValueError(f"--kv-bits {a.kv_bits}: 4 or 8")
    if a.sinks and not a.window:
        raise ValueError(f"--sinks {a.sinks} needs --window")
    if a.window and a.sinks >= a.window:
        raise ValueError(f"--sinks {a.sinks} must be below --window {a.window}")
    model = generate.load_model("text", kv_heads=a.kv_heads, kv_bits=a.kv_bits)
    rem = None
    tile = getattr(a, "tile", 0)
    if a.kv_bits == 4 or a.window or tile or model.cfg.kv_heads:
        rem = C.Remedies(kv_bits=a.kv_bits, window=a.window, sinks=a.sinks, tile=tile)
    return model, rem


def describe(rem, model=None):
    """A compiler.Remedies (and the model's KV heads) in words."""
    out = ["1 KV head"] if model is not None and model.cfg.kv_heads == 1 else []
    if rem is None:
        return ", ".join(out) or "none"
    if rem.kv_bits == 4:
        out.append("4-bit KV")
    if rem.window:
        out.append(f"window {rem.window}, {rem.sinks} sinks")
    if rem.tile:
        out.append(f"tiles of {rem.tile}")
    return ", ".join(out) or "none"


def sweep(model, a, log=print):
    """Latency against throughput over request rates, every policy, on the reference chip
    (the timing model's cycles): {policy name: [metrics per rate]}; the figure."""
    out = {}
    for rate in a.rates:
        reqs = rq.poisson(a.requests, rate, a.seed, max_new=MAX_NEW)
        runs, probs = serve_all(model, reqs, a.blocks, a.mode, remedies=getattr(a, "rem", None))
        if probs:
            raise AssertionError(f"rate {rate}: {probs[:3]}")
        for run in runs:
            m = R.metrics(run)
            m["rate"] = rate
            out.setdefault(R.name(m), []).append(m)
        log(f"rate {rate}: " + "; ".join(f"{R.name(m)} {m['tokens_per_kcycle']:.3f} tok/kc, "
                                         f"TTFT p50 {m['ttft'][50]:,.0f}" for m in map(R.metrics, runs)))
    return out


def figure(sw, path, what="ttft", p=50):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, ms in sw.items():          # preempt dashed: it coincides with reserve when
        style = "s--" if name.startswith("preempt") else "o-"     # the pool never runs out
        ax.plot([m["tokens_per_kcycle"] for m in ms],
                [(m[what].get(p) if p in m[what] else m[what].get(str(p))) for m in ms],
                style, label=name, alpha=0.8)
    ax.set_xlabel("throughput: generated tokens per 1,000 cycles")
    ax.set_ylabel(f"{what.upper()} p{p} (cycles)")
    ax.set_yscale("log")
    ax.set_title(f"LM serving on GA-2: {what.upper()} p{p} against throughput, request rate swept\n"
                 "(cycle-exact model: the timing model's cycles)", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def spec_table(model, a, log=print, ks=range(1, 5), chip=None):
    """Speculative decoding at B = 1 and B = 4, k = 0 (plain) and ks: a list of dicts
    (chip: a live session, every draft and verify step decided from the chip's outcome;
    a.rem: the remedies of the main model, or None)."""
    draft = S.load_draft()
    rem = getattr(a, "rem", None)
    reqs = rq.poisson(8, 10, a.seed, prompt_len=(4, 8), max_new=(8, 8), ctx=S.SPEC_CTX)
    alone = [E.reference_tokens(model, rq.ids("text", q), q.max_new, (), S.SPEC_CTX, rem)
             for q in reqs]
    out, probs = [], []
    for B in (1, 4):
        batches = [list(range(i, i + B)) for i in range(0, len(reqs), B)]
        base = None
        for k in sorted({0, *ks}):
            runs, P, A = [], 0, 0
            for bb in batches:
                run, p, acc = S.spec_serve(model, draft, [reqs[i] for i in bb], k,
                                           chip_cfg=chip_cfg(a.mode), chip=chip, remedies=rem)
                probs += [f"spec B={B} k={k}: {x}" for x in
                          E.check_run(run, model, "text", [alone[i] for i in bb])]
                runs.append(run)
                P, A = P + p, A + acc
            cyc = [[st.cycles for st in r.steps] for r in runs]
            total = sum(map(sum, cyc))
            toks = sum(len(t) for r in runs for t in r.tokens)
            draft_c = sum(c for r, cc in zip(runs, cyc) for st, c in zip(r.steps, cc)
                          if st.kind.startswith("draft"))
            if k == 0:
                base = total
            row = {"B": B, "k": k, "tokens": toks, "cycles": total, "draft_cycles": draft_c,
                   "proposed": P, "accepted": A, "accept": A / P if P else None,
                   "cycles_per_token": total / toks, "speedup": base / total,
                   "steps": sum(len(r.steps) for r in runs)}
            out.append(row)
            log(f"spec B={B} k={k}: {toks} tokens, {total:,} cycles ({total / toks:,.0f} per token), "
                f"accepted {A}/{P}, speed-up {base / total:.2f}x")
    return out, probs


def main(argv=None, prog="tools.serve.lm_run"):
    ap = cli.Parser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="model", choices=("model", "icarus", "verilator"))
    ap.add_argument("--mode", default="overlap", choices=("inorder", "overlap"))
    ap.add_argument("--workload", default=None, type=cli.in_file, help="a .json or .csv workload file")
    ap.add_argument("--requests", type=cli.integer(1, 4096), default=64)
    ap.add_argument("--rate", type=cli.number(above=0), default=20.0, help="requests per million cycles")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--blocks", type=cli.integer(1, 4096), default=48, help="KV pool blocks (of 4 tokens)")
    ap.add_argument("--slots", type=cli.integer(1, lmm.ROWS), default=E.SLOTS)
    ap.add_argument("--policies", default="all",
                    help="comma-separated policy[+chunked] names, or all")
    ap.add_argument("--sweep", action="store_true", help="latency against throughput over --rates")
    ap.add_argument("--rates", default="2,4,8,12,16,24,32,48")
    ap.add_argument("--spec", action="store_true", help="speculative decoding, k = 0..4, B = 1 and 4")
    ap.add_argument("--ks", default="1,2,3,4", help="--spec: the drafted tokens k to measure (1..4; k = 0 always)")
    ap.add_argument("--tag", default=None, help="name of the out/serve_lm_<tag>.json")
    add_remedies(ap)
    a = ap.parse_args(argv)
    try:
        try:
            a.rates = [cli.number(above=0)(x) for x in a.rates.split(",")]
        except Exception as e:  # noqa: BLE001 -- whatever the item's parse raises, --rates is named in one ValueError
            raise ValueError(f"--rates {a.rates!r}: {e}") from None
        try:
            a.ks = sorted({cli.integer(1, 4)(x) for x in a.ks.split(",")})
        except Exception as e:  # noqa: BLE001 -- whatever the item's parse raises, --ks is named in one ValueError
            raise ValueError(f"--ks {a.ks!r}: {e}") from None
        if a.tag is not None and (not a.tag or "/" in a.tag):
            raise ValueError(f"--tag {a.tag!r}: a name without '/'")
        pols = policies(a.policies)
        model, rem = remedied(a)
        a.rem = rem
        os.makedirs(OUT, exist_ok=True)
        label = ("the chip's counters (" + a.sim + ")" if a.sim != "model"
                 else "cycle-exact model (the timing model's cycles)")
        session = (live(a.sim, a.mode) if a.sim != "model" else contextlib.nullcontext())
        if a.spec:
            t0 = time.time()
            with session as chip_:
                rows, probs = spec_table(model, a, ks=a.ks, chip=chip_)
            if a.sim != "model":
                print(f"{a.sim}, live: {len(chip_.results)} step programs, "
                      f"{sum(int(r.counters.cycles) for r in chip_.results):,} cycles, wall "
                      f"{time.time() - t0:.1f} s (shared machine); every step judged against the "
                      "reference chip before the host's next decision")
            tag = a.tag or f"spec_{a.sim}_{a.mode}"
            json.dump({"rows": rows, "problems": probs, "cycles": label, "mode": a.mode},
                      open(os.path.join(OUT, f"serve_lm_{tag}.json"), "w"), indent=1)
            print("| B | k | tokens | cycles | cycles / token | draft cycles | accepted / proposed | "
                  "acceptance | speed-up |\n|---|---|---|---|---|---|---|---|---|")
            for r in rows:
                acc = "-" if r["accept"] is None else f"{100 * r['accept']:.0f}%"
                print(f"| {r['B']} | {r['k']} | {r['tokens']} | {r['cycles']:,} | "
                      f"{r['cycles_per_token']:,.0f} | {r['draft_cycles']:,} | {r['accepted']} / "
                      f"{r['proposed']} | {acc} | {r['speedup']:.2f}x |")
            print(f"cycles: {label}, {a.mode} mode")
            print("PASS" if not probs else "FAIL\n" + "\n".join(probs[:20]))
            return 0 if not probs else 1
        if a.sweep:
            sw = sweep(model, a)
            tag = a.tag or f"sweep_{a.mode}"
            json.dump({"sweep": sw, "cycles": label}, open(os.path.join(OUT, f"serve_lm_{tag}.json"), "w"),
                      indent=1, default=str)
            for what in ("ttft", "tpot"):
                figure(sw, os.path.join(OUT, f"serve_lm_{what}_{a.mode}.png"), what)
            print(f"wrote out/serve_lm_{tag}.json, out/serve_lm_ttft_{a.mode}.png, "
                  f"out/serve_lm_tpot_{a.mode}.png")
            return 0
        reqs = workload(a)
        t0 = time.time()
        with session as chip_:
            runs, probs = serve_all(model, reqs, a.blocks, a.mode, pols, a.slots, chip=chip_, log=print,
                                    remedies=rem)
        ms = [R.metrics(r) for r in runs]
        out = {"requests": len(reqs), "rate": a.rate, "blocks": a.blocks, "mode": a.mode,
               "sim": a.sim, "wall": round(time.time() - t0, 1), "live": a.sim != "model"}
        if a.sim != "model":
            out["programs"] = len(chip_.results)
            out["chip_cycles"] = sum(int(r.counters.cycles) for r in chip_.results)
            out["cycles_per_s"] = round(out["chip_cycles"] / out["wall"])
        out["metrics"], out["problems"] = ms, probs
        tag = a.tag or f"{a.sim}_{a.mode}_{len(reqs)}"
        json.dump(out, open(os.path.join(OUT, f"serve_lm_{tag}.json"), "w"), indent=1, default=str)
        print(f"{len(reqs)} requests ({sum(m['stopped'] for m in ms[:1])} end at a stop token, "
              "the others at their limit), "
              f"pool {a.blocks} blocks of {lmm.BLOCK_TOKENS}, {a.slots} slots, "
              f"{'remedies ' + describe(rem, model) + ', ' if rem else ''}"
              f"{lmm.ROWS} rows per step, {a.mode} mode")
        for line in R.table(ms, label, a.mode):
            print(line)
        if a.sim != "model":
            print(f"{a.sim}, live: {out['programs']} step programs, {out['chip_cycles']:,} cycles, "
                  f"wall {out['wall']} s ({out['cycles_per_s']:,} cycles/s, shared machine); every "
                  "step judged against the reference chip before the host decided the next from "
                  "the chip's outcome, bus inside its allowed set, cycles = timing model")
        print("PASS: every request's tokens equal to it served alone" if not probs
              else "FAIL\n" + "\n".join(probs[:20]))
        return 0 if not probs else 1
    except STOPS as e:
        return stopped(ap.prog, e)


def policies(text):
    """[(policy, prefill)] of --policies: comma-separated policy[+chunked] names, or all."""
    if text == "all":
        return ALL
    out = []
    for n in text.split(","):
        p, _, f = n.partition("+")
        if p not in E.POLICIES or f not in ("", "chunked"):
            raise ValueError(f"--policies: unknown policy {n!r} (static, reserve, preempt, each "
                             "optionally +chunked)")
        out.append((p, "chunked" if f else "whole"))
    return out


STOPS = (ValueError, hw.ChipMismatch, hw.ToolFault)


def stopped(prog, e):
    """The exit code of a served run stopped by e (one of STOPS), its line printed: bad
    input 2 (one line naming it), the chip disagreed 1 (nothing decided after it), the
    simulator failed 4 (nothing is known of the chip: not a FAIL of it)."""
    if isinstance(e, hw.ChipMismatch):
        print(f"FAIL: chip mismatch, the run stopped: {e}")
        return 1
    if isinstance(e, hw.ToolFault):
        print(f"FAULT: {e}")
        return 4
    return cli.refuse(prog, e)


if __name__ == "__main__":
    from tb.cli import guard
    raise SystemExit(guard(main))
