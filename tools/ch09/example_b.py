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

The workload is tools/serve/workloads/example_b.json (the one statement of it; make serve
runs the same file on the chip) and both schedules come from the serving engine's
Scheduler (tools/serve/engine.py; static with ride_along: a finished request's slot is
still computed, as this example prices it). The chapter's exercises are options (the
defaults are the chapter's; a bad value is exit 2 and one line naming it):

    python -m tools.ch09_example_b --lens 16,1,1,1,16,1,1,1        # tokens wanted, all at step 0
    python -m tools.ch09_example_b --workload tools/serve/workloads/short.csv --slots 3
"""
import json
import os
import string
import sys

from model import batch, timing
from tb import ROOT, cli
from tools.ch09.cli import int_list
from tools.serve import engine as serving
from tools.serve import workload as serve_workload

# the workload is stated once, in tools/serve/workloads/example_b.json (make serve reads it too)
WORKLOAD_FILE = serve_workload.EXAMPLE_B_FILE
REQUESTS = tuple(serve_workload.EXAMPLE_B)
WANTS = tuple(q.tokens for q in REQUESTS)        # 14, 3, 9, 5, 12, 2, 7, 10 (from the file)
SLOTS = batch.BMAX                               # room for 4: the batched builder's slots
# one character per request in the occupancy rows ("x" and "." are taken)
NAMES = string.ascii_uppercase + string.digits + string.ascii_lowercase.replace("x", "")
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


def requests_of(wants):
    """Requests (the chapter's names A, B, ...; all present at step 0) wanting wants[i] tokens."""
    wants = list(wants)
    if len(wants) > len(NAMES):
        raise ValueError(f"{len(wants)} requests, at most {len(NAMES)} (one letter each in the occupancy rows)")
    return [serve_workload.Request(NAMES[i], w, 0) for i, w in enumerate(wants)]


def plan(policy, requests=REQUESTS, slots=SLOTS):
    """The run of requests in `slots` slots under policy ("static" or "continuous"), by the
    serving engine's Scheduler (tools/serve/engine.py): FIFO admission; static takes a
    group when every slot is empty and runs it until its longest request ends, a finished
    request's slot riding along (ride_along: still computed, its tokens thrown away);
    continuous refills a freed slot before the next step. Chapter 9's layout gives every
    slot one cache region of LMAX rows: a pool of `slots` blocks of LMAX tokens, requests
    of 1..LMAX tokens. ValueError naming a bad request or size."""
    requests = list(requests)
    if len(requests) > len(NAMES):
        raise ValueError(f"{len(requests)} requests, at most {len(NAMES)} (one letter each in the occupancy rows)")
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= batch.BMAX:
        raise ValueError(f"slots={slots!r} outside 1..{batch.BMAX} (the batched builder's slots)")
    return serving.plan(requests, policy, slots, batch.LMAX, slots, max_ctx=batch.LMAX,
                        ride_along=policy == "static")


def steps_of(plan_):
    """A plan's steps as the chapter prices them: per step, [(slot, request, token, useful)]
    in slot order; useful is False for a finished request riding along."""
    out = []
    for st in plan_.steps:
        row = [(j, r, t, True) for j, (r, t, _) in zip(st.slots, st.entries)]
        row += [(j, r, t, False) for j, r, t in st.riding]
        out.append(sorted(row))
    return out


def schedule_static(wants=WANTS, slots=SLOTS):
    """Steps of static batching (every slot riding along): each a list of (slot, request, token, useful)."""
    return steps_of(plan("static", requests_of(wants), slots))


def schedule_continuous(wants=WANTS, slots=SLOTS):
    """Steps of continuous batching: each a list of (slot, request, token, True) for occupied slots."""
    return steps_of(plan("continuous", requests_of(wants), slots))


def price(steps, wants=WANTS, slots=SLOTS, ticks=None, arrivals=None):
    """Costs, totals and completion times of a schedule (every step = the real program's cycles).

    ticks: each step's scheduler tick and arrivals: each request's arrival tick (a
    workload whose requests arrive later); a request's completion time counts from the
    clock at its arrival (the end of the last step before it). Default: all at tick 0."""
    costs, useful_costs, done, occupancy, ends = [], [], {}, [], []
    clock = 0
    for st in steps:
        c = step_cycles([s for s, _, _, _ in st], [t for _, _, t, _ in st])
        useful = [(s, t) for s, _, t, u in st if u]
        cu = step_cycles([s for s, _ in useful], [t for _, t in useful]) if useful else 0
        clock += c
        costs.append(c)
        useful_costs.append(cu)
        ends.append(clock)
        for _s, r, t, u in st:
            if u and t == wants[r]:
                done[r] = clock
        row = ["."] * slots
        for s, r, _t, u in st:
            row[s] = NAMES[r] if u else "x"
        occupancy.append("".join(row))

    def start(r):
        if not arrivals or ticks is None:
            return 0
        before = [e for e, tk in zip(ends, ticks) if tk < arrivals[r]]
        return before[-1] if before else 0
    idle = sum(row.count("x") + row.count(".") for row in occupancy)
    riding = sum(row.count("x") for row in occupancy)
    tokens = sum(wants)
    comp = [done[r] - start(r) for r in range(len(wants))]
    return {"steps": len(steps), "step_cycles": costs, "total_cycles": clock, "tokens": tokens,
            "cycles_per_token": clock / tokens, "completion": comp,
            "mean_completion": sum(comp) / len(comp), "worst_completion": max(comp),
            "occupancy": occupancy, "idle_slot_steps": idle, "riding_slot_steps": riding,
            "cycles_on_riding_slots": clock - sum(useful_costs)}


def run(policy, requests=REQUESTS, slots=SLOTS):
    """plan, steps_of and price of one policy: the priced result."""
    p = plan(policy, requests, slots)
    return price(steps_of(p), [q.tokens for q in p.requests], slots, [st.tick for st in p.steps],
                 [q.arrival for q in p.requests])


def figure(st, co, path, wants=WANTS, slots=SLOTS):
    """Fig 9.6: slots over time (cycles), static above continuous; idle slots highlighted."""
    from tools.ch09.figures import plt, save  # matplotlib on Agg
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
                    ax.text(x + 200, j, f"{ch} ({wants[NAMES.index(ch)]})", va="center", fontsize=8,
                            color="white", weight="bold")
            x += c
        ax.set_yticks(range(slots))
        ax.set_yticklabels([f"slot {j}" for j in range(slots)])
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
    fig.suptitle(f"Fig 9.6  Example B: {len(wants)} requests (tokens wanted in brackets) in {slots} slots, "
                 "static above continuous", fontsize=10)
    return save(fig, path, dpi=100)


def workload(lens=None, path=None):
    """The requests of --lens (a comma-separated list of tokens wanted, all at step 0,
    named A, B, ...) or of --workload (a serving workload file, .json or .csv, whose
    arrivals are kept), else the chapter's (tools/serve/workloads/example_b.json).
    ValueError naming the problem."""
    if lens is not None:
        return requests_of(int_list(lens, "--lens"))
    if path is not None:
        return serve_workload.load_workload(path)[1]
    return list(REQUESTS)


def main(argv=None):
    ap = cli.Parser(prog="ch09_example_b", description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--lens", default=None,
                     help="tokens wanted per request, comma-separated (default: the chapter's "
                          f"{','.join(map(str, WANTS))}, from {WORKLOAD_FILE.name})")
    src.add_argument("--workload", default=None, help="a serving workload file (.json or .csv; tools/serve/workloads/)")
    ap.add_argument("--slots", "--capacity", dest="slots", type=int, default=SLOTS,
                    help=f"batch slots, 1..{batch.BMAX} (default {SLOTS})")
    ap.add_argument("--out", default=os.path.join(ROOT, "out"), type=cli.out_dir)
    a = ap.parse_args(argv)
    if not 1 <= a.slots <= batch.BMAX:
        return cli.refuse(ap.prog, f"--slots {a.slots}: outside 1..{batch.BMAX} (the batched builder's slots)")
    if a.workload == "":
        return cli.refuse(ap.prog, "--workload: an empty path")
    try:
        reqs = workload(a.lens, a.workload)
        st, co = run("static", reqs, a.slots), run("continuous", reqs, a.slots)
    except ValueError as e:
        msg = str(e)
        src = (f"--lens {a.lens!r}" if a.lens is not None else
               f"--workload {a.workload}" if a.workload is not None else "")
        return cli.refuse(ap.prog, msg if not src or msg.startswith(("--lens", "workload ")) else f"{src}: {msg}")
    slots = a.slots
    wants = [q.tokens for q in reqs]
    print("Example B: static vs continuous batching; every step priced with the schedule of the real "
          "batched program (the chip's timing contract; no simulation)")
    at8 = {n: step_cycles(list(range(n)), [8] * n) for n in range(1, slots + 1)}
    print("  step cost at token 8: " + ", ".join(f"{n} seq: {c} cycles ({c / n:.0f}/token)" for n, c in at8.items()))
    print("  requests (tokens wanted): " + ", ".join(
        f"{NAMES[i]}={q.tokens}" if q.id == NAMES[i] else f"{NAMES[i]} ({q.id})={q.tokens}"
        for i, q in enumerate(reqs))
        + ("" if not any(q.arrival for q in reqs) else
           "; arrivals: " + ", ".join(f"{NAMES[i]}@{q.arrival}" for i, q in enumerate(reqs) if q.arrival)))
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
        json.dump({"wants": wants, "slots": slots, "requests": [q._asdict() for q in reqs],
                   "step_cycles_at_token_8": at8, "static": st,
                   "continuous": co, "speedup_total": sp_total, "speedup_mean_completion": sp_mean},
                  f, indent=1)
    print(f"wrote {path}")
    print(f"wrote {figure(st, co, os.path.join(a.out, 'fig9_6_static_vs_continuous.png'), wants, slots)}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
