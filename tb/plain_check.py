#!/usr/bin/env python3
"""Check the GA-2 RTL against the reference Machine with the plain Verilog bench.

Why: a fast, self-contained check of rtl/ (no cocotb) on Icarus and Verilator --binary:
each program is written as hex files (imem: 32 hex digits per 128-bit instruction; ext:
8 hex digits per 32-bit word, two's complement), tb/hdl/tb_plain.v runs it, and the external
memory, the five counters, the scratchpad words read, error/code/pc and the retire trace
are compared with model.machine.Machine (the independent reference). Hand programs cover every op and
every error code; random programs (valid, and with one bad instruction) follow.

  python tb/plain_check.py --sim both --random 50 --seed 1
  python tb/plain_check.py --sim both --bench      # simulated cycles per second
"""
import argparse
import pathlib
import random
import re
import sys
import time

from tb import ROOT  # noqa: E402
from tb.sim import plain  # noqa: E402
from model import config, isa  # noqa: E402
from model.machine import GA2Error, Machine  # noqa: E402

BUILD = ROOT / "build" / "plain"
SIMS = ("icarus", "verilator")


def _cfg(ext_words):
    return config.DEFAULT.replace(ext_words=ext_words)


# ---------------------------------------------------------------- build and run
def build(sim, ext_words):
    """The plain bench for sim with EXT_WORDS=ext_words (tb/sim/plain.py); the command."""
    if sim not in SIMS:
        raise ValueError(f"unknown simulator {sim!r} (known: {', '.join(SIMS)})")
    return plain.build(sim, _cfg(ext_words))


def run_sim(cmd, prog, image, ext_words, d, max_cycles=2_000_000, runs=1):
    """Run one program runs times (restarting the chip, same image each run); returns
    (list of status dicts, one per run; final ext words, None where x/z; whole retire
    trace; wall seconds)."""
    r = plain.run(cmd, prog, image, _cfg(ext_words), d, runs=runs, max_cycles=max_cycles)
    ext = [int(v) & 0xFFFFFFFF for v in r.ext]
    for i in r.ext_xz:
        ext[i] = None
    return r.status, ext, r.trace, r.wall


def reference(prog, image, ext_words, runs=1):
    """What the chip must produce, per run on one Machine (the scratchpad carries over):
    [(counters, error code or 0, error pc, ext words, trace, scratchpad words read)]."""
    m, out = Machine(_cfg(ext_words)), []
    for _ in range(runs):
        try:
            r = m.run(prog, image)
            out.append((r.counters, 0, 0, r.ext, r.trace, r.sp_reads))
        except GA2Error as e:
            out.append((e.counters, e.code, e.pc, e.ext, e.trace, e.sp_reads))
    return out


def compare(statuses, ext, trace, prog, image, ext_words):
    """A list of mismatch descriptions (empty when the RTL agrees with the Machine)."""
    refs = reference(prog, image, ext_words, len(statuses))
    errs = []
    for run, (status, (cnt, code, pc, _, _, reads)) in enumerate(zip(statuses, refs)):
        for k in ("timeout", "bad_access", "xz"):
            if status[k]:
                errs.append(f"run {run}: {k}={status[k]}")
        if status["done"] != 1:
            errs.append(f"run {run}: done not set")
        want = {"cycles": cnt.cycles, "mm": cnt.mm, "dma": cnt.dma, "vec": cnt.vec,
                "instret": cnt.instret, "error": int(code != 0), "code": code, "pc": pc if code else 0,
                "sp_reads": reads}
        for k, v in want.items():
            if status[k] != v:
                errs.append(f"run {run}: {k}: rtl {status[k]} ref {v}")
        if code == 0:       # a valid program: also the static schedule (model/timing.py)
            from model import timing
            cc = timing.schedule(prog, _cfg(ext_words)).counters
            got = (status["cycles"], status["mm"], status["dma"], status["vec"], status["instret"])
            if got != tuple(cc):
                errs.append(f"run {run}: counters {got} differ from the schedule's {tuple(cc)}")
    ref_words = [int(v) & 0xFFFFFFFF for v in refs[-1][3]]
    if len(ext) != len(ref_words):
        errs.append(f"ext length rtl {len(ext)} ref {len(ref_words)}")
    else:
        bad = [i for i, (a, b) in enumerate(zip(ext, ref_words)) if a != b]
        if bad:
            i = bad[0]
            errs.append(f"ext differs at {len(bad)} words, first [{i}] rtl {ext[i]} ref {ref_words[i]:#x}")
    ref_trace = [tuple(t) for r in refs for t in r[4]]
    if ref_trace != trace:
        errs.append(f"trace differs: rtl {trace[:4]}... ({len(trace)}) ref {ref_trace[:4]}... ({len(ref_trace)})")
    return errs


def x_signals(vcd, t_min, limits=None):
    """Signals of a VCD file that hold x or z at any time >= their limit (in the file's units).

    Read with vcdvcd (a maintained VCD parser): a signal is bad when its value in force
    at its limit, or any later value, has an x or z bit (of several values at one time
    the last counts). The limit is t_min, or limits(name, data) when given: a time, or
    None to skip the signal. Names are hierarchical, dot-separated.
    """
    from vcdvcd import VCDVCD
    data = VCDVCD(str(vcd), store_tvs=True)
    bad = set()
    for name in data.signals:
        lim = t_min if limits is None else limits(name, data)
        if lim is None:
            continue
        before = None
        for t, v in data[name].tv:
            if t <= lim:
                before = v
            elif _XZ.search(v):
                bad.add(name)
                break
        if before is not None and _XZ.search(before):
            bad.add(name)
    return sorted(bad)


_XZ = re.compile("[xXzZ]")

# ---------------------------------------------------------------- the X policy
# docs/rtl.md "Reset and X policy". From the first rising edge after reset release every
# signal of the chip (and of the bench) must be 0/1, with two exceptions:
#  - XCHECK_DATAPATH: a unit's datapath registers (no reset: pointers, counters,
#    operands, data) and the nets computed only from them, which may be x until the
#    first start of the unit(s) named: a unit's registers are loaded at the clock edge
#    that ends its start pulse, from then on they must be 0/1. A bus shared by units
#    (the scratchpad ports) waits for every unit that can put an x on it;
#  - XCHECK_SIM_ONLY: integer loop variables of simulation code (not hardware).
# Every output port of ga2_top, every control register (state, busy, valid/step/last
# flags, enables, error/code/pc, the counters, retire) and everything else is checked
# from reset release: the lists name the exceptions one by one (an allow-list), and
# xcheck refuses a list entry that would match a ga2_top port.
XCHECK_DUT = "tb_plain.u_h.dut."
# unit -> its start pulse (dut-relative)
XCHECK_STARTS = {"dma": "u_dma.start", "mm": "u_mm.start", "rq": "u_rq.start",
                 "sm": "u_sm.start", "div": "u_sm.u_div.start"}
# (dut-relative name without its bit range, as a regex; the units whose first start
# defines it)
XCHECK_DATAPATH = [
    (r"u_dma\.(cnt_q|len_q|dir_q|at_end|sp_q|sp_rd_addr|sp_wr_addr)|dma_sp_ra|dma_sp_wa"
     r"|u_xbar\.(dma_rd_addr|dma_wr_addr)|u_sp\.g_rd\[8\]\.ra", ("dma",)),
    (r"u_mm\.(acc_q|cyc_q|m_q|n_q|k_q|k_ext|ldc_q|b_step_q|row_base_q|row_end|tile_end|c_addr|wr_ptr"
     r"|rd_addr|wr_addr|di_q|dj_q|dj_off|result|wr_data)|mm_wd"
     r"|u_xbar\.mm_wr_data|u_mm\.u_array\.(a_h|b_v|acc_w|result|sel_row|sel_col|g_row\[\d\]\.g_col\[\d\]\.u_pe\.(a_in|b_in|a_out|b_out|acc|prod))|u_mm\.g_feed\[\d\]\.(a_ptr_q|b_ptr_q)|mm_ra|mm_wa"
     r"|u_xbar\.(mm_rd_addr|mm_wr_addr)|u_sp\.g_rd\[[0-7]\]\.ra", ("mm",)),
    (r"u_rq\.(cnt_q|len_q|at_end|rp_q|wp_q|m_q|s_q|rd_addr|wr_addr|wr_data)|u_rq\.u_requant\.\w+"
     r"|rq_ra|rq_wa|rq_wd|u_xbar\.(rq_rd_addr|rq_wr_addr|rq_wr_data)", ("rq",)),
    (r"u_sm\.(cnt_q|len_q|at_end|ew_q|idx_q|src_q|rp_q|wp_q|mx_q|sum_q|rd_addr|wr_addr|d|e|e_rd"
     r"|is_last|x_gt)|u_sm\.u_lut\.\w+|u_sm\.u_div\.(dividend|divisor)|sm_ra|sm_wa"
     r"|u_xbar\.(sm_rd_addr|sm_wr_addr|vec_ra|vec_wa)|u_sp\.g_rd\[9\]\.ra", ("sm",)),
    # the divider's registers and the quotient-derived data of softmax
    (r"u_sm\.u_div\.(cnt_q|quo_q|rem_q|dsr_q|quotient|remainder|trial|diff|ge)"
     r"|u_sm\.(quot|div_rem|rcp|prod|q0|q0s|rem|fix|qfast|wr_data)|sm_wd|u_xbar\.sm_wr_data",
     ("div",)),
    # shared scratchpad buses, and the terms of the simulation-only missed-hazard check
    # (each term is x only with its port disabled, and the check's miss stays 0/1)
    (r"(u_xbar\.|u_sp\.)?sp_rd_addr|u_sp\.rd_addr", ("dma", "mm", "sm")),
    (r"(u_xbar\.|u_sp\.)?sp_wr_addr|u_sp\.wr_addr|u_xbar\.g_chk\[\d\]\.(wa|rd_hit|wr_hit)",
     ("dma", "mm", "sm")),
    (r"(u_xbar\.)?sp_wr_data|u_sp\.wr_data", ("div", "mm")),
]
XCHECK_SIM_ONLY = [r"u_sp\.g_rd\[\d+\]\.k"]


def _ga2_top_ports():
    text = (ROOT / "rtl" / "ga2_top.v").read_text()
    return set(re.findall(r"^\s*(?:input|output)\s+wire\s+(?:\[[^\]]*\]\s*)?(\w+)", text, re.M))


def _first_load(data, name):
    """The time of the clock edge that ends the first start pulse of a unit (its start
    signal's first 1 -> 0 step), or None when it never started."""
    seen = False
    for t, v in data[name].tv:
        if v == "1":
            seen = True
        elif seen and v == "0":
            return t
    return None


def xcheck_limits(t_reset):
    """limits() for x_signals implementing the X policy: t_reset for every signal, the
    first load of its units for XCHECK_DATAPATH, None for XCHECK_SIM_ONLY."""
    ports = _ga2_top_ports()
    pats = [(re.compile("(?:" + p + r")$"), units) for p, units in XCHECK_DATAPATH]
    sim_only = [re.compile("(?:" + p + r")$") for p in XCHECK_SIM_ONLY]
    for rx, _ in pats:
        clash = [q for q in ports if rx.match(q)]
        if clash:
            raise ValueError(f"X policy: {rx.pattern} matches ga2_top port(s) {clash}")
    loads = {}

    def limits(name, data):
        if not name.startswith(XCHECK_DUT):
            return t_reset
        rel = re.sub(r"\[\d+(:\d+)?\]$", "", name[len(XCHECK_DUT):])
        if any(rx.match(rel) for rx in sim_only):
            return None
        for rx, units in pats:
            if rx.match(rel):
                t = t_reset
                for u in units:
                    if u not in loads:
                        loads[u] = _first_load(data, XCHECK_DUT + XCHECK_STARTS[u])
                    if loads[u] is None:
                        return None                  # the unit never started: may stay x
                    t = max(t, loads[u])
                return t
        return t_reset
    return limits


def xcheck(cases):
    """Run cases on Icarus with a VCD of the whole chip; per case, the signals that break
    the X policy (XCHECK_* above, docs/rtl.md)."""
    cmd = build("icarus", 4096)
    found = {}
    for name, prog, img in cases:
        d = BUILD / "xcheck" / name
        plain.run(cmd, prog, img, _cfg(4096), d, runs=2, trace=False, ext_out=False,
                  vcd=d / "chip.vcd")
        # rst is released at the third falling edge (30 ns); from 40 ns (after the first
        # rising edge with rst low) the policy applies. VCD time unit: 1 ps.
        bad = x_signals(d / "chip.vcd", 40_000, limits=xcheck_limits(40_000))
        (d / "chip.vcd").unlink()
        if bad:
            found[name] = bad
    return found


# ---------------------------------------------------------------- programs
def B(op, **f):
    return isa.build(op, cfg=_cfg(EXT_HAND), **f)


def R(op, **f):
    return isa.raw(op, **f)


EXT_HAND = 4096


def hand_programs():
    """(name, program, image) covering every op, edge shapes and every error code."""
    rng = random.Random(7)
    img = [rng.randrange(-2**31, 2**31) if i % 3 == 0 else rng.randrange(-128, 128) for i in range(4096)]
    H = B("HALT")
    progs = []
    progs.append(("ld_st", [B("LD", dst=0, src=0, len=100), B("ST", src=0, dst=2000, len=100),
                            B("LD", dst=4000, src=4000, len=96), B("ST", src=4000, dst=1000, len=96),
                            B("LD", dst=5, src=7, len=1), B("ST", src=5, dst=3000, len=1), H], img))
    mm = [B("LD", dst=0, src=0, len=1200)]
    out = 2000
    for M in range(1, 5):
        for N in range(1, 5):
            for tb in (0, 1):
                K = rng.choice([1, 2, 3, 5, 8, 17])
                mm.append(B("MM", dst=out, A=rng.randrange(0, 200), B=rng.randrange(300, 600), M=M, K=K, N=N,
                            tb=tb, lda=rng.randrange(0, 40), ldb=rng.randrange(0, 40), ldc=N + rng.randrange(0, 3)))
                out += 4 * 7
    mm += [B("MM", dst=3000, A=0, B=700, M=4, K=255, N=4, tb=0, lda=255, ldb=4, ldc=4),
           B("MM", dst=3100, A=100, B=200, M=4, K=4, N=4, tb=1, lda=4, ldb=4, ldc=1),   # overlapping rows
           B("MM", dst=3200, A=0, B=0, M=3, K=9, N=2, tb=0, lda=0, ldb=0, ldc=0),       # all alias
           B("MM", dst=4095, A=4095, B=4095, M=1, K=1, N=1, tb=1, lda=0, ldb=0, ldc=0),
           B("ST", src=2000, dst=0, len=2096), H]
    progs.append(("mm", mm, img))
    rq = [B("LD", dst=0, src=0, len=512)]
    for s in (0, 1, 7, 15, 16, 31, 40, 47, 62, 63):
        rq.append(B("RQ", dst=600 + 20 * s, src=rng.randrange(0, 400), len=rng.randrange(1, 20),
                    m=rng.randrange(0, 65536), s=s))
    rq += [B("RQ", dst=1, src=0, len=50, m=40000, s=14),       # dst overlaps ahead: streaming
           B("RQ", dst=100, src=103, len=50, m=30000, s=10),   # dst behind src
           B("RQ", dst=200, src=200, len=30, m=65535, s=3),    # in place
           B("RQ", dst=0, src=4000, len=96, m=12345, s=20),
           B("ST", src=0, dst=0, len=2000), H]
    progs.append(("rq", rq, img))
    edge = [-2**31, 2**31 - 1, -1, 0, 1, -128, 127, -129, 128, 2**30, -2**30, 12345678, -12345678]
    rqe = [B("LD", dst=0, src=0, len=len(edge))]
    out = 100
    for m_ in (0, 1, 16384, 32767, 65535):
        for s_ in (0, 1, 15, 16, 31, 32, 46, 47, 48, 62, 63):
            rqe.append(B("RQ", dst=out, src=0, len=len(edge), m=m_, s=s_))
            out += len(edge)
    rqe += [B("ST", src=100, dst=0, len=out - 100), H]
    progs.append(("rq_edges", rqe, edge))
    sm = [B("LD", dst=0, src=0, len=512)]
    for n, src in ((1, 0), (2, 3), (7, 10), (16, 40), (63, 100), (64, 200), (64, 300)):
        sm.append(B("SM", dst=1000 + 70 * (n % 13) + src, src=src, len=n))
    sm += [B("SM", dst=5, src=0, len=64),       # overlapping: reads all before writes
           B("ST", src=0, dst=0, len=2048), H]
    progs.append(("sm", sm, img))
    small = [rng.randrange(-128, 128) for _ in range(64)]
    sm_eq = [5] * 64                            # all equal
    sm_ext = [127, -128] * 32                   # extremes
    progs.append(("sm_edges", [B("LD", dst=0, src=0, len=64), B("SM", dst=100, src=0, len=64),
                               B("LD", dst=200, src=64, len=64), B("SM", dst=300, src=200, len=64),
                               B("LD", dst=400, src=128, len=64), B("SM", dst=500, src=400, len=64),
                               B("ST", src=0, dst=0, len=600), H], small + sm_eq + sm_ext))
    # errors
    ld = B("LD", dst=0, src=0, len=10)
    progs += [
        ("err1_opcode0", [ld, 0, H], img),
        ("err1_opcode15", [ld, B("ST", src=0, dst=100, len=10), 15, H], img),
        ("err1_fallthrough", [ld], img),
        ("err4_mm_M0", [ld, R("MM", dst=0, A=0, B=0, M=0, K=1, N=1, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_mm_N5", [ld, R("MM", dst=0, A=0, B=0, M=1, K=1, N=5, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_mm_K0", [ld, R("MM", dst=0, A=0, B=0, M=1, K=0, N=1, tb=0, lda=0, ldb=0, ldc=0), H], img),
        ("err4_len0", [R("LD", dst=0, src=0, len=0), H], img),
        ("err4_st_len0", [R("ST", src=0, dst=0, len=0), H], img),
        ("err4_rq_len0", [R("RQ", dst=0, src=0, len=0, m=1, s=0), H], img),
        ("err4_sm65", [R("SM", dst=0, src=0, len=65), H], img),
        ("err4_beats_range", [R("SM", dst=65535, src=65535, len=0), H], img),
        ("err2_ld", [R("LD", dst=4000, src=0, len=97), H], img),
        ("err2_beats_ext", [R("LD", dst=4000, src=4090, len=97), H], img),
        ("err2_st", [ld, R("ST", src=65535, dst=0, len=1), H], img),
        ("err2_rq_dst", [R("RQ", dst=4095, src=0, len=2, m=1, s=0), H], img),
        ("err2_sm_src", [R("SM", dst=0, src=4064, len=33), H], img),
        ("err2_mm_A", [R("MM", dst=0, A=4000, B=0, M=4, K=4, N=4, tb=0, lda=40, ldb=0, ldc=0), H], img),
        ("err2_mm_B_tb0", [R("MM", dst=0, A=0, B=3000, M=1, K=255, N=4, tb=0, lda=0, ldb=5, ldc=0), H], img),
        ("err2_mm_B_tb1", [R("MM", dst=0, A=0, B=4000, M=1, K=100, N=1, tb=1, lda=0, ldb=4095, ldc=0), H], img),
        ("ok_mm_B_tb1_edge", [R("MM", dst=0, A=0, B=3996, M=1, K=100, N=1, tb=1, lda=0, ldb=4095, ldc=0),
                              B("ST", src=0, dst=0, len=4), H], img),
        ("err2_mm_dst", [R("MM", dst=4090, A=0, B=0, M=2, K=1, N=2, tb=0, lda=0, ldb=0, ldc=5), H], img),
        ("err3_ld", [R("LD", dst=0, src=4095, len=2), H], img),
        ("err3_st", [ld, R("ST", src=0, dst=4000, len=97), H], img),
        ("err3_st_hi", [ld, R("ST", src=0, dst=65535, len=8191), H], img),
        ("err5_pc", [B("LD", dst=i % 4000, src=i % 4000, len=1) for i in range(config.DEFAULT.imem_depth)], img),
        ("halt_only", [H], img),
    ]
    return progs


def random_program(rng, ext_words, bad=None):
    """A random valid program (or, with bad = 0..5, one with a single bad instruction of
    that kind), ending in an ST of the touched scratchpad region to ext[ext_words - R ..]
    and HALT; returns (prog, image)."""
    R_ = rng.choice([64, 256, 1024, 4096])
    data = ext_words - R_ if ext_words > R_ else ext_words
    img = [rng.choice([rng.randrange(-128, 128), rng.randrange(-2**31, 2**31)]) for _ in range(data)]
    prog = []

    def addr(n):
        return rng.randrange(0, max(1, R_ - n + 1))

    for _ in range(rng.randrange(1, 14)):
        op = rng.choice(["LD", "LD", "ST", "MM", "MM", "MM", "RQ", "RQ", "SM"])
        try:
            if op in ("LD", "ST"):
                n = rng.choice([1, 2, rng.randrange(1, 64), rng.randrange(1, min(R_, data) + 1)])
                spa, exa = addr(n), rng.randrange(0, data - n + 1)
                f = dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)
                prog.append(isa.build(op, cfg=_cfg(ext_words), len=n, **f))
            elif op == "MM":
                M, N = rng.randrange(1, 5), rng.randrange(1, 5)
                K = rng.choice([1, 2, rng.randrange(1, 20), rng.randrange(1, 256)])
                lda, ldb = rng.choice([0, 1, K, rng.randrange(0, 64)]), rng.choice([0, 1, N, K, rng.randrange(0, 64)])
                ldc = rng.choice([0, 1, N, rng.randrange(0, 16)])
                prog.append(isa.build("MM", cfg=_cfg(ext_words), dst=addr(64), A=addr(K + 3 * lda), B=addr(K * max(ldb, 1) + 4),
                                      M=M, K=K, N=N, tb=rng.randrange(2), lda=lda, ldb=ldb, ldc=ldc))
            elif op == "RQ":
                n = rng.randrange(1, 80)
                src = addr(n)
                dst = rng.choice([addr(n), src + rng.randrange(-3, 4)])
                prog.append(isa.build("RQ", cfg=_cfg(ext_words), dst=max(0, dst), src=src, len=n,
                                      m=rng.choice([rng.randrange(1 << 14, 1 << 15), rng.randrange(0, 1 << 16)]),
                                      s=rng.choice([0, rng.randrange(0, 64), rng.randrange(8, 24)])))
            else:
                n = rng.randrange(1, 65)
                prog.append(isa.build("SM", cfg=_cfg(ext_words), dst=addr(n), src=addr(n), len=n))
        except ValueError:
            continue
    if bad is not None:
        kind = bad % 6
        if kind == 0:
            w = rng.choice([0, 7, 8, 15]) | (rng.getrandbits(100) << 4)
        elif kind == 1:
            w = R("MM", dst=0, A=0, B=0, M=rng.choice([0, 5, 7]), K=rng.randrange(0, 3), N=rng.randrange(0, 8),
                  tb=0, lda=0, ldb=0, ldc=0)
        elif kind == 2:
            op, n = rng.choice(["LD", "ST"]), rng.randrange(1, 100)          # external range
            spa, exa = rng.randrange(0, 4096 - n), rng.randrange(ext_words - n + 1, 65536 - n)
            w = R(op, len=n, **(dict(dst=spa, src=exa) if op == "LD" else dict(src=spa, dst=exa)))
        elif kind == 3:
            w = R("RQ", dst=rng.randrange(3900, 65536), src=rng.randrange(0, 4096), len=rng.randrange(0, 300), m=1, s=1)
        elif kind == 4:
            w = R("SM", dst=rng.randrange(0, 4096), src=rng.randrange(3900, 4096), len=rng.randrange(0, 100))
        else:
            w = R("MM", dst=rng.randrange(0, 4096), A=rng.randrange(0, 4096), B=rng.randrange(0, 4096), M=rng.randrange(1, 5),
                  K=rng.randrange(1, 256), N=rng.randrange(1, 5), tb=rng.randrange(2), lda=rng.randrange(0, 4096),
                  ldb=rng.randrange(0, 4096), ldc=rng.randrange(0, 4096))
        prog.insert(rng.randrange(0, len(prog) + 1), w)
    if ext_words > R_:
        prog.append(isa.build("ST", cfg=_cfg(ext_words), src=0, dst=ext_words - R_, len=R_))
    prog.append(isa.build("HALT"))
    return prog, img


def bench_program():
    """A long valid program (about 1M cycles): tiles of MM, RQ, SM and DMA in a loop."""
    prog = [B("LD", dst=0, src=0, len=2048)]
    while len(prog) < 1000:
        prog += [B("MM", dst=2048, A=0, B=256, M=4, K=64, N=4, tb=1, lda=64, ldb=64, ldc=4),
                 B("RQ", dst=2100, src=2048, len=16, m=20000, s=20),
                 B("SM", dst=2200, src=2100, len=16),
                 B("LD", dst=3000, src=1000, len=256),
                 B("ST", src=2200, dst=3000, len=16)]
    return prog[:1023] + [B("HALT")], list(range(-1000, 3096))


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="both", choices=SIMS + ("both",))
    ap.add_argument("--random", type=int, default=20, help="random programs per simulator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bench", action="store_true", help="only measure simulated cycles per second")
    ap.add_argument("--only", default="", help="run only hand programs whose name contains this")
    ap.add_argument("--xcheck", action="store_true",
                    help="only dump VCDs of the hand programs on Icarus and list signals that break the X policy "
                         "(docs/rtl.md: outputs and control 0/1 from reset, datapath from its unit's first start)")
    args = ap.parse_args()
    if args.seed < 0 or args.random < 0:
        ap.error("--seed and --random must be >= 0")
    if args.xcheck:
        cases = [c for c in hand_programs() if args.only in c[0]]
        found = xcheck(cases)
        for name, bad in found.items():
            print(f"x after reset in {name}: {', '.join(bad[:10])}")
        print(f"xcheck: {len(cases) - len(found)}/{len(cases)} hand programs keep the X policy (Icarus: every "
              f"chip signal 0/1 after reset, datapath registers after their unit's first start)")
        return 1 if found else 0
    sims = SIMS if args.sim == "both" else (args.sim,)
    fails = total = 0
    for sim in sims:
        t0 = time.perf_counter()
        cmd4, cmd8 = build(sim, 4096), build(sim, 8192)
        print(f"[{sim}] built in {time.perf_counter() - t0:.1f} s")
        if args.bench:
            prog, img = bench_program()
            runs = 1 if sim == "icarus" else 20        # about 10-20 s of wall time on each
            st, ext, tr, wall = run_sim(cmd4, prog, img, 4096, BUILD / sim / "bench", runs=runs)
            errs = compare(st, ext, tr, prog, img, 4096)
            cyc = sum(s_["cycles"] for s_ in st)
            print(f"[{sim}] bench: {runs} run(s) of a {st[0]['cycles']}-cycle program, {cyc} cycles "
                  f"(measured by cnt_cycles) in {wall:.2f} s wall incl. start-up = {cyc / wall:,.0f} "
                  f"cycles/s; {'PASS' if not errs else 'FAIL ' + '; '.join(errs)}")
            fails += bool(errs)
            total += 1
            continue
        cases = [(n, p, i, 4096, cmd4, 2) for n, p, i in hand_programs() if args.only in n]
        rng = random.Random(args.seed)
        if not args.only:
            for k in range(args.random):
                bad = k // 3 if k % 3 == 2 else None
                prog, img = random_program(rng, 8192, bad=bad)
                cases.append((f"random{k}", prog, img, 8192, cmd8, 1 if bad is None else 2))
        nfail = 0
        for name, prog, img, extw, cmd, runs in cases:
            st, ext, tr, wall = run_sim(cmd, prog, img, extw, BUILD / sim / name, runs=runs)
            errs = compare(st, ext, tr, prog, img, extw)
            total += 1
            if errs:
                nfail += 1
                print(f"[{sim}] FAIL {name}: " + "; ".join(errs))
        fails += nfail
        print(f"[{sim}] {len(cases) - nfail}/{len(cases)} programs agree with the Machine "
              f"({time.perf_counter() - t0:.1f} s)")
    print(f"plain_check: {total - fails}/{total} PASS" if not fails else f"plain_check: {fails}/{total} FAIL")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
