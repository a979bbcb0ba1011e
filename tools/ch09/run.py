"""Chapter 9 on the chip: batching and bandwidth (what `make sim` shows).

1. batch invariance in Python (model.batch.check_batching): problems found;
2. the batched decode steps on the circuit (cocotb via tb/hw.py) on Icarus and/or
   Verilator: B = 1, 2, 3, 4 at token 16 (the model advances them through tokens 1..15
   first) and the ragged batch 3, 9, 1, 14; PASS/FAIL per simulator (memory, trace and all
   six counters equal to the reference, outputs equal to the plain-Python int_reference);
3. per program, from the circuit's counters: cycles, cycles/token, MACs and words (from
   the MM and LD/ST instructions), MAC/word, achieved MAC/cycle, roofline ceiling, % of
   ceiling -- in both timing modes (in-order, and overlap: the same chip with its units
   running concurrently, the same instructions in model/reorder.py's order), side by
   side with the measured overlap speed-up;
4. what batching shares at L = 16 and the intensity limit (derived);
5. a 7B-class model on an assumed 1 TB/s chip (derived).
Sections 1 and 2 run in both modes. Writes out/ch09_run.json with every printed figure
(and the B = 4 step's unit timeline in both modes, from the chip's retire trace), then
draws figures 9.1 to 9.4 and 9.7.
Exit status non-zero on any FAIL. --model-only runs the reference Machine in place of the
circuit and says so on every line that would otherwise be measured.
"""
import json
import os
import sys
import time

from model import batch, config, isa, stalls, timing
from model.machine import Machine
from tb import ROOT, cli
from tb.hw import ToolFault
from tools.ch09 import roofline
from tools.ch09.example_a import MODEL_7B, sci

CFG = batch.CFG                          # chapter 9's chip (8192 words of external memory)
MODES = {"inorder": CFG, "overlap": config.CH09_OVERLAP}   # the two timing modes, same sizes
EXT = CFG.ext_words
SEED = 1
OUT = os.path.join(ROOT, "out")


# ---------------------------------------------------------------- the five steps
def steps(seed=SEED, cfg=CFG):
    """The five batched steps: [(label, seqs, ts, prog, image, ex)], caches filled by the
    model; the programs are built for cfg (its timing mode picks their order)."""
    out = []
    for B in (1, 2, 3, 4):
        ex = batch.make_batch(B, 16, seed)
        P = batch.rq_params(ex)
        seqs = list(range(B))
        img = batch.ext_image(ex)
        m = Machine(CFG)
        for t in range(1, 16):
            img = m.run(batch.program(seqs, [t] * B, P), img).ext
        out.append((f"B={B}", seqs, [16] * B, batch.program(seqs, [16] * B, P, cfg), img, ex))
    ts = list(batch.RAGGED)
    ex = batch.make_batch(len(ts), max(ts), seed)
    P = batch.rq_params(ex)
    img = batch.ext_image(ex)
    m = Machine(CFG)
    for b, T in enumerate(ts):
        for t in range(1, T):
            img = m.run(batch.program([b], [t], P), img).ext
    seqs = list(range(len(ts)))
    out.append(("ragged " + ",".join(map(str, ts)), seqs, ts, batch.program(seqs, ts, P, cfg), img, ex))
    return out


class _ModelResult:
    """What --model-only returns in place of hw.ProgResult (the reference, not the chip)."""

    def __init__(self, res):
        self.ext, self.counters, self.ok, self.mismatch = res.ext, res.counters, True, ""
        self.trace = res.trace


def jobs_for(step_list):
    """One job per step: (program, external image, garbage scratchpad image).

    Every step starts from a scratchpad filled with seeded garbage (batch.garbage_sp), on
    the chip (preloaded by the harness) and on the reference alike, so no row left by an
    earlier program can stand in for a load the builder forgot."""
    return [[(st[3], st[4], batch.garbage_sp(batch.garbage_seed(f"cosim {st[0]}")))] for st in step_list]


def run_on(sim, jobs, model_only, cfg=CFG):
    """Results per job (one program each): the circuit through hw.run, or the Machine."""
    if model_only:
        def ref(p, img, sp):
            m = Machine(cfg)
            m.sp[:] = sp
            return _ModelResult(m.run(p, img))
        return [[ref(*item) for item in job] for job in jobs]
    from tb import hw
    return hw.run(sim, jobs, cfg=cfg)


def check_outputs(step, res):
    """'' when each sequence's output on the circuit equals int_reference, else what differs."""
    label, seqs, ts, _, _, ex = step
    got = batch.outputs(res.ext, seqs)
    bad = [b for b, t in zip(seqs, ts) if got[b] != batch.int_reference(ex, b, t)]
    return "" if not bad else f"{label}: outputs of sequences {bad} differ from int_reference"


# ---------------------------------------------------------------- derived tables
def sharing(L=roofline.L_CHAPTER):
    """Section 4: what batching shares at context L, and intensity against B (derived:
    tools/ch09/roofline.py)."""
    p = roofline.parts(L)
    rows = [{"B": B, "intensity": roofline.intensity(B, L)} for B in (1, 2, 4, 16, 64, 10 ** 6)]
    limit_L = [{"L": LL, "limit": roofline.limit(LL)} for LL in (16, 64, 256, 4096, 65536)]
    return {"L": L, "shared_words": p["shared_words"], "shared_proj_macs_per_seq": p["proj_macs"],
            "per_seq_words": p["seq_words"], "per_seq_attn_macs": p["attn_macs"], "rows": rows,
            "limit": roofline.limit(L), "limit_vs_L": limit_L}


def llm(BW=1e12, params=MODEL_7B["params"], layers=MODEL_7B["layers"], heads=MODEL_7B["heads"],
        head_dim=MODEL_7B["head_dim"], context=4096):
    """Section 5: a 7B-class model on an assumed 1 TB/s chip (derived, nothing measured)."""
    cache_tok = 2 * layers * heads * head_dim            # int8 K and V bytes per token
    cache_req = cache_tok * context
    out = {"BW": BW, "params": params, "cache_bytes_per_token": cache_tok, "context": context,
           "cache_bytes_per_request": cache_req, "limit_tok_s": BW / cache_req, "formats": []}
    for name, bpw in (("fp16", 2.0), ("int8", 1.0), ("int4", 0.5)):
        wb = params * bpw
        out["formats"].append({
            "weights": name, "bytes_per_weight": bpw, "weight_bytes": wb,
            "tok_s": {B: B * BW / (wb + B * cache_req) for B in (1, 4, 16, 64, 256)},
            "batch_cache_equals_weights": wb / cache_req})
    return out


# ---------------------------------------------------------------- printing
def table_rows(step_list, results):
    """Section 3 rows from one simulator's counters (and the programs' instructions)."""
    rows = []
    for st, res in zip(step_list, results):
        label, seqs, ts, prog = st[:4]
        c = res.counters
        macs, words = isa.program_macs(prog), isa.program_words(prog)
        tokens = len(seqs)
        inten = macs / words
        achieved = macs / c.cycles
        ceiling = roofline.ceiling(inten, CFG)
        rows.append({"step": label, "ts": ts, "tokens": tokens, "cycles": int(c.cycles), "mm": int(c.mm),
                     "dma": int(c.dma), "vec": int(c.vec), "instret": int(c.instret),
                     "fetch": int(c.fetch), "inst_share": 4 * int(c.fetch) / words,
                     "cycles_per_token": c.cycles / tokens, "macs": macs, "words": words,
                     "mac_per_word": inten, "mac_per_cycle": achieved, "ceiling": ceiling,
                     "pct_ceiling": 100 * achieved / ceiling,
                     "traffic_formula": batch.traffic(ts)})
    return rows


def print_table(rows, source):
    print(f"  (measured: the {source} counters; MACs and words counted from the MM and LD/ST "
          f"instructions)")
    hdr = (f"  {'step':<16}{'cycles':>7}{'cyc/tok':>9}{'MACs':>7}{'words':>7}{'MAC/word':>9}"
           f"{'MAC/cyc':>8}{'ceiling':>8}{'%ceil':>7}")
    print(hdr)
    for r in rows:
        print(f"  {r['step']:<16}{r['cycles']:>7}{r['cycles_per_token']:>9.1f}{r['macs']:>7}{r['words']:>7}"
              f"{r['mac_per_word']:>9.3f}{r['mac_per_cycle']:>8.3f}{r['ceiling']:>8.3f}"
              f"{r['pct_ceiling']:>6.1f}%")
    print("  counters per step (cycles mm dma vec instret fetch): "
          + "; ".join(f"{r['step']}: {r['cycles']} {r['mm']} {r['dma']} {r['vec']} {r['instret']} {r['fetch']}"
                      for r in rows))
    print("  instruction traffic (fetch x 4 words of 32 bits, read on the instruction port, no cycle of "
          "the step), against the step's data words: "
          + "; ".join(f"{r['step']}: {4 * r['fetch']} = {100 * r['inst_share']:.1f}%" for r in rows))


def print_side_by_side(ino, ovl, source):
    """The two modes per step: cycles, cycles per token, % of the memory ceiling, speed-up."""
    print(f"  (measured: the {source} counters in each mode; the ceiling is the memory's, "
          f"words / cycle at 1 word per cycle)")
    print(f"  {'step':<16}{'words':>7} | {'in-order':>9}{'cyc/tok':>9}{'%ceil':>7} | "
          f"{'overlap':>8}{'cyc/tok':>9}{'%ceil':>7} | {'speed-up':>8}")
    for a, b in zip(ino, ovl):
        print(f"  {a['step']:<16}{a['words']:>7} | {a['cycles']:>9}{a['cycles_per_token']:>9.1f}"
              f"{a['pct_ceiling']:>6.1f}% | {b['cycles']:>8}{b['cycles_per_token']:>9.1f}"
              f"{b['pct_ceiling']:>6.1f}% | {a['cycles'] / b['cycles']:>7.2f}x")


def dma_idle():
    """{step: {cause: cycles}}: where each overlap step's DMA idles (model/stalls.py)."""
    cfg = MODES["overlap"]
    return {st[0]: stalls.idle(st[3], cfg, "dma") for st in steps(cfg=cfg)}


def timeline(step, res, cfg):
    """The unit busy intervals of one step from the chip's retire trace: per retired unit
    instruction [unit, first busy cycle, last busy cycle, op]. Its last busy cycle is its
    retire cycle (measured) and its length the op's busy cycles on cfg (docs/isa.md)."""
    prog = step[3]
    out = []
    for pc, cyc in res.trace:
        ins = prog[pc]
        u = timing.UNIT[ins.op]
        if u is not None:
            out.append([u, int(cyc) - timing.busy_cycles(ins, cfg) + 1, int(cyc), ins.op])
    return out


def main(argv=None):
    ap = cli.Parser(prog="ch09_run", description="chapter 9: batching and bandwidth, on the chip")
    ap.add_argument("--sim", default="both", choices=("icarus", "verilator", "both"))
    ap.add_argument("--model-only", action="store_true",
                    help="run the reference Machine instead of the circuit (nothing measured on the chip)")
    ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--out", default=OUT, type=cli.out_dir)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    sims = ("icarus", "verilator") if a.sim == "both" else (a.sim,)
    if a.model_only:
        sims = ("reference-model",)
    fails, faults = [], []
    data = {"ext": EXT, "seed": SEED, "model_only": a.model_only}

    print("== 1. batch invariance in Python (check_batching), both timing modes ==")
    data["check_batching"] = {}
    for mode, cfg in MODES.items():
        t0 = time.time()
        probs = batch.check_batching(cfg=cfg)
        dt = time.time() - t0
        for p in probs[:10]:
            print("  REFUSED" if isinstance(p, batch.Refused) else "  PROBLEM", p)
        print(f"  {'PASS' if not probs else 'FAIL'} [{mode}]: {len(probs)} problems found "
              f"(batches 1..4, lengths 1, 2, 5, 9, 16, two seeds, ragged 3, 9, 1, 14 and "
              f"{batch.N_RANDOM_RAGGED} random ragged batches; every step from a garbage scratchpad; {dt:.1f} s)")
        data["check_batching"][mode] = {"problems": probs, "seconds": round(dt, 2)}
        if probs:
            fails.append(f"check_batching [{mode}]")

    print("== 2. the batched steps on the circuit, both timing modes ==")
    if a.model_only:
        print("  *** MODEL ONLY: --model-only runs the reference Machine, NOT the circuit; "
              "nothing below is measured on the chip ***")
    data["sims"] = {}
    rows = {}                   # mode -> sim -> table rows
    data["timeline"] = {}
    for mode, cfg in MODES.items():
        step_list = steps(cfg=cfg)
        jobs = jobs_for(step_list)
        rows[mode] = {}
        for sim in sims:
            t0 = time.time()
            key = f"{sim} [{mode}]"
            try:
                res = [job[0] for job in run_on(sim, jobs, a.model_only, cfg)]
            except ToolFault as e:  # nothing is known of the chip: a FAULT, not a FAIL of it
                print(f"  FAULT {key}: {e}")
                faults.append(key)
                data["sims"][key] = {"pass": False, "fault": str(e)}
                continue
            except Exception as e:  # noqa: BLE001 -- a broken simulator is a FAIL line, not a traceback
                print(f"  FAIL {key}: could not run: {type(e).__name__}: {str(e)[:400]}")
                fails.append(key)
                data["sims"][key] = {"pass": False, "error": str(e)[:2000]}
                continue
            wall = time.time() - t0
            issues = [f"{st[0]}: {r.mismatch}" for st, r in zip(step_list, res) if not r.ok]
            issues += [m for m in (check_outputs(st, r) for st, r in zip(step_list, res)) if m]
            cycles = sum(int(r.counters.cycles) for r in res)
            name = "MODEL ONLY (reference Machine, not the circuit)" if a.model_only else sim
            ok = not issues
            good = sum(1 for st, r in zip(step_list, res) if r.ok and not check_outputs(st, r))
            print(f"  {'PASS' if ok else 'FAIL'} {name} [{mode}]: {good}/{len(res)} programs with memory, "
                  f"trace and all six counters equal to the reference and outputs equal to int_reference; "
                  f"total {cycles} cycles (from the {'model' if a.model_only else 'circuit'}'s counters); "
                  f"{wall:.1f} s wall")
            for i in issues[:5]:
                print("    ", i)
            if not ok:
                fails.append(key)
            rows[mode][sim] = table_rows(step_list, res)
            data["sims"][key] = {"pass": ok, "programs": len(res), "total_cycles": cycles, "mode": mode,
                                 "issues": issues, "wall_s": round(wall, 1), "model_only": a.model_only}
            if sim == sims[0]:
                b4 = [i for i, st in enumerate(step_list) if st[0] == "B=4"][0]
                data["timeline"][mode] = {"step": "B=4", "source": name, "cycles": int(res[b4].counters.cycles),
                                          "intervals": timeline(step_list[b4], res[b4], cfg)}
        if len(rows[mode]) == 2:
            a_rows, b_rows = rows[mode]["icarus"], rows[mode]["verilator"]
            same = all(x["cycles"] == y["cycles"] and x["dma"] == y["dma"] for x, y in zip(a_rows, b_rows))
            print(f"  [{mode}] Icarus and Verilator counters {'identical' if same else 'DIFFER'}")
            if not same:
                fails.append(f"simulators disagree [{mode}]")

    print("== 3. per program, from the circuit's counters ==")
    src = None
    for mode in MODES:
        r = next(iter(rows[mode].values()), None)
        if r is None:
            print(f"  [{mode}] (no results: every simulator failed)")
            continue
        src = ("reference Machine's (MODEL ONLY)" if a.model_only else
               f"circuit's ({next(iter(rows[mode]))})")
        print(f"  [{mode}]")
        print_table(r, src)
        data["table" if mode == "inorder" else f"table_{mode}"] = r
        data["table_source"] = src
    ino, ovl = (next(iter(rows[m].values()), None) for m in MODES)
    if ino and ovl:
        print("  the two modes side by side:")
        print_side_by_side(ino, ovl, src)
    data["dma_idle_overlap"] = dma_idle()
    print("  where the overlap mode's DMA idles (the timing model's schedule, model/stalls.py):")
    for name, causes in data["dma_idle_overlap"].items():
        print(f"  {name:<16}{stalls.describe(causes)}")

    sh = sharing()
    print(f"== 4. what batching shares (L = {sh['L']}; derived from the instruction counts) ==")
    print(f"  shared per step: the weights, {sh['shared_words']} words, and the projection MACs "
          f"({sh['shared_proj_macs_per_seq']} per sequence) are done by one matrix product for all")
    print(f"  not shared: {sh['per_seq_words']} words and {sh['per_seq_attn_macs']} attention MACs "
          f"per sequence (its own K and V cache)")
    W, S, PM, AM = sh["shared_words"], sh["per_seq_words"], sh["shared_proj_macs_per_seq"], sh["per_seq_attn_macs"]
    print(f"  derived intensity B*({PM}+{AM})/({W}+{S}B): "
          + ", ".join(f"B={r['B']:g}: {r['intensity']:.3f}" for r in sh["rows"]))
    print(f"  derived limit as B grows: {PM + AM}/{S} = {sh['limit']:.3f} MAC/word "
          f"(ridge point is {roofline.ridge(CFG):g})")
    d2, c0 = 2 * batch.D, batch.DM + batch.D        # per-sequence words at L: d2 L + c0
    print(f"  derived limit against context L, ({PM}+{d2}L)/({d2}L+{c0}): "
          + ", ".join(f"L={r['L']}: {r['limit']:.3f}" for r in sh["limit_vs_L"])
          + "  -> tends to 1 as L grows")
    data["sharing"] = sh

    print("== 5. derived: a 7B-class model on an assumed 1 TB/s chip ==")
    lm = llm()
    m7 = MODEL_7B
    print(f"  assumed: {sci(m7['params'])} weights, int8 KV cache of "
          f"2*{m7['layers']}*{m7['heads']}*{m7['head_dim']} = {lm['cache_bytes_per_token']} bytes "
          f"per token, {lm['context']}-token context = {lm['cache_bytes_per_request'] / 1e9:.2f} GB per request")
    Bs = (1, 4, 16, 64, 256)
    print(f"  {'weights':<8}" + "".join(f"{'B=' + str(B):>10}" for B in Bs) + f"{'cache=weights at B':>21}")
    for f in lm["formats"]:
        print(f"  {f['weights']:<8}" + "".join(f"{f['tok_s'][B]:>10.1f}" for B in Bs)
              + f"{f['batch_cache_equals_weights']:>21.1f}")
    print(f"  (tokens/s, derived) cache-bound limit BW/cache = {lm['limit_tok_s']:.1f} tokens/s")
    data["llm"] = {**lm, "formats": [{**f, "tok_s": {str(k): v for k, v in f["tok_s"].items()}}
                                     for f in lm["formats"]]}

    data["fails"] = fails
    data["faults"] = faults
    path = os.path.join(a.out, "ch09_run.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
    print(f"wrote {path}")
    if not a.no_figures:
        from tools.ch09 import figures as ch09_figures
        for p in ch09_figures.draw_all(path, a.out):
            print(f"wrote {p}")
    verdict = ("FAIL: " + ", ".join(fails) if fails else
               "FAULT (the simulator failed, nothing known of the chip): " + ", ".join(faults) if faults else "PASS")
    print(verdict + (" (MODEL ONLY: the circuit was not run)" if a.model_only else ""))
    return 1 if fails else 4 if faults else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
