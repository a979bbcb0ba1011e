"""The plain Verilog bench (tb/hdl/tb_plain.v, no cocotb): build, run, read back.

build(sim, cfg) compiles it once per content (tb/sim/build.py: build/tb_plain-<sim>-
<cfg.name>/) and returns the command; run(cmd, prog, image, cfg, d, ...) writes the hex
inputs into d (tb/protocol.py), runs the bench (runs > 1: the chip restarted that many
times on the same image, the scratchpad carrying over) and returns a PlainRun;
outcomes(run) puts it in the form the judge takes (tb/judge.py compare's got, as
tb/sim/run.py read_raw gives it), one dict per run. Used by plain_check (the plain-bench
check against the reference) and bench_sim (simulation speed).
"""
import subprocess
import time
from collections import namedtuple
from pathlib import Path

from model import config, isa
from tb import protocol
from tb.judge import MONITORS
from tb.sim.build import build_binary
from tb.sim.files import HDL_DIR

BENCH = HDL_DIR / "tb_plain.v"
TOP = "tb_plain"

PlainRun = namedtuple("PlainRun", "status ext ext_xz trace wall stdout")
PlainRun.__doc__ = """status: one dict per run (done error code pc cycles mm dma vec instret fetch
timeout imem_oob ext_rd_oob ext_wr_oob xz sp_reads mon_<monitor> run_cycles, ints; xz:
cycles with x/z on a control output); ext: signed np.int64 words after the last run (None when not asked
for); ext_xz: indices of ext words holding x/z; trace: [(pc, cycle)] of all runs; wall:
seconds of the simulator call; stdout: its output."""


def build(sim, cfg=None):
    """Compile the plain bench for sim and cfg (once per content); the command to run it."""
    return build_binary(sim, TOP, BENCH, cfg=config.resolve(cfg))


def run(cmd, prog, image, cfg, d, runs=1, max_cycles=2_000_000, trace=True, ext_out=True,
        vcd=None, sp=None):
    """Run prog on image (and the scratchpad image sp, when given) runs times; a PlainRun."""
    cfg = config.resolve(cfg)
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    args = protocol.plain_inputs(d, isa.as_words(prog), cfg.imem_depth, _full(image, cfg.ext_words),
                                 sp=None if sp is None else _full(sp, cfg.sp_words),
                                 trace=trace, ext_out=ext_out)
    args += [f"+max_cycles={max_cycles}", f"+runs={runs}"] + ([f"+vcd={vcd}"] if vcd else [])
    t0 = time.perf_counter()
    p = subprocess.run(cmd + args, capture_output=True, text=True, cwd=d)
    wall = time.perf_counter() - t0
    status = protocol.plain_results(p.stdout)
    if p.returncode != 0 or len(status) != runs:
        raise RuntimeError(f"{len(status)} RESULT lines from {cmd[0]} for {runs} runs:\n"
                           f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    tr, ext, xz = protocol.read_plain(d, cfg.ext_words, trace=trace, ext_out=ext_out)
    return PlainRun(status, ext, xz, tr, wall, p.stdout)


def outcomes(r):
    """A PlainRun as the judge's input, one dict per run (tb/judge.py compare's got).

    The bench writes one trace of all runs: run k's retires are the next instret[k]
    entries (the chip's own count: every retire is one instruction retired, docs/isa.md;
    a chip whose instret and trace disagree shows a counter or a trace mismatch either
    way), the last run's taking whatever is left. It writes the external memory after the
    last run only, so the earlier runs' ext is None (not judged). Its host part is the
    harness's nine per-cycle host-contract monitors of the run and the cycles to done
    (judged as the cocotb wrapper's; the idle-time checks between runs are the cocotb
    wrapper's and the mutation bench's only)."""
    out, pos = [], 0
    for n, st in enumerate(r.status):
        last = n == len(r.status) - 1
        end = len(r.trace) if last else pos + st["instret"]
        xz = ([f"control outputs ({st['xz']} cycles)"] if st["xz"] else []) + \
             ([f"ext[{r.ext_xz[0]}]" + (f" (+{len(r.ext_xz) - 1} more words)" if len(r.ext_xz) > 1 else "")]
              if last and r.ext_xz else [])
        out.append({
            "ext": r.ext if last else None,
            "counters": isa.Counters(*(st[k_] for k_ in isa.Counters._fields)),
            "done": bool(st["done"]), "error": bool(st["error"]), "error_code": st["code"],
            "error_pc": st["pc"], "trace": [tuple(t) for t in r.trace[pos:end]],
            "timeout": bool(st["timeout"]), "xz": ", ".join(xz),
            "oob": {"imem": st["imem_oob"], "ext_rd": st["ext_rd_oob"], "ext_wr": st["ext_wr_oob"]},
            "sp_reads": st["sp_reads"],
            "host": {"mon": {m: st["mon_" + m] for m in MONITORS}, "run_cycles": st["run_cycles"]}})
        pos = end
    return out


def _full(image, words):
    """image zero-padded to words (the bench reads whole memories)."""
    img = [int(v) for v in (image if image is not None else [])]
    if len(img) > words:
        raise ValueError(f"image of {len(img)} words larger than the memory ({words})")
    return img + [0] * (words - len(img))
