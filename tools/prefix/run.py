"""Shared prefixes on the chip: shared-prefix attention measured (make prefix).

1. The sweep: B requests sharing a P-token prefix (B = 1, 2, 4, 8; P = 16, 32, 48; blocks
   of 16 tokens; each request at token P + 4, its own rows P..P+2 in its own block), one
   decode step built twice from the SAME block tables: tools/serve/paged.py (unshared: every
   request reads the prefix blocks itself) and tools/prefix/attention.py (shared-prefix attention:
   the prefix read once, its scores and weighted sum one MM per tile for all requests,
   MM acc = 1). Every step runs on the chip (each simulator, one process), is held to the
   reference (memory, trace, all six counters) and every output to the request decoded
   alone (chapter 9's plain-Python integer reference). Measured: cycles (the chip's
   counter), words moved (the chip's external-bus monitor), MACs (the programs' MM
   fields), intensity MAC/word against chapter 9's 2.35 limit, cycles per token.
2. Random decode runs with shared prefixes (random prefix lengths, some ending inside a
   block, a request whose prompt is exactly its group's whole blocks, random arrival
   orders), every step of a run in one simulator process with the external memory
   carried: every token of every request equal to it decoded alone, on the chip.

Writes out/prefix.json, out/fig_prefix_roofline.png, out/fig_prefix_words.png.

    python -m tools.prefix                  # both simulators, the full sweep, 6 random runs
    python -m tools.prefix --sim icarus --quick
    python -m tools.prefix --model-only     # reference only, labelled MODEL ONLY
"""
import json
import os
import sys
import time

from model import batch, isa, reorder
from model.machine import Machine
from tb import ROOT, cli, hw
from tools.ch09 import roofline
from tools.prefix import attention as prefix
from tools.prefix import cache as prefix_cache
from tools.serve import paged

OUT = os.path.join(ROOT, "out")
BS = (1, 2, 4, 8)
PS = (16, 32, 48)
LIMIT = roofline.limit()      # chapter 9's intensity limit at L = 16 (derived there: 1280/544)
PEAK, BW = float(roofline.peak()), float(roofline.bandwidth())     # MAC/cycle, word/cycle


def sweep_items(Bs=BS, Ps=PS, modes=("inorder",)):
    """[(B, P, kind, setup, program, garbage sp)] of the sweep, kind 'unshared' / 'shared';
    setup["mode_cfg"] is the chip it runs on (the overlap mode's program is the same one
    in model/reorder.py's order, as chapter 9 does)."""
    out = []
    for mode in modes:
        for P in Ps:
            for B in Bs:
                s = dict(prefix.shared_step(B, P))
                s["mode_cfg"] = s["cfg"].replace(mode=mode) if s["cfg"].mode != mode else s["cfg"]
                for kind, build in (("unshared", paged.step_program), ("shared", prefix.step_program)):
                    prog = build(s["entries"], s["layout"], s["model"]["P"], s["cfg"])
                    if mode == "overlap":
                        prog = reorder.reorder(prog, s["mode_cfg"])
                    sp = batch.garbage_sp(batch.garbage_seed(f"prefix sweep {B} {P} {kind}"), s["cfg"])
                    out.append((B, P, kind, s, prog, sp))
    return out


def _bus_words(bus):
    return sum(b - a + 1 for _, a, b in bus)


def sweep(sim, items):
    """Run the sweep's steps on one simulator (or the reference for sim None; one
    simulator process per timing mode): rows, problems."""
    rows, probs, res = [], [], [None] * len(items)
    for mode in dict.fromkeys(it[3]["mode_cfg"].mode for it in items):
        idx = [k for k, it in enumerate(items) if it[3]["mode_cfg"].mode == mode]
        cfg = max((items[k][3]["mode_cfg"] for k in idx), key=lambda c: c.ext_words)
        if sim is None:
            for k in idx:
                _, _, _, s, prog, sp = items[k]
                m = Machine(cfg)
                m.sp[:] = sp
                r = m.run(prog, _pad(s["image"], cfg))
                res[k] = (r.ext, r.counters, paged.accesses(prog), True, "")
        else:
            jobs = [[hw.Item(items[k][4], _pad(items[k][3]["image"], cfg), items[k][5])] for k in idx]
            got = hw.run(sim, jobs, cfg=cfg)
            for k, j in zip(idx, got):
                res[k] = (j[0].ext, j[0].counters, (j[0].host or {}).get("bus"), j[0].ok, j[0].mismatch)
    for (B, P, kind, s, prog, _), (ext, c, bus, ok, why) in zip(items, res):
        mode = s["mode_cfg"].mode
        where = f"{sim or 'reference'} {mode} B={B} P={P} {kind}"
        if not ok:
            probs.append(f"{where}: chip != reference: {why}")
        if bus is None:
            probs.append(f"{where}: no bus record")
            bus = []
        words = _bus_words(bus)
        if words != isa.program_words(prog):
            probs.append(f"{where}: the bus moved {words} words, the program's LD/ST {isa.program_words(prog)}")
        probs += prefix.output_issues(ext, s["layout"], s["entries"], s["oracle"], where)
        macs = isa.program_macs(prog)
        inten = macs / words if words else 0.0
        rows.append({"B": B, "P": P, "kind": kind, "mode": mode, "t": s["t"], "cycles": int(c.cycles),
                     "cycles_per_token": c.cycles / B, "words": words, "words_per_token": words / B,
                     "macs": macs, "mac_per_word": inten, "mac_per_cycle": macs / c.cycles,
                     "ceiling": roofline.ceiling(inten), "mm": int(c.mm), "dma": int(c.dma),
                     "vec": int(c.vec), "instret": int(c.instret)})
    return rows, probs


def _pad(img, cfg):
    import numpy as np
    out = np.zeros(cfg.ext_words, dtype=np.int64)
    out[:len(img)] = img
    return out


def decode_runs(seeds, block_tokens=(4, 5, 16)):
    """The random decode runs: [(name, DecodeRun, programs, garbage sps)]."""
    out = []
    for sd in seeds:
        for BT in block_tokens:
            run = prefix.decode_run(prefix.random_requests(sd, BT), BT)
            progs = prefix.run_programs(run, shared=True)
            sps = [batch.garbage_sp(batch.garbage_seed(f"prefix run {sd} {BT} step {i}"), run.cfg)
                   for i in range(len(progs))]
            out.append((f"seed {sd} blocks of {BT}", run, progs, sps))
    return out


def check_runs(sim, runs):
    """Every run's steps on one simulator (all runs in one process; None: the reference):
    (problems, total cycles, shared groups seen)."""
    cfg = max((r[1].cfg for r in runs), key=lambda c: c.ext_words)
    probs, cycles, groups = [], 0, 0
    if sim is not None:
        jobs = [[hw.Item(p, _pad(run.image, cfg) if i == 0 else hw.KEEP_EXT, sp)
                 for i, (p, sp) in enumerate(zip(progs, sps))] for _, run, progs, sps in runs]
        got = hw.run(sim, jobs, cfg=cfg)
    for k, (name, run, progs, sps) in enumerate(runs):
        groups += sum(1 for e in run.steps for ks, S in prefix.share_groups(e, run.layout.block_tokens)
                      if S and len(ks) > 1)
        if sim is None:
            m, ext, after = Machine(cfg), _pad(run.image, cfg), []
            for p, sp in zip(progs, sps):
                m.sp[:] = sp
                r = m.run(p, ext)
                ext = r.ext
                after.append(ext)
                cycles += int(r.counters.cycles)
        else:
            after = [r.ext for r in got[k]]
            for i, r in enumerate(got[k]):
                if not r.ok:
                    probs.append(f"{sim} {name} step {i}: chip != reference: {r.mismatch}")
                cycles += int(r.counters.cycles)
        probs += prefix.run_issues(after, run, f"{sim or 'reference'} {name}")
    return probs, cycles, groups


def prefill_item(plen=48, first=0, block_tokens=16, seed=1):
    """(setup, program, garbage sp): one request's prompt rows first..plen-1 prefilled."""
    model = prefix._serving.model_data(seed)
    reqs = [prefix.PReq("pf", "sys", plen, plen, 0)]
    oracle = prefix.Oracle(model, reqs)
    nb = -(-plen // block_tokens)
    lay = paged.make_layout(block_tokens, nb, [plen])
    cfg = prefix._serving.config_for(lay)
    table = list(range(nb))[::-1]                    # blocks in reverse: not one run
    prog = prefix_cache.prefill_program(0, first, plen, table, lay, model["P"], cfg)
    s = {"model": model, "layout": lay, "cfg": cfg, "table": table, "oracle": oracle,
         "image": prefix.base_image(lay, model, oracle), "first": first, "plen": plen}
    return s, prog, batch.garbage_sp(batch.garbage_seed(f"prefill {plen} {first}"), cfg)


def prefill(sim, item):
    """Run a prefill on one simulator (None: the reference): (row dict, problems)."""
    s, prog, sp = item
    cfg, lay = s["cfg"], s["layout"]
    probs = []
    if sim is None:
        m = Machine(cfg)
        m.sp[:] = sp
        r = m.run(prog, s["image"])
        ext, c, bus = r.ext, r.counters, paged.accesses(prog)
    else:
        r = hw.run(sim, [[hw.Item(prog, s["image"], sp)]], cfg=cfg)[0][0]
        ext, c, bus = r.ext, r.counters, (r.host or {}).get("bus") or []
        if not r.ok:
            probs.append(f"{sim} prefill: chip != reference: {r.mismatch}")
    K, V = s["oracle"].kv(0, s["plen"])
    BT, D = lay.block_tokens, paged.D
    for row in range(s["first"], s["plen"]):
        blk, off = s["table"][row // BT], D * (row % BT)
        if [int(v) for v in ext[paged.k_page(lay, blk) + off:paged.k_page(lay, blk) + off + D]] != K[row] or \
           [int(v) for v in ext[paged.v_page(lay, blk) + off:paged.v_page(lay, blk) + off + D]] != V[row]:
            probs.append(f"{sim or 'reference'} prefill: K/V row {row} != the integer reference")
            break
    words, macs = _bus_words(bus), isa.program_macs(prog)
    if words != isa.program_words(prog):
        probs.append(f"{sim or 'reference'} prefill: bus {words} words, program {isa.program_words(prog)}")
    n = s["plen"] - s["first"]
    return ({"tokens": n, "cycles": int(c.cycles), "cycles_per_token": c.cycles / n, "words": words,
             "macs": macs, "mac_per_word": macs / words, "mac_per_cycle": macs / c.cycles,
             "instructions": len(prog)}, probs)


def cache_chip(sim, runs):
    """Cache runs [(name, CacheRun)] on one simulator, all in one process (None: the
    reference): (per run {cycles per program kind, words}, problems)."""
    cfg = max((r.cfg for _, r in runs), key=lambda c: c.ext_words)
    sps = [[batch.garbage_sp(batch.garbage_seed(f"cache {name} {i}"), cfg) for i in range(len(run.programs))]
           for name, run in runs]
    if sim is not None:
        jobs = [[hw.Item(p.prog, _pad(run.image, cfg) if i == 0 else hw.KEEP_EXT, sp)
                 for i, (p, sp) in enumerate(zip(run.programs, sp_l))] for (_, run), sp_l in zip(runs, sps)]
        got = hw.run(sim, jobs, cfg=cfg)
    out, probs = [], []
    for k, (name, run) in enumerate(runs):
        if sim is None:
            m, ext, after, bus, cyc = Machine(cfg), _pad(run.image, cfg), [], [], []
            for p, sp in zip(run.programs, sps[k]):
                m.sp[:] = sp
                r = m.run(p.prog, ext)
                ext = r.ext
                after.append(ext)
                bus.append(paged.accesses(p.prog))
                cyc.append(int(r.counters.cycles))
        else:
            after = [r.ext for r in got[k]]
            bus = [(r.host or {}).get("bus") or [] for r in got[k]]
            cyc = [int(r.counters.cycles) for r in got[k]]
            for i, r in enumerate(got[k]):
                if not r.ok:
                    probs.append(f"{sim} {name} program {i}: chip != reference: {r.mismatch}")
        probs += prefix_cache.cache_issues(run, after, bus, f"{sim or 'reference'} {name}")
        fig = {"cycles": sum(cyc), "programs": len(cyc)}
        for kind in ("prefill", "copy", "step"):
            fig[f"{kind}_cycles"] = sum(c for p, c in zip(run.programs, cyc) if p.kind == kind)
            fig[f"{kind}_words"] = sum(_bus_words(b) for p, b in zip(run.programs, bus) if p.kind == kind)
        fig.update(run.stats)
        fig["peak_kv_words"] = run.stats["peak_blocks"] * 2 * paged.block_words(run.layout)
        out.append(fig)
    return out, probs


def cache_runs(quick=False, mode="inorder"):
    """[(name, CacheRun)]: the common-system-prompt workload with the cache on and off
    (blocks of 16, a pool of 60), then random cache workloads (tight pools: evictions)."""
    sysreq = prefix_cache.system_prompt_requests()
    runs = [("system prompt, cache on", prefix_cache.cache_run(sysreq, 16, 60, cache=True, mode=mode)),
            ("system prompt, cache off", prefix_cache.cache_run(sysreq, 16, 60, cache=False, mode=mode))]
    for sd, BT, nb in (((0, 4, 12),) if quick else ((0, 4, 12), (1, 5, 12), (2, 16, 5), (3, 4, 40))):
        reqs, per = prefix_cache.cache_requests(sd, BT)
        runs.append((f"random seed {sd} blocks of {BT} pool {nb}",
                     prefix_cache.cache_run(reqs, BT, nb, periods=per, mode=mode)))
    return runs


def report(rows, log=print):
    log(f"{'mode':<8}{'P':>3}{'B':>3} {'kind':<9}{'cycles':>8}{'cyc/tok':>9}{'words':>7}{'words/tok':>10}"
        f"{'MACs':>7}{'MAC/word':>9}{'MAC/cyc':>8}{f'vs {LIMIT:.2f}':>8}")
    for r in rows:
        log(f"{r['mode']:<8}{r['P']:>3}{r['B']:>3} {r['kind']:<9}{r['cycles']:>8}{r['cycles_per_token']:>9.1f}"
            f"{r['words']:>7}"
            f"{r['words_per_token']:>10.1f}{r['macs']:>7}{r['mac_per_word']:>9.3f}{r['mac_per_cycle']:>8.3f}"
            f"{r['mac_per_word'] / LIMIT:>7.2f}x")


def figures(data, path_roof, path_words):
    import numpy as np

    from tools.ch09.figures import plt, roofline_axes, save  # matplotlib on Agg
    src = "reference model (MODEL ONLY)" if data.get("model_only") else "circuit counters and bus monitor"
    rows = data["table"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    x = np.logspace(-1, 2, 300)
    ax.plot(x, np.minimum(PEAK, BW * x), "k-", lw=2, label=f"roofline min({PEAK:g}, {BW:g} word/cycle x I) (derived)")
    ax.axvline(LIMIT, color="tab:red", ls="--", lw=1.2,
               label=f"chapter 9's batching limit {LIMIT:.2f} MAC/word (derived)")
    marks = {16: "o", 32: "s", 48: "D"}
    cols = {1: "tab:blue", 2: "tab:orange", 4: "tab:green", 8: "tab:purple"}
    for r in rows:
        filled = r["kind"] == "shared"
        ov = r.get("mode") == "overlap"
        ax.plot(r["mac_per_word"], r["mac_per_cycle"], "^" if ov else marks[r["P"]], color=cols[r["B"]],
                ms=5 if ov else 7, mfc=cols[r["B"]] if filled else "none", alpha=0.8 if ov else 1.0)
    for B, c in cols.items():
        ax.plot([], [], "o", color=c, label=f"B = {B}")
    for P, mk in marks.items():
        ax.plot([], [], mk, color="k", mfc="none", label=f"P = {P}")
    ax.plot([], [], "o", color="k", mfc="k", label="filled: shared-prefix attention; open: unshared (in-order mode)")
    if any(r.get("mode") == "overlap" for r in rows):
        ax.plot([], [], "^", color="k", mfc="none", ms=5, label="triangles: the same steps, overlap mode (any P)")
    pf = data.get("prefill")
    if pf:
        ax.plot(pf["mac_per_word"], pf["mac_per_cycle"], "*", color="tab:red", ms=14,
                label=f"prefill {pf['tokens']} tokens (in-order mode)")
    roofline_axes(ax, (0.3, 40), "GA-2 roofline: decode steps with B requests sharing a P-token prefix\n"
                  f"(points measured: {src})")
    save(fig, path_roof)

    fig, axs = plt.subplots(1, 2, figsize=(10, 4.2))
    for P, mk in marks.items():
        for kind, ls in (("unshared", "--"), ("shared", "-")):
            pts = sorted((r["B"], r["words"], r["cycles_per_token"]) for r in rows
                         if r["P"] == P and r["kind"] == kind and r.get("mode", "inorder") == "inorder")
            axs[0].plot([p[0] for p in pts], [p[1] for p in pts], ls, marker=mk, label=f"P={P} {kind}")
            axs[1].plot([p[0] for p in pts], [p[2] for p in pts], ls, marker=mk, label=f"P={P} {kind}")
    axs[0].set_ylabel("words moved per step")
    axs[1].set_ylabel("cycles per token")
    for a in axs:
        a.set_xlabel("B (requests sharing the prefix)")
        a.set_xscale("log", base=2)
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
    fig.suptitle(f"Shared-prefix attention (measured: {src}; in-order mode)")
    save(fig, path_words)


def main(argv=None):
    ap = cli.Parser(prog="tools.prefix", description="shared-prefix attention on the chip (make prefix)")
    ap.add_argument("--sim", default="both", choices=("icarus", "verilator", "both"))
    ap.add_argument("--quick", action="store_true", help="B = 1, 4; P = 16, 48; 2 random runs")
    ap.add_argument("--model-only", action="store_true", help="the reference only (MODEL ONLY)")
    ap.add_argument("--cache-mode", default="inorder", choices=("inorder", "overlap"),
                    help="the timing mode of the prefix-cache runs (prefill, copies, steps)")
    a = ap.parse_args(argv)
    sims = [None] if a.model_only else (hw.available_sims() if a.sim == "both" else [a.sim])
    Bs, Ps, seeds = ((1, 4), (16, 48), (0,)) if a.quick else (BS, PS, range(2))
    items = sweep_items(Bs, Ps, ("inorder",) if a.quick else ("inorder", "overlap"))
    runs = decode_runs(seeds)
    cruns = cache_runs(a.quick, a.cache_mode)
    data = {"model_only": a.model_only, "sims": {}, "limit": LIMIT}
    ok_all = True
    for sim in sims:
        t0 = time.time()
        try:
            rows, probs = sweep(sim, items)
            rprobs, rcycles, groups = check_runs(sim, runs)
            pf, pprobs = prefill(sim, prefill_item())
            cfigs, cprobs = cache_chip(sim, cruns)
        except hw.ToolFault as e:       # nothing is known of the chip: not a FAIL of it
            print(f"FAULT {sim}: {e}")
            return 4
        probs += rprobs + pprobs + cprobs
        name = sim or "reference (MODEL ONLY)"
        n_steps = sum(len(r[2]) for r in runs)
        for p in probs[:20]:
            print("PROBLEM", p)
        ok = not probs
        ok_all &= ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {len(items)} sweep steps, a prefill, {len(cruns)} prefix-cache runs "
              f"({sum(len(r.programs) for _, r in cruns)} programs) and {len(runs)} random runs "
              f"({n_steps} steps, {groups} shared groups, {rcycles} cycles): every output equal to "
              f"the request decoded alone{', chip equal to the reference' if sim else ''}; "
              f"{time.time() - t0:.1f} s")
        data["sims"][name] = {"ok": ok, "problems": probs[:50], "random_cycles": rcycles}
        data["table"] = rows
        data["prefill"] = pf
        data["cache"] = {name: f for (name, _), f in zip(cruns, cfigs)}
    report(data["table"])
    on, off = data["cache"]["system prompt, cache on"], data["cache"]["system prompt, cache off"]
    print("prefix cache, 8 requests with a common 32-row system prompt (own prompt rows 4..8, 6 generated, "
          "one arriving per tick, blocks of 16):")
    print(f"{'':<10}{'prefill cyc':>12}{'prefill rows':>13}{'prefill words':>14}{'copy cyc':>9}"
          f"{'step cyc':>9}{'total cyc':>10}{'peak KV words':>14}")
    for label, f in (("cache off", off), ("cache on", on)):
        print(f"{label:<10}{f['prefill_cycles']:>12}{f['prefill_rows']:>13}{f['prefill_words']:>14}"
              f"{f['copy_cycles']:>9}{f['step_cycles']:>9}{f['cycles']:>10}{f['peak_kv_words']:>14}")
    print(f"saved: {off['prefill_cycles'] - on['prefill_cycles']} prefill cycles "
          f"({100 * (1 - on['prefill_cycles'] / off['prefill_cycles']):.0f}%), "
          f"{off['peak_kv_words'] - on['peak_kv_words']} peak KV words "
          f"({100 * (1 - on['peak_kv_words'] / off['peak_kv_words']):.0f}%), "
          f"{off['cycles'] - on['cycles']} cycles in all")
    for name, f in data["cache"].items():
        if name.startswith("random"):
            print(f"  {name}: {f['programs']} programs, {f['cycles']} cycles, {f['cached_rows']} prompt rows "
                  f"from the cache, {f['copies']} copies, {f['evictions']} evictions, {f['revived']} revived")
    pf = data["prefill"]
    print(f"prefill of a {pf['tokens']}-token prompt (blocks of 16): {pf['cycles']} cycles "
          f"({pf['cycles_per_token']:.1f} per token), {pf['words']} words, {pf['macs']} MACs: "
          f"{pf['mac_per_word']:.2f} MAC/word, {pf['mac_per_cycle']:.2f} MAC/cycle, "
          f"{pf['instructions']} instructions; K/V rows equal to the integer reference")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "prefix.json"), "w") as f:
        json.dump(data, f, indent=1)
    figures(data, os.path.join(OUT, "fig_prefix_roofline.png"), os.path.join(OUT, "fig_prefix_words.png"))
    print("wrote out/prefix.json, out/fig_prefix_roofline.png, out/fig_prefix_words.png")
    return 0 if ok_all else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
