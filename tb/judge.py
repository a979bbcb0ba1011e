"""What "equal to the reference" means, for every bench: ProgResult, reference(), expected(), compare().

The one definition. reference() runs a program on the reference Machine and references()
a sequence of them on one Machine (the scratchpad carries over; KEEP_EXT runs a program
on the external memory the previous one left); expected(ref) is what the chip must then
show: the external memory, the six counters, error / error_code / error_pc, the retire
trace and the scratchpad read count; cut_trace() the retires of a program cut by reset.
compare(ref, got) holds a chip's outcome to that and names the first divergence in time
first: the retire trace, then done/error, the counters, the scratchpad read count and the
external memory; then the host contract (what the host saw before the start, the outputs
after a reset while busy, and the harness's per-cycle monitors of docs/host.md's host
rules, MONITORS).

Every bench takes its verdict from here: the cocotb runs (tb/sim/run.py: got is
read_raw()'s dict or a ProgResult), the plain bench (tb/plain_check.py, through
tb/sim/plain.outcomes, which puts tb_plain's outputs in read_raw's form), and the RTL
mutation bench, whose fast in-Verilog comparison reads expectation files that
tb/mutation/rtl/suite.py writes from references() and expected() (and cut_trace() for a
cut program; docs/mutation_rtl.md), so it checks the values defined here.
tests/tb/test_one_judge.py shows each of them following this module.
"""
from collections import namedtuple

import numpy as np

from model import isa
from model.machine import GA2Error

ProgResult = namedtuple(
    "ProgResult",
    "ext counters done error error_code error_pc trace timeout ref ok mismatch xz oob host sp_reads",
    defaults=(None, None))
ProgResult.__doc__ = """One program's outcome on the chip next to the reference's prediction.

ext: np.int64 array (signed words), or with a read-back window (tb/sim/run.py window)
(first word, the words from it) and ref without its memory; counters: isa.Counters; done/error: bool;
error_code/error_pc: int; trace: [(pc, cycle)]; timeout: bool; ref: Result or GA2Error;
ok: everything equal and no X/Z; mismatch: '' or the first divergence, in words;
xz: '' or where the chip produced x/z; oob: dict of out-of-range memory accesses;
host: dict of the host-contract observations (aborted, cut_cycles, idle_changes, pre:
the outputs just before the start); sp_reads: the scratchpad words the chip read in the
run (the harness's count of enabled read ports, up to done), None when not measured."""

# the host-visible outputs, as the wrapper's status line names them
HOST_OUTPUTS = ("done", "error", "code", "pc", "cycles", "mm", "dma", "vec", "instret", "fetch", "retire")

# the harness's per-cycle host-contract monitors (tb/hdl/ga2_harness.v), as the status
# line names them (mon_*: the run, up to the status; pre_mon_*: the idle cycles after the
# previous status up to this start), each the number of cycles that broke the rule
MONITORS = {
    "count": "the cycle counter did not count a cycle of the run",
    "rise": "done did not rise exactly in the cycle after the cycle counter's last count",
    "hold": "done fell or the cycle counter moved after done, before a start",
    "imem": "instruction-memory access while not running",
    "ext": "external-memory access while not running",
    "reset": "an output (done, error, code, pc, retire, a counter) non-zero between reset and the first start",
    "epc": "error_code or error_pc non-zero while error = 0",
    "retire": "retire while not running, or retire_cycle != cycles + 1",
    "clear": "an event counter (mm, dma, vec, instret, fetch) non-zero in the first cycle of a run",
}


KEEP_EXT = "keep"      # an image that keeps the external memory the previous program left


def keeps_ext(image):
    """Whether image is KEEP_EXT."""
    return isinstance(image, str) and image == KEEP_EXT


def reference(machine, words, image, sp=None):
    """The reference outcome of one program on machine (Result or GA2Error); sp, when
    given, is loaded into the machine's scratchpad first (as the chip's is)."""
    if sp is not None:
        machine.sp[:] = sp
    try:
        return machine.run(words, image)
    except GA2Error as e:
        return e


def references(machine, programs):
    """The reference outcome of each (words, image, sp) of programs, in order, on ONE
    machine, as the chip runs a sequence: the scratchpad carries over from program to
    program, an image of KEEP_EXT is the external memory the previous program left (all
    zero before the first). A generator: each outcome is computed when asked for."""
    ext_now = np.zeros(machine.cfg.ext_words, dtype=np.int64)
    for words, image, sp in programs:
        ref = reference(machine, words, ext_now if keeps_ext(image) else image, sp)
        if ref.ext is not None:
            ext_now = np.array(ref.ext, dtype=np.int64)
        yield ref


def expected(ref):
    """What the chip must show after a program whose reference outcome is ref (Result or
    GA2Error): ext (the external memory), counters, error, error_code and error_pc (both 0
    without an error, docs/isa.md), trace [(pc, cycle)] and sp_reads (the scratchpad words
    the executed instructions read, model/func.py sp_reads summed by the Machine; None
    when the reference did not count them)."""
    err = isinstance(ref, GA2Error)
    return {"ext": ref.ext, "counters": ref.counters, "error": err,
            "error_code": ref.code if err else 0, "error_pc": ref.pc if err else 0,
            "trace": [tuple(t) for t in ref.trace], "sp_reads": getattr(ref, "sp_reads", None)}


def cut_trace(trace, cut):
    """The retires of a program cut by reset after `cut` cycles: (must, may) -- the chip
    must show every retire before the cut cycle, and may show those in it too (must is a
    prefix of may); nothing after it."""
    may = [tuple(t) for t in trace if t[1] <= cut]
    return [t for t in may if t[1] < cut], may


def _trace_issue(t_chip, t_ref, prefix=False):
    for n, (c, r) in enumerate(zip(t_chip, t_ref)):
        if c != r:
            if c[0] != r[0]:
                return (f"retire #{n}: pc {c[0]} retired at cycle {c[1]} on the chip, "
                        f"the model retired pc {r[0]} at cycle {r[1]}")
            return f"pc {c[0]} retired at cycle {c[1]} on the chip, {r[1]} in the model"
    if len(t_chip) > len(t_ref):
        pc, cyc = t_chip[len(t_ref)]
        return (f"the chip retired {len(t_chip)} instructions, the model {len(t_ref)} "
                f"(extra: pc {pc} at cycle {cyc})")
    if len(t_chip) < len(t_ref) and not prefix:
        pc, cyc = t_ref[len(t_chip)]
        return (f"the chip retired {len(t_chip)} instructions, the model {len(t_ref)} "
                f"(missing: pc {pc} at cycle {cyc})")
    return ""


def _host_issues(got):
    """The host contract: outputs hold until the next start; after a reset they are 0."""
    host = got.get("host") or {}
    issues = []
    if host.get("idle_changes"):
        issues.append(f"host outputs changed in {host['idle_changes']} cycles between done "
                      "(or reset) and the next start")
    want, pre = host.get("pre_expected"), host.get("pre")
    if want is not None and pre is not None:
        bad = [f"{k} {pre[k]} vs {want[k]}" for k in HOST_OUTPUTS if pre[k] != want[k]]
        if bad:
            issues.append(f"before the start ({host.get('pre_after', 'after the last program')}): "
                          + ", ".join(bad))
    return issues


def _monitor_issues(got, exp=None):
    """The per-cycle host contract: every monitor 0, in the run and in the idle cycles
    before it; done rose after exactly the reference's cycles (exp given: a run that
    finished, neither cut nor timed out)."""
    host = got.get("host") or {}
    issues = []
    for phase, key in (("before the start", "pre_mon"), ("in the run", "mon")):
        counts = host.get(key) or {}
        for name, what in MONITORS.items():
            if counts.get(name):
                issues.append(f"host contract {phase}: {what} ({name}, {counts[name]} cycles)")
    rc = host.get("run_cycles")
    if exp is not None and rc is not None and got.get("done") and rc != int(exp["counters"].cycles):
        issues.append(f"done rose {rc + 1} cycles after the start, the model's cycles are "
                      f"{exp['counters'].cycles} (done must rise in the cycle after the last)")
    return issues


def _reads_issues(exp, got):
    """The run's scratchpad read count (the harness's enabled read ports, start to done)
    against the reference's (func.sp_reads over the executed instructions): a unit that
    reads a word it does not use computes the right results and shows only here. Not
    judged after a timeout (the chip was reset), nor when either side has no count."""
    want, have = exp.get("sp_reads"), got.get("sp_reads")
    if want is None or have is None or got.get("timeout"):
        return []
    if int(have) != int(want):
        return [f"scratchpad reads: the chip read {int(have)} words, the model's executed "
                f"instructions read {int(want)} (model/func.py sp_reads)"]
    return []


def _ext_issues(exp, got):
    """The external memory, word by word (not judged when the bench did not read it). A
    read-back window (got["ext_tail"] = (first, words)): those words, and every write of
    the bus log inside the window (a write outside it would go unseen otherwise)."""
    tail = got.get("ext_tail")
    if tail is not None:
        first, words = tail
        bus = (got.get("host") or {}).get("bus")
        if bus is None:
            return ["ext: a read-back window without the bus log to hold the writes to it"]
        end = first + len(words)
        out = [(a, b) for kind, a, b in bus if kind == "w" and (a < first or b >= end)]
        issues = [f"ext: the chip wrote words {out[0][0]}..{out[0][1]}, outside the read-back "
                  f"window {first}..{end - 1}"] if out else []
        want = np.asarray(exp["ext"], dtype=np.int64)[first:end]
        got_w = np.asarray(words, dtype=np.int64)
        if got_w.shape != want.shape:
            return issues + [f"ext window size {got_w.size} vs {want.size}"]
        diff = np.nonzero(got_w != want)[0]
        if diff.size:
            i = int(diff[0])
            issues.append(f"ext[{first + i}] = {got_w[i]} vs {want[i]}"
                          + (f" ({diff.size} words differ)" if diff.size > 1 else ""))
        return issues
    if got["ext"] is None:
        return []
    gext, rext = np.asarray(got["ext"], dtype=np.int64), np.asarray(exp["ext"], dtype=np.int64)
    if gext.shape != rext.shape:
        return [f"ext size {gext.size} vs {rext.size}"]
    diff = np.nonzero(gext != rext)[0]
    if not diff.size:
        return []
    i = int(diff[0])
    return [f"ext[{i}] = {gext[i]} vs {rext[i]}" + (f" ({diff.size} words differ)" if diff.size > 1 else "")]


def _compare_aborted(exp, got):
    """A program cut by rst: its retires up to the cut, then every output 0."""
    host = got["host"]
    cut = host["cut_cycles"]
    issues = []
    t_chip = list(got["trace"])
    must, t_ref = cut_trace(exp["trace"], cut)
    msg = _trace_issue(t_chip, t_ref, prefix=True)
    if msg:
        issues.append(msg)
    elif len(t_chip) < len(must):
        pc, cyc = t_ref[len(t_chip)]
        issues.append(f"the chip retired {len(t_chip)} instructions before the reset at cycle "
                      f"{cut} (missing: pc {pc} at cycle {cyc})")
    after = host["after_reset"]
    bad = [f"{k} {after[k]}" for k in HOST_OUTPUTS if after[k] != 0]
    if bad:
        issues.append("after a reset while busy: " + ", ".join(bad) + " (all must be 0)")
    return issues


def compare(ref, got):
    """'' when the chip's raw outcome `got` equals the reference `ref`, else the divergences
    (at most three, the first in time first). got["ext"] None: the bench did not read the
    external memory after this program (the plain bench reads it after its last run
    only), which is then not judged; got["sp_reads"] None likewise."""
    if isinstance(got, ProgResult):
        got = got._asdict()
    exp = expected(ref)
    issues = []
    if got.get("xz"):
        issues.append(f"x/z on the chip: {got['xz']}")
    if (got.get("host") or {}).get("aborted"):
        issues += _compare_aborted(exp, got)
        return _join(issues + _host_issues(got) + _monitor_issues(got))
    if got["timeout"]:
        limit = got.get("limit")
        within = f" within the cycle limit of {limit} cycles" if limit else ""
        issues.insert(0, f"timeout: done never rose{within} (the model halts at cycle "
                         f"{exp['counters'].cycles}; retired {len(got['trace'])} instructions, "
                         f"last pc {got['trace'][-1][0] if got['trace'] else '-'})")
    msg = _trace_issue(list(got["trace"]), exp["trace"])
    if msg:
        issues.append(msg)
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
    elif got["error_code"] != 0 or got["error_pc"]:
        issues.append(f"error code {got['error_code']} pc {got['error_pc']} without error "
                      "(both must be 0 while error = 0)")
    for name, c, r in zip(isa.Counters._fields, got["counters"], exp["counters"]):
        if int(c) != int(r):
            issues.append(f"counter {name} {c} vs {r}")
    issues += _reads_issues(exp, got)
    issues += _ext_issues(exp, got)
    oob = got.get("oob") or {}
    for key, what in (("imem", "instruction-memory reads"), ("ext_rd", "external-memory reads"),
                      ("ext_wr", "external-memory writes")):
        if oob.get(key):        # the chip checks every range before it reaches a memory
            issues.append(f"{oob[key]} {what} outside the memory")
    return _join(issues + _host_issues(got)
                 + _monitor_issues(got, None if got["timeout"] else exp))


def _join(issues):
    if not issues:
        return ""
    more = f" (+{len(issues) - 3} more)" if len(issues) > 3 else ""
    return "; ".join(issues[:3]) + more


def _without_ext(ref):
    """The reference outcome without its external memory (a Result or a GA2Error)."""
    if isinstance(ref, GA2Error):
        ref.ext = None
        return ref
    return ref._replace(ext=None)


def make_result(raw, ref):
    """A ProgResult of read_raw()'s dict and the reference outcome."""
    mism = compare(ref, raw)
    if raw.get("ext_tail") is not None:        # a read-back window: the words it holds; the
        ref = _without_ext(ref)               # reference's whole memory is not kept
    ext = raw["ext"] if raw.get("ext_tail") is None else raw["ext_tail"]
    return ProgResult(ext=ext, counters=raw["counters"], done=raw["done"], error=raw["error"],
                      error_code=raw["error_code"], error_pc=raw["error_pc"], trace=raw["trace"],
                      timeout=raw["timeout"], ref=ref, ok=(mism == ""), mismatch=mism,
                      xz=raw["xz"], oob=raw["oob"], host=raw.get("host"),
                      sp_reads=raw.get("sp_reads"))
