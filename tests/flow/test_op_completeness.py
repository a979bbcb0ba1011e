"""Every operation has every part an operation needs, or this test names what it lacks.

One record per operation (model/ops/<op>.py) is the single source; the parts below are
the places that must follow from it or stand beside it. For each op of the table the
test collects the parts it lacks, and fails listing them all, op by op (so a new
operation added with only its record is told exactly what is missing):

  reference   its record's execute is a function of its own module and runs an
              instruction drawn from the record on the reference Machine
  timing      its busy formula gives at least one cycle (in both timing modes; HALT none)
  decode      rtl/ga2_decode_ops.vh (generated, current) decodes it, and the RTL header
              names its opcode and its one-hot bit
  unit        its RTL unit rtl/<module>.v exists and rtl/ga2.f lists it
  busy proof  make formal has a busy-length check of its unit
  range proof make formal has a link (range) check of its unit
  restart     the restart check covers its unit: a scenario of the op (the vector units,
              tb/restart.py) or the unit's hand-written pair (tb/hdl/restart/)
  coverage    the coverage model has its opcode bin and a bin set for each field
  stimulus    rand_op draws valid instructions of it, and random programs contain it
  units bench units_job's by-instruction test runs it (the matrix unit: test_mm_tiles)
  hazards     an op with a scratchpad range is drawn by the colliding programs
              (tb/stimulus/collide.py) and is the long instruction of one-word hull edges
              (collide.edge_producers), each of its scratchpad ranges covered there
  example     docs/isa.md has an example program of it that assembles, runs on the
              reference without a fault and uses it
"""
import inspect
import re

import numpy as np

from model import asm, config, func, isa, ops, timing
from model.machine import Machine
from tb import ROOT, coverage, restart
from tb.drivers import units_job
from tb.formal import props
from tb.sim.files import read_filelist
from tb.stimulus import collide, randops, randprog

DOC = ROOT / "docs" / "isa.md"


def _examples():
    """{op: assembly text} of docs/isa.md's examples (#### OP, then an ```asm block)."""
    text = DOC.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"^#### (\w+)\n```asm\n(.*?)^```", text, re.M | re.S)}


def _busy_names():
    return {c.name.split("/")[1] for c in props.busy_checks()}


def _link_names():
    return {u for u, _ in props.link_units()}


def _variant_names(module):
    return {v[0] for v in restart.variants() if v[1] == module}


def _short(module):
    return module[len("ga2_"):]


def _draw(op, cfg=config.DEFAULT, seed=1, n=20):
    rng = np.random.default_rng(seed)

    def b(o, **f):
        return isa.build(o, cfg=cfg, **f)
    return [randops.rand_op(rng, cfg, b, op) for _ in range(n)]


def _collide_ops():
    """The ops colliding programs draw (with every op kind), from 40 programs."""
    rng = np.random.default_rng(7)
    return {i.op for k in range(40) for i in collide.collide_program(rng, config.DEFAULT, with_sm=k % 2 == 0,
                                                                     with_lm=True)[0]}


def _edge_ranges():
    """{op: the set of indices of its sp ranges (reads, then writes) some edge producer has}."""
    got = {}
    for _, ins in collide.edge_producers(config.DEFAULT):
        rs = [r for r in func.reads(ins) + func.writes(ins) if r.space == func.SP]
        got.setdefault(ins.op, set()).update(range(len(rs)))
    return got


def missing_parts(rec, examples, busy, link, decode_text, header_text, filelist, prog_ops, bench_ops, scenario_ops,
                  collide_ops=(), edge_ranges=None):
    """The parts op record rec lacks (names from the module docstring)."""
    out = []
    op = rec.name
    edge_ranges = {} if edge_ranges is None else edge_ranges
    # reference
    if not (inspect.isfunction(rec.execute) and rec.execute.__module__.startswith("model.ops.")):
        out.append("reference")
    elif op != "HALT":
        try:
            prog = [*_draw(op, n=3), isa.build("HALT")]
            Machine(config.DEFAULT).run(prog, np.zeros(config.DEFAULT.ext_words, dtype=np.int64))
        except Exception as e:  # noqa: BLE001 -- any failure is the part's absence, named below
            if not (op == "LDX" and getattr(e, "code", None) == isa.ERR_INDEX):
                out.append(f"reference ({type(e).__name__}: {e})")
    # timing
    if rec.unit is not None:
        ins = _draw(op, n=1)[0]
        if any(timing.busy_cycles(ins, config.DEFAULT.replace(mode=m)) < 1 for m in config.MODES):
            out.append("timing")
    # decode
    if f"wire is_{op.lower()} = (op == `GA2_OP_" not in decode_text or \
            f"`define GA2_OPI_{op} {rec.code - 1}" not in header_text:
        out.append("decode")
    # unit
    if rec.module is not None and (not (ROOT / "rtl" / f"{rec.module}.v").exists()
                                   or (ROOT / "rtl" / f"{rec.module}.v") not in filelist):
        out.append("unit")
    if rec.module is not None:
        names = _variant_names(rec.module) | {rec.module, _short(rec.module), _short(rec.module).split("_")[0]}
        if not names & busy:
            out.append("busy proof")
        if not names & link:
            out.append("range proof")
        hand = (ROOT / "tb" / "hdl" / "restart" / f"restart_{_short(rec.module).split('_')[0]}.v").exists()
        if op not in scenario_ops and not hand:
            out.append("restart")
    # coverage
    bins = coverage.point_bins()
    if op not in bins.get("ga2.op", []) or any(f"ga2.field.{op}.{f}" not in bins for f, _ in rec.fields):
        out.append("coverage")
    # stimulus
    if op != "HALT":
        try:
            if not all(i.op == op for i in _draw(op)):
                out.append("stimulus")
        except ValueError as e:
            out.append(f"stimulus ({e})")
        if op not in prog_ops:
            out.append("stimulus (no random program draws it)")
    # units bench
    if rec.unit is not None and op not in bench_ops and rec.module != "ga2_mm_ctrl":
        out.append("units bench")
    # hazards
    n_sp = sum(1 for g in rec.ranges if g.space == ops.SP)
    if rec.unit is not None and n_sp:
        if op not in collide_ops:
            out.append("hazards (no colliding program draws it)")
        if len(edge_ranges.get(op, ())) < n_sp:
            out.append("hazards (not every scratchpad range of it is an edge producer's)")
    # example
    text = examples.get(op)
    if text is None:
        out.append("example")
    else:
        prog = asm.assemble(text)
        res = Machine(config.DEFAULT).run(prog, np.arange(config.DEFAULT.ext_words) % 97 - 48)
        if op not in {i.op for i in prog} or res.counters.instret != len(prog):
            out.append("example (it must use the op and retire every instruction)")
    return out


def test_every_op_has_every_part():
    examples = _examples()
    busy, link = _busy_names(), _link_names()
    decode_text = (ROOT / "rtl" / "ga2_decode_ops.vh").read_text()
    header_text = (ROOT / "rtl" / "ga2_isa.vh").read_text()
    filelist = read_filelist(ROOT / "rtl" / "ga2.f")
    prog_ops = {i.op for s in range(60) for i in randprog.random_program(s)[0]}
    bench_ops = {c[0] for c in units_job.unit_cases()}
    scenario_ops = {i.op for _, p1, p2, _ in restart.scenarios() for i in (p1, p2)}
    collide_ops, edge_ranges = _collide_ops(), _edge_ranges()
    lacks = {op: missing_parts(rec, examples, busy, link, decode_text, header_text, filelist, prog_ops,
                               bench_ops, scenario_ops, collide_ops, edge_ranges)
             for op, rec in ops.TABLE.items()}
    lacks = {op: parts for op, parts in lacks.items() if parts}
    assert not lacks, "operations lacking parts:\n" + "\n".join(f"  {op}: {', '.join(p)}" for op, p in lacks.items())


def test_a_record_alone_is_told_what_it_lacks(monkeypatch):
    """An operation added with only its record (a copy of ARGMAX's under a new name and
    opcode, no RTL unit of its own, no example) is named with the parts it lacks: its
    unit, its example, the decoder (until `make header` regenerates it), a units-bench
    run and a restart scenario (both generated once its unit is there)."""
    from dataclasses import replace

    from model import func
    rec = replace(ops.TABLE["ARGMAX"], name="TWICE", code=13, module="ga2_twice")
    views = ops._views(rec)
    for table, value in ((ops.TABLE, rec), (ops.VIEWS, views), (isa.OPCODES, 13), (isa.FIELDS, rec.fields),
                         (isa._NAMES, isa._NAMES["ARGMAX"]), (timing._BUSY, views["busy"]),
                         (timing.UNIT, rec.unit), (func._READS, views["reads"]), (func._WRITES, views["writes"]),
                         (func._SP_READS, views["sp_reads"]), (func._EXEC, rec.execute)):
        monkeypatch.setitem(table, "TWICE", value)
    got = missing_parts(rec, _examples(), _busy_names(), _link_names(),
                        (ROOT / "rtl" / "ga2_decode_ops.vh").read_text(), (ROOT / "rtl" / "ga2_isa.vh").read_text(),
                        read_filelist(ROOT / "rtl" / "ga2.f"), set(), set(), set())
    for part in ("decode", "unit", "restart", "units bench", "hazards", "example"):
        assert part in [p.split(" (")[0] for p in got], (part, got)
