"""GA-2's functional semantics: what each instruction reads, writes and computes.

Views of one instruction, all independent of timing (model/timing.py says when it
runs and what it costs):

  reads(ins), writes(ins)   the memory it touches, as address ranges Range(space, first,
                            last): space "sp" (scratchpad) or "ext" (external memory),
                            first..last inclusive word addresses. For MM the ranges are
                            the hulls of the strided operands (base .. the last word the
                            strides reach): conservative, since with lda > K etc. the
                            words between rows are not touched, but exact at both ends.
                            The overlap timing mode uses them for hazards between units;
                            they are also the ranges isa.check tests against the sizes.
  execute(ins, ext, sp)     its effect on the external memory and the scratchpad (numpy
                            int64 arrays, changed in place), bit-exact with the RTL.
  sp_reads(ins)             how many scratchpad words its unit reads (read accesses, a
                            word read twice counts twice): the count the harness measures.

All assume an instruction the chip accepts (isa.check passes): a faulting instruction
writes nothing, so the reference never executes one (model/machine.py asks the schedule
which instructions retire). Ranges of zero length (len = 0, K = 0 ...) are left out.

Each op's ranges, read count and effect are its record's (model/ops/<op>.py, whose
docstring states its semantics beyond the spec, e.g. the order in which a streaming unit
reads and writes when dst overlaps src); this module is the one interface to them.
"""
from . import isa, ops
from .ops import EXT, SP, Range

# the one interface to an instruction's memory ranges: Range(space, first, last) with
# space SP or EXT (defined with the records, model/ops)
__all__ = ["EXT", "SP", "Range", "execute", "execute_words", "mm_hulls", "reads", "sp_reads", "writes"]

_VIEWS = ops.VIEWS
_READS = {name: v["reads"] for name, v in _VIEWS.items()}
_WRITES = {name: v["writes"] for name, v in _VIEWS.items()}
_SP_READS = {name: v["sp_reads"] for name, v in _VIEWS.items()}
_EXEC = {name: r.execute for name, r in ops.TABLE.items()}
_PREPARE = {name: r.prepare for name, r in ops.TABLE.items() if r.prepare is not None}


# ---------------------------------------------------------------- what it touches
def mm_hulls(ins):
    """(A, B, dst) hulls of an MM as (first, last) pairs; last < first when a size is 0."""
    rec, a = ops.TABLE["MM"], ins.args
    return tuple((a[rec.index[r.base]], a[rec.index[r.base]] + n(a, None) - 1)
                 for r, n in zip(rec.ranges, _VIEWS["MM"]["extents"]))


def reads(ins):
    """The address ranges ins reads: a tuple of Range (see the module docstring)."""
    return _READS[ins.op](ins.args)


def writes(ins):
    """The address ranges ins writes: a tuple of Range (see the module docstring)."""
    return _WRITES[ins.op](ins.args)


# ---------------------------------------------------------------- how many words it reads
def sp_reads(ins):
    """The scratchpad words a valid instruction (an Instr or its word) reads when it
    executes: its unit's scratchpad read accesses, one per word per read (a word read
    twice counts twice), independent of the data and of the timing mode: its record's
    sp_reads (model/ops), from its unit's timing (the unit's header in rtl/).
    A faulting instruction executes nothing: sum this over the executed (retired)
    instructions only, as model/machine.py does (Result.sp_reads), which the benches
    compare with the count of the scratchpad's enabled read ports (tb/hdl/ga2_harness.v
    mon_sp_reads).
    """
    if not isinstance(ins, isa.Instr):
        plan = _PLANS.get(ins)
        return (plan if plan is not None else _plan(ins, "func.sp_reads"))[3]
    return _SP_READS[ins.op](ins.args, None)


# ---------------------------------------------------------------- what it computes
# Speed (tools/bench/bench_model.py): per instruction word, its plan -- op, fields, its
# record's prepared extra (MM's offset grids) and its sp_reads -- is memoised (it depends
# on the word alone). Bounded.
_PLANS = {}
_MAX = 1 << 17


def _plan(word, who="func.execute"):
    """(op, fields, prepared extra or None, sp_reads) of an instruction word."""
    ins, why = isa.decoded(word)
    if ins is None:
        raise ValueError(f"{who}: {why}")
    op, args = ins.op, ins.args
    prep = _PREPARE.get(op)
    p = (op, args, prep(args) if prep else None, _SP_READS[op](args, None))
    if len(_PLANS) >= _MAX:
        _PLANS.clear()
    _PLANS[word] = p
    return p


def execute(ins, ext, sp):
    """Apply one valid instruction (an Instr or its word) to ext and sp in place.

    HALT does nothing. The caller has checked the instruction (isa.check): out-of-range
    addresses are not re-checked here. True when it is a lookup whose row index faulted
    (it wrote nothing), else None.
    """
    word = isa.as_words((ins,))[0] if isinstance(ins, isa.Instr) else ins
    plan = _PLANS.get(word)
    op, args, extra, _ = plan if plan is not None else _plan(word)
    return _EXEC[op](args, extra, ext, sp)


def execute_words(words, ext, sp):
    """execute() each valid instruction word of words in order: (the sum of their
    sp_reads, the position of the first lookup whose row index faulted or None) --
    model/machine.py's loop over the retired instructions."""
    get, run, reads, bad = _PLANS.get, _EXEC, 0, None
    for pc, word in enumerate(words):
        plan = get(word)
        if plan is None:
            plan = _plan(word)
        op, args, extra, n = plan
        if run[op](args, extra, ext, sp) and bad is None:
            bad = pc
        reads += n
    return reads, bad
