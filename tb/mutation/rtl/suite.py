"""The suite an RTL mutant is judged by: inputs for tb/hdl/mut_rtl_tb.v, compile and run.

What: build_suite(dir) writes, once per mutation run, every input of the mutation bench:
unit vectors for requant (expected values from model.quant.requant) and divu (Python
integer division), then chip programs in the order cheapest-most-killing first: a few
seeded random programs (tb/stimulus/progen.py), one bad program per error code 1..5 with its
follow-up (error outputs, counters up to the fault, "the next program runs normally"),
a crafted SM/RQ program (data random programs rarely make), the decode checks at their
edges (boundary_programs), more random programs, the five chapter-9 programs (B = 1..4
at token 16 and the ragged 3,9,1,14; config.CH09) and resets while busy.
Expected memory, the five counters, error/code/pc, the retire trace and the number of
scratchpad words read (model/func.py sp_reads over the executed instructions) come from
ONE reference model.machine.Machine run over the same sequence (the scratchpad carries
over between programs on both sides).
compile_mutant(rtl_dir, build_dir) builds one mutant (iverilog, once); run_mutant(vvp,
manifest, timeout) runs every check in ONE simulator process that stops at the first
failure.

Why a bench of its own rather than tb/hw.py: a mutant must be cheap (one cocotb run,
0.86 s for one small program, costs about four median kills of this bench); the comparison is still
against the reference model's values, which the Python side writes and the bench only
compares (see docs/mutation_rtl.md for the measured costs).
tests/tb/test_bench_suite.py runs the same program lists (suite_programs(),
overlap_programs()) through cocotb (tb/sim/run.py) on Icarus and Verilator, and
tests/tb/test_units_cosim.py checks requant and divu on requant_vectors() and
divu_vectors() with the bench's divu contract, so the bench is not a stronger check.
"""
import os
import random
import re
import subprocess
import time


from tb import ROOT  # noqa: E402
from tb.sim import build
from tb import protocol as hexio  # noqa: E402
from tb.sim.files import rtl_files  # noqa: E402
TB = os.path.join(ROOT, "tb", "hdl", "mut_rtl_tb.v")
RESTART_CHK = os.path.join(ROOT, "tb", "hdl", "restart_chk.v")   # the bench's restart check
from tb.stimulus.programs import (  # noqa: E402,F401  (the program lists, re-exported)
    CFG, CFG_OVERLAP, EXT, N_COLLIDING, N_RANDOM_FIRST, N_RANDOM_LATE, RANDOM_SEED,
    acc_programs, boundary_programs, chapter9_programs, crafted_programs, long_programs,
    overlap_programs, reset_programs, self_contained_program, suite_programs, wrap_programs)


N_RQ_VEC = 560
META_TRACE = 13    # pN_meta.hex: 13 words (tb/hdl/mut_rtl_tb.v's list), then the trace
N_DV_VEC = 120


def _u32(v):
    return int(v) & 0xFFFFFFFF


def requant_vectors(n, seed):
    """(a, m, s, y) for requant: edges, int32 results of MMs, full-range words."""
    from model.quant import requant
    rng = random.Random(seed)
    out = []
    edges_a = [0, 1, -1, 127, -128, 2**31 - 1, -2**31, 65535, -65536, 1 << 20, -(1 << 20)]
    edges_m = [0, 1, 1 << 14, (1 << 15) - 1, 1 << 15, 65535]
    for a in edges_a:
        for m in edges_m:
            out.append((a, m, rng.choice([0, 1, 14, 15, 30, 47, 62, 63])))
    while len(out) < n:
        kind = rng.random()
        if kind < 0.4:
            a = rng.randint(-2**20, 2**20)
        elif kind < 0.7:
            a = rng.randint(-2**31, 2**31 - 1)
        else:
            a = rng.randint(-3000, 3000)
        m = rng.choice([rng.randint(1 << 14, (1 << 15) - 1), rng.randint(0, 65535)])
        s = rng.randint(0, 63)
        out.append((a, m, s))
    out = out[:n - 290]
    # targeted: results exactly at the saturation edges (127, 128, -128, -129), s = 1 with
    # odd products (the rounding term), and the largest products at s = 45..50
    for target in (126, 127, 128, 129, -127, -128, -129, -130):
        for _ in range(8):
            s = rng.randint(1, 20)
            m = rng.randint(1 << 14, (1 << 15) - 1)
            a = (target << s) // m + rng.randint(-1, 1)
            if -2**31 <= a < 2**31:
                out.append((a, m, s))
    for _ in range(24):        # small odd products: (p + 1) >> 1 differs from p >> 1, no clamp
        out.append((rng.randrange(-15, 16, 2), rng.randrange(1, 16, 2), 1))
    for s in list(range(0, 3)) + list(range(44, 52)):  # the widest sums, unshifted and at s >= 48
        for a in (2**31 - 1, -2**31, 2**31 - 12345, -2**31 + 777):
            for m in (65535, 65534, 1 << 15):
                out.append((a, m, s))
    # the rounding term 2^(s-1) at s = 32..47 (its shift amount s-1 needs all 6 bits):
    # products just above and below a half, a*m = 2^(s-1) +- 2^15, both signs
    for s in range(32, 48):
        for d in (1, -1):
            for sign in (1, -1):
                a = sign * ((1 << (s - 16)) + d)
                if -2**31 <= a < 2**31:
                    out.append((a, 1 << 15, s))
    assert len(out) <= n, len(out)
    return [(a, m, s, requant(a, m, s)) for a, m, s in out]


PF_CW = 5          # the narrow ga2_perf the benches build: every counter bit wraps within the vectors
N_PF_VEC = 400


def perf_vectors(n, seed, cw=PF_CW):
    """Per cycle (rst, clear, running, busy[2:0], retire[3:0], expected after the edge:
    cycles, mm, dma, vec, instret, retire_cycle, all mod 2^cw) for ga2_perf #(.CW(cw)),
    the expected counts by plain counting (docs/isa.md: clear and reset zero all five and
    win; cycles counts running, mm/dma/vec their busy bit {vec, dma, mm}, instret the set
    retire bits; retire_cycle = cycles + 1)."""
    rng = random.Random(seed + 2)
    mask = (1 << cw) - 1
    c = [0] * 5
    out = []
    for k in range(n):
        rst = int(k < 2 or rng.random() < 0.01)
        clear = int(rng.random() < 0.02)
        running = int(rng.random() < 0.85)
        busy = rng.randrange(8)
        retire = rng.randrange(16) if rng.random() < 0.5 else 0
        if rst or clear:
            c = [0] * 5
        else:
            c = [c[0] + running, c[1] + (busy & 1), c[2] + (busy >> 1 & 1), c[3] + (busy >> 2 & 1),
                 c[4] + bin(retire).count("1")]
            c = [v & mask for v in c]
        out.append((rst, clear, running, busy, retire, *c, (c[0] + 1) & mask))
    return out


def divu_vectors(n, seed):
    """(dividend, divisor, q, r): the softmax's divisions (e*65536 / S) and 32-bit edges."""
    rng = random.Random(seed + 1)
    top = 2**32 - 1
    out = [(0, 1), (top, 1), (top, top), (1, top), (top, 2), (1 << 31, 3), (65535 << 16, 65535),
           (65535 << 16, 64 * 65535), (12345, 12346), (12346, 12345), (top, 1 << 31), ((1 << 31) - 1, 1 << 31)]
    while len(out) < n:
        kind = rng.random()
        if kind < 0.5:
            e = rng.randint(0, 65535)
            s = rng.randint(max(1, e), 64 * 65535)
            out.append((e << 16, s))
        elif kind < 0.8:
            out.append((rng.randint(0, top), rng.randint(1, top)))
        else:
            b = rng.randint(1, 1 << rng.randint(1, 31))
            out.append((rng.randint(0, top), b))
    return [(a, b, a // b, a % b) for a, b in out[:n]]


def build_suite(suite_dir, programs=None, cfg=CFG):
    """Write every input of the bench into suite_dir for the chip cfg (programs default:
    suite_programs() in-order, overlap_programs() in the overlap mode); returns the
    manifest (a dict; "cfg" holds the Config)."""
    from model import config, isa
    from model.machine import Machine, GA2Error
    os.makedirs(suite_dir, exist_ok=True)
    rq = requant_vectors(N_RQ_VEC, RANDOM_SEED)
    with open(os.path.join(suite_dir, "rq.hex"), "w") as f:
        for a, m, s, y in rq:
            f.write(f"{_u32(a):08x}{m:04x}{0:04x}{s:08x}{_u32(y):08x}\n")
    dv = divu_vectors(N_DV_VEC, RANDOM_SEED)
    with open(os.path.join(suite_dir, "dv.hex"), "w") as f:
        for a, b, q, r in dv:
            f.write(f"{a:08x}{b:08x}{q:08x}{r:08x}\n")
    pf = perf_vectors(N_PF_VEC, RANDOM_SEED)
    with open(os.path.join(suite_dir, "pf.hex"), "w") as f:
        for v in pf:
            f.write("".join(f"{x:02x}" for x in v) + "\n")     # 11 bytes, rst first
    if programs is None:
        programs = overlap_programs() if cfg.mode == "overlap" else suite_programs()
    machine = Machine(cfg)
    entries = []
    for p, entry in enumerate(programs):
        label, prog, img = entry[:3]
        abort_at = entry[3] if len(entry) > 3 else 0
        light = entry[4] if len(entry) > 4 else 0
        words = isa.as_words(prog)
        image = machine.image(img)
        try:
            res = machine.run(words, image.copy())
            ext_out, cnt, trace, err, reads = res.ext, res.counters, res.trace, (0, 0, 0), res.sp_reads
        except GA2Error as e:
            ext_out, cnt, trace, err, reads = e.ext, e.counters, e.trace, (1, e.code, e.pc), e.sp_reads
        limit = cnt.cycles + cnt.cycles // 4 + 200
        hexio.write_words(os.path.join(suite_dir, f"p{p}_imem.hex"), words + ([0] if light else []), 32)
        if not light:
            hexio.write_words(os.path.join(suite_dir, f"p{p}_ext.hex"), [_u32(w) for w in image], 8)
            hexio.write_words(os.path.join(suite_dir, f"p{p}_exp.hex"), [_u32(w) for w in ext_out], 8)
        # meta[12]: the scratchpad words the executed instructions read (model/func.py
        # sp_reads, summed by the Machine), which the bench compares at done (not for a cut
        # program); the trace from meta[13] (META_TRACE)
        meta = [limit, abort_at, err[0], err[1], err[2], cnt.cycles, cnt.mm, cnt.dma, cnt.vec, cnt.instret,
                len(trace), light, reads]
        assert len(meta) == META_TRACE
        for pc, cyc in trace:
            meta += [pc, cyc]
        hexio.write_words(os.path.join(suite_dir, f"p{p}_meta.hex"), meta, 8)
        if abort_at:
            trace = [(pc, c) for pc, c in trace if c < abort_at]
            meta[10] = len(trace)
            meta[META_TRACE:] = [x for pc_c in trace for x in pc_c]
            hexio.write_words(os.path.join(suite_dir, f"p{p}_meta.hex"), meta, 8)
        entries.append({"label": label, "cycles": abort_at or cnt.cycles, "instructions": len(words),
                        "error": err[1], "light": light})
    manifest = {"dir": suite_dir, "cfg": cfg, "mode": cfg.mode, "nprog": len(entries), "rq_n": len(rq), "dv_n": len(dv), "pf_n": len(pf),
                "programs": entries, "total_cycles": sum(e["cycles"] for e in entries)}
    return manifest


def compile_mutant(rtl_dir, build_dir, timeout=120, tb=None, cfg=CFG):
    """iverilog the bench (tb, default tb/hdl/mut_rtl_tb.v) with the harness, the
    restart check (tb/hdl/restart_chk.v) and the files of rtl_dir/ga2.f for the chip
    cfg (tb/sim/build.py compile_binary):
    (ok, seconds, log, vvp path)."""
    tb = TB if tb is None else tb
    srcs = [tb, str(build.HARNESS), str(RESTART_CHK)] + [str(p) for p in rtl_files(rtl_dir)]
    t = time.time()
    params = build.cfg_parameters(cfg)
    ok, log, cmd = build.compile_binary("icarus", "mut_rtl_tb", srcs, build_dir, rtl_dir,
                                        parameters=params, timeout=timeout)
    return ok, time.time() - t, log, cmd[-1]


_FAIL_RE = re.compile(r"^MUT FAIL (\S+)\s*(.*)$", re.M)
_PASS_RE = re.compile(r"^MUT PASS (\d+)", re.M)
_ASSERT_RE = re.compile(r"^ERROR: (.*)$", re.M)       # how Icarus prints a design's $error


def run_mutant(vvp, manifest, timeout, nprog=None):
    """Run the suite on a compiled mutant: (verdict, check, detail, seconds).

    verdict: "pass", "fail" (a check disagreed, or an assertion inside the design fired:
    check "assertion"), "timeout" (a program hit its cycle limit, or the process its
    wall-clock limit), "crash" (no verdict line).
    """
    n = manifest["nprog"] if nprog is None else nprog
    cmd = ["vvp", "-n", vvp, f"+dir={manifest['dir']}", f"+nprog={n}",
           f"+rq_n={manifest['rq_n']}", f"+dv_n={manifest['dv_n']}", f"+pf_n={manifest.get('pf_n', 0)}"]
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(vvp))
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "wall", f"no verdict within {timeout:.0f} s", time.time() - t
    dt = time.time() - t
    m = _FAIL_RE.search(out)
    if m:
        check, detail = m.group(1), m.group(2)
        return ("timeout" if check == "timeout" else "fail"), check, detail, dt
    if _PASS_RE.search(out):
        return "pass", "", "", dt
    m = _ASSERT_RE.search(out)
    if m:       # a check inside the design ($error, e.g. the scratchpad grant check) fired
        return "fail", "assertion", m.group(1).strip()[:300], dt
    tail = " / ".join(out.strip().splitlines()[-3:])
    return "crash", "crash", tail[:300], dt
