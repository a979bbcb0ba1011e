"""The properties of `make formal` (tools/flow/formal.py), each one engine.Check.

Groups (a check's name starts with its group):
  overlap   the overlap mode's scratchpad safety on the whole chip (ga2_sp_xbar's
            missed-hazard check as an assertion) and ga2_hazard's local invariant;
  contract  the host contract (docs/isa.md "Per-cycle rules") on the whole chip, in both
            timing modes;
  busy      each unit's busy length against model/timing.py's formula;
  equiv     the listed equivalent mutants (tb/mutation/rtl/equivalents.txt) by miter
            (tb/formal/miter.py).
The configurations are small on purpose (the sizes are in the checks' `what`): the
solver's work grows with the state, and the logic is the same at every size.
"""
import re

from model import config, timing
from tb.formal import engine
from tb.formal.engine import BUILD, ROOT, WRAPPERS, Check

# the whole chip: a 16-word scratchpad, a 16-word external memory, 16 instructions
CHIP = {"SP_WORDS": 16, "EXT_WORDS": 16, "IMEM_DEPTH": 16}
# ga2_top's datapath, cut (its outputs free): the array, the requant units, the exp table
# and the scratchpad's storage; none of them decides timing or an address
CUTS = ("u_mm.u_array.*", "u_rq.u_requant.*", "u_norm.u_requant.*", "u_sm.u_lut.*", "u_sp.*")
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


def chip(overlap, depth, mode="bmc3", timeout=1500):
    m = "overlap" if overlap else "inorder"
    return Check(f"chip/{m}", "ga2_top_f", [WRAPPERS / "ga2_top_f.v"], depth, mode, pre=chip_pre(overlap),
                 timeout=timeout,
                 what=(f"ga2_top OVERLAP={overlap}, SP {CHIP['SP_WORDS']}, EXT {CHIP['EXT_WORDS']}, "
                       f"IMEM {CHIP['IMEM_DEPTH']}; any program, data, start, reset: scratchpad safety "
                       "(ga2_sp_xbar check) and host contract rules 1-6, a fault writes nothing"))


def busy_checks(sp=16):
    """One check per unit: busy exactly formula(fields) cycles after each start."""
    cfg = config.DEFAULT
    units = [
        ("ga2_dma_busy_f", {"LDX_EXTRA": timing.LDX_EXTRA}, "LD/ST len+1, LDX len+LDX_EXTRA+1; len <= 16, any legal base/rows/index"),
        ("ga2_mm_busy_f", {"MM_FILL": cfg.mm_fill, "KMAX": 16}, "K+MM_FILL+M*N; M,N 1..4, K 1..16, any strides/tb/acc"),
        ("ga2_vec_rq_busy_f", {"LMAX": 16}, "len+1; len 1..16"),
        ("ga2_softmax_busy_f", {"FAST": 0, "SM_DIV": cfg.sm_div_cycles, "LMAX": 4}, "2(len+1)+SM_DIV*len (FAST=0); len 1..4"),
        ("ga2_softmax_busy_f", {"FAST": 1, "SM_FAST_TAIL": timing.SM_FAST_TAIL, "LMAX": 16}, "2(len+1)+SM_FAST_TAIL+len (FAST=1); len 1..16"),
        ("ga2_vec_add_busy_f", {"LMAX": 16}, "2 len+1; len 1..16"),
        ("ga2_argmax_busy_f", {"LMAX": 16}, "len+1; len 1..16"),
        ("ga2_norm_busy_f", {"NORM_TAIL": timing.NORM_TAIL, "LMAX": 16}, "2(len+1)+NORM_TAIL; len 1..16"),
    ]
    out = []
    for top, params, what in units:
        unit = top[:-len("_busy_f")]
        tag = unit + ("/fast" if params.get("FAST") == 1 else "")
        out.append(Check(f"busy/{tag}", top, [WRAPPERS / f"{top}.v"], 0, "pdr",
                         params={"SP_WORDS": sp, **params}, inc=None, timeout=900,
                         what=f"{unit} (SP {sp}), any start/restart: busy = {what}"))
    return out


def fast_checks():
    """The few seconds of `make test` (tests/flow/test_formal.py)."""
    return [hazard(4)]
