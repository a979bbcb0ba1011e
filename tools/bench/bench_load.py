"""How fast each simulator loads the external and the instruction memory from the host's
files (issue 37: a bulk load of at least 10M words a second, never a word at a time).

The cocotb wrapper (tb/hdl/ga2_tb.v) loads, before each program, its instruction memory
(cleared, then the host's file, padded to the memory's depth) and, when the host gives
one, its external memory (tb/protocol.py writes both files). CPU seconds of the simulator
process, by difference, so the start-up and the per-program work cancel:
  ext:  --loads + 1 HALT programs that each load a random --ext-words image, against the
        same programs of which only the first loads it (the others keep the memory:
        KEEP_EXT); both write the memory back after each program, so what is left is
        --loads loads;
  imem: --loads + 1 HALT programs against one, on a chip of --imem-depth instructions,
        less the same on the default chip (1,024 instructions: what a program costs
        besides its load), over the words in between.
Words per second = the memory's words / (seconds per load). The host's time to write the
files is printed too (this process's CPU seconds, one file of each).

  python -m tools.bench.bench_load [--sim icarus|verilator|both] [--ext-words N]
                                   [--imem-depth N] [--loads K]

Exit 1 when a HALT program differs from the reference, 4 when a simulator itself failed.
"""
import sys
import tempfile
import time
from pathlib import Path

from model import config, isa
from tb import cli, hw, protocol


def _cpu_of(sim, pairs, cfg):
    """CPU seconds of the one simulator process that runs pairs (all must pass)."""
    with hw.simulator_calls() as calls:
        res = hw.run_programs(sim, pairs, cfg=cfg)
    bad = [r for r in res if not r.ok]
    if bad:
        raise RuntimeError(f"{sim}: a HALT program differs from the reference: {bad[0].mismatch}")
    return calls[0][1]


def ext_speed(sim, ext_words, loads, seed=1):
    """(seconds per load of an ext_words image, words per second)."""
    import numpy as np
    cfg = config.DEFAULT.replace(ext_words=ext_words)
    img = np.random.default_rng(seed).integers(-(1 << 31), 1 << 31, ext_words, dtype=np.int64)
    halt = [isa.build("HALT", cfg=cfg)]
    every = _cpu_of(sim, [(halt, img)] * (loads + 1), cfg)
    first = _cpu_of(sim, [(halt, img)] + [(halt, hw.KEEP_EXT)] * loads, cfg)
    per = max(every - first, 1e-9) / loads
    return per, ext_words / per


def imem_speed(sim, depth, loads):
    """(seconds per load of a depth-word instruction memory, words per second): the
    difference of --loads + 1 HALT programs and one, less the same difference on the
    default chip (its 1,024-word memory: the per-program work that is not the load)."""
    base = config.DEFAULT.imem_depth
    if depth <= base:
        raise ValueError(f"--imem-depth must exceed the default chip's {base}")
    per = []
    for d in (depth, base):
        cfg = config.DEFAULT.replace(imem_depth=d)
        halt = [isa.build("HALT", cfg=cfg)]
        many = _cpu_of(sim, [(halt, None)] * (loads + 1), cfg)
        one = _cpu_of(sim, [(halt, None)], cfg)
        per.append((many - one) / loads)
    sec = max(per[0] - per[1], 1e-9)
    return sec, (depth - base) / sec


def host_write(ext_words, depth):
    """CPU seconds of the host's writes (tb/protocol.py write_program: binary images) of an
    ext_words image and of a depth-word instruction memory (a HALT and zeros)."""
    import numpy as np
    img = np.random.default_rng(1).integers(-(1 << 31), 1 << 31, ext_words, dtype=np.int64)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.process_time()
        protocol.write_bin(Path(d) / "ext", img, 32)
        t1 = time.process_time()
        protocol.write_bin(Path(d) / "imem", [1], 128, depth)
        return t1 - t0, time.process_time() - t1


def main(argv=None):
    ap = cli.Parser(prog="tools.bench.bench_load", description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="both", choices=hw.SIMS + ("both",))
    ap.add_argument("--ext-words", type=cli.integer(1, 1 << config.EXT_ADDR_W), default=1 << 22,
                    help="external memory words (default 2^22)")
    ap.add_argument("--imem-depth", type=cli.integer(config.DEFAULT.imem_depth + 1, config.IMEM_MAX), default=1 << 18,
                    help="instruction memory depth (default 2^18)")
    ap.add_argument("--loads", type=cli.integer(1, 20), default=2,
                    help="extra loads timed per memory and simulator (default 2)")
    a = ap.parse_args(argv)
    sims = hw.SIMS if a.sim == "both" else (a.sim,)
    ext_s, imem_s = host_write(a.ext_words, a.imem_depth)
    print(f"host: writes {a.ext_words:,} ext words in {ext_s:.2f} s CPU, {a.imem_depth:,} instruction "
          f"words in {imem_s:.2f} s CPU (tb/protocol.py)")
    for sim in sims:
        try:
            per, rate = ext_speed(sim, a.ext_words, a.loads)
            print(f"{sim}: loads the external memory ({a.ext_words:,} words of 32 bits) in {per:.3f} s CPU: "
                  f"{rate:,.0f} words/s")
            per, rate = imem_speed(sim, a.imem_depth, a.loads)
            print(f"{sim}: loads the instruction memory ({a.imem_depth:,} words of 128 bits) in {per:.3f} s "
                  f"CPU: {rate:,.0f} words/s")
        except hw.ToolFault as e:
            print(f"FAULT {sim}: {e}")
            return 4
        except RuntimeError as e:
            print(f"FAIL {e}")
            return 1
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
