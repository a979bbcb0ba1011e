#!/usr/bin/env python3
"""Check the GA-2 RTL against the reference Machine with the plain Verilog bench.

Why: a fast, self-contained check of rtl/ (no cocotb) on Icarus and Verilator --binary:
each program is written as hex files (tb/protocol.py), tb/hdl/tb_plain.v runs it, and
the verdict is the judge's (tb/judge.py compare, on tb/sim/plain.outcomes of the bench's
outputs, per run against the reference Machine run over the same runs): the external
memory, the six counters, the scratchpad words read, error/code/pc, the retire trace,
done, timeouts, x/z and out-of-range accesses. The programs are tb/stimulus's: the hand
programs (tb/stimulus/hand.py: every op and every error code, each run twice on one
chip) and random region programs (tb/stimulus/regionprog.py region_cases: valid, and with
one bad instruction, which run twice). The X check (--xcheck, the X policy below) is
this bench's own.

  python -m tb.plain_check --sim both --random 50 --seed 1
  python -m tb.plain_check --sim both --bench      # simulated cycles per second
  python -m tb.plain_check --sim icarus --xcheck
"""
import re
import sys
import time

from model import config, isa
from model.machine import Machine
from tb import ROOT, cli, judge
from tb.sim import plain
from tb.sim.files import expand_macros
from tb.stimulus import hand, regionprog

BUILD = ROOT / "build" / "plain"
SIMS = ("icarus", "verilator")
RANDOM_EXT = 8192      # the random programs' chip: 8192 external words


def _cfg(ext_words):
    return config.DEFAULT.replace(ext_words=ext_words)


# ---------------------------------------------------------------- build, run, judge
def build(sim, ext_words):
    """The plain bench for sim with EXT_WORDS=ext_words (tb/sim/plain.py); the command."""
    if sim not in SIMS:
        raise ValueError(f"unknown simulator {sim!r} (known: {', '.join(SIMS)})")
    return plain.build(sim, _cfg(ext_words))


def judge_runs(r, prog, image, ext_words):
    """The judge's verdict on a PlainRun r of prog on image (r.status: one per run, the
    same image reloaded before each, the scratchpad carrying over): one "run k: ..." per
    run that differs from the reference (tb/judge.py compare), [] when all agree."""
    words = isa.as_words(prog)
    refs = judge.references(Machine(_cfg(ext_words)), [(words, image, None)] * len(r.status))
    return [f"run {k}: {msg}" for k, (ref, got) in enumerate(zip(refs, plain.outcomes(r)))
            for msg in [judge.compare(ref, got)] if msg]


def check(cmd, prog, image, ext_words, d, runs=1, max_cycles=2_000_000):
    """Run prog runs times on the plain bench and judge it: (PlainRun, mismatches)."""
    r = plain.run(cmd, prog, image, _cfg(ext_words), d, runs=runs, max_cycles=max_cycles)
    return r, judge_runs(r, prog, image, ext_words)


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
XCHECK_STARTS = {"dma": "u_dma.start", "mm": "u_mm.start", "rq": "u_vec_rq.start",
                 "sm": "u_softmax.start", "div": "u_softmax.u_div.start", "add": "u_vec_add.start",
                 "amax": "u_argmax.start", "norm": "u_norm.start", "ndiv": "u_norm.u_div.start",
                 "rqc": "u_rqc.start", "rqcw": "u_rqc.wr_en", "seq": "u_seq.clear"}
# (dut-relative name without its bit range, as a regex; the units whose first start
# defines it)
XCHECK_DATAPATH = [
    (r"u_dma\.(cnt_q|len_q|dir_q|bad_q|ad_q|pre|ia_q|rows_q|at_end|sp_q|sp_rd_addr|sp_wr_addr|tok_bad|row_off)"
     r"|dma_sp_ra|dma_sp_wa"
     r"|u_xbar\.(dma_rd_addr|dma_wr_addr)|u_sp\.g_rd\[8\]\.ra", ("dma",)),
    (r"u_mm\.(acc_q|cyc_q|m_q|n_q|k_q|k_ext|ldc_q|b_step_q|row_base_q|row_end|tile_end|c_addr|wr_ptr"
     r"|rd_addr|wr_addr|di_q|dj_q|dj_off|result|wr_data)|mm_wd"
     r"|u_xbar\.mm_wr_data|u_mm\.u_array\.(a_h|b_v|acc_w|result|sel_row|sel_col|g_row\[\d\]\.g_col\[\d\]\.u_pe\.(a_in|b_in|a_out|b_out|acc|prod))|u_mm\.g_feed\[\d\]\.(a_ptr_q|b_ptr_q)|mm_ra|mm_wa"
     r"|u_xbar\.(mm_rd_addr|mm_wr_addr)|u_sp\.g_rd\[[0-7]\]\.ra", ("mm",)),
    (r"u_vec_rq\.(cnt_q|len_q|at_end|rp_q|wp_q|m_q|s_q|relu_q|y|rd_addr|wr_addr|wr_data)|u_vec_rq\.u_requant\.\w+"
     r"|vec_rq_ra|vec_rq_wa|vec_rq_wd", ("rq",)),
    (r"u_softmax\.(cnt_q|len_q|at_end|ew_q|idx_q|src_q|rp_q|wp_q|mx_q|sum_q|rd_addr|wr_addr|d|e|e_rd"
     r"|is_last|x_gt)|u_softmax\.u_lut\.\w+|u_softmax\.u_div\.(dividend|divisor)|softmax_ra|softmax_wa"
     r"|vec_rd_addr|vec_wr_addr|u_xbar\.(vec_rd_addr|vec_wr_addr)|u_sp\.g_rd\[9\]\.ra", ("sm",)),
    # the divider's registers and the quotient-derived data of softmax
    (r"u_softmax\.u_div\.(cnt_q|quo_q|rem_q|dsr_q|quotient|remainder|trial|diff|ge)"
     r"|u_softmax\.(quot|div_rem|rcp|prod|q0|q0s|rem|fix|qfast|wr_data)|softmax_wd|vec_wr_data|u_xbar\.vec_wr_data",
     ("div",)),
    (r"u_vec_add\.(cnt_q|len_q|ph_q|at_end|ap_q|bp_q|wp_q|rd_addr|wr_addr)|vec_add_ra|vec_add_wa", ("add",)),
    (r"u_argmax\.(cnt_q|len_q|at_end|rp_q|wp_q|best_q|bi_q|vi_w|gt|bi_d|rd_addr|wr_addr|wr_data)"
     r"|argmax_ra|argmax_wa|argmax_wd", ("amax",)),
    (r"u_norm\.(cnt_q|st_q|len_q|at_end|src_q|rp_q|wp_q|ss_q|root_q|rem_q|m_q|s_q|first|sq_end|pair"
     r"|trial|diff|fits|rd_addr|wr_addr)|u_norm\.u_div\.divisor|norm_ra|norm_wa", ("norm",)),
    (r"u_rqc\.(st_q|w_q|ri_q|m_q|rb_q|ap_q|ld_q|rp_q|rs_q|cs_q|cp_q|ce_q|wp_q|q_q|at_end|row_end|reading"
     r"|writing|nrb|rd_addr|wr_addr)|rqc_ra|rqc_wa", ("rqc",)),
    # RQC's operand and product registers, loaded in an element's cycles (the row scale
    # in its first S_A, P in S_C, H and the column word in S_M): all loaded by the first
    # write, and what the multiplier and the shift compute from them
    (r"u_rqc\.(mr_q|er_q|c_q|p_q|h_q|mul_a|mul_b|prod|f|k|neg|f_fits|fs|r|y|a|t|fits|wr_data)|rqc_wd",
     ("rqc", "rqcw")),
    # the sequencer's error 6 (no reset: a start clears it and loads its pc register)
    (r"u_seq\.(idx_q|idx_d|ipc_q|ipc_d)", ("seq",)),
    # the norm's divider and what its quotient feeds (the requant's m and s: the norm's start)
    (r"u_norm\.u_div\.(cnt_q|quo_q|rem_q|dsr_q|quotient|remainder|trial|diff|ge)"
     r"|u_norm\.(quot|div_rem|xr|wr_data)|u_norm\.u_requant\.\w+|norm_wd",
     ("norm", "ndiv")),
    # shared scratchpad buses, and the terms of the simulation-only missed-hazard check
    # (each term is x only with its port disabled, and the check's miss stays 0/1)
    (r"(u_xbar\.|u_sp\.)?sp_rd_addr|u_sp\.rd_addr", ("dma", "mm", "sm")),
    (r"(u_xbar\.|u_sp\.)?sp_wr_addr|u_sp\.wr_addr|u_xbar\.g_chk\[\d\]\.(wa|rd_hit|wr_hit)",
     ("dma", "mm", "sm")),
    (r"(u_xbar\.)?sp_wr_data|u_sp\.wr_data", ("div", "mm")),
]
XCHECK_SIM_ONLY = [r"u_sp\.g_rd\[\d+\]\.k"]


def _ga2_top_ports():
    text = expand_macros((ROOT / "rtl" / "ga2_top.v").read_text())        # its `GA2_HOST_PORTS too
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
    cmd = build("icarus", hand.EXT_HAND)
    found = {}
    for name, prog, img in cases:
        d = BUILD / "xcheck" / name
        plain.run(cmd, prog, img, _cfg(hand.EXT_HAND), d, runs=2, trace=False, ext_out=False,
                  vcd=d / "chip.vcd")
        # rst is released at the third falling edge (30 ns); from 40 ns (after the first
        # rising edge with rst low) the policy applies. VCD time unit: 1 ps.
        bad = x_signals(d / "chip.vcd", 40_000, limits=xcheck_limits(40_000))
        (d / "chip.vcd").unlink()
        if bad:
            found[name] = bad
    return found


# ---------------------------------------------------------------- main
def main():
    ap = cli.Parser(prog="tb.plain_check", description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="both", choices=SIMS + ("both",))
    ap.add_argument("--random", type=cli.integer(0, 100000), default=20, help="random programs per simulator")
    ap.add_argument("--seed", type=cli.seed, default=1)
    ap.add_argument("--bench", action="store_true", help="only measure simulated cycles per second")
    ap.add_argument("--only", default="", help="run only hand programs whose name contains this")
    ap.add_argument("--xcheck", action="store_true",
                    help="only dump VCDs of the hand programs on Icarus and list signals that break the X policy "
                         "(docs/rtl.md: outputs and control 0/1 from reset, datapath from its unit's first start)")
    args = ap.parse_args()
    if args.only and not any(args.only in c[0] for c in hand.hand_programs()):
        return cli.refuse(ap.prog, f"--only {args.only!r}: no hand program's name contains it")
    if args.xcheck:
        cases = [c for c in hand.hand_programs() if args.only in c[0]]
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
        cmd4, cmd8 = build(sim, hand.EXT_HAND), build(sim, RANDOM_EXT)
        print(f"[{sim}] built in {time.perf_counter() - t0:.1f} s")
        if args.bench:
            prog, img = hand.bench_program()
            runs = 1 if sim == "icarus" else 20        # about 10-20 s of wall time on each
            r, errs = check(cmd4, prog, img, hand.EXT_HAND, BUILD / sim / "bench", runs=runs)
            cyc = sum(s_["cycles"] for s_ in r.status)
            print(f"[{sim}] bench: {runs} run(s) of a {r.status[0]['cycles']}-cycle program, {cyc} cycles "
                  f"(measured by cnt_cycles) in {r.wall:.2f} s wall incl. start-up = {cyc / r.wall:,.0f} "
                  f"cycles/s; {'PASS' if not errs else 'FAIL ' + '; '.join(errs)}")
            fails += bool(errs)
            total += 1
            continue
        cases = [(n, p, i, hand.EXT_HAND, cmd4, 2) for n, p, i in hand.hand_programs() if args.only in n]
        if not args.only:
            cases += [(name, prog, img, RANDOM_EXT, cmd8, 1 if bad is None else 2)
                      for name, prog, img, bad in regionprog.region_cases(args.seed, args.random, RANDOM_EXT)]
        nfail = 0
        for name, prog, img, extw, cmd, runs in cases:
            _, errs = check(cmd, prog, img, extw, BUILD / sim / name, runs=runs)
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
    from tb.cli import guard
    sys.exit(guard(main))
