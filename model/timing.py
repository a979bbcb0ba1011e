"""GA-2's timing: when each instruction of a program runs, and what it costs in cycles.

The timing contract (docs/isa.md) is a function of the program and the Config alone --
never of the data -- so it is computed here without executing anything: schedule(prog,
cfg) walks the program as the sequencer does, using the same static fault checks as the
chip's DECODE stage (isa.decode / isa.check), and returns a Schedule. Everything that
needs cycles asks it: the reference Machine (counters and retire trace), the run scripts,
chapter 9's example B, the benches and the tests. What an instruction reads, writes and
computes is model/func.py's business, not this module's.

Cycle numbering (the chip's `cycles` counter): cycle 1 is the first cycle after start;
a cycle's number is the counter's value including that cycle. Per retired instruction
an Event(pc, op, unit, issue, start, end, retire):

    pc      its instruction-memory address
    op      its mnemonic ("LD", ..., "HALT")
    unit    the unit that executes it (its record's, model/ops): "dma", "mm" or "vec";
            None for HALT
    issue   its DECODE cycle (its FETCH is issue - 1): the cycle that checks its fields
            and starts its unit
    start   the first busy cycle of its unit (EXEC)
    end     the last busy cycle, inclusive: the unit is busy end - start + 1 =
            busy_cycles(ins) cycles. HALT has no busy cycles: start = issue + 1,
            end = issue (an empty range)
    retire  the counter's value at its retire (the trace's cycle): end for a unit
            instruction, issue for HALT (it retires in DECODE)

Two timing modes (cfg.mode), each an implementation registered in _MODES behind the
same schedule() and the same Event fields. In the in-order mode the next FETCH is the
cycle after the previous retire, and start = issue + 1. In the overlap mode issue stays
in order, but DECODE waits until the unit is idle and no busy unit's instruction
conflicts with it, the next FETCH follows the issue, and instructions retire out of the
FETCH order (_overlap; docs/isa.md "Timing modes").

A Schedule(events, cycles, fault, counters, reason):

    events    the retired instructions' Events in retire order (HALT last, when reached),
              a tuple
    cycles    the counter's final value (the chip's `cycles`)
    fault     None, or Fault(code, pc): the first instruction DECODE refuses (it costs
              its FETCH and DECODE, is not retired and has no Event), or ERR_PC at
              pc = imem_depth (one FETCH cycle that finds no instruction)
    counters  the six counters, an isa.Counters (fetch: the instruction words read, one
              per FETCH that found an instruction: the retired ones and a refused one)
    reason    why it faulted ("" when it did not), for messages

counters(s) and trace(s) give the counters and the retire trace [(pc, retire)] the RTL
must reproduce exactly.
"""
from collections import namedtuple

from . import config, func, isa, ops

Event = namedtuple("Event", "pc op unit issue start end retire")
Fault = namedtuple("Fault", "code pc")
Schedule = namedtuple("Schedule", "events cycles fault counters reason")

# The unit that executes each op (its busy cycles add to that unit's counter): its record's.
UNIT = {name: r.unit for name, r in ops.TABLE.items()}
_BUSY = {name: v["busy"] for name, v in ops.VIEWS.items()}


def busy_cycles(ins, cfg=None):
    """Cycles the instruction's unit is busy (its EXEC state) on cfg; 0 for HALT: its
    record's busy formula in cfg's timing mode (model/ops; docs/isa.md's table)."""
    return _busy(ins.op, ins.args, config.resolve(cfg))


def _busy(op, args, cfg):
    return _BUSY[op][cfg.mode](args, cfg)


# Speed (tools/bench/bench_model.py): what one word costs on one Config -- (op, unit, busy,
# fault code, reason) -- depends on nothing else, so it is memoised per Config and word;
# whole schedules are memoised per (Config, words) because programs are run again and again
# (chapter 9 runs each step's program for every earlier token). Both caches are bounded.
_COST = {}
_COST_MAX = 1 << 17
_SCHED = {}
_SCHED_MAX = 64


def _cost(word, cfg, memo):
    c = memo.get(word)
    if c is None:
        ins, why = isa.decoded(word)
        if ins is None:
            c = (None, None, 0, isa.ERR_OPCODE, why)
        else:
            bad = isa.check(ins, cfg)
            if bad:
                c = (ins.op, UNIT[ins.op], 0, bad[0], f"{ins.op} {bad[2]}")
            else:
                c = (ins.op, UNIT[ins.op], _busy(ins.op, ins.args, cfg), 0, "")
        if len(memo) >= _COST_MAX:
            memo.clear()
        memo[word] = c
    return c


def _memo(cfg):
    """The per-word cost memo of cfg."""
    memo = _COST.get(cfg)
    if memo is None:
        if len(_COST) >= 16:           # the tests make many small Configs
            _COST.clear()
        memo = _COST[cfg] = {}
    return memo


# Speed: an Event built as namedtuple's own __new__ builds it (one tuple.__new__ call)
_tuple_new = tuple.__new__


def _inorder(words, cfg):
    """The in-order sequencer: FETCH, DECODE, the unit's busy cycles, then the next FETCH."""
    memo = _memo(cfg)
    get = memo.get
    depth, n_words, issue_cycles = cfg.imem_depth, len(words), cfg.issue_cycles
    events = []
    append = events.append
    busy_sum = {"mm": 0, "dma": 0, "vec": 0}
    t, pc = 0, 0                       # t: the counter before this instruction's FETCH
    fault, reason = None, ""
    while True:
        if pc >= depth:                # a FETCH past the instruction memory: 1 cycle
            t += 1
            fault = Fault(isa.ERR_PC, pc)
            break
        # the host clears the instruction memory: past the program the word is 0
        word = words[pc] if pc < n_words else 0
        c = get(word)
        op, unit, busy, code, why = c if c is not None else _cost(word, cfg, memo)
        issue = t + issue_cycles
        if code:
            t = issue
            fault, reason = Fault(code, pc), why
            break
        if unit is None:               # HALT retires in DECODE
            append(_tuple_new(Event, (pc, op, None, issue, issue + 1, issue, issue)))
            t = issue
            break
        end = issue + busy
        append(_tuple_new(Event, (pc, op, unit, issue, issue + 1, end, end)))
        busy_sum[unit] += busy
        t = end
        pc += 1
    cnt = isa.Counters(t, busy_sum["mm"], busy_sum["dma"], busy_sum["vec"], len(events),
                       _fetched(pc, fault))
    return Schedule(tuple(events), t, fault, cnt, reason)


def _fetched(pc, fault):
    """The instruction words read (the fetch counter): one per FETCH at pcs 0..pc, the last
    one the HALT or the refused instruction; none for pc = imem_depth (error 5: that FETCH
    reads nothing)."""
    return pc if fault is not None and fault.code == isa.ERR_PC else pc + 1


# Retire slots: the order of retires within one cycle (the chip's retire[3:0] vector)
SLOT = {"dma": 0, "mm": 1, "vec": 2, None: 3}
_RANGES = {}


def _sp_ranges(word):
    """(reads, writes) scratchpad hulls of a valid word as ((first, last), ...) tuples:
    the ranges the overlap mode's hazard check compares (func.reads / func.writes)."""
    r = _RANGES.get(word)
    if r is None:
        ins = isa.decoded(word)[0]
        sp = func.SP                   # a Range is (space, first, last)
        r = (tuple([(f, la) for s, f, la in func.reads(ins) if s == sp]),
             tuple([(f, la) for s, f, la in func.writes(ins) if s == sp]))
        if len(_RANGES) >= _COST_MAX:
            _RANGES.clear()
        _RANGES[word] = r
    return r


def _meet(xs, ys):
    """True when some range of xs intersects some range of ys (inclusive ends)."""
    for a0, a1 in xs:                  # loops, not any() over a generator: called per unit
        for b0, b1 in ys:              # and instruction by the overlap mode and reorder
            if a0 <= b1 and b0 <= a1:
                return True
    return False


def _overlap(words, cfg):
    """The overlap mode (docs/isa.md "Timing modes"): in-order issue, one instruction in
    flight per unit, out-of-order completion across units.

    FETCH takes one cycle, then DECODE repeats until the instruction can issue: its unit
    is idle in that cycle and no busy unit's instruction conflicts with it (read after
    write, write after read, write after write on the scratchpad hulls of func.reads /
    func.writes). The cycle after an issue is the next FETCH. HALT, a fault (DECODE) and
    the end of the instruction memory (FETCH) wait in their state until every unit is
    idle, and then halt: a fault still costs its FETCH and DECODE, and whatever was
    issued before it completes. Only the DMA unit touches the external memory and it runs
    one transfer at a time in program order, so external ranges need no check.
    """
    memo = _memo(cfg)
    depth, n_words = cfg.imem_depth, len(words)
    events = []
    busy_sum = {"mm": 0, "dma": 0, "vec": 0}
    # per unit, its last issued instruction: (end cycle, sp reads, sp writes)
    last = {"dma": (0, (), ()), "mm": (0, (), ()), "vec": (0, (), ())}
    t, pc = 0, 0                       # t: the counter before this instruction's FETCH
    fault, reason = None, ""
    append = events.append
    while True:
        # the first cycle all units are idle
        idle = max(last["dma"][0], last["mm"][0], last["vec"][0]) + 1
        fetch = t + 1
        if pc >= depth:                # FETCH finds no instruction: wait for the units, halt
            t = max(fetch, idle)
            fault = Fault(isa.ERR_PC, pc)
            break
        word = words[pc] if pc < n_words else 0
        op, unit, busy, code, why = _cost(word, cfg, memo)
        decode = fetch + 1
        if code:                       # DECODE refuses it: wait for the units, halt
            t = max(decode, idle)
            fault, reason = Fault(code, pc), why
            break
        if unit is None:               # HALT retires once every unit is idle
            r = max(decode, idle)
            append(_tuple_new(Event, (pc, op, None, r, r + 1, r, r)))
            t = r
            break
        rd, wr = _sp_ranges(word)
        issue = max(decode, last[unit][0] + 1)
        for u, (end, urd, uwr) in last.items():
            if end >= decode and u != unit and (_meet(wr, urd) or _meet(wr, uwr) or _meet(rd, uwr)):
                issue = max(issue, end + 1)
        end = issue + busy
        append(_tuple_new(Event, (pc, op, unit, issue, issue + 1, end, end)))
        busy_sum[unit] += busy
        last[unit] = (end, rd, wr)
        t = issue
        pc += 1
    events.sort(key=lambda e: (e.retire, SLOT[e.unit]))
    cnt = isa.Counters(t, busy_sum["mm"], busy_sum["dma"], busy_sum["vec"], len(events),
                       _fetched(pc, fault))
    return Schedule(tuple(events), t, fault, cnt, reason)


_MODES = {"inorder": _inorder, "overlap": _overlap}


def schedule(prog, cfg=None):
    """The Schedule of prog (Instr objects or instruction words, mixed) on cfg.

    Dispatches on cfg.mode. ValueError for a program longer than the instruction memory
    (the host cannot load it). The Schedule is shared between callers: treat it as
    read-only (trace() and counters() return fresh values).
    """
    cfg = config.resolve(cfg)
    return _schedule(isa.as_words(prog), cfg)


def _schedule(words, cfg):
    """schedule() of a list of instruction words (isa.as_words) on a Config."""
    if len(words) > cfg.imem_depth:
        raise ValueError(f"program of {len(words)} instructions exceeds instruction memory "
                         f"({cfg.imem_depth})")
    key = (cfg, tuple(words))
    s = _SCHED.get(key)
    if s is None:
        s = _MODES[cfg.mode](words, cfg)
        if len(_SCHED) >= _SCHED_MAX:
            _SCHED.clear()
        _SCHED[key] = s
    return s


def counters(s):
    """The six counters of a Schedule (an isa.Counters)."""
    return s.counters


def trace(s):
    """The retire trace of a Schedule: [(pc, retire cycle)] in retire order (a new list)."""
    return [(e.pc, e.retire) for e in s.events]
