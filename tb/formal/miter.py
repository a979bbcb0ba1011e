"""Equivalence miters of an RTL module and a mutant of it (the RTL mutation run's formal step).

A miter puts the original module (gold) and the mutated one (gate) side by side on the
same inputs and asserts every output equal in every cycle (yosys `miter -equiv -flatten
-make_assert`); both copies start from the same state (registers without an initial
value at 0 (ZERO_INIT), the reset input free in every cycle, so every reset sequence
is covered). Verdicts (verdict()):
  equivalent (proven by abc pdr)   no reachable state tells them apart: a proof;
  NOT equivalent                   a counterexample (the frame): the suite must catch it;
  undecided (...)                  neither within the time limits: bmc3's clean frames.
listed_sites() gives the Site of every entry of tb/mutation/rtl/equivalents.txt.
"""
from tb.formal import engine
from tb.formal.engine import BUILD, Check
from tb.sim.files import rtl_files

_SIDE = """read_verilog -formal -I{d} {files}
{chparam}hierarchy -top {mod}
proc
flatten
opt_clean
rename {mod} {name}
design -stash {name}
"""


# both copies start from one state: every register without an initial value at 0
# (otherwise the AIGER gives each copy's such registers their own free start values)
ZERO_INIT = "setundef -zero -init"


def front(module, gold_dir, gate_dir, params=None):
    """yosys commands that build the miter of module from two RTL folders."""
    ch = "".join(f"chparam -set {k} {v} {module}\n" for k, v in (params or {}).items())
    s = ""
    for name, d in (("gold", gold_dir), ("gate", gate_dir)):
        files = " ".join(str(f) for f in rtl_files(d))
        s += _SIDE.format(d=d, files=files, mod=module, name=name, chparam=ch)
    return s + ("design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n"
                "miter -equiv -flatten -make_assert gold gate miter\n")


# the small configuration of a second proof attempt: a unit with a 16-word scratchpad
SMALL = {"SP_WORDS": 16}


def site_check(site, work, mode="pdr", timeout=600, rtl_dir=None, name=None, params=None):
    """The miter Check of one mutation site (tb.mutation.rtl.sites.Site), the module's
    parameters set to params (default: its own defaults)."""
    from tb.mutation.rtl.sites import RTL_DIR, make_mutant_dir
    rtl_dir = rtl_dir or RTL_DIR
    gold = make_mutant_dir(None, str(work / "gold"), rtl_dir)
    gate = make_mutant_dir(site, str(work / "gate"), rtl_dir)
    return Check(name or f"equiv/{site.file}:{site.line} {site.cls}", "miter", [], 0, mode,
                 front=front(site.module, gold, gate, params), post=ZERO_INIT, timeout=timeout,
                 what=f"{site.module}: mutant {site.desc.splitlines()[0][:80]}")


def verdict(site, work, pdr_timeout=600, bmc_depth=40, bmc_timeout=300, rtl_dir=None):
    """(text, [Verdict]) for one mutant: pdr first, then bmc3 for a counterexample or a bound."""
    vs = [engine.run(site_check(site, work, "pdr", pdr_timeout, rtl_dir))]
    if vs[0].result == "proven":
        return f"equivalent (proven by abc pdr, miter of {site.module}, {vs[0].secs:.0f} s)", vs
    if vs[0].result != "FAILED" and _has_params(site, rtl_dir):
        # the same logic in a smaller configuration: a proof there, stated as such
        vs.append(engine.run(site_check(site, work, "pdr", pdr_timeout, rtl_dir, params=SMALL)))
        if vs[-1].result == "proven":
            small = ", ".join(f"{k} = {v}" for k, v in SMALL.items())
            return (f"equivalent (proven by abc pdr at {small}, miter of {site.module}, {vs[-1].secs:.0f} s; "
                    f"at the default size pdr {vs[0].result.lower()})"), vs
    c = site_check(site, work, "bmc3", bmc_timeout, rtl_dir)
    c.depth = bmc_depth
    vs.append(engine.run(c))
    if vs[-1].result == "FAILED":
        return f"NOT equivalent (abc bmc3 counterexample, miter of {site.module})", vs
    return f"undecided (pdr {vs[0].result.lower()}; bmc3 {vs[-1].depth} equal)", vs


def _has_params(site, rtl_dir):
    from tb.mutation.rtl.sites import RTL_DIR
    import os
    text = open(os.path.join(rtl_dir or RTL_DIR, site.file)).read()
    return all(f"parameter {k}" in text for k in SMALL)


def listed_sites(rtl_dir=None):
    """[(key, argument, Site or None)] of every entry of equivalents.txt."""
    from tb.mutation.rtl import equivalents
    from tb.mutation.rtl.sites import ALL_CLASSES, RTL_DIR, enumerate_sites
    rtl_dir = rtl_dir or RTL_DIR
    listed = equivalents.load_equivalents()
    sites = {equivalents.equiv_key(s, rtl_dir): s for s in enumerate_sites(rtl_dir, classes=ALL_CLASSES)}
    return [(k, why, sites.get(k)) for k, why in listed.items()]

