"""Chapter 9, running example B: static against continuous batching, priced on GA-2.

Eight requests want 14, 3, 9, 5, 12, 2, 7, 10 tokens; the batch has room for 4 (the
batched builder's slots). A decode step costs the cycle count of the REAL batched program
(model.batch.program) for the sequences present at their current lengths, from
model.timing.schedule (the timing contract the circuit meets exactly; no simulation).

Static: requests are taken in groups of 4 and each group runs until its longest request
finishes; a finished request's slot rides along (it is still computed, its tokens thrown
away): an idle slot. Continuous: a slot freed at the end of a step is refilled at once
from the queue (the new request's first token is in the next step), and a step computes
only the sequences present. A request completes at the end of the step that produces its
last token. Writes out/ch09_example_b.json and figure 9.6.
"""
import argparse
import json
import os
import sys

from tools import ROOT

from tools.ch09 import batch
from model import timing

WANTS = (14, 3, 9, 5, 12, 2, 7, 10)
SLOTS = batch.BMAX
NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_P = None


def step_cycles(seqs, ts):
    """Cycles of the real batched program for sequences seqs (slots) at lengths ts."""
    global _P
    if _P is None:
        _P = batch.rq_params(batch.make_batch(1, 1, 1))   # cycles do not depend on the scales
    s = timing.schedule(batch.program(seqs, ts, _P), batch.CFG)
    if s.fault is not None:
        raise ValueError(f"step {seqs} at {ts}: the batched program faults: {s.fault} {s.reason}")
    return s.cycles


def _check(wants, slots):
    if not 1 <= slots <= batch.BMAX:
        raise ValueError(f"slots={slots} outside 1..{batch.BMAX}")
    for i, w in enumerate(wants):
        if not isinstance(w, int) or not 1 <= w <= batch.LMAX:
            raise ValueError(f"request {i} wants {w!r} tokens, outside 1..{batch.LMAX}")


def schedule_static(wants=WANTS, slots=SLOTS):
    """Steps of static batching: each a list of (slot, request, token, useful)."""
    _check(wants, slots)
    steps = []
    for g in range(0, len(wants), slots):
        group = list(range(g, min(g + slots, len(wants))))
        for t in range(1, max(wants[r] for r in group) + 1):
            steps.append([(j, r, t, t <= wants[r]) for j, r in enumerate(group)])
    return steps


def schedule_continuous(wants=WANTS, slots=SLOTS):
    """Steps of continuous batching: each a list of (slot, request, token, True) for occupied slots."""
    _check(wants, slots)
    queue = list(range(len(wants)))
    occ = [None] * slots                    # slot -> [request, next token]
    steps = []
    while True:
        for j in range(slots):
            if occ[j] is None and queue:
                occ[j] = [queue.pop(0), 1]
        if all(o is None for o in occ):
            return steps
        steps.append([(j, o[0], o[1], True) for j, o in enumerate(occ) if o is not None])
        for j, o in enumerate(occ):
            if o is not None:
                if o[1] == wants[o[0]]:
                    occ[j] = None
                else:
                    o[1] += 1


def price(steps, wants=WANTS, slots=SLOTS):
    """Costs, totals and completion times of a schedule (every step = the real program's cycles)."""
    costs, useful_costs, done, occupancy = [], [], {}, []
    clock = 0
    for st in steps:
        c = step_cycles([s for s, _, _, _ in st], [t for _, _, t, _ in st])
        useful = [(s, t) for s, _, t, u in st if u]
        cu = step_cycles([s for s, _ in useful], [t for _, t in useful]) if useful else 0
        clock += c
        costs.append(c)
        useful_costs.append(cu)
        for s, r, t, u in st:
            if u and t == wants[r]:
                done[r] = clock
        row = ["."] * slots
        for s, r, t, u in st:
            row[s] = NAMES[r] if u else "x"
        occupancy.append("".join(row))
    idle = sum(row.count("x") + row.count(".") for row in occupancy)
    riding = sum(row.count("x") for row in occupancy)
    tokens = sum(wants)
    comp = [done[r] for r in range(len(wants))]
    return {"steps": len(steps), "step_cycles": costs, "total_cycles": clock, "tokens": tokens,
            "cycles_per_token": clock / tokens, "completion": comp,
            "mean_completion": sum(comp) / len(comp), "worst_completion": max(comp),
            "occupancy": occupancy, "idle_slot_steps": idle, "riding_slot_steps": riding,
            "cycles_on_riding_slots": clock - sum(useful_costs)}


def figure(st, co, path):
    """Fig 9.6: slots over time (cycles), static above continuous; idle slots highlighted."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cmap = plt.cm.tab10
    fig, axes = plt.subplots(2, 1, figsize=(11, 5.2), sharex=True)
    for ax, res, name in ((axes[0], st, "static"), (axes[1], co, "continuous")):
        x = 0
        for c, row in zip(res["step_cycles"], res["occupancy"]):
            for j, ch in enumerate(row):
                if ch == "x":
                    ax.barh(j, c, left=x, color="red", alpha=0.35, hatch="//", ec="darkred", lw=0.3)
                elif ch == ".":
                    ax.barh(j, c, left=x, color="lightgrey", alpha=0.6, hatch="..", ec="grey", lw=0.3)
                else:
                    r = NAMES.index(ch)
                    ax.barh(j, c, left=x, color=cmap(r % 10), ec="white", lw=0.3)
            x += c
        # label each request once, at its first step
        seen = set()
        x = 0
        for c, row in zip(res["step_cycles"], res["occupancy"]):
            for j, ch in enumerate(row):
                if ch not in ".x" and ch not in seen:
                    seen.add(ch)
                    ax.text(x + 200, j, f"{ch} ({WANTS[NAMES.index(ch)]})", va="center", fontsize=8,
                            color="white", weight="bold")
            x += c
        ax.set_yticks(range(SLOTS))
        ax.set_yticklabels([f"slot {j}" for j in range(SLOTS)])
        ax.invert_yaxis()
        ax.set_title(f"{name}: {res['total_cycles']} cycles, {res['idle_slot_steps']} idle slot-steps, "
                     f"mean completion {res['mean_completion']:.0f} cycles", fontsize=9)
    axes[1].set_xlabel("time (cycles of the real batched programs, from their schedule)")
    from matplotlib.patches import Patch
    handles = [Patch(facecolor="red", alpha=0.35, hatch="//", edgecolor="darkred",
                     label="idle: finished request riding along (computed, wasted)"),
               Patch(facecolor="lightgrey", alpha=0.6, hatch="..", edgecolor="grey",
                     label="idle: empty slot (queue empty, not computed)")]
    axes[1].legend(handles=handles, fontsize=8, loc="center right")
    fig.suptitle("Fig 9.6  Example B: 8 requests (tokens wanted in brackets) in 4 slots, "
                 "static above continuous", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "out"))
    a = ap.parse_args(argv)
    print("Example B: static vs continuous batching; every step priced with the schedule of the real "
          "batched program (the chip's timing contract; no simulation)")
    at8 = {n: step_cycles(list(range(n)), [8] * n) for n in range(1, SLOTS + 1)}
    print("  step cost at token 8: " + ", ".join(f"{n} seq: {c} cycles ({c / n:.0f}/token)" for n, c in at8.items()))
    st, co = price(schedule_static()), price(schedule_continuous())
    print(f"  requests (tokens wanted): " + ", ".join(f"{NAMES[i]}={w}" for i, w in enumerate(WANTS)))
    for name, r in (("static", st), ("continuous", co)):
        print(f"  {name:<11} steps {r['steps']:>3}  total {r['total_cycles']:>6} cycles  "
              f"{r['cycles_per_token']:.0f} cycles/token  mean completion {r['mean_completion']:.0f}  "
              f"worst {r['worst_completion']}  idle slot-steps {r['idle_slot_steps']}")
    sp_total = st["total_cycles"] / co["total_cycles"]
    sp_mean = st["mean_completion"] / co["mean_completion"]
    print(f"  speed-up of continuous: x{sp_total:.2f} in total time (throughput), "
          f"x{sp_mean:.2f} in mean completion time (latency)")
    print(f"  static wasted {st['riding_slot_steps']} slot-steps on finished requests riding along, "
          f"costing {st['cycles_on_riding_slots']} cycles")
    print("  slot occupancy per step (letter = request, x = finished request riding along, . = empty):")
    for name, r in (("static", st), ("continuous", co)):
        print(f"  {name:<11} " + " ".join(r["occupancy"]))
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "ch09_example_b.json")
    with open(path, "w") as f:
        json.dump({"wants": WANTS, "slots": SLOTS, "step_cycles_at_token_8": at8, "static": st,
                   "continuous": co, "speedup_total": sp_total, "speedup_mean_completion": sp_mean},
                  f, indent=1)
    print(f"wrote {path}")
    print(f"wrote {figure(st, co, os.path.join(a.out, 'fig9_6_static_vs_continuous.png'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
