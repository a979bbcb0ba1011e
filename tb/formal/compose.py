"""Compositional (assume-guarantee) proofs of listed equivalents no whole-module miter closes.

A mutant of a constant operand of ga2_divu (ga2_norm's reciprocal dividend 2^29, ga2_softmax's
fast reciprocal dividend 2^32 - 1) changes what the divider's registers hold mid-divide, so
the shared-state miter does not apply, and pdr / dprove on the masked miter would have to
find an invariant about division itself; none did within its limit (docs/formal.md). Here
the proof is split into steps, each one a tool's verdict (docs/formal_compose.md "The reciprocal
constants, proven by composition"):

 1. the divider's contract (tb/formal/ga2_divu_f.v, smtbmc z3 1-induction, at the width
    the unit uses): from a start with dividend N and divisor D, at `last` and until the
    next start, N = QD + remainder, remainder < D, QD the Horner sum of D over the
    quotient's bits; D = 0 gives an all-ones quotient;
 2. two integer facts (z3, SMT-LIB integers): Horner's step keeps QD = quotient * D, and
    Euclid's division is unique (N = Q D + R, 0 <= R < D gives Q = N div D), so the
    quotient is floor(N / D), whatever N is;
 3. the unit's use of the divider (a wrapper per unit, smtbmc z3 1-induction): in every
    cycle the quotient is observed, the divider is idle, has shown `last` since its start
    and holds the divisor the unit computed, and that divisor meets its specification
    (ga2_norm: root^2 + rem = ss * 2^10, rem <= 2 root, ss <= 2^20, i.e. root =
    isqrt(ss * 2^10));
 4. the arithmetic lemma (z3, bit-vectors): on every divisor step 3 allows, the gold's and
    the mutant's dividends give the same observed value (ga2_norm: floor(2^29 / q) =
    floor((2^29 + 1) / q)).
The composition (docs/formal.md): the two copies differ only in the divider's dividend;
its forward cone and the quotient's and remainder's reach no flip-flop but those two and
no output but wr_data (cone_check(), yosys `select`: a structural step), so every other
register and output is the same in both; in a cycle
where the quotient is observed it is floor(N / D) (1, 2) with the same D in both (3), and
equal by 4. A dividend for which some reachable divisor gives a different quotient fails
step 4 (tests/flow/test_formal_compose.py plants one).

ga2_mm_ctrl's early old-C read (mm_steps) is a mutant of timing, not of arithmetic: the
unit reads port 0 a cycle early, which the chip cannot see because the scratchpad holds the
word and nothing writes it in between. Its steps: the unit and the mutant on one ga2_sram
(tb/formal/ga2_mm_sp_miter_f.v) with the invariant that makes the miter inductive
(mm_sp_inv_check: every register equal but row 0's A operands, which meet only b = 0), the
other writers kept off the MM's C hull; and the chip's own proofs that keep them off
(ga2_hazard's invariant, ga2_seq's issue rule, every writer's link; tb/formal/props.py).

A write address one cycle late (the mutation class "delay" on `assign wr_addr = wp_q;`
of ga2_rope, ga2_swiglu, ga2_rqc and ga2_smw, wr_hold_steps) adds a register, so the shared-state miter does
not apply, and the masked miter holds two copies of each unit's multiplier, where pdr and
dprove found nothing in their limits. Its steps: the mutant's new register (loaded with
wp_q every cycle, initial value 0) feeds no flip-flop but itself and no output but wr_addr
(cone_check on the mutant); and the unit alone, ABC pdr on tb/formal/ga2_wr_hold_f.v: from
the miters' initial state, with every input free, wr_en is low in the first cycle and in
every cycle with wr_en high wr_addr equals its value one cycle before. Composed: every
other register and output is the gold's, and wherever wr_addr is observed the mutant's
(the gold's wr_addr one cycle before) is the gold's. A unit that writes in consecutive
cycles (ga2_vec_rq) is refuted by the same wrapper (tests/flow/test_formal_compose.py).
"""
import pathlib
import re
import subprocess
import time

from tb import ROOT
from tb.formal import engine
from tb.formal.engine import BUILD, WRAPPERS, Check, Verdict


def _bv(v, w):
    """SMT-LIB bit-vector literal of v, w bits (w a multiple of 4: hex)."""
    return f"#x{v:0{w // 4}x}"


# Horner's step (the divider's QD, one quotient bit b a step) keeps QD = Q * D
HORNER = """(set-logic QF_NIA)
(declare-const q Int) (declare-const d Int) (declare-const b Int) (declare-const qd Int)
(assert (or (= b 0) (= b 1)))
(assert (= qd (* q d)))
(assert (not (= (+ (* 2 qd) (* b d)) (* (+ (* 2 q) b) d))))
(check-sat)
"""

# Euclid: N = Q D + R with 0 <= R < D (D > 0, N >= 0) gives Q = N div D, R = N mod D
EUCLID = """(set-logic QF_NIA)
(declare-const n Int) (declare-const d Int) (declare-const q Int) (declare-const r Int)
(assert (> d 0)) (assert (<= 0 r)) (assert (< r d)) (assert (>= n 0))
(assert (= n (+ (* q d) r)))
(assert (not (and (= q (div n d)) (= r (mod n d)))))
(check-sat)
"""


def norm_lemma(n_gold, n_gate, ss_max=1 << 20):
    """SMT-LIB (unsat when it holds): for every ss <= ss_max and root, rem with
    root^2 + rem = ss * 2^10, rem <= 2 root (what tb/formal/ga2_norm_recip_f.v proves of
    the isqrt) and root != 0: floor(n_gold / root) = floor(n_gate / root). 64-bit
    arithmetic: no product wraps (root < 2^16, ss * 2^10 < 2^31)."""
    return f"""(set-logic QF_BV)
(define-fun z16 ((x (_ BitVec 16))) (_ BitVec 64) ((_ zero_extend 48) x))
(declare-const ss (_ BitVec 21))
(declare-const root (_ BitVec 16))
(declare-const rem (_ BitVec 16))
(define-fun d () (_ BitVec 64) (z16 root))
(assert (bvule ((_ zero_extend 43) ss) {_bv(ss_max, 64)}))
(assert (= (bvadd (bvmul d d) (z16 rem)) (bvmul ((_ zero_extend 43) ss) {_bv(1024, 64)})))
(assert (bvule (z16 rem) (bvmul d {_bv(2, 64)})))
(assert (not (= root {_bv(0, 16)})))
(assert (not (= (bvudiv {_bv(n_gold, 64)} d) (bvudiv {_bv(n_gate, 64)} d))))
(check-sat)
(get-value (ss root))
"""


def smt_check(name, text, timeout=300, what=""):
    """The Verdict of z3 on one SMT-LIB query (its negated claim): unsat = 'proven',
    sat = 'FAILED' (the model in detail), otherwise TIMEOUT / ERROR. The query and z3's
    answer are kept in build/formal/<name>/."""
    work = BUILD / re.sub(r"[^\w.-]+", "_", name)
    work.mkdir(parents=True, exist_ok=True)
    (work / "query.smt2").write_text(text)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(["z3", f"-T:{timeout}", str(work / "query.smt2")], capture_output=True,
                           text=True, timeout=timeout + 30, cwd=ROOT)
        out = p.stdout
    except subprocess.TimeoutExpired:
        out = "timeout"
    secs = time.perf_counter() - t0
    (work / "z3.out").write_text(out)
    first = out.split("\n", 1)[0].strip()
    if first == "unsat":
        return Verdict(name, "proven", "z3 (SMT-LIB)", "unsat", secs)
    if first == "sat":
        return Verdict(name, "FAILED", "z3 (SMT-LIB)", "sat", secs, " ".join(out.split("\n", 1)[1].split()))
    return Verdict(name, "TIMEOUT" if "timeout" in out else "ERROR", "z3 (SMT-LIB)", "-", secs,
                   out.strip()[-200:])


def divu(width, timeout=600):
    """ga2_divu's contract at `width` (tb/formal/ga2_divu_f.v), 1-induction."""
    return Check(f"equiv/compose/divu w={width}", "ga2_divu_f", [WRAPPERS / "ga2_divu_f.v"], 1, "induction",
                 rtl=[ROOT / "rtl" / "ga2_divu.v"],
                 pre=f"chparam -set WIDTH {width} ga2_divu\nhierarchy -top ga2_divu\nproc\nexpose w:*_q w:ge\n",
                 params={"WIDTH": width}, timeout=timeout,
                 what=f"ga2_divu WIDTH {width}, any start/reset/operands: N = QD + R, R < D at last "
                      "until the next start (QD: Horner's sum); D = 0: all-ones quotient")


# the nets of the flattened ga2_norm that tb/formal/ga2_norm_recip_f.v reads
NORM_EXPOSE = ("state_q", "cnt_q", "len_q", "st_q", "ss_q", "root_q", "rem_q", "fits",
               "u_div.step_q", "u_div.last_q", "u_div.dsr_q")


def norm_recip(timeout=900):
    """ga2_norm's isqrt and its use of the divider (tb/formal/ga2_norm_recip_f.v),
    1-induction. The requant unit and the x * r product (wr_data's datapath, which no
    assertion reads) are cut: z3 4.8.12 did not finish step 0 in 60 s with them in the model."""
    rtl = [ROOT / "rtl" / f for f in ("ga2_divu.v", "ga2_requant.v", "ga2_norm.v")]
    return Check("equiv/compose/norm-recip", "ga2_norm_recip_f", [WRAPPERS / "ga2_norm_recip_f.v"], 1,
                 "induction", rtl=rtl,
                 pre=("hierarchy -top ga2_norm\nproc\ncutpoint ga2_requant\nflatten\ncutpoint w:xr\n"
                      f"expose {' '.join('w:' + w for w in NORM_EXPOSE)}\n"),
                 params={"MUL": 1}, timeout=timeout,
                 what="ga2_norm (SP 4096, len 1..64 assumed at start): in S_SCALE the divider is idle, "
                      "done, with divisor root_q; root_q^2 + rem = ss * 2^10, rem <= 2 root_q, ss <= 2^20")


# the nets of the flattened ga2_softmax (FAST = 1, its buffer mapped to registers ebuf[0]
# .. ebuf[63]) that tb/formal/ga2_softmax_recip_f.v reads
SM_EXPOSE = ("state_q", "cnt_q", "len_q", "ew_q", "idx_q", "sum_q", "e_rd", "ebuf*",
             "u_div.step_q", "u_div.last_q", "u_div.dsr_q")


def softmax_recip(timeout=900):
    """ga2_softmax's FAST pass 3 inputs (tb/formal/ga2_softmax_recip_f.v), 1-induction, at
    FAST = 1 and SM_MAX_LEN = 64, with cvc4 (z3 4.8.12 did not finish the base step in
    minutes; cvc4 proves the induction in about 4 minutes). qfast (wr_data's datapath, which no assertion reads) is
    cut, as norm_recip() cuts the requant, and so is the exp table (e free)."""
    rtl = [ROOT / "rtl" / f for f in ("ga2_divu.v", "ga2_exp_lut.v", "ga2_softmax.v")]
    return Check("equiv/compose/softmax-recip", "ga2_softmax_recip_f", [WRAPPERS / "ga2_softmax_recip_f.v"], 1,
                 "induction", rtl=rtl,
                 pre=("chparam -set FAST 1 -set SM_MAX_LEN 64 ga2_softmax\nhierarchy -top ga2_softmax\nproc\n"
                      "cutpoint ga2_exp_lut\nflatten\nmemory_map\nopt_clean\ncutpoint w:qfast\n"
                      f"expose {' '.join('w:' + w for w in SM_EXPOSE)}\n"),
                 timeout=timeout, solver="cvc4",
                 what="ga2_softmax FAST = 1, SM_MAX_LEN 64, SP 4096 (len 1..64 assumed at start): in S_OUT "
                      "the divider is idle, done, with divisor sum_q; e_rd <= sum_q <= 64 * 65535")


# one entry of tb/mutation/rtl/equivalents.txt: (file, class, change) -> its proof's steps
NORM_N, NORM_N_GATE = 1 << 29, (1 << 29) + 1
SM_N, SM_N_GATE = (1 << 32) - 1, (1 << 32) - 2
SM_MAX = 64 * 65535                   # the largest sum at SM_MAX_LEN = 64


def sm_table():
    """The sums S <= SM_MAX whose two quotients may differ: the divisors of 2^32 - 1 (the
    gold's dividend; floor((N-1)/S) = floor(N/S) unless S divides N, sm_div_lemma checks it
    without that argument: every S outside this list)."""
    return divisors_below(SM_N, SM_MAX)


def norm_steps(site=None):
    """[(name, run)] of the steps of ga2_norm's reciprocal constant (2^29 -> 2^29 + 1)."""
    rtl = [ROOT / "rtl" / f for f in ("ga2_divu.v", "ga2_requant.v", "ga2_norm.v")]
    return [
        ("composition (the dividend's cone)", lambda: cone_check("equiv/compose/norm-cone", "ga2_norm", rtl)),
        ("divider", lambda: engine.run(divu(30))),
        ("Horner", lambda: smt_check("equiv/compose/horner", HORNER)),
        ("Euclid", lambda: smt_check("equiv/compose/euclid", EUCLID)),
        ("isqrt and the divider's use", lambda: engine.run(norm_recip())),
        ("lemma", lambda: smt_check("equiv/compose/norm-lemma", norm_lemma(NORM_N, NORM_N_GATE))),
    ]


def fast0(site, work, timeout=600):
    """The Verdict of the miters at FAST = 0 (tb/formal/miter.py), where the fast
    reciprocal's constant is not used: the miters' first proof closes it (yosys's
    equivalence flow, 14 s; the shared-state miter's pdr before it was tried first)."""
    from tb.formal import miter
    text, vs = miter._verdict1(site, work, {"FAST": 0}, timeout, 40, max(10, timeout // 2), None)
    v = vs[-1]
    return Verdict("equiv/compose/softmax FAST=0", "proven" if text.startswith("equivalent") else v.result,
                   v.engine + " (" + text[len("equivalent (proven by "):].split(",")[1].strip() + ")"
                   if text.startswith("equivalent") else v.engine, v.depth, sum(x.secs for x in vs),
                   "" if text.startswith("equivalent") else text)


def softmax_steps(site=None):
    """[(name, run)] of the steps of ga2_softmax's fast reciprocal constant (2^32 - 1 ->
    2^32 - 2): FAST = 1 by composition; FAST = 0, where the constant is not used, by the
    miters (fast0(), with the entry's site)."""
    first = [("FAST = 0 miter", lambda: fast0(site, BUILD / "equiv" / "compose_fast0"))] if site is not None else []
    rtl = [ROOT / "rtl" / f for f in ("ga2_divu.v", "ga2_exp_lut.v", "ga2_softmax.v")]
    return first + [
        ("composition (the dividend's cone)", lambda: cone_check("equiv/compose/softmax-cone", "ga2_softmax", rtl,
                                                                 {"FAST": 1})),
        ("divider", lambda: engine.run(divu(32))),
        ("Horner", lambda: smt_check("equiv/compose/horner", HORNER)),
        ("Euclid", lambda: smt_check("equiv/compose/euclid", EUCLID)),
        ("pass 3's inputs", lambda: engine.run(softmax_recip())),
        ("lemma (quotients)", lambda: smt_check("equiv/compose/softmax-div", sm_div_lemma(SM_N, SM_N_GATE, SM_MAX,
                                                                                       sm_table()))),
        ("lemma (pass 3)", lambda: softmax_table(SM_N, SM_N_GATE, sm_table())),
    ]


def softmax_table(n_gold, n_gate, table, timeout=300):
    """One Verdict for softmax_lemma on every S of table, one check per S (the sums
    constant, yosys folds the quotients: each closes in 0 to 50 s, where one check with S
    chosen by a case over the table did not in 300 s): proven when each is."""
    secs, worst = 0.0, None
    for t in table:
        v = _combinational(engine.run(softmax_lemma_check(n_gold, n_gate, [t], name=f"equiv/compose/softmax-table/{t}",
                                                          timeout=timeout)))
        secs += v.secs
        if v.result != "proven":
            worst = worst or v
    if worst:
        return Verdict("equiv/compose/softmax-table", worst.result, worst.engine, worst.depth, secs,
                       f"{worst.name}: {worst.detail}")
    return Verdict("equiv/compose/softmax-table", "proven", "smtbmc z3 bmc", f"bmc 1 each of {len(table)} sums "
                   "(combinational: every e)", secs)


def _combinational(v):
    """A one-step bmc of a module without registers covers every input: a proof."""
    if v.result == "bounded" and v.depth == "bmc 1":
        v.result, v.depth = "proven", "bmc 1 (combinational: every input)"
    return v


def mm_steps(site=None):
    """[(name, run)] of the steps of ga2_mm_ctrl's early old-C read (pre_drain one cycle
    early): the unit and the mutant on one scratchpad, equivalent by k-induction on the
    miter with its invariant, where the other units never write the MM's C hull while it
    runs; that environment from the chip's own proofs: ga2_hazard flags every write range
    meeting a busy unit's write range (its invariant), ga2_seq issues only with the flag
    low (its issue rule), and every writing unit writes only inside its instruction's
    ranges and only while busy (its link). site: the entry's mutation site (the miter
    builds the mutant from it)."""
    from tb.formal import props
    first = ([("scratchpad miter (unit and mutant, one ga2_sram) with its invariant",
               lambda: engine.run(mm_sp_inv_check(site, BUILD / "equiv" / "compose_mm_sp", timeout=3600,
                                                  solver="cvc4")))]
             if site is not None else [])
    writers = [u for u, _ in props.link_units() if u != "mm"]
    return first + [
        ("the others off the C hull: ga2_hazard's invariant", lambda: engine.run(props.hazard(8))),
        ("ga2_seq issues only without a hazard", lambda: engine.run(props.seq_issue())),
    ] + [(f"{u} writes only inside its ranges, only while busy", lambda u=u: engine.run(props.link(u)))
         for u in writers]


def wr_hold(module, timeout=600, expect_fail=False, rtl_dir=None):
    """The Check of tb/formal/ga2_wr_hold_f.v on module (renamed ga2_wr_hold_dut): its
    wr_addr holds over the cycle before each write, ABC pdr (the registers at 0, every
    input free). expect_fail: a unit that must be refuted (the planted check); rtl_dir: the
    RTL to read instead of rtl/ (a planted copy)."""
    from tb.formal import miter
    from tb.sim.files import rtl_files
    return Check(f"equiv/compose/{module} wr-hold" + (" planted" if expect_fail else ""), "ga2_wr_hold_f",
                 [WRAPPERS / "ga2_wr_hold_f.v"], 1, "pdr", pre=f"rename {module} ga2_wr_hold_dut\n",
                 rtl=[str(f) for f in rtl_files(rtl_dir)] if rtl_dir else None,
                 post=miter.ZERO_INIT, timeout=timeout, expect_fail=expect_fail,
                 what=f"{module}, registers at 0, every input free: wr_en low in the first cycle; "
                      "with wr_en high, wr_addr equal to its value one cycle before")


def wr_hold_steps(site=None):
    """[(name, run)] of the steps of a write address one cycle late (the delay class on
    `assign wr_addr = ...`): the mutant's register reaches only wr_addr (the cone, on the
    mutant built from site), and the unit's wr_addr holds over the cycle before each write."""
    if site is None:
        return []
    return [("composition (the late register's cone)", lambda: late_cone(site)),
            ("wr_addr holds over the cycle before each write", lambda: engine.run(wr_hold(site.module)))]


def late_cone(site, outputs=("wr_addr",), tag=""):
    """cone_check on the delay mutant of site (built from rtl/): its register mut_dly_wr_addr
    reaches no flip-flop but itself and no output but outputs. tag: a planted variant's name."""
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    work = BUILD / "equiv" / f"compose_{site.module}_dly{tag}"
    gate = make_mutant_dir(site, str(work / "gate"), RTL_DIR)
    files = sorted(str(f) for f in pathlib.Path(gate).glob("*.v"))
    return cone_check(f"equiv/compose/{site.module}-dly-cone{tag}", site.module, files,
                      regs=("mut_dly_wr_addr",), outputs=outputs, extra=())


COMPOSED = {
    ("ga2_norm.v", "const", "30'h2000_0000 -> 30'h20000001"): norm_steps,
    ("ga2_softmax.v", "const", "32'hFFFF_FFFF -> 32'hfffffffe"): softmax_steps,
    ("ga2_mm_ctrl.v", "timing", "== x -> == x-1"): mm_steps,
    ("ga2_rope.v", "delay", "wr_addr = wp_q: one cycle late"): wr_hold_steps,
    ("ga2_swiglu.v", "delay", "wr_addr = wp_q: one cycle late"): wr_hold_steps,
    ("ga2_rqc.v", "delay", "wr_addr = wp_q: one cycle late"): wr_hold_steps,
    ("ga2_smw.v", "delay", "wr_addr = wp_q: one cycle late"): wr_hold_steps,
}


def steps_for(key, site=None):
    """The steps of key's compositional proof (key: equivalents.equiv_key's (file, class,
    code line, change); site: its mutation site, for a step that runs a miter), or None."""
    f = COMPOSED.get((key[0], key[1], key[3]))
    return f(site) if f else None


def verdict(steps):
    """(text, [Verdict]): 'equivalent (proven by composition: ...)' when every step is
    proven, else 'NOT PROVEN (...)' naming the step that was not."""
    vs, parts = [], []
    for label, run in steps:
        v = run()
        vs.append(v)
        parts.append(f"{label} by {v.engine} {v.depth} ({v.secs:.0f} s)")
        if v.result != "proven":
            return (f"NOT PROVEN (composition: the {label} step {v.result}"
                    + (f": {v.detail}" if v.detail else "") + ")"), vs
    return "equivalent (proven by composition: " + "; ".join(parts) + ")", vs


# ga2_softmax's FAST pass 3, the RTL's own lines (from `wire [15:0] e_rd` to `wire [16:0]
# qfast`), cut out of rtl/ga2_softmax.v by softmax_lemma() and instantiated twice
SM_FIRST, SM_LAST = "  wire [15:0] e_rd", "  wire [16:0] qfast"
SM_NAMES = ("e_rd", "rcp", "prod", "e_sh", "q0s", "q0", "rem", "fix", "qfast")


def softmax_fast_lines(rtl=None):
    """The lines of rtl/ga2_softmax.v that compute the FAST output qfast from e_rd =
    ebuf[idx_q], quot and sum_q (ValueError when they are not found)."""
    src = (rtl or ROOT / "rtl" / "ga2_softmax.v").read_text()
    a = src.find(SM_FIRST)
    z = src.find(SM_LAST)
    if a < 0 or z < 0 or "ebuf[idx_q]" not in src[a:z]:
        raise ValueError("rtl/ga2_softmax.v: the FAST pass 3 lines (e_rd .. qfast) are not found")
    return src[a:src.index("\n", z)]


def softmax_lemma(n_gold, n_gate, table, max_len=64, rtl=None, e_le_s=True):
    """Verilog of sm_fast_lemma: for every sum S in table (S <= max_len * 65535) and every
    e <= S, e <= 65535, the RTL's pass 3 lines (softmax_fast_lines(), twice) give the same
    qfast with quot = floor(n_gold / S) as with floor(n_gate / S) (the quotients are
    constants here, computed by Python, one case per S). Combinational: one step of
    smtbmc decides it for every input."""
    sumw = (max_len * 65535).bit_length()
    body = softmax_fast_lines(rtl)
    copies = []
    for tag in ("g", "t"):
        t = body.replace("ebuf[idx_q]", "e").replace("sum_q", "s")
        t = re.sub(r"\bquot\b", f"quot_{tag}", t)
        for n in SM_NAMES:
            t = re.sub(rf"\b{n}\b", f"{n}_{tag}", t)
        copies.append(t)
    if not table or max(table) > max_len * 65535:
        raise ValueError("softmax_lemma: the sums must lie in 1..max_len * 65535")
    kw = max(1, (len(table) - 1).bit_length())
    cases = "\n".join(f"      {kw}'d{i}: begin s = {sumw}'d{v}; quot_g = 32'd{n_gold // v}; "
                      f"quot_t = 32'd{n_gate // v}; end" for i, v in enumerate(table))
    return f"""`resetall
`timescale 1ns/1ps
`default_nettype none
// GENERATED by tb/formal/compose.py softmax_lemma() from rtl/ga2_softmax.v's FAST pass 3
module sm_fast_lemma (
  input wire [{kw - 1}:0] k,
  input wire [15:0] e
);
  localparam SUMW = {sumw};
  reg [SUMW-1:0] s;
  reg [31:0] quot_g, quot_t;
  always @* begin
    case (k)
{cases}
      default: begin s = {sumw}'d1; quot_g = 32'd0; quot_t = 32'd0; end
    endcase
  end
{copies[0]}
{copies[1]}
  always @* begin
    assume (k < {kw}'d{len(table)});
    {"" if e_le_s else "// (planted: e not bounded by s) "}assume ({{{sumw - 16}'d0, e}} <= s);
    assert (qfast_g == qfast_t);
  end
endmodule
`resetall
"""


def softmax_lemma_check(n_gold, n_gate, table, name="equiv/compose/softmax-table", timeout=600, max_len=64,
                        e_le_s=True):
    """The Check of softmax_lemma (written to its build folder): smtbmc z3, one step."""
    work = BUILD / re.sub(r"[^\w.-]+", "_", name)
    work.mkdir(parents=True, exist_ok=True)
    v = work / "sm_fast_lemma.v"
    v.write_text(softmax_lemma(n_gold, n_gate, table, max_len, e_le_s=e_le_s))
    return Check(name, "sm_fast_lemma", [], 1, "bmc", front=f"read_verilog -formal {v}", timeout=timeout,
                 what=f"ga2_softmax FAST pass 3 (the RTL's lines): S in {len(table)} sums, e <= S: "
                      f"qfast equal for quot = floor({n_gold:#x} / S) and floor({n_gate:#x} / S)")


def divisors_below(n, limit):
    """The divisors d of n with 1 <= d <= limit (trial division by the small ones)."""
    out, d = set(), 1
    while d * d <= n:
        if n % d == 0:
            out |= {d, n // d}
        d += 1
    return sorted(x for x in out if x <= limit)


def sm_div_lemma(n_gold, n_gate, smax, table):
    """SMT-LIB (unsat when it holds): for every S in 1..smax outside table,
    floor(n_gold / S) = floor(n_gate / S) (so only the S in table need the pass 3 check,
    softmax_table_lemma())."""
    outside = " ".join(f"(not (= s {_bv(t, 32)}))" for t in table)
    return f"""(set-logic QF_BV)
(declare-const s (_ BitVec 32))
(assert (bvule {_bv(1, 32)} s))
(assert (bvule s {_bv(smax, 32)}))
(assert (and {outside}))
(assert (not (= (bvudiv {_bv(n_gold, 32)} s) (bvudiv {_bv(n_gate, 32)} s))))
(check-sat)
(get-value (s))
"""


def cone_check(name, module, files, params=None, regs=("u_div.quo_q", "u_div.rem_q"), outputs=("wr_data",),
               extra=("u_div.dividend",), timeout=300):
    """The composition's structural step, by yosys: in module (flattened, params set), the
    forward cone of the registers regs (the divider's quotient and remainder) and of the
    nets extra (the divider's dividend, the mutated constant) reaches no
    flip-flop but theirs and no output but outputs, so a change confined to what regs
    hold changes nothing else (every other register and output is the same in both
    copies). 'proven' when both `select -assert-none` hold, 'FAILED' (what is reached in
    the log) otherwise."""
    work = BUILD / re.sub(r"[^\w.-]+", "_", name)
    work.mkdir(parents=True, exist_ok=True)
    ch = "".join(f"chparam -set {k} {v} {module}\n" for k, v in (params or {}).items())
    own = " ".join(f"w:{r}" + (" %u" if i else "") for i, r in enumerate(regs))
    src = " ".join(f"w:{r}" + (" %u" if i else "") for i, r in enumerate(regs + tuple(extra)))
    outs = " ".join(f"o:{o}" for o in outputs)
    script = (f"read_verilog -formal -I{ROOT / 'rtl'} {' '.join(str(f) for f in files)}\n{ch}"
              f"hierarchy -top {module}\nproc\nflatten\nopt_clean\n"
              f"select -set src {src}\nselect -set own {own} %ci1 t:$dff %i\n"
              + "".join(f"select -assert-count 1 w:{x}\n" for x in regs + tuple(extra)) +
              "select -set cone @src %co*:-$dff\n"
              "select -list @cone %co1 t:$dff %i @own %d\nselect -list @cone o:* %i\n"
              f"select -assert-none @cone %co1 t:$dff %i @own %d\n"
              f"select -assert-none @cone o:* %i {outs} %d\n"
              f"select -assert-count {len(regs)} @own\n")
    (work / "cone.ys").write_text(script)
    t0 = time.perf_counter()
    rc, out = engine._run(["yosys", "-q", "-l", str(work / "cone.log"), str(work / "cone.ys")], work / "cone.out",
                          timeout)
    secs = time.perf_counter() - t0
    if rc == 0:
        return Verdict(name, "proven", "yosys select", "structural", secs)
    err = [ln for ln in out.splitlines() if "ERROR" in ln] or ["see " + str(work / "cone.log")]
    return Verdict(name, "FAILED" if rc is not None and "Assertion failed" in out else "ERROR", "yosys select", "-",
                   secs, err[0].strip()[:300])


def mm_sp_check(site, work, mode="bmc3", depth=20, timeout=600, sp=16, xfree=0):
    """The Check of ga2_mm_ctrl's early old-C read with the scratchpad
    (tb/formal/ga2_mm_sp_miter_f.v): the unit and the mutant (site) reading one ga2_sram
    of sp words, written by the gold and by others only while the MM is idle (xfree = 1,
    planted: also while it runs, where the early read must be seen)."""
    from tb.formal import miter
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    gold = make_mutant_dir(None, str(work / "gold"), RTL_DIR)
    gate = make_mutant_dir(site, str(work / "gate"), RTL_DIR)
    sides = work / "sides"
    miter.build_sides("ga2_mm_ctrl", gold, gate, sides, {"SP_WORDS": sp})
    saw = (sp - 1).bit_length()
    front = (f"read_rtlil {sides / 'gold.il'}\nread_rtlil {sides / 'gate.il'}\n"
             f"read_verilog -formal -I{ROOT / 'rtl'} {ROOT / 'rtl' / 'ga2_sram.v'} {WRAPPERS / 'ga2_mm_sp_miter_f.v'}\n"
             f"chparam -set SP_WORDS {sp} -set SAW {saw} -set XFREE {xfree} ga2_mm_sp_miter_f\n"
             "hierarchy -top ga2_mm_sp_miter_f\n")
    return Check(f"equiv/compose/mm-sp {mode}" + (" planted" if xfree else ""), "ga2_mm_sp_miter_f", [], depth, mode,
                 front=front,
                 post=miter.ZERO_INIT, timeout=timeout,
                 what=f"ga2_mm_ctrl and the early old-C read mutant on one scratchpad of {sp} words")


# ga2_mm_sp_miter_f's invariant (GA2_MM_SP_INV): the registers of row 0's A operands, the
# ones that may differ (the miter states when); every other register of the copies equal
MM_SP_FREE = tuple(f"u_array.g_row[0].g_col[{j}].u_pe.a_out" for j in range(3))


def mm_sp_regs(unit_ports, ports):
    """{mm_sp_regs.vh, mm_sp_conn_g.vh, mm_sp_conn_t.vh: text} of the invariant miter: the
    registers are the outputs of ports (a copy built with `expose -dff`) that unit_ports
    (the unit's own) lacks; each gets wires g_r_<name> / t_r_<name> (<name>: the register's
    hierarchical name, every non-word character '_'), and regs_eq is the equality of all
    but MM_SP_FREE (ValueError when one of those is not a register: the invariant would
    name a wire that does not exist)."""
    regs = {n: w for n, (d, w) in ports.items() if d == "output" and n not in unit_ports}
    missing = [r for r in MM_SP_FREE if r not in regs]
    if missing:
        raise ValueError(f"mm_sp_regs: not registers of the unit: {missing}")
    ident = {n: re.sub(r"\W", "_", n) for n in regs}
    if len(set(ident.values())) != len(ident):
        raise ValueError("mm_sp_regs: two registers map to one wire name")
    decl = "".join(f"  wire [{w - 1}:0] g_r_{ident[n]}, t_r_{ident[n]};\n" for n, w in regs.items())
    eq = " && ".join(f"g_r_{ident[n]} == t_r_{ident[n]}" for n in regs if n not in MM_SP_FREE)
    conn = {tag: "".join(f"    , .\\{n} ({tag}_r_{ident[n]})\n" for n in regs) for tag in "gt"}
    return {"mm_sp_regs.vh": f"{decl}  wire regs_eq = {eq};\n",
            "mm_sp_conn_g.vh": conn["g"], "mm_sp_conn_t.vh": conn["t"]}


def mm_sp_inv_check(site, work, depth=2, timeout=1800, sp=16, xfree=0, solver="z3", mode="induction"):
    """The Check of ga2_mm_sp_miter_f with its invariant (GA2_MM_SP_INV): the copies built
    with `expose -dff`, the registers' connections generated (mm_sp_regs), bmc to depth
    steps and k-induction with k = depth (mode "induction"). Before MM's khi and a16 z3 took
    396 s on an idle machine (cvc4 1130 s against z3's 864 s side by side); since, z3 passes
    1,800 s and cvc4 proves it in 1,249 s, so mm_steps runs cvc4: an unbounded proof of the miter's assertions, the
    equivalence of the unit and the mutant on the scratchpad among them. xfree = 1: the planted version (the
    others may write the C hull while the MM runs), which must fail (mode "bmc3")."""
    from tb.formal import miter
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    gold = make_mutant_dir(None, str(work / "gold"), RTL_DIR)
    gate = make_mutant_dir(site, str(work / "gate"), RTL_DIR)
    unit = set(miter.build_sides("ga2_mm_ctrl", gold, gold, work / "unit", {"SP_WORDS": sp})[0])
    sides = work / "inv_sides"
    ports = miter.build_sides("ga2_mm_ctrl", gold, gate, sides, {"SP_WORDS": sp}, strengthen=True)
    if ports[0] != ports[1]:
        raise ValueError("mm_sp_inv_check: the mutant changes the unit's registers")
    for f, text in mm_sp_regs(unit, ports[0]).items():
        (sides / f).write_text(text)
    saw = (sp - 1).bit_length()
    front = (f"read_rtlil {sides / 'gold.il'}\nread_rtlil {sides / 'gate.il'}\n"
             f"read_verilog -formal -DGA2_MM_SP_INV -I{ROOT / 'rtl'} -I{sides} {ROOT / 'rtl' / 'ga2_sram.v'} "
             f"{WRAPPERS / 'ga2_mm_sp_miter_f.v'}\n"
             f"chparam -set SP_WORDS {sp} -set SAW {saw} -set XFREE {xfree} ga2_mm_sp_miter_f\n"
             "hierarchy -top ga2_mm_sp_miter_f\n")
    return Check(f"equiv/compose/mm-sp-inv {mode}" + (" planted" if xfree else ""), "ga2_mm_sp_miter_f", [],
                 depth, mode, front=front, post=miter.ZERO_INIT, timeout=timeout, solver=solver,
                 expect_fail=bool(xfree),
                 what=f"ga2_mm_ctrl and the early old-C read mutant on one scratchpad of {sp} words, "
                      "with the invariant (every register equal but row 0's A operands)")
