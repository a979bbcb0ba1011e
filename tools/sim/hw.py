"""The one entry point to the GA-2 chip in simulation (Icarus or Verilator, via cocotb).

build(sim, ...) compiles rtl/ga2.f + tb/chip/ga2_tb.v once per parameter set into
build/<sim>-ext<EXT>[-waves]/ (a content stamp makes it cheap when up to date; a file
lock makes concurrent pytest-xdist workers safe). run(sim, jobs, ...) runs all programs
of all jobs in ONE simulator process (the cocotb module tb/chip/ga2_job.py) and returns,
per program, a ProgResult holding what the chip did and the reference's prediction from
ONE model.machine.Machine run in the same order (the scratchpad carries over between
programs on both). compare() is the comparison used in cocotb and here, so a perturbed
reference can be checked to fail.

CLI: python tools/sim/hw.py --sim icarus|verilator|both --demo
"""
import argparse
import contextlib
import fcntl
import hashlib
import os
import pickle
import shutil
import sys
import time
import uuid
from collections import namedtuple
from pathlib import Path

import numpy as np

from tools import ROOT  # noqa: E402
from tools.sim.files import rtl_files  # noqa: E402

from model import config, isa  # noqa: E402
from model.machine import GA2Error, Machine, Result  # noqa: E402

TB_DIR = ROOT / "tb"
SIMS = ("icarus", "verilator")
TOPLEVEL = "ga2_tb"
JOB_MODULE = "ga2_job"
VERILATOR_ARGS = ["--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "unique",
                  "--x-initial", "unique", "-O3"]

ProgResult = namedtuple(
    "ProgResult",
    "ext counters done error error_code error_pc trace timeout ref ok mismatch xz oob")
ProgResult.__doc__ = """One program's outcome on the chip next to the reference's prediction.

ext: np.int64 array (signed words); counters: isa.Counters; done/error: bool;
error_code/error_pc: int; trace: [(pc, cycle)]; timeout: bool; ref: Result or GA2Error;
ok: everything equal and no X/Z; mismatch: '' or the first divergence, in words;
xz: '' or where the chip produced x/z; oob: dict of out-of-range memory accesses."""


# ------------------------------------------------------------------ helpers
def available_sims():
    """The simulators whose executables are on PATH."""
    out = []
    if shutil.which("iverilog") and shutil.which("vvp"):
        out.append("icarus")
    if shutil.which("verilator"):
        out.append("verilator")
    return out


def _check_sim(sim):
    if sim not in SIMS:
        raise ValueError(f"sim must be one of {', '.join(SIMS)}, got {sim!r}")


def default_build_dir(sim, cfg, waves=False):
    """build/<sim>-<config name>[-waves]: one directory per parameter set."""
    return ROOT / "build" / f"{sim}-{cfg.name}{'-waves' if waves else ''}"


def cfg_parameters(cfg):
    """The wrapper's (and ga2_top's) parameters for cfg."""
    return {"EXT_WORDS": cfg.ext_words, "SP_WORDS": cfg.sp_words, "IMEM_DEPTH": cfg.imem_depth}


@contextlib.contextmanager
def _fds_to(path):
    """Send this process's stdout/stderr (and its children's) to path for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    with open(path, "ab") as f:
        saved = os.dup(1), os.dup(2)
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


@contextlib.contextmanager
def _locked(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _tail(path, n=40):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


def _runner(sim, public=False):
    """cocotb's runner for sim; for Verilator without the global --public-flat-rw.

    cocotb 1.8.1 always adds --public-flat-rw, which makes every signal VPI-visible and
    costs Verilator most of its optimisation (about 5x here). The wrapper marks the only
    signals Python touches (req, ack, tb_busy) public itself, so the flag is dropped.
    GA2_PUBLIC=1 keeps it (e.g. to look at internal signals from cocotb).
    """
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from cocotb import runner as cr
    if sim != "verilator" or public:
        return cr.get_runner(sim)

    class _Verilator(cr.Verilator):
        def _build_command(self):
            cmds = super()._build_command()
            cmds[0] = [c for c in cmds[0] if c != "--public-flat-rw"]
            return cmds
    return _Verilator()


# ------------------------------------------------------------------ build
def sources(rtl_dir=None, top_tb=TB_DIR / "chip" / "ga2_tb.v"):
    """The RTL source list (rtl/ga2.f) plus the wrapper."""
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    rtl = rtl_files(rtl_dir)
    if not any(p.name == "ga2_top.v" for p in rtl):
        raise FileNotFoundError(f"no ga2_top.v in {rtl_dir}")
    return rtl + [Path(top_tb)]


def build(sim, cfg=None, rtl_dir=None, build_dir=None, waves=False, toplevel=TOPLEVEL,
          srcs=None, parameters=None, public=None):
    """Build the simulation of the chip in its wrapper; returns the build directory.

    Idempotent: a stamp of the sources' contents, the parameters and the build arguments
    lets a second call return at once; concurrent calls serialise on a file lock.
    srcs/toplevel/parameters let the unit-test wrappers reuse this for other toplevels;
    public (default: only for other toplevels, or GA2_PUBLIC=1) keeps cocotb's
    --public-flat-rw on Verilator.
    """
    _check_sim(sim)
    cfg = config.resolve(cfg)
    rtl_dir = Path(rtl_dir) if rtl_dir else ROOT / "rtl"
    bdir = Path(build_dir) if build_dir else default_build_dir(sim, cfg, waves)
    bdir = bdir.resolve()
    srcs = [Path(s).resolve() for s in (srcs if srcs is not None else sources(rtl_dir))]
    params = cfg_parameters(cfg) if parameters is None else dict(parameters)
    args = list(VERILATOR_ARGS) if sim == "verilator" else []
    if sim == "verilator" and waves:
        args += ["--trace", "--trace-structs"]
    if sim == "icarus":
        args += ["-Wimplicit"]
    if public is None:
        public = toplevel != TOPLEVEL or os.environ.get("GA2_PUBLIC", "") not in ("", "0")
    h = hashlib.sha256(repr((sim, toplevel, sorted(params.items()), args, str(rtl_dir), public)).encode())
    for p in srcs + sorted(rtl_dir.glob("*.vh")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    digest = h.hexdigest()
    stamp = bdir / "build.stamp"
    binary = bdir / ("sim.vvp" if sim == "icarus" else toplevel)
    if stamp.exists() and binary.exists() and stamp.read_text() == digest:
        return bdir
    with _locked(bdir.parent / f".{bdir.name}.lock"):
        if stamp.exists() and binary.exists() and stamp.read_text() == digest:
            return bdir
        bdir.mkdir(parents=True, exist_ok=True)
        if stamp.exists():
            stamp.unlink()
        log = bdir / "build.log"
        log.write_text("")
        r = _runner(sim, public)
        t0 = time.time()
        try:
            with _fds_to(log):
                r.build(verilog_sources=[str(s) for s in srcs], includes=[str(rtl_dir)],
                        parameters=params, build_args=args, hdl_toplevel=toplevel,
                        build_dir=str(bdir), always=True)
        except SystemExit as e:
            raise RuntimeError(f"{sim} build failed ({e}); log {log}:\n{_tail(log)}") from None
        if not binary.exists():
            raise RuntimeError(f"{sim} build made no {binary}; log {log}:\n{_tail(log)}")
        stamp.write_text(digest)
        with open(log, "a") as f:
            f.write(f"\nbuild time {time.time() - t0:.1f} s\n")
    return bdir


# ------------------------------------------------------------------ raw results and comparison
def write_hex_inputs(run_dir, words, image, imem_depth):
    """imem.hex (one 128-bit word per line) and ext_in.hex (32-bit words, two's complement)."""
    if len(words) > imem_depth:
        raise ValueError(f"program of {len(words)} instructions exceeds instruction memory ({imem_depth})")
    # full depth (zero words after the program): no short-file warnings from $readmemh
    text = "".join(f"{w:032x}\n" for w in words) + ("0" * 32 + "\n") * (imem_depth - len(words))
    Path(run_dir, "imem.hex").write_text(text)
    img = (np.asarray(image, dtype=np.int64) & 0xFFFFFFFF).tolist()
    Path(run_dir, "ext_in.hex").write_text("\n".join(map("{:08x}".format, img)) + "\n")


def _hexint(tok):
    """int of a hex token; None when it holds x or z."""
    t = tok.lower()
    if any(c in t for c in "xz"):
        return None
    return int(t, 16)


_NIBBLE = np.full(256, -1, dtype=np.int64)
for _i, _c in enumerate("0123456789abcdef"):
    _NIBBLE[ord(_c)] = _i
    _NIBBLE[ord(_c.upper())] = _i


def parse_ext_hex(text, ext_words):
    """($writememh text of 32-bit words) -> (signed np.int64 array, [indices holding x/z]).

    Vectorised: comment lines (Icarus writes '// 0x...' address comments) are dropped,
    then each 8-digit line is decoded through a nibble table.
    """
    lines = [ln for ln in text.split("\n") if ln and not ln.startswith("//") and not ln.startswith("@")]
    if len(lines) != ext_words:
        raise RuntimeError(f"ext_out.hex has {len(lines)} words, expected {ext_words}")
    if any(len(ln) != 8 for ln in lines):
        raise RuntimeError("ext_out.hex: a line is not 8 hex digits")
    raw = np.frombuffer("".join(lines).encode("ascii"), dtype=np.uint8).reshape(ext_words, 8)
    nib = _NIBBLE[raw]
    bad = np.nonzero((nib < 0).any(axis=1))[0]
    nib = np.where(nib < 0, 0, nib)
    val = np.zeros(ext_words, dtype=np.int64)
    for k in range(8):
        val = (val << 4) | nib[:, k]
    return ((val ^ 0x80000000) - 0x80000000), [int(i) for i in bad]


def read_raw(run_dir, ext_words):
    """Parse status.txt, trace.txt and ext_out.hex written by the wrapper into a dict."""
    run_dir = Path(run_dir)
    toks = run_dir.joinpath("status.txt").read_text().split()
    st = dict(zip(toks[0::2], toks[1::2]))
    xz = [k for k, v in st.items() if _hexint(v) is None]
    val = {k: (_hexint(v) or 0) for k, v in st.items()}
    trace, bad_trace = [], 0
    for line in run_dir.joinpath("trace.txt").read_text().split("\n"):
        if line.strip():
            a, b = line.split()
            pa, pb = _hexint(a), _hexint(b)
            if pa is None or pb is None:
                bad_trace += 1
            trace.append((pa or 0, pb or 0))
    if bad_trace:
        xz.append(f"trace ({bad_trace} entries)")
    ext, xz_ext = parse_ext_hex(run_dir.joinpath("ext_out.hex").read_text(), ext_words)
    if xz_ext:
        xz.append(f"ext[{xz_ext[0]}]" + (f" (+{len(xz_ext) - 1} more words)" if len(xz_ext) > 1 else ""))
    return {
        "ext": ext,
        "counters": isa.Counters(val["cycles"], val["mm"], val["dma"], val["vec"], val["instret"]),
        "done": bool(val["done"]), "error": bool(val["error"]), "error_code": val["code"],
        "error_pc": val["pc"], "trace": trace, "timeout": bool(val["timeout"]),
        "xz": ", ".join(xz),
        "oob": {"imem": val["imem_oob"], "ext_rd": val["ext_rd_oob"], "ext_wr": val["ext_wr_oob"],
                "xz_events": val["xz"]},
        "wall": val["wall"],
    }


def expected(ref):
    """What the chip must show for a reference outcome (Result or GA2Error)."""
    if isinstance(ref, GA2Error):
        return {"ext": ref.ext, "counters": ref.counters, "error": True, "error_code": ref.code,
                "error_pc": ref.pc, "trace": list(ref.trace)}
    return {"ext": ref.ext, "counters": ref.counters, "error": False, "error_code": 0,
            "error_pc": None, "trace": list(ref.trace)}


def compare(ref, got):
    """'' when the chip's raw outcome `got` equals the reference `ref`, else the divergences.

    The first divergence in time comes first: the retire trace, then error/done, the
    counters and the external memory. got is read_raw()'s dict or a ProgResult.
    """
    if isinstance(got, ProgResult):
        got = got._asdict()
    exp = expected(ref)
    issues = []
    if got["timeout"]:
        issues.append(f"timeout: done never rose (retired {len(got['trace'])} instructions, "
                      f"last pc {got['trace'][-1][0] if got['trace'] else '-'})")
    if got.get("xz"):
        issues.append(f"x/z on the chip: {got['xz']}")
    t_chip, t_ref = list(got["trace"]), exp["trace"]
    for n, (c, r) in enumerate(zip(t_chip, t_ref)):
        if c != r:
            if c[0] != r[0]:
                issues.append(f"retire #{n}: pc {c[0]} retired at cycle {c[1]} on the chip, "
                              f"the model retired pc {r[0]} at cycle {r[1]}")
            else:
                issues.append(f"pc {c[0]} retired at cycle {c[1]} on the chip, {r[1]} in the model")
            break
    else:
        if len(t_chip) > len(t_ref):
            pc, cyc = t_chip[len(t_ref)]
            issues.append(f"the chip retired {len(t_chip)} instructions, the model {len(t_ref)} "
                          f"(extra: pc {pc} at cycle {cyc})")
        elif len(t_chip) < len(t_ref):
            pc, cyc = t_ref[len(t_chip)]
            issues.append(f"the chip retired {len(t_chip)} instructions, the model {len(t_ref)} "
                          f"(missing: pc {pc} at cycle {cyc})")
    if not got["done"] and not got["timeout"]:
        issues.append("done is low after the run")
    if got["error"] != exp["error"]:
        issues.append(f"error {int(got['error'])} vs {int(exp['error'])}"
                      + (f" (model: code {exp['error_code']} at pc {exp['error_pc']})" if exp["error"] else
                         f" (chip: code {got['error_code']} at pc {got['error_pc']})"))
    elif exp["error"]:
        if got["error_code"] != exp["error_code"]:
            issues.append(f"error code {got['error_code']} vs {exp['error_code']}")
        if got["error_pc"] != exp["error_pc"]:
            issues.append(f"error pc {got['error_pc']} vs {exp['error_pc']}")
    elif got["error_code"] != 0:
        issues.append(f"error code {got['error_code']} without error")
    for name, c, r in zip(isa.Counters._fields, got["counters"], exp["counters"]):
        if int(c) != int(r):
            issues.append(f"counter {name} {c} vs {r}")
    gext, rext = np.asarray(got["ext"], dtype=np.int64), np.asarray(exp["ext"], dtype=np.int64)
    if gext.shape != rext.shape:
        issues.append(f"ext size {gext.size} vs {rext.size}")
    else:
        diff = np.nonzero(gext != rext)[0]
        if diff.size:
            i = int(diff[0])
            issues.append(f"ext[{i}] = {gext[i]} vs {rext[i]}"
                          + (f" ({diff.size} words differ)" if diff.size > 1 else ""))
    oob = got.get("oob") or {}
    if oob.get("ext_wr"):
        issues.append(f"{oob['ext_wr']} ext writes outside the memory")
    if not issues:
        return ""
    more = f" (+{len(issues) - 3} more)" if len(issues) > 3 else ""
    return "; ".join(issues[:3]) + more


def reference(machine, words, image):
    """The reference outcome of one program on machine: Result or GA2Error."""
    try:
        return machine.run(words, image)
    except GA2Error as e:
        return e


def make_result(raw, ref):
    mism = compare(ref, raw)
    return ProgResult(ext=raw["ext"], counters=raw["counters"], done=raw["done"], error=raw["error"],
                      error_code=raw["error_code"], error_pc=raw["error_pc"], trace=raw["trace"],
                      timeout=raw["timeout"], ref=ref, ok=(mism == ""), mismatch=mism,
                      xz=raw["xz"], oob=raw["oob"])


def ref_to_record(ref):
    """A picklable form of a reference outcome (GA2Error does not unpickle by itself)."""
    if isinstance(ref, GA2Error):
        return ("error", ref.code, ref.pc, ref.ext, ref.sp, ref.counters, list(ref.trace), str(ref))
    return ("ok", ref.ext, ref.sp, ref.counters, list(ref.trace))


def ref_from_record(rec):
    if rec[0] == "error":
        _, code, pc, ext, sp, counters, trace, msg = rec
        e = GA2Error(code, pc, ext, sp, counters, trace)
        e.args = (msg,)
        return e
    _, ext, sp, counters, trace = rec
    return Result(ext, sp, counters, trace)


# ------------------------------------------------------------------ run
def _prepare_jobs(jobs, cfg):
    ext, depth = cfg.ext_words, cfg.imem_depth
    out = []
    if not isinstance(jobs, (list, tuple)):
        raise ValueError("jobs must be a list of jobs (each a list of (prog, image) pairs)")
    for j, job in enumerate(jobs):
        pj = []
        for p, pair in enumerate(job):
            try:
                prog, image = pair
            except (TypeError, ValueError):
                raise ValueError(f"job {j} item {p}: expected (prog, image), got {type(pair).__name__}") from None
            words = [int(w) for w in isa.as_words(prog)]
            if len(words) > depth:
                raise ValueError(f"job {j} program {p}: {len(words)} instructions exceed "
                                 f"the instruction memory ({depth})")
            img = np.zeros(ext, dtype=np.int64)
            data = np.asarray(image if image is not None else [], dtype=np.int64).ravel()
            if data.size > ext:
                raise ValueError(f"job {j} program {p}: image of {data.size} words larger than "
                                 f"external memory ({ext})")
            img[:data.size] = ((data & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
            pj.append((words, img))
        out.append(pj)
    return out


def run(sim, jobs, cfg=None, rtl_dir=None, build_dir=None, max_cycles=200000, waves=False,
        keep=None):
    """Run every program of every job in one simulator process; list of lists of ProgResult.

    The reference is one Machine for the whole call, run in the same order. Each call gets
    its own run directory under the build dir (kept when something failed, when waves are
    on, or with keep=True / GA2_KEEP_RUNS=1; removed otherwise).
    """
    _check_sim(sim)
    cfg = config.resolve(cfg)
    if int(max_cycles) < 1:
        raise ValueError(f"max_cycles must be >= 1, got {max_cycles}")
    waves = waves or os.environ.get("WAVES", "") not in ("", "0")
    prepared = _prepare_jobs(jobs, cfg)
    bdir = build(sim, cfg=cfg, rtl_dir=rtl_dir, build_dir=build_dir, waves=waves)
    run_dir = bdir / "runs" / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    run_dir.mkdir(parents=True)
    job_file = run_dir / "job.pkl"
    with open(job_file, "wb") as f:
        pickle.dump({"cfg": cfg, "jobs": prepared}, f, protocol=pickle.HIGHEST_PROTOCOL)
    for p in (str(TB_DIR / "chip"), str(ROOT)):
        if p not in sys.path:
            sys.path.insert(0, p)
    plusargs = [f"+max_cycles={int(max_cycles)}"]
    if waves and sim == "icarus":
        plusargs.append("+waves")
    r = _runner(sim)       # test() does not depend on the build flags
    log = run_dir / "sim.log"
    failed = None
    with _fds_to(log):
        try:
            r.test(test_module=JOB_MODULE, hdl_toplevel=TOPLEVEL, hdl_toplevel_lang="verilog",
                   build_dir=str(bdir), test_dir=str(run_dir), plusargs=plusargs,
                   extra_env={"GA2_JOB": str(job_file),
                              "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
        except SystemExit as e:   # a failing cocotb test under pytest; results are still on disk
            failed = str(e)
    if waves:
        for vcd in sorted(run_dir.glob("*.vcd")):
            print(f"hw.run: waveform {vcd} (open with gtkwave)", file=sys.stderr)
    res_file = run_dir / "results.pkl"
    if not res_file.exists():
        raise RuntimeError(f"{sim} simulation produced no results ({failed or 'no error reported'}); "
                           f"log {log}:\n{_tail(log)}")
    with open(res_file, "rb") as f:
        records = pickle.load(f)
    results = [[ProgResult(**{**rec, "ref": ref_from_record(rec["ref"])}) for rec in job]
               for job in records]
    all_ok = all(p.ok for job in results for p in job)
    keep = keep if keep is not None else os.environ.get("GA2_KEEP_RUNS", "") not in ("", "0")
    if all_ok and not waves and not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return results


def run_programs(sim, pairs, **kw):
    """One job: run(sim, [pairs], **kw)[0]."""
    return run(sim, [list(pairs)], **kw)[0]


def summary(results):
    """(programs, ok programs, total chip cycles from the counters) of run()'s results."""
    flat = [p for job in results for p in job]
    return len(flat), sum(p.ok for p in flat), sum(int(p.counters.cycles) for p in flat)


def demo_programs(cfg=None):
    """A small fixed set of programs touching every op (LD, MM both layouts, RQ, SM, ST)."""
    cfg = config.resolve(cfg)
    ext = cfg.ext_words
    b = lambda op, **f: isa.build(op, cfg=cfg, **f)  # noqa: E731
    rng = np.random.default_rng(7)
    image = rng.integers(-128, 128, size=min(ext, 256))
    p1 = [b("LD", dst=0, src=0, len=64),
          b("MM", dst=100, A=0, B=16, M=4, K=4, N=4, tb=0, lda=4, ldb=4, ldc=4),
          b("MM", dst=120, A=0, B=16, M=3, K=4, N=2, tb=1, lda=4, ldb=4, ldc=2),
          b("RQ", dst=140, src=100, len=16, m=20000, s=20),
          b("SM", dst=160, src=0, len=16),
          b("ST", src=100, dst=min(ext - 64, 300), len=64),
          b("HALT")]
    p2 = [b("LD", dst=200, src=0, len=8), b("ST", src=200, dst=0, len=8),
          b("ST", src=160, dst=8, len=16), b("HALT")]
    return [(p1, image), (p2, image)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", default="icarus", choices=SIMS + ("both",))
    ap.add_argument("--demo", action="store_true", help="run the demo programs against the reference")
    ap.add_argument("--build", action="store_true", help="only build")
    a = ap.parse_args(argv)
    sims = SIMS if a.sim == "both" else (a.sim,)
    rc = 0
    for sim in sims:
        t0 = time.time()
        bdir = build(sim)
        print(f"built {sim} in {bdir} ({time.time() - t0:.1f} s)")
        if a.demo or not a.build:
            t0 = time.time()
            res = run_programs(sim, demo_programs())
            n, ok, cyc = summary([res])
            for i, p in enumerate(res):
                print(f"  program {i}: {'ok' if p.ok else 'MISMATCH ' + p.mismatch}; counters {tuple(p.counters)}")
            print(f"{'PASS' if ok == n else 'FAIL'} {sim}: {ok}/{n} programs, {cyc} cycles "
                  f"(from the chip's counters), {time.time() - t0:.1f} s wall")
            rc |= ok != n
    return rc


if __name__ == "__main__":
    sys.exit(main())
