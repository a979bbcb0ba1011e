"""`make gls`: the gate-level netlist of ga2_top on Icarus against the same judge as the RTL.

Why: the co-simulations hold the RTL to the model; this holds yosys's netlist of that RTL
(tb/sim/gls.py: generic gates, flattened, the scratchpad and the softmax buffer kept as
memories) to the same reference, and to the RTL itself, in both timing modes.

Per timing mode (chapter 9's chip, tools/ch09: 8192 words of external memory; in-order
and overlap), two program sets run on the RTL and on the netlist, both on Icarus through
tb.hw.run (source sets "rtl" and "gls", the same bench tb/hdl/ga2_tb.v and judge):
  - the five chapter-9 decode steps (tools/ch09/run.py steps/jobs_for: B = 1..4 and the
    ragged batch, each from a seeded garbage scratchpad);
  - --random N seeded random programs (tb/soak.py chunk_programs: randprog's, and in the
    overlap mode every other one built to collide) in one job.
A program matches when the judge passes it on both (memory, trace, the six counters,
host contract, against the reference) AND the netlist's memory, counters, trace, fault
code and pc equal the RTL's. Prints a table (programs, matches, cycles from the counters,
wall seconds of each simulator run including its build when the sources changed) and
writes it to out/gls.txt. Exit 1 on any mismatch, 2 on a bad argument.

  python -m tools.flow.gls [--mode inorder|overlap|both] [--random N] [--seed S] [--no-ch09]
"""
import sys
import time

import numpy as np

from model import config
from tb import ROOT, cli

OUT = ROOT / "out" / "gls.txt"
SIM = "icarus"
MODES = {"inorder": config.CH09, "overlap": config.CH09_OVERLAP}


def ch09_jobs(cfg):
    """The five chapter-9 steps as jobs (one program each), built for cfg's timing mode."""
    from tools.ch09 import run as ch09
    steps = ch09.steps(cfg=cfg)
    return [st[0] for st in steps], ch09.jobs_for(steps)


def random_jobs(seed, n, cfg):
    """n seeded random programs as one job (the soak's chunk 0 of seed `seed`)."""
    from tb import soak
    pairs = soak.chunk_programs(seed, 0, n, cfg)
    return [f"random {i}" for i in range(n)], [pairs]


def differences(rtl, net):
    """'' when the netlist's outcome equals the RTL's (memory, counters, trace, done,
    error, code, pc, timeout), else the first field that differs."""
    if not np.array_equal(np.asarray(rtl.ext), np.asarray(net.ext)):
        bad = np.flatnonzero(np.asarray(rtl.ext) != np.asarray(net.ext))
        return f"ext[{bad[0]}]: rtl {int(rtl.ext[bad[0]])}, netlist {int(net.ext[bad[0]])}"
    for f in ("counters", "done", "error", "error_code", "error_pc", "timeout", "sp_reads"):
        if getattr(rtl, f) != getattr(net, f):
            return f"{f}: rtl {getattr(rtl, f)}, netlist {getattr(net, f)}"
    if list(rtl.trace) != list(net.trace):
        i = next((i for i, (a, b) in enumerate(zip(rtl.trace, net.trace)) if a != b),
                 min(len(rtl.trace), len(net.trace)))
        return f"trace entry {i}: rtl {rtl.trace[i:i + 1]}, netlist {net.trace[i:i + 1]}"
    return ""


def run_set(jobs, cfg, source_set):
    """(flat results, wall seconds) of one simulator run of the jobs."""
    from tb import hw
    t0 = time.perf_counter()
    res = hw.run(SIM, jobs, cfg=cfg, source_set=source_set)
    return [p for job in res for p in job], time.perf_counter() - t0


def compare_set(name, labels, jobs, cfg):
    """One program set on the RTL and on the netlist: a row dict and the problem lines."""
    rtl, t_rtl = run_set(jobs, cfg, "rtl")
    net, t_net = run_set(jobs, cfg, "gls")
    problems = []
    for label, a, b in zip(labels, rtl, net):
        if not a.ok:
            problems.append(f"{cfg.mode} {label}: the RTL fails the judge: {a.mismatch}")
        if not b.ok:
            problems.append(f"{cfg.mode} {label}: the netlist fails the judge: {b.mismatch}")
        d = differences(a, b)
        if d:
            problems.append(f"{cfg.mode} {label}: netlist differs from the RTL: {d}")
    match = sum(a.ok and b.ok and not differences(a, b) for a, b in zip(rtl, net))
    cycles = sum(int(p.counters.cycles) for p in net)
    return {"mode": cfg.mode, "set": name, "programs": len(net), "rtl_ok": sum(p.ok for p in rtl),
            "gls_ok": sum(p.ok for p in net), "match": match, "cycles": cycles,
            "t_rtl": t_rtl, "t_gls": t_net}, problems


def table(rows, header):
    lines = [header, "",
             f"{'mode':<8} {'set':<22} {'programs':>8} {'RTL ok':>7} {'GLS ok':>7} {'GLS = RTL':>9} "
             f"{'cycles':>8} {'RTL s':>7} {'GLS s':>7} {'GLS/RTL':>7}"]
    for r in rows:
        lines.append(f"{r['mode']:<8} {r['set']:<22} {r['programs']:>8} {r['rtl_ok']:>7} {r['gls_ok']:>7} "
                     f"{r['match']:>9} {r['cycles']:>8} {r['t_rtl']:>7.1f} {r['t_gls']:>7.1f} "
                     f"{r['t_gls'] / max(r['t_rtl'], 1e-9):>6.1f}x")
    return lines


def main(argv=None):
    ap = cli.Parser(prog="tools.flow.gls", description=__doc__.split("\n")[0])
    ap.add_argument("--mode", default="both", choices=tuple(MODES) + ("both",))
    ap.add_argument("--random", type=cli.integer(0, 10000), default=20, metavar="N",
                    help="seeded random programs per mode (default 20)")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--no-ch09", action="store_true", help="leave out the chapter-9 programs")
    a = ap.parse_args(argv)
    if a.no_ch09 and a.random == 0:
        return cli.refuse("tools.flow.gls", "--no-ch09 with --random 0 leaves nothing to run")
    from tb.hw import gls
    rows, problems = [], []
    t0 = time.perf_counter()
    modes = tuple(MODES) if a.mode == "both" else (a.mode,)
    for mode in modes:
        cfg = MODES[mode]
        t = time.perf_counter()
        gls.netlist(cfg)
        cells, ffs, mems = gls.cells(cfg)
        print(f"gls: {mode} netlist {gls.build_dir(cfg) / gls.NETLIST}: {cells} cells, {ffs} flip-flops, "
              f"{mems} memories ({time.perf_counter() - t:.1f} s, synthesis only when the RTL changed)",
              flush=True)
        sets = []
        if not a.no_ch09:
            sets.append(("chapter 9",) + ch09_jobs(cfg))
        if a.random:
            sets.append((f"random seed {a.seed}",) + random_jobs(a.seed, a.random, cfg))
        for name, labels, jobs in sets:
            row, probs = compare_set(name, labels, jobs, cfg)
            rows.append(row)
            problems += probs
            print(table([row], "")[-1], flush=True)
    lines = table(rows, f"GA-2 gate-level simulation (make gls; python -m tools.flow.gls --mode {a.mode} "
                        f"--random {a.random} --seed {a.seed}{' --no-ch09' if a.no_ch09 else ''}): "
                        f"the yosys netlist (tb/sim/gls.py) and the RTL, both on Icarus, chapter 9's chip")
    lines += ["", "RTL ok / GLS ok: programs the judge passes (memory, trace, counters, host contract "
                  "against the reference); GLS = RTL: both pass and the netlist's memory, counters, "
                  "trace, fault code and pc equal the RTL's. Wall seconds per simulator run (one "
                  "process per set), on a shared machine.",
              f"total wall {time.perf_counter() - t0:.1f} s"]
    lines += problems
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    for p in problems:
        print(p)
    n = sum(r["programs"] for r in rows)
    m = sum(r["match"] for r in rows)
    print(f"gls: {'OK' if m == n else 'FAIL'} -- {m}/{n} programs match (netlist = RTL = reference); "
          f"wrote {OUT.relative_to(ROOT)}")
    return 0 if m == n else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
