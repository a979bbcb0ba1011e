"""One judge, one protocol: every bench's verdict is tb/judge.py's.

1. The judge alone: an outcome equal to a fresh model.machine.Machine run passes, and
   each perturbed part (a memory word, a counter, a trace entry, the scratchpad read
   count, the error code and pc, error outputs without an error, a cut's retires) is
   reported.
2. The plain check (tb/plain_check.judge_runs, through tb/sim/plain.outcomes) gives the
   judge's verdict word for word: on a PlainRun built here from Machine runs, perturbed
   part by part, and on the plain bench on Icarus.
3. The mutation suite's expectation files (tb/mutation/rtl/suite.build_suite, read back
   with tb/protocol.py) hold exactly what the judge expects, computed here from a fresh
   Machine run over the sequence without the judge; and the mutation bench, run on the
   unchanged RTL, fails on an expectation perturbed in each field it reads.
4. No module but tb/protocol.py builds a "pK_" file name (parsed from the source).
"""
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from model import isa
from model.machine import GA2Error, Machine
from tb import ROOT, judge, plain_check, protocol
from tb.mutation.rtl import suite
from tb.sim import plain
from tb.stimulus import badprog, hand
from tb.stimulus.ops.sm import self_contained_program
from tb.stimulus.suitecfg import CFG

needs_iverilog = pytest.mark.skipif(shutil.which("iverilog") is None, reason="iverilog not installed")


def ideal(ref):
    """A chip outcome (read_raw's form) showing exactly what a Machine outcome shows,
    built from the Machine's fields, not through the judge."""
    err = isinstance(ref, GA2Error)
    return {"ext": np.array(ref.ext), "counters": ref.counters, "done": True, "error": err,
            "error_code": ref.code if err else 0, "error_pc": ref.pc if err else 0,
            "trace": list(ref.trace), "timeout": False, "xz": "",
            "oob": {"imem": 0, "ext_rd": 0, "ext_wr": 0}, "sp_reads": ref.sp_reads, "host": None}


def run_machine(prog, image, cfg=CFG):
    try:
        return Machine(cfg).run(prog, image)
    except GA2Error as e:
        return e


# ------------------------------------------------------------------ 1. the judge alone
def test_the_judge_reports_each_perturbed_part():
    prog, img = self_contained_program()
    ref = run_machine(prog, img)
    got = ideal(ref)
    assert judge.compare(ref, got) == ""
    ext = got["ext"].copy()
    ext[1003] += 1
    assert judge.compare(ref, dict(got, ext=ext)) == f"ext[1003] = {ext[1003]} vs {ref.ext[1003]}"
    c = ref.counters._replace(vec=ref.counters.vec + 1)
    assert judge.compare(ref, dict(got, counters=c)) == f"counter vec {c.vec} vs {ref.counters.vec}"
    tr = list(ref.trace)
    pc, cyc = tr[2]
    tr[2] = (pc, cyc + 1)
    assert judge.compare(ref, dict(got, trace=tr)) == \
        f"pc {pc} retired at cycle {cyc + 1} on the chip, {cyc} in the model"
    assert judge.compare(ref, dict(got, sp_reads=ref.sp_reads - 1)) == (
        f"scratchpad reads: the chip read {ref.sp_reads - 1} words, the model's executed "
        f"instructions read {ref.sp_reads} (model/func.py sp_reads)")
    assert "without error" in judge.compare(ref, dict(got, error_pc=3))
    assert judge.compare(ref, dict(got, ext=None)) == ""       # memory not read: not judged


def test_the_judge_holds_a_read_back_window():
    """ext_tail (tb/sim/run.py window): the window's words judged, and a write the bus log
    shows outside the window reported even when the window matches."""
    prog, img = self_contained_program()
    ref = run_machine(prog, img)
    got = ideal(ref)
    first = 1000
    tail = np.array(ref.ext)[first:2000]
    ok = dict(got, ext=None, ext_tail=(first, tail), host={"bus": [("r", 0, 15), ("w", 1003, 1006)]})
    assert judge.compare(ref, ok) == ""
    bad = tail.copy()
    bad[3] += 1
    assert judge.compare(ref, dict(ok, ext_tail=(first, bad))) == f"ext[1003] = {bad[3]} vs {ref.ext[1003]}"
    low = dict(ok, host={"bus": [("w", 999, 1002)]})
    assert judge.compare(ref, low) == "ext: the chip wrote words 999..1002, outside the read-back window 1000..1999"
    high = dict(ok, host={"bus": [("r", 3000, 3001), ("w", 1998, 2000)]})
    assert judge.compare(ref, high) == "ext: the chip wrote words 1998..2000, outside the read-back window 1000..1999"
    assert "without the bus log" in judge.compare(ref, dict(ok, host=None))
    past = dict(ok, ext_tail=(len(ref.ext) - 8, np.zeros(16, np.int64)))      # past the memory's end
    assert "window size 16 vs 8" in judge.compare(ref, past)


def test_the_judge_reports_error_outputs():
    bad = badprog.bad_program(3, isa.ERR_SP_RANGE, cfg=CFG)
    ref = run_machine(bad.prog, bad.image)
    assert isinstance(ref, GA2Error) and (ref.code, ref.pc) == (bad.code, bad.pc)
    got = ideal(ref)
    assert judge.compare(ref, got) == ""
    assert judge.compare(ref, dict(got, error_code=isa.ERR_EXT_RANGE)) == \
        f"error code {isa.ERR_EXT_RANGE} vs {bad.code}"
    assert judge.compare(ref, dict(got, error_pc=bad.pc + 1)) == f"error pc {bad.pc + 1} vs {bad.pc}"
    assert judge.compare(ref, dict(got, error=False, error_code=0, error_pc=0)).startswith("error 0 vs 1")


def test_cut_trace_and_a_cut_run():
    prog, img = self_contained_program()
    ref = run_machine(prog, img)
    (_, _), (_, c2) = ref.trace[1], ref.trace[2]
    must, may = judge.cut_trace(ref.trace, c2)
    assert must == list(ref.trace[:2]) and may == list(ref.trace[:3])
    host = {"aborted": True, "cut_cycles": c2, "after_reset": dict.fromkeys(judge.HOST_OUTPUTS, 0)}
    got = dict(ideal(ref), host=host)
    assert judge.compare(ref, dict(got, trace=must)) == ""
    assert judge.compare(ref, dict(got, trace=may)) == ""
    assert "missing: pc" in judge.compare(ref, dict(got, trace=must[:1]))
    assert "extra: pc" in judge.compare(ref, dict(got, trace=list(ref.trace[:4])))


def test_references_carry_the_scratchpad_and_keep_ext():
    """references() on one Machine: the second program sees the first one's scratchpad
    and, with KEEP_EXT, its external memory."""
    def b(op, **f):
        return isa.build(op, cfg=CFG, **f)
    first = [b("LD", dst=0, src=0, len=4), b("ST", src=0, dst=100, len=4), b("HALT")]
    second = [b("ST", src=0, dst=200, len=4), b("HALT")]
    r1, r2 = judge.references(Machine(CFG), [(first, [5, 6, 7, 8], None), (second, judge.KEEP_EXT, None)])
    assert list(r2.ext[100:104]) == list(r2.ext[200:204]) == [5, 6, 7, 8]
    (_, r3), = [tuple(judge.references(Machine(CFG), [(first, [5, 6, 7, 8], None), (second, None, None)]))]
    assert list(r3.ext[100:104]) == [0] * 4 and list(r3.ext[200:204]) == [5, 6, 7, 8]


# ------------------------------------------------------------------ 2. the plain check
def plain_run_of(prog, image, runs, cfg):
    """A PlainRun as the plain bench writes it for a chip equal to the Machine (runs on
    one Machine, the image reloaded before each)."""
    m, status, trace = Machine(cfg), [], []
    for _ in range(runs):
        try:
            r, err = m.run(prog, image), (0, 0, 0)
        except GA2Error as e:
            r, err = e, (1, e.code, e.pc)
        c = r.counters
        status.append({"done": 1, "error": err[0], "code": err[1], "pc": err[2], "cycles": c.cycles,
                       "mm": c.mm, "dma": c.dma, "vec": c.vec, "instret": c.instret, "fetch": c.fetch,
                       "timeout": 0,
                       "imem_oob": 0, "ext_rd_oob": 0, "ext_wr_oob": 0, "xz": 0, "sp_reads": r.sp_reads,
                       "run_cycles": c.cycles, **{f"mon_{m}": 0 for m in judge.MONITORS}})
        trace += list(r.trace)
    return plain.PlainRun(status, np.array(r.ext), [], trace, 0.0, "")


def test_the_plain_check_gives_the_judges_verdict():
    cfg = hand.CFG_HAND
    name, prog, img = next(c for c in hand.hand_programs() if c[0] == "rq")
    r = plain_run_of(prog, img, 2, cfg)
    assert plain_check.judge_runs(r, prog, img, hand.EXT_HAND) == []
    refs = list(judge.references(Machine(cfg), [(prog, img, None)] * 2))
    ext = r.ext.copy()
    ext[700] += 1
    st1 = dict(r.status[1], mm=r.status[1]["mm"] + 1)
    cases = {
        "memory": r._replace(ext=ext),
        "counter": r._replace(status=[r.status[0], st1]),
        "trace": r._replace(trace=r.trace[:3] + [(r.trace[3][0], r.trace[3][1] + 2)] + r.trace[4:]),
        "reads": r._replace(status=[dict(r.status[0], sp_reads=1), r.status[1]]),
        "error": r._replace(status=[r.status[0], dict(r.status[1], error=1, code=2, pc=1)]),
        "timeout": r._replace(status=[dict(r.status[0], timeout=1, done=0), r.status[1]]),
        "xz": r._replace(status=[r.status[0], dict(r.status[1], xz=3)]),
        "oob": r._replace(status=[dict(r.status[0], ext_wr_oob=2), r.status[1]]),
        "monitor": r._replace(status=[r.status[0], dict(r.status[1], mon_hold=1)]),
        "done late": r._replace(status=[dict(r.status[0], run_cycles=r.status[0]["cycles"] + 1), r.status[1]]),
    }
    for what, bad in cases.items():
        got = plain.outcomes(bad)
        want = [f"run {k}: {judge.compare(refs[k], got[k])}" for k in range(2) if judge.compare(refs[k], got[k])]
        assert want, what
        assert plain_check.judge_runs(bad, prog, img, hand.EXT_HAND) == want, what
    assert "ext[700]" in plain_check.judge_runs(cases["memory"], prog, img, hand.EXT_HAND)[0]
    # the trace of both runs is split by each run's instret: an extra retire in run 0
    extra = r._replace(trace=r.trace[:1] + [r.trace[0]] + r.trace[1:])
    errs = plain_check.judge_runs(extra, prog, img, hand.EXT_HAND)
    assert errs and errs[0].startswith("run 0:")


@needs_iverilog
def test_the_plain_bench_on_icarus_is_judged(tmp_path):
    """Two hand programs (one faulting) on tb_plain, twice each: the judge passes them,
    and a perturbed read-back is the judge's mismatch."""
    cmd = plain_check.build("icarus", hand.EXT_HAND)
    progs = {n: (p, i) for n, p, i in hand.hand_programs()}
    for name in ("ld_st", "err2_mm_A"):
        prog, img = progs[name]
        r, errs = plain_check.check(cmd, prog, img, hand.EXT_HAND, tmp_path / name, runs=2)
        assert errs == [], (name, errs)
        assert len(r.status) == 2 and r.status[0]["error"] == (name != "ld_st")
    ext = r.ext.copy()
    ext[0] ^= 1
    assert plain_check.judge_runs(r._replace(ext=ext), prog, img, hand.EXT_HAND)[0].startswith("run 1: ext[0]")


# ------------------------------------------------------------------ 3. the mutation suite
def suite_entries():
    """A valid program, a fault and its follow-up, a light fault that keeps the external
    memory, a cut in the MM and the program after it."""
    prog, img = self_contained_program()
    bad = badprog.bad_program(7, isa.ERR_SHAPE, cfg=CFG)
    light = [isa.raw("SM", dst=0, src=100, len=65)]
    return [("valid", prog, img), ("fault", bad.prog, bad.image), ("after", *badprog.follow_up(bad, cfg=CFG)),
            ("light", light, None, 0, 1), ("cut", prog, img, 92), ("after cut", prog, img)]


def expectations_by_hand(entries, cfg=CFG):
    """Per entry, computed here from ONE fresh Machine without the judge: (meta values,
    trace, expected ext or None)."""
    m, ext, out = Machine(cfg), np.zeros(cfg.ext_words, dtype=np.int64), []
    for e in entries:
        label, prog, img = e[:3]
        abort, light = (e[3] if len(e) > 3 else 0), (e[4] if len(e) > 4 else 0)
        try:
            r = m.run(prog, ext if light else img)
            err = (0, 0, 0)
        except GA2Error as x:
            r, err = x, (1, x.code, x.pc)
        ext = np.array(r.ext)
        trace = [tuple(t) for t in r.trace]
        need = len(trace)
        if abort:
            trace = [t for t in trace if t[1] <= abort]
            need = sum(t[1] < abort for t in trace)
        c = r.counters
        meta = {"limit": c.cycles + c.cycles // 4 + 200, "abort_at": abort, "error": err[0],
                "code": err[1], "pc": err[2], "cycles": c.cycles, "mm": c.mm, "dma": c.dma,
                "vec": c.vec, "instret": c.instret, "ntrace": len(trace), "light": light,
                "reads": r.sp_reads, "nneed": need, "fetch": c.fetch}
        out.append((meta, trace, None if light else ext))
    return out


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory):
    d = tmp_path_factory.mktemp("suite")
    entries = suite_entries()
    return d, entries, suite.build_suite(str(d), programs=entries, cfg=CFG)


def test_suite_expectations_are_the_judges(small_suite):
    d, entries, manifest = small_suite
    assert manifest["nprog"] == len(entries)
    want = expectations_by_hand(entries)
    refs = list(judge.references(Machine(CFG), [
        (isa.as_words(e[1]), judge.KEEP_EXT if len(e) > 4 and e[4] else e[2], None) for e in entries]))
    for p, ((meta, trace, ext), ref) in enumerate(zip(want, refs)):
        got_meta, got_trace, got_ext = protocol.read_mut_program(d, p)
        assert got_meta == meta and got_trace == trace, entries[p][0]
        assert (got_ext is None) == (ext is None) and (ext is None or (got_ext == ext).all()), entries[p][0]
        exp = judge.expected(ref)          # the same values, as the judge states them
        assert (got_meta["error"], got_meta["code"], got_meta["pc"]) == \
            (int(exp["error"]), exp["error_code"], exp["error_pc"])
        assert tuple(got_meta[k] for k in isa.Counters._fields[1:]) == tuple(exp["counters"])[1:]
        assert got_meta["cycles"] == exp["counters"].cycles and got_meta["reads"] == exp["sp_reads"]
    cut = next(p for p, e in enumerate(entries) if len(e) > 3 and e[3])
    meta, trace, _ = protocol.read_mut_program(d, cut)
    must, may = judge.cut_trace(judge.expected(refs[cut])["trace"], entries[cut][3])
    assert trace == may and meta["nneed"] == len(must) > 0


@pytest.mark.long   # 6 CPU-s of Icarus; make test runs the bench on mutant 0 and a known-bad mutant (test_mut_rtl)
@needs_iverilog
def test_the_mutation_bench_checks_each_expectation(small_suite, tmp_path):
    """The bench passes the unchanged RTL on the judge's expectations and fails on each
    perturbed one, with the check that reads it (those six runs without the units' restart
    check, which reads no expectation: +restart=0)."""
    d, entries, manifest = small_suite
    ok, _, log, vvp = suite.compile_mutant(str(ROOT / "rtl"), str(tmp_path / "build"), cfg=CFG)
    assert ok, log[-2000:]
    lean = dict(manifest, rq_n=0, dv_n=0, pf_n=0)      # the unit vectors: tests/tb/test_units_cosim
    assert suite.run_mutant(vvp, lean, 120)[:2] == ("pass", "")
    words = {p: isa.as_words(e[1]) for p, e in enumerate(entries)}
    fault = next(p for p, e in enumerate(entries) if e[0] == "fault")
    cut = next(p for p, e in enumerate(entries) if e[0] == "cut")

    def perturbed(p, meta=None, trace=None, ext=None):
        work = tmp_path / f"s{len(list(tmp_path.iterdir()))}"
        shutil.copytree(d, work)
        m0, t0, e0 = protocol.read_mut_program(d, p)
        m1 = dict(m0, **(meta or {}))
        t1 = t0 if trace is None else trace
        image = None
        if not m1["light"]:
            image = protocol.parse_mem32(protocol.program_file(d, p, "mut_ext").read_text(), CFG.ext_words)[0]
        protocol.write_mut_program(work, p, words[p], dict(m1, ntrace=len(t1)), t1, image=image,
                                   exp=None if m1["light"] else (e0 if ext is None else ext))
        return suite.run_mutant(vvp, dict(lean, dir=str(work)), 120, restart=False)

    m0, t0, e0 = protocol.read_mut_program(d, 0)
    e1 = e0.copy()
    e1[1000] += 1
    t1 = list(t0)
    t1[1] = (t1[1][0], t1[1][1] + 1)
    for what, result in (("memory", perturbed(0, ext=e1)),
                         ("counters", perturbed(0, meta={"dma": m0["dma"] + 1})),
                         ("trace", perturbed(0, trace=t1)),
                         ("reads", perturbed(0, meta={"reads": m0["reads"] + 1})),
                         ("error", perturbed(fault, meta={"code": protocol.read_mut_program(d, fault)[0]["code"] ^ 1})),
                         ("trace", perturbed(cut, meta={"nneed": protocol.read_mut_program(d, cut)[0]["ntrace"] + 1}))):
        assert result[:2] == ("fail", what), (what, result)


# ------------------------------------------------------------------ 4. one protocol
_KINDS = "|".join(sorted({re.escape(v.split(".")[0]) for v in protocol.PROGRAM_FILES.values()}))
_NAMED = re.compile(r"p(\{\}|%\d*d|\d+)_(" + _KINDS + r"|\{\}|%s|$)")


def pk_names(path):
    """(line, text) of every string in path that builds or spells a pK_ file name: an
    f-string ("p", a field, "_", then a file kind of tb/protocol.py, another field or
    nothing: a prefix), a %-format ("p%d_" and a kind) or a literal with the number ("p0_" and a kind)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.replace("{k}", "{}").replace("{p}", "{}")
        else:
            continue
        text = re.sub(r"\{[^{}]*\}", "{}", text)
        if _NAMED.search(text):
            out.append((node.lineno, text[:60]))
    return out


def test_only_the_protocol_names_pk_files(tmp_path):
    assert pk_names(Path(protocol.__file__))          # the scan sees the protocol's own names
    planted = tmp_path / "planted.py"
    P = "p"            # (so that this file spells no pK_ name itself)
    planted.write_text(f'k = 3\na = f"{P}{{k}}_status.txt"\nb = "{P}%d_meta.hex" % k\nc = "{P}0_imem.hex"\n'
                       f'd = f"{P}{{k}} is not a file"\ne = f"{P}{{k}}_{{name}}"\nf = f"{P}{{k}}_"\n')
    assert sorted(ln for ln, _ in pk_names(planted)) == [2, 3, 4, 6, 7]
    bad = []
    for layer in ("model", "tb", "tools", "tests"):
        for f in sorted((ROOT / layer).rglob("*.py")):
            if f.resolve() != Path(protocol.__file__).resolve():
                bad += [f"{f.relative_to(ROOT)}:{ln}: {t!r}" for ln, t in pk_names(f)]
    assert not bad, "pK_ file names built outside tb/protocol.py:\n" + "\n".join(bad)


def test_the_protocol_imports_without_numpy():
    """The cocotb drivers import tb.protocol in every simulator process; numpy's import
    there would cost more than a short program's simulation (tb/protocol.py)."""
    code = ("import sys; import tb.protocol, tb.drivers.ga2_job; "
            "sys.exit(1 if 'numpy' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
