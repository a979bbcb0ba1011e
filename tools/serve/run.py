"""Serving on the chip: continuous against static batching over a paged KV cache (make serve).

For a workload (tools/serve/workloads/*.json or *.csv) and each scheduler (static, continuous) the
reference plans the run (tools/serve/engine.py), builds every step program (tools/serve/paged.py),
runs them on the reference Machine and then on the chip: ALL steps of BOTH schedulers in
ONE simulator process per simulator (tb/sim/run.py: the first step of each scheduler
loads the external memory image, every later step keeps what the previous one left,
every step starts from a garbage scratchpad on both sides). Checked, per simulator:
every program equal to the reference (memory, trace, all six counters); every token of
every request equal to that request decoded alone (plain-Python integer reference), and
every admitted request's K/V rows intact after every step; each step's external-bus
record (the wrapper's monitor) equal to the program's LD/ST ranges and inside the step's
allowed set (weights, the blocks of its block tables, its inputs and outputs); the total
cycles from the chip's counters equal to the timing model's prediction. Prints per
scheduler: steps, total cycles, cycles per generated token, mean and worst completion,
idle slot-steps, KV memory; a PASS/FAIL line per simulator; for example B the chapter-9
cycle-model figures beside the measured ones. Writes out/serve_<workload>.json and the
figures out/serve_<workload>_pool.png (block-pool occupancy) and
out/serve_<workload>_timeline.png (measured timelines).

    python -m tools.serve                          # example B and staggered, both simulators
    python -m tools.serve --workload tools/serve/workloads/short.csv --sim icarus
    python -m tools.serve --model-only             # reference only, labelled MODEL ONLY
"""
import json
import os
import sys
import time

from model import config, timing
from tb import ROOT, cli, hw
from tools.ch09 import example_b as exb
from tools.serve import engine as serving
from tools.serve import oracle, paged, workload

OUT = os.path.join(ROOT, "out")
WORKLOADS = str(workload.WORKLOADS)
# the shipped runs: workload file, capacity (slots), block_tokens, pool blocks
RUNS = {
    "example_b": (workload.EXAMPLE_B_FILE.name, exb.SLOTS, 4, 12),     # chapter 9's 4 slots
    "staggered": ("staggered.json", 8, 4, 40),
    "short": ("short.csv", 3, 4, 6),
}


def merged(ranges):
    """{kind: [(first, last)]} of bus ranges, overlapping or adjacent ranges merged (the
    set of words read and the set written, whatever the order or the burst boundaries)."""
    out = {"r": [], "w": [], "?": []}
    for kind, a, b in sorted(ranges, key=lambda x: (x[0], x[1], x[2])):
        lst = out.setdefault(kind, [])
        if lst and a <= lst[-1][1] + 1:
            lst[-1] = (lst[-1][0], max(lst[-1][1], b))
        else:
            lst.append((a, b))
    return out


def prepare(requests, policy, capacity, block_tokens, n_blocks, model, cfg=None, tag=None, mode=None):
    """A scheduler's run on the reference: (plan, cfg, reference_run dict)."""
    p = serving.plan(requests, policy, capacity, block_tokens, n_blocks, cfg or oracle.CFG)
    cfg = cfg or serving.config_for(p.layout, oracle.CFG.replace(mode=mode) if mode else oracle.CFG)
    ref = oracle.reference_run(p, model, cfg, tag=tag or policy)
    return p, cfg, ref


def items_for(ref):
    """The chip items of one scheduler's run: the first step loads the image, the others keep
    the external memory the previous step left; each preloads its garbage scratchpad."""
    return [hw.Item(prog, ref["image"] if i == 0 else hw.KEEP_EXT, sp)
            for i, (prog, sp) in enumerate(zip(ref["programs"], ref["sps"]))]


def chip_issues(res, plan_, ref, where):
    """Findings of one scheduler's chip results (a list of ProgResult, one per step)."""
    probs = []
    if len(res) != len(plan_.steps):
        return [f"{where}: {len(res)} results for {len(plan_.steps)} steps"]
    for i, r in enumerate(res):
        if not r.ok:
            probs.append(f"{where} step {i}: chip != reference: {r.mismatch}")
        if int(r.counters.cycles) != ref["predicted"][i]:
            probs.append(f"{where} step {i}: {r.counters.cycles} cycles, timing model {ref['predicted'][i]}")
        bus = (r.host or {}).get("bus")
        if bus is None:
            probs.append(f"{where} step {i}: no bus record from the chip")
            continue
        if merged(bus) != merged(ref["bus"][i]):
            probs.append(f"{where} step {i}: the chip's bus record differs from the program's LD/ST ranges")
        probs += paged.isolation_issues(bus, plan_.steps[i].entries, plan_.layout, f"{where} step {i} (chip bus)")
        probs += oracle.step_issues(r.ext, plan_, i, ref["oracle"], f"{where} (chip)")
    if res:
        probs += oracle.final_issues(res[-1].ext, plan_, ref["oracle"], f"{where} (chip)")
    total = sum(int(r.counters.cycles) for r in res)
    if total != sum(ref["predicted"]):
        probs.append(f"{where}: total {total} cycles on the chip, timing model {sum(ref['predicted'])}")
    return probs


def run_chip(sim, runs, cfg):
    """Every scheduler's steps in ONE simulator process: {policy: [ProgResult]} and wall seconds."""
    jobs = [items_for(ref) for _, (_, _, ref) in runs.items()]
    t0 = time.time()
    res = hw.run(sim, jobs, cfg=cfg)
    return dict(zip(runs, res)), time.time() - t0


def serve(requests, capacity, block_tokens, n_blocks, sims=("icarus", "verilator"), model_only=False,
          seed=1, name="workload", cfg=None, log=print, mode=None):
    """Plan, build, run and check a workload under both schedulers; a result dict with the
    figures per scheduler, per simulator the problems, cycles and wall time, and `ok`."""
    model = oracle.model_data(seed)
    runs = {}
    for pol in serving.POLICIES:
        runs[pol] = prepare(requests, pol, capacity, block_tokens, n_blocks, model, cfg, f"{name} {pol}",
                            mode)
    cfg = max((r[1] for r in runs.values()), key=lambda c: c.ext_words)
    out = {"workload": name, "capacity": capacity, "block_tokens": block_tokens, "pool_blocks": n_blocks,
           "ext_words": cfg.ext_words, "mode": cfg.mode, "requests": [q._asdict() for q in runs["static"][0].requests],
           "schedulers": {}, "sims": {}, "model_problems": []}
    for pol, (p, _, ref) in runs.items():
        out["model_problems"] += ref["problems"]
        out["schedulers"][pol] = {"predicted": oracle.metrics(p, ref["predicted"]),
                                  "step_slots": [st.slots for st in p.steps],
                                  "step_requests": [[p.requests[r].id for r, _, _ in st.entries] for st in p.steps],
                                  "rows_in_use": [st.rows_in_use for st in p.steps]}
    for pol in serving.POLICIES:
        # the model's own steps (reference Machine counters) must equal the prediction too
        if runs[pol][2]["step_cycles"] != runs[pol][2]["predicted"]:
            out["model_problems"].append(f"{pol}: reference counters != timing model")
    ok = not out["model_problems"]
    if model_only:
        out["sims"]["model"] = {"problems": out["model_problems"], "measured": False}
        for pol in serving.POLICIES:
            out["schedulers"][pol]["measured"] = {"model": out["schedulers"][pol]["predicted"]}
            out["schedulers"][pol]["step_cycles"] = {"model": runs[pol][2]["step_cycles"]}
        out["ok"] = ok
        return out
    for sim in sims:
        res, wall = run_chip(sim, runs, cfg)
        probs = []
        for pol in serving.POLICIES:
            p, _, ref = runs[pol]
            probs += chip_issues(res[pol], p, ref, f"{name} {pol} on {sim}")
            cyc = [int(r.counters.cycles) for r in res[pol]]
            out["schedulers"][pol].setdefault("measured", {})[sim] = oracle.metrics(p, cyc)
            out["schedulers"][pol].setdefault("step_cycles", {})[sim] = cyc
        nprog = sum(len(v) for v in res.values())
        cycles = sum(int(r.counters.cycles) for v in res.values() for r in v)
        out["sims"][sim] = {"problems": probs, "programs": nprog, "cycles": cycles, "wall": round(wall, 2)}
        ok = ok and not probs
    out["ok"] = ok
    return out


def report(out, log=print):
    """The printed table of one workload's result."""
    m0 = out["schedulers"]["static"]["predicted"]
    log(f"workload {out['workload']}: {len(out['requests'])} requests, {m0['tokens']} tokens; "
        f"{out['capacity']} slots; pool {out['pool_blocks']} blocks of {out['block_tokens']} tokens "
        f"({m0['kv']['pool_words']} words); chip ext {out['ext_words']} words, mode {out['mode']}")
    for sim in out["sims"]:
        label = "MODEL ONLY" if sim == "model" else sim
        for pol in serving.POLICIES:
            m = out["schedulers"][pol]["measured"][sim]
            pred = out["schedulers"][pol]["predicted"]["total_cycles"]
            log(f"  {label:<10} {pol:<11} steps {m['steps']:>4}  total {m['total_cycles']:>8} cycles "
                f"(timing model {pred}{', equal' if pred == m['total_cycles'] else ', DIFFERENT'})  "
                f"{m['cycles_per_token']:.0f} cycles/token  completion mean {m['mean_completion']:.0f} "
                f"worst {m['worst_completion']}  idle slot-steps {m['idle_slot_steps']}  "
                f"block waits {m['block_waits']}")
    for pol in serving.POLICIES:
        kv = out["schedulers"][pol]["predicted"]["kv"]
        log(f"  KV memory {pol:<11} peak {kv['peak_words_paged']} words in {kv['peak_blocks']} blocks "
            f"(paged; at most {kv['peak_words_used']} words hold rows at once) "
            f"against {kv['peak_words_reserved']} words "
            f"reserved at {paged.MAX_CTX} tokens per admitted request "
            f"(x{kv['peak_words_reserved'] / kv['peak_words_paged']:.1f}); fragmentation inside blocks "
            f"{100 * kv['fragmentation_at_peak']:.0f}% at the peak, {100 * kv['mean_fragmentation']:.0f}% mean")
    for sim, s in out["sims"].items():
        if sim == "model":
            continue
        for p in s["problems"][:10]:
            log(f"  PROBLEM {p}")
        log(f"{'PASS' if not s['problems'] and not out['model_problems'] else 'FAIL'} {sim}: "
            f"{out['workload']}, {s['programs']} step programs in one process, {s['cycles']} cycles, "
            f"every token of every request equal to it alone, memory/counters/trace equal to the "
            f"reference, bus inside the block tables ({s['wall']:.1f} s)")
    for p in out["model_problems"][:10]:
        log(f"  PROBLEM (reference) {p}")


def example_b_beside(out, log=print):
    """Example B's cycle-model figures (tools/ch09_example_b.py) beside the measured ones."""
    st, co = exb.price(exb.schedule_static()), exb.price(exb.schedule_continuous())
    sims = [s for s in out["sims"] if s != "model"] or ["model"]
    log("  example B beside chapter 9's cycle model (tools/ch09_example_b.py, contiguous caches, 4 slots):")
    rows = {}
    for pol, ch in (("static", st), ("continuous", co)):
        m = out["schedulers"][pol]["measured"][sims[0]]
        d = m["total_cycles"] - ch["total_cycles"]
        rows[pol] = {"ch09": ch["total_cycles"], "served": m["total_cycles"], "difference": d,
                     "ch09_riding_cycles": ch["cycles_on_riding_slots"]}
        log(f"    {pol:<11} ch09 model {ch['total_cycles']:>7} cycles, {ch['steps']} steps; served here "
            f"{m['total_cycles']:>7} ({sims[0]}), {m['steps']} steps; difference {d:+d}")
    rs = rows["static"]
    log(f"    static: ch09 computes finished requests riding along ({rs['ch09_riding_cycles']} cycles); "
        f"here their slots are empty, so {rs['ch09']} - {rs['ch09_riding_cycles']} = "
        f"{rs['ch09'] - rs['ch09_riding_cycles']} is the comparable figure "
        f"({rs['served'] - (rs['ch09'] - rs['ch09_riding_cycles']):+d} left)")
    # what is left, instruction by instruction: the paged step against chapter 9's step
    # for the same slots at the same lengths (batch.program, contiguous caches)
    from model import batch
    model = oracle.model_data(1)
    reqs = [workload.Request(**q) for q in out["requests"]]
    for pol in serving.POLICIES:
        p = serving.plan(reqs, pol, out["capacity"], out["block_tokens"], out["pool_blocks"])
        progs = oracle.build_programs(p, model)
        extra, words, cyc_paged, cyc_ch = 0, 0, 0, 0
        for st, prog in zip(p.steps, progs):
            ch = batch.program(list(range(len(st.entries))), [t for _, t, _ in st.entries], model["P"])
            extra += sum(i.op == "LD" for i in prog) - sum(i.op == "LD" for i in ch)
            words += sum(i.len for i in prog if i.op in ("LD", "ST")) - sum(i.len for i in ch if i.op in ("LD", "ST"))
            cyc_paged += timing.schedule(prog, oracle.CFG).cycles
            cyc_ch += timing.schedule(ch, oracle.CFG).cycles
        rows[pol].update({"extra_loads": extra, "extra_words": words,
                          "paged_minus_ch09_same_steps": cyc_paged - cyc_ch})
        log(f"    {pol:<11} the same steps built by chapter 9 cost {cyc_ch} cycles, paged {cyc_paged}: "
            f"{cyc_paged - cyc_ch:+d} = {extra} extra LDs (a gather per run of adjacent blocks, K and V) "
            f"x 3 cycles (FETCH+DECODE and one cycle of read latency each), {words:+d} words moved")
    return rows


def figures(out, path_pool, path_timeline):
    """Block-pool occupancy per step (both schedulers) and the measured timelines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sim = next((s for s in out["sims"] if s != "model"), "model")
    where = "the reference: MODEL ONLY" if sim == "model" else sim
    fig, ax = plt.subplots(figsize=(9, 3.6))
    for pol, col in (("static", "tab:red"), ("continuous", "tab:blue")):
        sc = out["schedulers"][pol]
        cyc = sc["step_cycles"][sim] if "step_cycles" in sc else None
        occ = sc["predicted"]["occupancy"]
        x, t = [0], 0                       # each step's value held from its start to its end
        for i in range(len(occ)):
            t += cyc[i] if cyc else sc["predicted"]["total_cycles"] / len(occ)
            x.append(t)
        ax.step(x, occ + occ[-1:], where="post", color=col, label=f"{pol}: blocks allocated")
        used = [r / out["block_tokens"] for r in sc["rows_in_use"]]
        ax.step(x, used + used[-1:], where="post", color=col, ls=":",
                label=f"{pol}: blocks' worth of rows in use")
    ax.axhline(out["pool_blocks"], color="k", lw=0.8, ls="--", label="pool size")
    ax.set_xlabel(f"cycles (measured on {where})")
    ax.set_ylabel("blocks")
    ax.set_title(f"Block-pool occupancy, {out['workload']} ({out['block_tokens']} tokens per block)", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path_pool, dpi=100)
    plt.close(fig)

    names = [q["id"] for q in out["requests"]]
    palette = [c for i, c in enumerate(plt.cm.tab20.colors) if i not in (14, 15)]   # no greys

    def colour(rid):
        return palette[names.index(rid) % len(palette)]
    fig, axes = plt.subplots(2, 1, figsize=(11, 1.2 + 0.45 * out["capacity"] * 2), sharex=True)
    for ax, pol in zip(axes, serving.POLICIES):
        sc = out["schedulers"][pol]
        cyc = sc["step_cycles"].get(sim) if "step_cycles" in sc else None
        cyc = cyc or [1] * len(sc["step_slots"])
        x, seen = 0, set()
        total = sum(cyc)
        for c, slots, reqs in zip(cyc, sc["step_slots"], sc["step_requests"]):
            for j in range(out["capacity"]):
                if j in slots:
                    rid = reqs[slots.index(j)]
                    ax.barh(j, c, left=x, color=colour(rid), ec="white", lw=0.2)
                    if rid not in seen:
                        seen.add(rid)
                        ax.text(x + total / 400, j, rid, va="center", fontsize=6, color="black")
                else:
                    ax.barh(j, c, left=x, color="lightgrey", alpha=0.5, hatch="..", ec="grey", lw=0.2)
            x += c
        m = sc["measured"][sim]
        ax.set_yticks(range(out["capacity"]))
        ax.set_yticklabels([f"slot {j}" for j in range(out["capacity"])], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{pol}: {m['total_cycles']} cycles measured on {where}, {m['idle_slot_steps']} idle "
                     f"slot-steps, mean completion {m['mean_completion']:.0f}", fontsize=9)
    axes[1].set_xlabel("cycles (the chip's counters, step by step)")
    fig.suptitle(f"Measured timelines, {out['workload']} (colour = request, grey = empty slot)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path_timeline, dpi=100)
    plt.close(fig)
    return path_pool, path_timeline


def main(argv=None):
    ap = cli.Parser(prog="tools.serve", description=__doc__.splitlines()[0])
    ap.add_argument("--workload", action="append", default=None,
                    help=f"a shipped run ({', '.join(RUNS)}) or a .json/.csv file (repeatable; "
                         "default example_b and staggered)")
    ap.add_argument("--capacity", type=cli.integer(1, paged.MAX_BATCH), default=None,
                    help=f"batch slots (1..{paged.MAX_BATCH}) for a workload file")
    ap.add_argument("--block-tokens", type=cli.integer(1, paged.MAX_CTX), default=None,
                    help="token rows per block")
    ap.add_argument("--pool-blocks", type=cli.integer(1, 1 << config.ADDR_W), default=None,
                    help="blocks in the pool")
    ap.add_argument("--sim", default="both", choices=("icarus", "verilator", "both"))
    ap.add_argument("--model-only", action="store_true", help="the reference only (nothing measured)")
    ap.add_argument("--mode", default="inorder", choices=("inorder", "overlap"),
                    help="the chip's timing mode (overlap: programs reordered by model/reorder.py)")
    ap.add_argument("--out", default=OUT, type=cli.out_dir)
    a = ap.parse_args(argv)
    runs = []                     # every workload read and checked before any is served
    for w in a.workload or ["example_b", "staggered"]:
        if w in RUNS:
            fname, cap, bt, nb = RUNS[w]
            path = os.path.join(WORKLOADS, fname)
        elif not w:
            return cli.refuse(ap.prog, "--workload '': an empty name")
        else:
            path, cap, bt, nb = w, 4, 4, 16
        try:
            name, reqs = workload.load_workload(path)
        except ValueError as e:
            return cli.refuse(ap.prog, e)
        runs.append((name, reqs, a.capacity if a.capacity is not None else cap,
                     a.block_tokens if a.block_tokens is not None else bt,
                     a.pool_blocks if a.pool_blocks is not None else nb))
    sims = ("icarus", "verilator") if a.sim == "both" else (a.sim,)
    if not a.model_only:
        missing = [s for s in sims if s not in hw.available_sims()]
        if missing:
            return cli.refuse(ap.prog, f"simulator(s) not installed: {', '.join(missing)}")
    for name, reqs, cap, bt, nb in runs:          # the pool and the slots fit every request
        try:
            for pol in serving.POLICIES:
                serving.plan(reqs, pol, cap, bt, nb, oracle.CFG)
        except ValueError as e:
            return cli.refuse(ap.prog, f"workload {name} with --capacity {cap} --block-tokens {bt} "
                                       f"--pool-blocks {nb}: {e}")
    os.makedirs(a.out, exist_ok=True)
    ok = True
    for name, reqs, cap, bt, nb in runs:
        try:
            out = serve(reqs, cap, bt, nb, sims=sims, model_only=a.model_only, name=name, mode=a.mode)
        except ValueError as e:
            return cli.refuse(ap.prog, e)
        except hw.ToolFault as e:       # nothing is known of the chip: not a FAIL of it
            print(f"FAULT {name}: {e}")
            return 4
        report(out)
        if name == "example_b" and a.mode == "inorder":     # chapter 9's model is in-order
            out["example_b_beside_ch09"] = example_b_beside(out)
        base = os.path.join(a.out, f"serve_{name}" + ("_overlap" if a.mode == "overlap" else ""))
        with open(base + ".json", "w") as f:
            json.dump(out, f, indent=1, default=str)
        print(f"wrote {base}.json")
        for pth in figures(out, base + "_pool.png", base + "_timeline.png"):
            print(f"wrote {pth}")
        ok = ok and out["ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
