"""The properties of `make formal` (tools/flow/formal.py), each one engine.Check.

Groups (a check's name starts with its group):
  overlap   the overlap mode's scratchpad safety on the whole chip (ga2_sp_xbar's
            missed-hazard check as an assertion) and ga2_hazard's local invariant;
  contract  the host contract (docs/host.md "Per-cycle rules") on the whole chip, in both
            timing modes;
  busy      each unit's busy length against model/timing.py's formula;
  link      each unit's scratchpad accesses inside the ranges ga2_decode reports for its
            instruction (what ga2_hazard reserves), and none while idle;
  equiv     the listed equivalent mutants (tb/mutation/rtl/equivalents.txt) by miter
            (tb/formal/miter.py).
The configurations are small on purpose (the sizes are in the checks' `what`): the
solver's work grows with the state, and the logic is the same at every size.
"""
import re
from pathlib import Path

from model import config, rtl
from model.ops import ldx, qnt, sm, smw
from tb import ROOT
from tb.formal import gen
from tb.formal.engine import BUILD, WRAPPERS, Check

# the whole chip: a 16-word scratchpad, a 16-word external memory, 16 instructions
CHIP = {"SP_WORDS": 16, "EXT_WORDS": 16, "IMEM_DEPTH": 16}
# ga2_top's datapath, cut (its outputs free): the array, the requant units, the exp table
# and the scratchpad's storage; none of them decides timing or an address
CUTS = ("u_mm.u_array.*", "u_vec_rq.u_requant.*", "u_norm.u_requant.*", "u_softmax.u_lut.*", "u_sp.*")
# nets of the flattened ga2_top that tb/formal/ga2_top_f.v reads
EXPOSE = ("u_xbar.miss", "sp_wr_en", "issue", "fault_code")


def chip_pre(overlap):
    sets = " ".join(f"-set {k} {v}" for k, v in {**CHIP, "OVERLAP": overlap}.items())
    return (f"chparam {sets} ga2_top\nhierarchy -top ga2_top\nproc\nflatten\n"
            f"cutpoint {' '.join('c:' + c for c in CUTS)}\n"
            f"expose {' '.join('w:' + w for w in EXPOSE)}\n")


def narrow_header(aw):
    """A copy of ga2_hazard.v with ga2_isa.vh's address width set to aw bits (the
    hazard proof's configuration); the folder."""
    d = BUILD / f"src_aw{aw}"
    d.mkdir(parents=True, exist_ok=True)
    isa = (ROOT / "rtl" / "ga2_isa.vh").read_text()
    isa, n = re.subn(r"(`define GA2_ADDR_W )\d+", rf"\g<1>{aw}", isa)
    if n != 1:
        raise ValueError("rtl/ga2_isa.vh: no single `define GA2_ADDR_W")
    (d / "ga2_isa.vh").write_text(isa)
    for f in ("ga2_cfg.vh", "ga2_hazard.v"):
        (d / f).write_text((ROOT / "rtl" / f).read_text())
    return d


def hazard(aw, depth=2, name=None, src=None):
    d = src or narrow_header(aw)
    return Check(name or f"overlap/hazard-invariant aw={aw}", "ga2_hazard_f", [WRAPPERS / "ga2_hazard_f.v"], depth,
                 "induction", rtl=[d / "ga2_hazard.v"], inc=str(d),
                 pre="hierarchy -top ga2_hazard\nproc\nexpose w:*_q\n",
                 what=f"ga2_hazard, free inputs, {aw}-bit addresses: a conflicting range of a busy unit always stalls")


def seq_issue(depth=2, name=None, src=None, expect_fail=False):
    """tb/formal/ga2_seq_f.v: the sequencer (OVERLAP = 1, IMEM 16) issues only with
    ga2_hazard's flag low and the decoded unit idle, only for a unit instruction without
    a fault, only inside a run (k-induction; cvc4: z3 4.8.12 spends 8 s on the base
    case's step 0, cvc4 0.2 s). src: a folder with a changed ga2_seq.v (a planted bug,
    expect_fail)."""
    rtl = [ROOT / "rtl" / "ga2_seq.v"] if src is None else [Path(src) / "ga2_seq.v"]
    return Check(name or "overlap/seq-issue", "ga2_seq_f", [WRAPPERS / "ga2_seq_f.v"], depth, "induction",
                 rtl=rtl, expect_fail=expect_fail, solver="cvc4",
                 what="ga2_seq OVERLAP=1, IMEM 16, every input free: an issue only with hazard low and the "
                      "decoded unit idle, a unit instruction without a fault, inside a run")


def planted_copy(folder, src_dir, name, old, new):
    """BUILD/folder: the files of src_dir, with the one occurrence of old in name replaced
    by new (a planted bug); ValueError when old does not occur exactly once (the RTL moved
    on and the planted check would test nothing)."""
    d = BUILD / folder
    d.mkdir(parents=True, exist_ok=True)
    src_dir = Path(src_dir)
    for f in src_dir.iterdir():
        if f.is_file():
            (d / f.name).write_text(f.read_text())
    text = (src_dir / name).read_text()
    if text.count(old) != 1:
        raise ValueError(f"{src_dir / name}: the planted change's text occurs {text.count(old)} times, not once")
    (d / name).write_text(text.replace(old, new))
    return d


def seq_planted():
    """seq_issue on a copy of ga2_seq.v whose stall ignores ga2_hazard's flag: must fail."""
    d = planted_copy("src_seq_nohazard", ROOT / "rtl", "ga2_seq.v",
                     "(((unit_sel & unit_busy) != {NT{1'b0}}) || hazard)", "((unit_sel & unit_busy) != {NT{1'b0}})")
    return seq_issue(name="overlap/seq-issue planted (stall without the hazard flag)", src=d, expect_fail=True)


def chip(overlap, depth, mode="bmc3", timeout=1500):
    m = "overlap" if overlap else "inorder"
    return Check(f"chip/{m}", "ga2_top_f", [WRAPPERS / "ga2_top_f.v"], depth, mode, pre=chip_pre(overlap),
                 timeout=timeout,
                 what=(f"ga2_top OVERLAP={overlap}, SP {CHIP['SP_WORDS']}, EXT {CHIP['EXT_WORDS']}, "
                       f"IMEM {CHIP['IMEM_DEPTH']}; any program, data, start, reset: scratchpad safety "
                       "(ga2_sp_xbar check) and host contract rules 1-6, a fault writes nothing"))


# the vector units whose busy proof is a hand-written wrapper with its own strategy (the
# softmax: FAST = 0 by pdr at LMAX 4, FAST = 1 by k-induction with lemmas; rqc, whose
# formula is a product of two fields, and ga2_smw by k-induction with lemmas; pdr on the
# generated wrappers did not close in 900 s; qnt: k-induction with lemmas, pdr needs a
# frame per busy cycle, 208 at len 16): their checks below, the others generated
BUSY_HAND = {"softmax0", "softmax1", "rqc", "qnt", "smw"}


def busy_checks(sp=16):
    """One check per unit: busy exactly formula(fields) cycles after each start. The DMA
    and the matrix unit by their hand-written wrappers, every vector unit by the wrapper
    generated from its records (tb/formal/gen.py), the softmax by its own strategies."""
    cfg = config.DEFAULT
    out = [
        Check("busy/ga2_dma", "ga2_dma_busy_f", [WRAPPERS / "ga2_dma_busy_f.v"], 0, "pdr",
              params={"SP_WORDS": sp, "LDX_EXTRA": ldx.EXTRA}, inc=None, timeout=900,
              what=f"ga2_dma (SP {sp}), any start/restart: busy = LD/ST len+1, ldx len+LDX_EXTRA+1; "
                   "len <= 16, any legal base/rows/index"),
        Check("busy/ga2_mm_ctrl", "ga2_mm_busy_f", [WRAPPERS / "ga2_mm_busy_f.v"], 0, "pdr",
              params={"SP_WORDS": sp, "MM_FILL": cfg.mm_fill, "KMAX": 16}, inc=None, timeout=900,
              what=f"ga2_mm_ctrl (SP {sp}), any start/restart: busy = K+MM_FILL+M*N; M,N 1..4, K 1..16, "
                   "any strides/tb/acc"),
        Check("busy/ga2_softmax", "ga2_softmax_busy_f", [WRAPPERS / "ga2_softmax_busy_f.v"], 0, "pdr",
              params={"SP_WORDS": sp, "FAST": 0, "SM_DIV": cfg.sm_div_cycles, "LMAX": 4}, inc=None,
              timeout=900, what=f"ga2_softmax (SP {sp}), any start/restart: busy = 2(len+1)+SM_DIV*len "
                                "(FAST=0); len 1..4"),
        softmax_fast_induction(),
        rqc_busy_induction(),
        qnt_busy_induction(),
        smw_busy(),
    ]
    for name, (top, path) in gen.busy_files(sp).items():
        if name in BUSY_HAND:
            continue
        out.append(Check(f"busy/{name}", top, [path], 0, "pdr", params={"SP_WORDS": sp, "LMAX": 16},
                         inc=None, timeout=900,
                         what=f"{name} (SP {sp}), any start/restart, every instruction the decoder accepts "
                              "with shape fields <= 16: busy = its record's formula (generated wrapper)"))
    return out


# ga2_qnt's datapath, cut (free values) for z3: no state, count or enable depends on it
QNT_CUTS = "w:ss_q w:rem_q w:root_q w:amax_q w:sh_q w:e_q w:prod"


def qnt_busy_induction(tail_plain=qnt.TAIL_PLAIN, tail_rms=qnt.TAIL_RMS, name=None, expect_fail=False,
                       timeout=900, mode="induction", depth=2):
    """busy/qnt by k-induction (tb/formal/ga2_qnt_busy_f.v): busy for exactly the
    record's 2 len + TAIL_PLAIN / TAIL_RMS cycles, with the lemmas over ga2_qnt's exposed
    registers (its datapath cut). A planted tail is found by ABC bmc3 (mode, depth): the
    induction's base case is 2 cycles deep."""
    pre = ("chparam -set SP_WORDS 16 ga2_qnt\nhierarchy -top ga2_qnt\nproc\nflatten\n"
           f"cutpoint {QNT_CUTS}\nexpose w:state_q w:cnt_q w:len_q w:rms_q\n")
    return Check(name or "busy/qnt", "ga2_qnt_busy_f", [WRAPPERS / "ga2_qnt_busy_f.v"], depth, mode, pre=pre,
                 params={"LMAX": 15, "TAIL_PLAIN": tail_plain, "TAIL_RMS": tail_rms}, timeout=timeout,
                 expect_fail=expect_fail,
                 what=f"ga2_qnt (SP 16), any start/restart: busy = 2 len + {tail_plain} (plain) or "
                      f"2 len + {tail_rms} (rms), the record's formula; len 1..15, any other field")


def generated_busy_planted(name="pack4", sp=16):
    """A generated busy wrapper (tb/formal/gen.py) whose formula is one cycle too long: must
    fail (the generated wrappers' starts are reachable under their assumptions)."""
    top, path = gen.busy_files(sp, offset=1)[name]
    return Check(f"busy/{name} planted formula+1", top, [path], 0, "pdr", params={"SP_WORDS": sp, "LMAX": 16},
                 inc=None, timeout=900, expect_fail=True,
                 what=f"the generated busy wrapper of {name} with its formula one cycle too long")


def softmax_fast_phases(name, tail=sm.FAST_TAIL, cw=6, mode="bmc3", depth=60, expect_fail=False,
                        timeout=900):
    """ga2_softmax_busy_f with PHASES = 1 (FAST = 1, len 1..16): the phase model of the
    formula without the lemmas; bmc3 to depth by default (a planted tail + 1 fails at the
    end of the first softmax, about 41 cycles for len 1)."""
    return Check(name, "ga2_softmax_busy_f", [WRAPPERS / "ga2_softmax_busy_f.v"], depth, mode,
                 params={"SP_WORDS": 16, "FAST": 1, "SM_FAST_TAIL": tail, "LMAX": 16, "CW": cw, "PHASES": 1},
                 timeout=timeout, expect_fail=expect_fail,
                 what=f"ga2_softmax FAST=1 (SP 16), len 1..16, phase model, tail {tail}, counter {cw} bits")


def busy_planted():
    """The busy checks' planted bugs, each must fail: the fast softmax's formula with a
    tail one cycle too long (SM_FAST_TAIL + 1: the phase model without lemmas, bmc3, so
    the busy assertion itself fails, not a lemma), the induction's phase counter one bit
    too narrow (CW = 4: len 16 and SM_FAST_TAIL - 3 = 31 do not fit; its fit assertion at
    the first start), the generated pack4 and the hand rqc wrappers with their formula one
    cycle too long, qnt's plain-mode tail one cycle too long (bmc3 to 70 frames: len 1
    ends at 64), and the dma's LDX_EXTRA one too large."""
    return [softmax_fast_phases("busy/ga2_softmax/fast planted tail+1", tail=sm.FAST_TAIL + 1,
                                expect_fail=True),
            softmax_fast_induction(cw=4, name="busy/ga2_softmax/fast planted CW=4", expect_fail=True),
            generated_busy_planted(), rqc_busy_planted(),
            qnt_busy_induction(tail_plain=qnt.TAIL_PLAIN + 1, name="busy/qnt planted plain tail+1", expect_fail=True,
                               mode="bmc3", depth=70),
            smw_busy(per=smw.DIV_CYCLES + 1, name="busy/ga2_smw planted PER+1", expect_fail=True, mode="bmc3",
                     depth=30),
            Check("busy/ga2_dma planted LDX_EXTRA+1", "ga2_dma_busy_f", [WRAPPERS / "ga2_dma_busy_f.v"], 0, "pdr",
                  params={"SP_WORDS": 16, "LDX_EXTRA": ldx.EXTRA + 1}, timeout=900, expect_fail=True,
                  what="ga2_dma (SP 16) with LDX_EXTRA one too large")]


# the units with a hand-written link wrapper (tb/formal/ga2_<unit>_range_f.v: the DMA and
# the matrix unit, not vector units): (unit, what it touches); every vector unit's link
# wrapper is generated from its records (tb/formal/gen.py range_file), with the lemmas of
# tb/formal/link/<unit>.vh for the units of LINK_INDUCTION
LINK_HAND = (
    ("dma", "LD/ST/ldx: ST's src range, ldx's index word; LD/ldx's dst range"),
    ("mm", "8 read ports in A's and B's hulls, writes in dst's hull"),
)
# what a vector unit's link check covers, where more is to say than its records' ranges
# (in this order first in the link group, then every other vector unit)
LINK_WHAT = (
    ("softmax", "FAST=1: src (two passes) and dst ranges"),
    ("vec_add", "src, src2 and dst ranges"),
    ("norm", "src (two passes) and dst ranges"),
    ("pack4", "packing 2 len / unpacking len words at src, len / 2 len at dst"),
    ("rqc", "the src hull, the row and column scales, dst (M * N words)"),
    ("swiglu", "src, src2 and dst ranges"),
    ("rope", "src and dst (2 pairs heads words), the cos/sin row (2 pairs, once a head)"),
    ("qnt", "src (two passes) and dst ranges (len + 1: the scale word)"),
    ("smw", "src (three passes) and dst ranges"),
)


def link_units():
    """[(unit, what)]: the hand-written link wrappers' units, then every vector unit (its
    generated wrapper)."""
    what = dict(LINK_WHAT)
    units = list(what) + [m[len("ga2_"):] for m in rtl.vec_modules() if m[len("ga2_"):] not in what]
    return list(LINK_HAND) + [(u, what.get(u, "its records' ranges (generated wrapper)")) for u in units]


# the planted bugs of tb/formal/range_chk.vh (BUG): each must fail
LINK_BUGS = {1: "write address + 1", 2: "write one cycle late", 3: "read address + 1"}


# units whose range proof is a k-induction with lemmas (the wrapper's LINK_LEMMAS part;
# pdr did not close in 600 s on vec_add, mm, rqc and swiglu, and was not needed on the others): the
# pdr did not close in 600 s on vec_add, mm, rqc and smw, and was not needed on the others): the
# unit module, its registers the lemmas read
LINK_INDUCTION = {"vec_add": ("ga2_vec_add", "ph_q cnt_q len_q ap_q bp_q wp_q"),
                  "pack4": ("ga2_pack4", "ph_q un_q cnt_q len_q rp_q wp_q"),
                  "norm": ("ga2_norm", "state_q cnt_q len_q src_q rp_q wp_q"),
                  "qnt": ("ga2_qnt", "state_q cnt_q len_q src_q rp_q wp_q"),
                  "rqc": ("ga2_rqc", "st_q w_q ri_q m_q rb_q ap_q ld_q rp_q rs_q cs_q cp_q ce_q wp_q"),
                  "swiglu": ("ga2_swiglu", "ph_q cnt_q len_q ap_q bp_q wp_q"),
                  "rope": ("ga2_rope", "ph_q pend_q j_q pairs_q hd_q heads_q cs_q cp_q xp_q wp_q"),
                  "softmax": ("ga2_softmax", "state_q cnt_q len_q idx_q src_q rp_q wp_q"),
                  "smw": ("ga2_smw", "state_q cnt_q len_q st_q ld_q src_q rp_q wp_q"),
                  "dma": ("ga2_dma", "ix_q ad_q dir_q bad_q cnt_q len_q sp_q ia_q"),
                  "mm": ("ga2_mm_ctrl", "cyc_q m_q n_q k_q ldc_q b_step_q row_base_q di_q dj_q win_q "
                         "g_feed?0?.a_ptr_q g_feed?1?.a_ptr_q g_feed?2?.a_ptr_q g_feed?3?.a_ptr_q "
                         "g_feed?0?.b_ptr_q g_feed?1?.b_ptr_q g_feed?2?.b_ptr_q g_feed?3?.b_ptr_q")}
# ABC bmc3 depths (frames) for units whose counterexamples pdr is slow to find: mm (its
# planted bug; 42 frames hold reset, a start, the longest MM a 16-word scratchpad allows,
# 39 busy cycles, and the cycle after it); qnt (its write one word past lands at the
# scale word, busy cycle 64 of a plain len 1; pdr found none in 600 s)
LINK_BOUNDED = {"mm": 42, "qnt": 70}
# the datapath of those units, cut (`cutpoint`: free values) for z3: no address, enable or
# cycle depends on it (the isqrt and the divider run a fixed number of steps)
LINK_CUTS = {"norm": "w:u_requant.* w:ss_q w:root_q w:rem_q w:u_div.quo_q w:u_div.rem_q w:u_div.dsr_q w:xr w:sq",
             "swiglu": "w:a_q w:u_q w:sig_q w:acc_q w:prod",
             "rope": "w:c_q w:s_q w:x0_q w:x1_q w:acc_q w:prod",
             "dma": "w:ep_q w:row_off",
             "rqc": "w:prod w:p_q w:h_q w:c_q w:mr_q w:er_q w:q_q",
             "softmax": "w:sum_q w:mx_q w:u_div.quo_q w:u_div.rem_q w:u_div.dsr_q w:prod w:q0s",
             "qnt": QNT_CUTS,
             "smw": "w:mx_q w:sum_q w:rem_q w:quo_q w:lut_e"}
# chparam of the unit beyond SP_WORDS (the wrapper instantiates it without parameters)
LINK_PARAMS = {"softmax": "-set FAST 1", "dma": "-set EXT_WORDS 16"}
# modules cut whole (their outputs free) before the unit is elaborated
LINK_CUT_MODULES = {"mm": "ga2_systolic"}


def link(unit, bug=0, sp=16, timeout=600, mode=None, depth=None):
    """The link of a unit (its generated wrapper, gen.range_file; the DMA's and the matrix
    unit's tb/formal/ga2_<unit>_range_f.v): every scratchpad access of the unit inside the
    range ga2_decode reports for its instruction, and only while busy (BUG: a planted
    bug, which must fail). ABC pdr, or for the units of LINK_INDUCTION z3 k-induction
    (k = 2) with the lemmas of tb/formal/link/<unit>.vh, the unit's registers exposed."""
    induction = unit in LINK_INDUCTION and mode in (None, "induction")
    regs = LINK_INDUCTION[unit][1].split() if induction else ()
    top, path = ((f"ga2_{unit}_range_f", WRAPPERS / f"ga2_{unit}_range_f.v") if unit in dict(LINK_HAND)
                 else gen.range_file(unit, regs))
    what = dict(link_units())[unit]
    name = f"link/{unit}" + (f" planted {LINK_BUGS[bug]}" if bug else "")
    params = {"SP_WORDS": sp, "BUG": bug}
    if induction:
        mod, regs = LINK_INDUCTION[unit]
        cuts = " ".join(f"{mod}/{c}" for c in LINK_CUTS.get(unit, "").split())
        pre = ((f"cutpoint {LINK_CUT_MODULES[unit]}\n" if unit in LINK_CUT_MODULES else "")
               + f"chparam -set SP_WORDS {sp} {LINK_PARAMS.get(unit, '')} {mod}\nproc {mod}\nflatten {mod}\n"
               + (f"cutpoint {cuts}\n" if cuts else "")
               + f"expose {' '.join(f'{mod}/w:{r}' for r in regs.split())}\n")
        return Check(name, top, [path], 2 if depth is None else depth, "induction", pre=pre,
                     defines={"LINK_LEMMAS": 1}, params=params, timeout=timeout, expect_fail=bool(bug),
                     what=f"ga2_{unit} behind ga2_decode (SP {sp}), free instruction and data: {what}")
    return Check(name, top, [path], depth or 0, mode or "pdr", params=params, timeout=timeout,
                 expect_fail=bool(bug),
                 what=f"ga2_{unit} behind ga2_decode (SP {sp}), free instruction and data: {what}")


def link_checks():
    """The link group: each unit's range proof, then the planted bugs: the write address
    off by one on every unit (so each unit's start is reachable under the assumptions:
    no proof is vacuous), the late write and the read off by one on vec_rq."""
    # planted bugs by pdr: a counterexample needs a whole instruction, deeper than the
    # induction's base case
    # (mm's by bmc3: pdr found no counterexample in 3.5 minutes)
    return ([link(u) for u, _ in link_units()]
            + [link(u, 1, mode="bmc3" if u in LINK_BOUNDED else "pdr", depth=LINK_BOUNDED.get(u))
               for u, _ in link_units()]
            + [link("vec_rq", b, mode="pdr") for b in LINK_BUGS if b != 1])


def fast_checks():
    """The few seconds of `make test` (tests/flow/test_formal.py): the hazard invariant,
    the sequencer's issue rule and its planted bug (must fail), the fast softmax's planted
    tail (must fail), the softmax unit's link proof, vec_rq's planted write past its
    range (must fail), and a busy proof generated from the op records (pack4's) with its
    planted formula + 1 (must fail)."""
    return [hazard(4), seq_issue(), seq_planted(), busy_planted()[0], link("softmax"),
            link("vec_rq", 1, mode="pdr"), next(c for c in busy_checks() if c.name == "busy/pack4"),
            generated_busy_planted()]


def smw_busy(per=smw.DIV_CYCLES, lmax=16, name=None, expect_fail=False, timeout=900, mode="induction", depth=2):
    """busy/ga2_smw by k-induction (tb/formal/ga2_smw_busy_f.v): the record's formula
    2 (len + 1) + per len + 1 and the lemmas over ga2_smw's exposed registers, its
    datapath (the maximum, the sum, the divider, the exp table) cut: no cycle depends on
    it. The planted bug (busy_planted): per = DIV_CYCLES + 1, the formula one cycle longer
    an element, by ABC bmc3 to 30 frames (a counterexample at the end of ga2_smw's first
    job of len 1; z3's bmc took 380 s to the same)."""
    pre = ("chparam -set SP_WORDS 16 ga2_smw\nhierarchy -top ga2_smw\nproc\nflatten\n"
           "cutpoint w:mx_q w:sum_q w:rem_q w:quo_q c:u_lut.*\n"
           "expose w:state_q w:cnt_q w:len_q w:st_q w:ld_q\n")
    return Check(name or "busy/ga2_smw", "ga2_smw_busy_f", [WRAPPERS / "ga2_smw_busy_f.v"], depth, mode,
                 pre=pre, params={"LMAX": lmax, "PER": per}, timeout=timeout, expect_fail=expect_fail,
                 what=f"ga2_smw (SP 16), any start/restart, any data: busy = 2(len+1)+{per} len+1 "
                      f"(k-induction with lemmas), len 1..{lmax}")


def softmax_fast_induction(depth=2, cw=5, tail=None, name=None, expect_fail=False, timeout=900):
    """busy/ga2_softmax/fast by k-induction (tb/formal/ga2_softmax_fast_busy_f.v): the
    phase model of the formula and its lemmas over ga2_softmax's exposed registers."""
    tail = sm.FAST_TAIL if tail is None else tail
    pre = ("chparam -set FAST 1 -set SP_WORDS 16 ga2_softmax\nhierarchy -top ga2_softmax\nproc\nflatten\n"
           "expose w:state_q w:cnt_q w:len_q w:idx_q w:u_div.cnt_q w:u_div.step_q w:u_div.last_q\n"
           "cutpoint c:u_lut.*\n")
    return Check(name or "busy/ga2_softmax/fast", "ga2_softmax_fast_busy_f", [WRAPPERS / "ga2_softmax_fast_busy_f.v"],
                 depth, "induction", pre=pre,
                 params={"LMAX": 16, "SM_FAST_TAIL": tail, "CW": cw}, timeout=timeout, expect_fail=expect_fail,
                 what=f"ga2_softmax FAST=1 (SP 16), any start/restart: busy = 2(len+1)+SM_FAST_TAIL+len "
                      f"(phases), len 1..16, tail {tail}, counter {cw} bits")


def rqc_busy_induction(depth=2, name=None, busy_plus=0, expect_fail=False, timeout=900, mode="induction"):
    """busy/rqc by k-induction (tb/formal/ga2_rqc_busy_f.v): busy exactly M*(3N+1)+1
    cycles (busy_chk.vh) with the lemmas relating the cycle count to the unit's row,
    column and phase; busy_plus: the formula's constant raised (a planted bug: bmc deep
    enough for a whole M = N = 1 job)."""
    regs = "st_q ri_q m_q cs_q cp_q ce_q"
    pre = ("chparam -set SP_WORDS 16 ga2_rqc\nhierarchy -top ga2_rqc\nproc\nflatten\n"
           f"expose {' '.join('w:' + r for r in regs.split())}\n")
    return Check(name or "busy/rqc", "ga2_rqc_busy_f", [WRAPPERS / "ga2_rqc_busy_f.v"], depth, mode,
                 pre=pre, params={"SP_WORDS": 16, "LMAX": 16, "PLUS": busy_plus}, timeout=timeout,
                 expect_fail=expect_fail,
                 what="ga2_rqc (SP 16), any start/restart, every instruction the decoder accepts with M, N "
                      f"<= 16: busy = M*(3N+1)+1{f' + {busy_plus} (planted)' if busy_plus else ''} "
                      "(k-induction, lemmas)")


def rqc_busy_planted():
    """busy/rqc with the formula one cycle too long: must fail (bmc to 10 cycles: reset, a
    start, a 5-cycle M = N = 1 job and the cycles after it)."""
    return rqc_busy_induction(depth=10, name="busy/rqc planted formula+1", busy_plus=1, expect_fail=True,
                              mode="bmc")
