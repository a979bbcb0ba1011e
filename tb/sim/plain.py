"""The plain Verilog bench (tb/hdl/tb_plain.v, no cocotb): build, run, read back.

build(sim, cfg) compiles it once per content (tb/sim/build.py: build/tb_plain-<sim>-
<cfg.name>/) and returns the command; run(cmd, prog, image, cfg, d, ...) writes the hex
inputs into d, runs the bench (runs > 1: the chip restarted that many times on the same
image, the scratchpad carrying over) and returns a PlainRun. Used by plain_check (the
plain-bench check against the reference) and bench_sim (simulation speed).
"""
import re
import subprocess
import time
from collections import namedtuple
from pathlib import Path

from model import config, isa
from tb import protocol as hexio
from tb.sim.build import HDL_DIR, build_binary

BENCH = HDL_DIR / "tb_plain.v"
TOP = "tb_plain"

PlainRun = namedtuple("PlainRun", "status ext ext_xz trace wall stdout")
PlainRun.__doc__ = """status: one dict per run (done error code pc cycles mm dma vec instret
timeout bad_access xz, ints); ext: signed np.int64 words after the last run (None when
not asked for); ext_xz: indices of ext words holding x/z; trace: [(pc, cycle)] of all
runs; wall: seconds of the simulator call; stdout: its output."""


def build(sim, cfg=None):
    """Compile the plain bench for sim and cfg (once per content); the command to run it."""
    return build_binary(sim, TOP, BENCH, cfg=config.resolve(cfg))


def run(cmd, prog, image, cfg, d, runs=1, max_cycles=2_000_000, trace=True, ext_out=True,
        vcd=None, sp=None):
    """Run prog on image (and the scratchpad image sp, when given) runs times; a PlainRun."""
    cfg = config.resolve(cfg)
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    hexio.write_imem(d / "imem.hex", isa.as_words(prog), cfg.imem_depth)
    hexio.write_mem32(d / "ext_in.hex", _full(image, cfg.ext_words))
    args = [f"+imem={d / 'imem.hex'}", f"+ext_in={d / 'ext_in.hex'}", f"+max_cycles={max_cycles}",
            f"+runs={runs}"]
    if sp is not None:
        hexio.write_mem32(d / "sp_in.hex", _full(sp, cfg.sp_words))
        args.append(f"+sp_in={d / 'sp_in.hex'}")
    for f in ("ext_out.hex", "trace.txt"):
        (d / f).unlink(missing_ok=True)
    if ext_out:
        args.append(f"+ext_out={d / 'ext_out.hex'}")
    if trace:
        args.append(f"+trace={d / 'trace.txt'}")
    if vcd:
        args.append(f"+vcd={vcd}")
    t0 = time.perf_counter()
    p = subprocess.run(cmd + args, capture_output=True, text=True, cwd=d)
    wall = time.perf_counter() - t0
    found = re.findall(r"RESULT (.*)", p.stdout)
    if p.returncode != 0 or len(found) != runs:
        raise RuntimeError(f"{len(found)} RESULT lines from {cmd[0]} for {runs} runs:\n"
                           f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    status = [{k: int(v) for k, v in (kv.split("=") for kv in line.split())} for line in found]
    tr = hexio.read_trace(d / "trace.txt", base=10)[0] if trace else []
    ext, xz = (hexio.parse_mem32((d / "ext_out.hex").read_text(), cfg.ext_words, "ext_out.hex")
               if ext_out else (None, []))
    return PlainRun(status, ext, xz, tr, wall, p.stdout)


def _full(image, words):
    """image zero-padded to words (the bench reads whole memories)."""
    img = [int(v) for v in (image if image is not None else [])]
    if len(img) > words:
        raise ValueError(f"image of {len(img)} words larger than the memory ({words})")
    return img + [0] * (words - len(img))
