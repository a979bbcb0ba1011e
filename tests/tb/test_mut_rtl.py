"""RTL mutation (tb/mutation/rtl/): tokenizer, sites, equivalents, runner, CLI; the CI-sized run.

The site tests use a small Verilog module written here, with the expected sites
counted by hand. The runner's verdict mapping is checked on each suite verdict. The
harness tests judge real mutants of rtl/ with the real suite: mutant 0 (the unchanged
design through the same path) must pass, the known-bad mutant (the scratchpad write
removed) must be caught, an uncompilable mutant must count as incompetent, a mutant that
stops the simulator without a verdict ($fatal) must count as crashed (not caught), and a
seeded sample of 10 mutants must all be caught or listed in
tb/mutation/rtl/equivalents.txt. Mutants are judged as the full run judges them: the
in-order suite, then the overlap suite on the OVERLAP=1 build; make test's harness leaves
out the units' start-while-busy check (+restart=0), -m long's keeps it.
"""
import os
import random
import shutil
import subprocess

import pytest

from tb import ROOT
from tb.mutation import outcomes, pool, report
from tb.mutation.rtl import equivalents, runner, sites, source, structural, suite, tokenizer
from tb.mutation.rtl import run as cli
from tb.stimulus import programs, suitecfg

needs_iverilog = pytest.mark.skipif(shutil.which("iverilog") is None, reason="iverilog not installed")

SAMPLE_V = """`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
module cnt #(
  parameter W = 8
) (
  input  wire         clk,
  input  wire         rst,
  input  wire         go,
  input  wire [W-1:0] len,
  output reg          busy,
  output wire [3:0]   op
);
  reg [W-1:0] n_r;
  wire [W-1:0] nxt = n_r + 8'd1;
  assign op = (len == 8'd3) ? `GA2_OP_LD : `GA2_OP_ST;
  always @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      n_r  <= {W{1'b0}};
    end else if (go && !busy) begin
      busy <= 1'b1;
      n_r  <= {W{1'b0}};
    end else if (busy) begin
      n_r <= nxt;
      if (nxt == len - 8'd1 ||
          n_r[W-1:4] != 4'd0) busy <= 1'b0;
    end
  end
endmodule
`resetall
"""


@pytest.fixture
def sample_dir(tmp_path):
    d = tmp_path / "rtl"
    d.mkdir()
    shutil.copy(os.path.join(ROOT, "rtl", "ga2_isa.vh"), d / "ga2_isa.vh")
    (d / "cnt.v").write_text(SAMPLE_V)
    (d / "ga2.f").write_text("cnt.v\n")
    return str(d)


def _line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def test_tokenizer_and_literals():
    toks = tokenizer.tokenize("a <= b <<< 2; // c + d\n x = 8'hff + `M /* e - f */;")
    assert [t.text for t in toks] == ["a", "<=", "b", "<<<", "2", ";", "x", "=", "8'hff", "+", "`M", ";"]
    assert toks[-3].line == 2
    assert sites.literal_variants("8'hff") == [(1, "8'h0"), (-1, "8'hfe")]
    assert sites.literal_variants("1'b0") == [(1, "1'b1"), (-1, "1'b1")]
    assert sites.literal_variants("0") == [(1, "1")]
    assert sites.literal_variants("4'bxx01") == []


def test_sites_of_sample(sample_dir):
    """Every site edits exactly the token it names; counts per class checked by hand."""
    found = sites.enumerate_sites(sample_dir)
    text = SAMPLE_V
    by = {}
    for s in found:
        by.setdefault(s.cls, []).append(s)
        assert text[s.start:s.end] == s.orig
        assert _line_of(text, s.start) == s.line
    # arith: n_r + 8'd1 (line 16), len - 8'd1 (line 27); the W-1 widths are declarations
    assert sorted((s.line, s.orig, s.repl) for s in by["arith"]) == [(16, "+", "-"), (27, "-", "+")]
    # cmp: == (17), == (27), != (28)
    assert sorted((s.line, s.orig) for s in by["cmp"]) == [(17, "=="), (27, "=="), (28, "!=")]
    # logic: && (22), || (27)
    assert sorted((s.line, s.orig) for s in by["logic"]) == [(22, "&&"), (27, "||")]
    # if: rst, go && !busy, busy, the two-line condition
    assert len(by["if"]) == 4
    # nba: 6 removals, stuck-at-0 only where the value is not already zero (1'b1, nxt)
    assert len([s for s in by["nba"] if s.desc.startswith("removed")]) == 6
    assert sorted(s.orig.strip() for s in by["nba"] if s.repl == " 0") == ["1'b1", "nxt"]
    # timing: == 8'd3 (+-1), == len - 8'd1 (+-1 inserted), != 4'd0 (+-1)
    assert len(by["timing"]) == 6
    # no site in the parameter, the port widths, the macros or the part-select bounds
    for s in found:
        assert s.line >= 15
        assert "`" not in s.orig
    # const: 8'd1 (16, +-1), 1'b0 (20, 21, 24), 1'b1 (23), 8'd1 (27, +-1); 1'b0 +-1 coincide
    assert sorted((s.line, s.repl) for s in by["const"]) == [
        (16, "8'd0"), (16, "8'd2"), (20, "1'b1"), (21, "1'b1"), (23, "1'b0"), (24, "1'b1"),
        (27, "8'd0"), (27, "8'd2"), (28, "1'b1")]
    # the multi-line condition's || sits at the end of line 27
    lor = [s for s in by["logic"] if s.orig == "||"][0]
    assert text.splitlines()[26].rstrip().endswith("||") and lor.line == 27


def test_list_cli(sample_dir, capsys):
    assert cli.main(["--list", "--rtl", sample_dir, "--classes", "token"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3].startswith(f"{len(sites.enumerate_sites(sample_dir))} sites: cnt ")
    assert out[-2] == "per class: arith 2, cmp 3, logic 2, const 9, if 4, nba 8, timing 6"
    assert all(line.startswith("cnt.v:") for line in out[:-3])
    assert cli.main(["--list", "--rtl", sample_dir, "--classes", "prio,delay"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "per class: prio 2, delay 1"


def test_suite_verdicts_become_engine_outcomes():
    """Caught only on MUT FAIL; the bench's cycle limit is caught AND a hang; a run with no
    verdict is crashed; the runner's wall limit is timed out."""
    assert runner.status_of("fail", "memory") == (outcomes.CAUGHT, False)
    assert runner.status_of("timeout", "timeout") == (outcomes.CAUGHT, True)
    assert runner.status_of("timeout", "wall") == (outcomes.TIMED_OUT, False)
    assert runner.status_of("crash", "crash") == (outcomes.CRASHED, False)
    assert runner.status_of("pass", "") == (outcomes.SURVIVED, False)
    with pytest.raises(ValueError, match="unknown suite verdict"):
        runner.status_of("maybe", "")


@needs_iverilog
def test_every_sample_mutant_compiles_and_differs(sample_dir, tmp_path):
    """Each mutant is one change; all compile (iverilog) and differ from the original."""
    for s in sites.enumerate_sites(sample_dir):
        d = sites.make_mutant_dir(s, str(tmp_path / "m"), sample_dir)
        new = open(os.path.join(d, "cnt.v")).read()
        assert new != SAMPLE_V
        assert new[:s.start] == SAMPLE_V[:s.start]
        assert new[s.start + len(s.repl):] == SAMPLE_V[s.end:]
        p = subprocess.run(["iverilog", "-g2005", "-I", d, "-o", str(tmp_path / "a.vvp"),
                            os.path.join(d, "cnt.v")], capture_output=True, text=True)
        assert p.returncode == 0, (s, p.stderr)


def test_equivalents_file_parses():
    eq = equivalents.load_equivalents()
    for key, why in eq.items():
        assert len(key) == 4 and why


def test_each_mutant_has_its_own_equivalents_key_and_each_entry_names_one():
    """The equivalents list names a mutant by file, class, code line and change: no two
    sites of the design may share that key (three `> x -> > x+1` on one line of three
    compares are told apart by their place on it), or an entry proven for one would count
    its neighbours as equivalent; and every entry names exactly one site of today's RTL."""
    from collections import Counter
    keys = Counter(equivalents.equiv_key(s) for s in sites.enumerate_sites(classes=sites.ALL_CLASSES))
    assert not [k for k, n in keys.items() if n > 1]
    assert not [k for k in equivalents.load_equivalents() if keys[k] != 1]


def test_bad_equivalents_line_is_refused(tmp_path):
    p = tmp_path / "eq.txt"
    p.write_text("ga2_pe.v:3 | nba | x <= y; | removed: x <= y;\n")
    with pytest.raises(ValueError, match="5 fields"):
        equivalents.load_equivalents(str(p))


# ------------------------------------------------------------------ harness on rtl/
def _harness(tmp_path_factory, small):
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog not installed")
    work = str(tmp_path_factory.mktemp("mut_rtl"))
    snap = sites.make_mutant_dir(None, os.path.join(work, "rtl"), sites.RTL_DIR)
    # the three suites, as the full run judges a mutant: the in-order one, then (for a mutant
    # it does not catch) the overlap one on the OVERLAP=1 build, where ga2_hazard and the
    # fast softmax live, then the sp64k one (its chip: 2^16 scratchpad words)
    # (the first two without their edge, wrap, longest-transfer and chapter-9 programs,
    # which tests/tb/test_bench_suite.py runs on both simulators)
    inorder = programs.suite_programs(quick=True)
    overlap = programs.overlap_programs(quick=True)
    if small:
        # make test checks the runner's machinery (verdicts, time limit, classes) on the
        # suites' first programs; every program of the three suites passes the unchanged RTL on
        # Verilator in tests/tb/test_bench_suite.py, on Icarus there in -m long
        inorder, overlap = inorder[:SMALL_SUITE], overlap[:SMALL_SUITE]
    big = programs.sp64k_programs()[:SMALL_SUITE if small else None]
    manifest = [suite.build_suite(os.path.join(work, "suite"), programs=inorder, cfg=suitecfg.CFG),
                suite.build_suite(os.path.join(work, "suite-overlap"), programs=overlap,
                                  cfg=suitecfg.CFG_OVERLAP),
                suite.build_suite(os.path.join(work, "suite-sp64k"), programs=big, cfg=suitecfg.CFG_SP64K,
                                  name="sp64k", units=False)]
    all_sites = sites.enumerate_sites(snap)
    # make test's runs leave out the units' start-while-busy check (+restart=0, about 5
    # CPU-s of Icarus a run; tests/tb/test_units_cosim.py's test_restart runs the same check
    # on the RTL); -m long's judge with it, as the mutation run does
    restart = not small
    base = runner.judge(None, os.path.join(work, "w0"), manifest, 600, snap, restart=restart)
    return {"work": work, "rtl": snap, "manifest": manifest, "sites": all_sites, "base": base, "restart": restart,
            "timeout": pool.limit_from_baseline(base.seconds, slack=30)}


SMALL_SUITE = 8


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """The runner on the three suites' first SMALL_SUITE programs (make test)."""
    return _harness(tmp_path_factory, small=True)


@pytest.fixture(scope="module")
def harness_full(tmp_path_factory):
    """The runner on the quick suites and the sp64k one, as the mutation run judges (-m long)."""
    return _harness(tmp_path_factory, small=False)


def test_mutant0_passes(harness):
    assert harness["base"].status == outcomes.SURVIVED, harness["base"]


@pytest.mark.long
def test_mutant0_passes_both_quick_suites(harness_full):
    assert harness_full["base"].status == outcomes.SURVIVED, harness_full["base"]


def test_known_bad_mutant_is_caught(harness):
    bad = runner.known_bad_site(harness["sites"])
    r = runner.judge(bad, os.path.join(harness["work"], "wb"), harness["manifest"], harness["timeout"],
                 harness["rtl"], restart=harness["restart"])
    assert r.status == outcomes.CAUGHT and r.caught, r


def test_uncompilable_mutant_is_incompetent(harness):
    text = open(os.path.join(harness["rtl"], "ga2_pe.v")).read()
    pos = text.index("endmodule")
    s = sites.Site("ga2_pe.v", "ga2_pe", _line_of(text, pos), "nba", pos, pos + len("endmodule"), "endmodul",
                "endmodule", "syntax error on purpose")
    r = runner.judge(s, os.path.join(harness["work"], "wi"), harness["manifest"], harness["timeout"],
                 harness["rtl"], restart=harness["restart"])
    assert r.status == outcomes.INCOMPETENT and not r.caught and r.info["check"] == "compile", r


def test_a_range_only_the_sp64k_chip_holds_is_caught_by_the_sp64k_suite(harness):
    """LDX's table span one bit narrow (bit 28 lost) passes the suites on chapter 9's chip
    (a span past 2^28 needs rows * len past 2^28, and dst's len words must fit a 4,096-word
    scratchpad); the third suite's chip (2^16 words) holds it, and its top-bit fault
    catches the mutant there."""
    s = [s for s in sites.enumerate_sites(harness["rtl"], modules=["ga2_decode"], classes=("narrow",))
         if s.file == "ga2_decode_ops.vh" and s.desc.startswith("ldx_span2 = ")]
    assert len(s) == 1, s
    r = runner.judge(s[0], os.path.join(harness["work"], "ww"), harness["manifest"], harness["timeout"],
                     harness["rtl"], restart=harness["restart"])
    assert r.status == outcomes.CAUGHT and r.info["mode"] == "sp64k", r


def test_mutant_without_verdict_is_crashed(harness):
    """A mutant that ends the simulation before the bench prints a verdict is not caught."""
    text = open(os.path.join(harness["rtl"], "ga2_pe.v")).read()
    pos = text.index("endmodule")
    s = sites.Site("ga2_pe.v", "ga2_pe", _line_of(text, pos), "nba", pos, pos, "initial #1 $finish;\n", "",
                   "a simulation stopped without a verdict on purpose")
    r = runner.judge(s, os.path.join(harness["work"], "wc"), harness["manifest"], harness["timeout"],
                     harness["rtl"], restart=harness["restart"])
    assert r.status == outcomes.CRASHED and not r.caught, r
    assert report.score([r])["stopped"] == 1 and report.score([r])["score"] == 0.0


@pytest.mark.long
def test_seeded_sample_is_killed_or_equivalent(harness_full):
    """6 mutants (seed 1): each caught, incompetent or listed equivalent (make mutants-rtl: all)."""
    rng = random.Random(1)
    sample = rng.sample(harness_full["sites"], 6)
    equiv = equivalents.load_equivalents()
    bad = []
    for s in sample:
        h = harness_full
        r = runner.judge(s, os.path.join(h["work"], "ws"), h["manifest"], h["timeout"], h["rtl"])
        listed = equivalents.equiv_key(s, harness_full["rtl"]) in equiv
        if not (r.caught or r.status == outcomes.INCOMPETENT or (r.status == outcomes.SURVIVED and listed)):
            bad.append(f"{s.file}:{s.line} {s.cls} {r.info['change']}: {r.status}")
    assert not bad, "neither caught nor listed in tb/mutation/rtl/equivalents.txt: " + "; ".join(bad)


def test_mutant_tripping_a_design_assertion_is_caught(harness):
    """A check inside the design ($error, like the scratchpad grant check) that fires is a
    detection: caught, by the check named "assertion"."""
    text = open(os.path.join(harness["rtl"], "ga2_pe.v")).read()
    pos = text.index("endmodule")
    s = sites.Site("ga2_pe.v", "ga2_pe", _line_of(text, pos), "nba", pos, pos,
                   "initial begin #1; $error(\"%m: grant check fired\"); $finish; end\n", "",
                   "a design assertion fired on purpose")
    r = runner.judge(s, os.path.join(harness["work"], "wa"), harness["manifest"], harness["timeout"],
                     harness["rtl"], restart=harness["restart"])
    assert r.status == outcomes.CAUGHT and r.caught and r.info["check"] == "assertion", r


# ------------------------------------------------------------------ structural classes
SAMPLE_S = """`resetall
`default_nettype none
module st (
  input  wire       clk,
  input  wire       we,
  input  wire [3:0] wa,
  input  wire [3:0] ra,
  input  wire [7:0] wd,
  input  wire [7:0] a,
  input  wire [7:0] b,
  input  wire       ci,
  input  wire       s1,
  input  wire       s2,
  output wire [8:0] sum,
  output wire [7:0] rd,
  output wire [7:0] pick,
  output wire       done
);
  reg [7:0] mem [0:15];
  reg [7:0] rd_q;
  reg [7:0] sum_q;
  wire [8:0] wide = a + b;
  wire [7:0] tot = a + b + ci;
  wire [8:0] ext = {1'b0, a} - b;
  always @(posedge clk) begin
    if (we) mem[wa] <= wd;
    rd_q <= (we && wa == ra) ? wd : mem[ra];
    sum_q <= tot;
  end
  assign rd = rd_q;
  assign pick = s1 ? a : s2 ? b : wd;
  assign sum = wide;
  assign done = s1;
endmodule
`resetall
"""


@pytest.fixture
def struct_dir(tmp_path):
    d = tmp_path / "rtl_s"
    d.mkdir()
    (d / "st.v").write_text(SAMPLE_S)
    (d / "ga2.f").write_text("st.v\n")
    return str(d)


def _edits(found, cls):
    return sorted((s.line, s.orig, s.repl) for s in found if s.cls == cls)


def test_structural_sites_of_sample(struct_dir):
    """Each structural class on a hand-written module: the exact edited text of every site."""
    found = sites.enumerate_sites(struct_dir, classes=structural.NEW_CLASSES)
    text = SAMPLE_S
    for s in found:
        assert text[s.start:s.end] == s.orig and _line_of(text, s.start) == s.line
    m9, m8, m4 = ("{1'b0, {((8)-(0)){1'b1}}}", "{1'b0, {((7)-(0)){1'b1}}}", "{1'b0, {((3)-(0)){1'b1}}}")
    assert _edits(found, "narrow") == sorted([
        (24, "{1'b0, a} - b", f"({m9} & ({{1'b0, a}} - b))"),
        (27, "wa", f"({m4} & wa)"),
        (27, "ra", f"({m4} & ra)")])
    assert _edits(found, "carry") == sorted([
        (22, "a + b", f"({m9} & (a + b))"),                      # the top bit of the sum
        (22, "a + b", "({((7)-(0)+1){1'b1}} & (a + b))"),       # carry-out: 9-bit target, 8-bit operands
        (23, "+ ci", ""),                                        # carry-in
        (23, "a + b + ci", f"({m8} & (a + b + ci))")])
    assert _edits(found, "bypass") == sorted([
        (27, "(we && wa == ra) ? wd : mem[ra]", "mem[ra]"),      # the write-first path
        (30, "rd_q", "((we && wa == ra) ? wd : mem[ra])")])      # the read register stage
    assert _edits(found, "prio") == [(31, "s1 ? a : s2 ? b", "s2 ? b : s1 ? a")]
    dl = _edits(found, "delay")
    assert [x[0] for x in dl] == [30, 31, 32, 33]                # the four outputs, not the wires
    assert dl[0] == (30, "assign rd = rd_q;",
                     "reg [7:0] mut_dly_rd = 0; always @(posedge clk) mut_dly_rd <= (rd_q); "
                     "assign rd = mut_dly_rd;")
    assert dl[3][2].startswith("reg mut_dly_done = 0;")         # a 1-bit output
    # the default classes are the token classes only
    assert {s.cls for s in sites.enumerate_sites(struct_dir)} <= set(sites.DEFAULT_CLASSES)


def test_prio_swaps_if_chain_of_sample(sample_dir):
    found = sites.enumerate_sites(sample_dir, classes=("prio",))
    assert [(s.line, s.desc) for s in found] == [
        (19, "if arms swapped: (rst) <-> (go && !busy)"),
        (22, "if arms swapped: (go && !busy) <-> (busy)")]
    s = found[0]
    new = SAMPLE_V[:s.start] + s.repl + SAMPLE_V[s.end:]
    assert "if (go && !busy) begin\n      busy <= 1'b1;" in new
    assert "end else if (rst) begin\n      busy <= 1'b0;" in new


@needs_iverilog
def test_every_structural_mutant_compiles(struct_dir, sample_dir, tmp_path):
    for d0, fn, orig in ((struct_dir, "st.v", SAMPLE_S), (sample_dir, "cnt.v", SAMPLE_V)):
        for s in sites.enumerate_sites(d0, classes=structural.NEW_CLASSES):
            d = sites.make_mutant_dir(s, str(tmp_path / "m"), d0)
            assert open(os.path.join(d, fn)).read() != orig
            p = subprocess.run(["iverilog", "-g2005", "-I", d, "-o", str(tmp_path / "a.vvp"),
                                os.path.join(d, fn)], capture_output=True, text=True)
            assert p.returncode == 0, (s, p.stderr)


def test_lines_option_keeps_only_the_sites_on_those_lines(sample_dir, capsys):
    """--lines cnt.v:16-17,27: the hand counts of test_sites_of_sample on lines 16, 17, 27:
    arith 16, 27; cmp 17, 27; logic 27's ||; const 16 and 27 (+-1 each); the two-line if
    (27); timing 17 and 27 (+-1 each); no nba on them."""
    assert cli.main(["--list", "--rtl", sample_dir, "--classes", "token",
                     "--lines", "rtl/cnt.v:16-17,27"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert {line.split()[0] for line in out[:-3]} == {"cnt.v:16", "cnt.v:17", "cnt.v:27"}
    assert out[-3] == "14 sites: cnt 14"
    assert out[-2] == "per class: arith 2, cmp 2, logic 1, const 4, if 1, nba 0, timing 4"
    assert cli.line_ranges("ga2_dma.v:3,5-9") == ("ga2_dma.v", ((3, 3), (5, 9)))
    for bad in ("ga2_dma.v", "ga2_dma.v:", "ga2_dma.v:9-5", "ga2_dma.v:0", "x.txt:1", "ga2_dma.v:a-b"):
        with pytest.raises(Exception, match="not"):
            cli.line_ranges(bad)


# a module whose body includes a part of itself (as ga2_decode includes ga2_decode_ops.vh)
BODY_V = """`resetall
`timescale 1ns/1ps
`default_nettype none
`include "ga2_isa.vh"
module part (
  input  wire [7:0] a,
  input  wire [7:0] b,
  output wire       lt,
  output wire [7:0] s
);
  assign s = a + b;
`include "part_ops.vh"
endmodule
`resetall
"""
BODY_VH = """// the included part: two lines of logic
  assign lt = (a < b) && (b != 8'd0);
"""


def test_a_part_included_in_a_module_body_is_mutated_as_that_module(tmp_path, capsys):
    """The sites of a body include are found, named by the included file and its own lines
    (not the including file's), belong to the including module, and a mutant changes the
    included file alone; a header included before `module` holds no site. (A generated
    decoder in ga2_decode_ops.vh had no site at all before this.)"""
    d = tmp_path / "rtl"
    d.mkdir()
    shutil.copy(os.path.join(ROOT, "rtl", "ga2_isa.vh"), d / "ga2_isa.vh")
    (d / "part.v").write_text(BODY_V)
    (d / "part_ops.vh").write_text(BODY_VH)
    (d / "ga2.f").write_text("part.v\n")
    found = sites.enumerate_sites(str(d), classes=("arith", "cmp", "logic"))
    got = sorted((s.file, s.line, s.cls, s.orig, s.repl) for s in found)
    assert got == [("part.v", 11, "arith", "+", "-"),
                   ("part_ops.vh", 2, "cmp", "!=", "=="), ("part_ops.vh", 2, "cmp", "<", "<="),
                   ("part_ops.vh", 2, "logic", "&&", "||")]
    assert {s.module for s in found} == {"part"}
    for s in found:
        text = (d / s.file).read_text()
        assert text[s.start:s.end] == s.orig and _line_of(text, s.start) == s.line
    s = next(s for s in found if s.orig == "&&")
    m = sites.make_mutant_dir(s, str(tmp_path / "m"), str(d))
    assert open(os.path.join(m, "part_ops.vh")).read() == BODY_VH.replace("&&", "||")
    assert open(os.path.join(m, "part.v")).read() == BODY_V
    assert source.body_include_owners(str(d)) == {"part_ops.vh": "part"}
    assert cli.main(["--list", "--rtl", str(d), "--classes", "logic", "--lines", "part_ops.vh:2"]) == 0
    assert capsys.readouterr().out.splitlines()[-3] == "1 sites: part 1"


def test_simulation_only_regions_hold_no_site():
    """A checker inside the design (`synthesis translate_off`, or `ifndef SYNTHESIS up to
    its own `endif, nested `ifdefs included) is not chip logic: no site lies in it, and
    the code after it has its sites."""
    text = ("a\n`ifndef SYNTHESIS\nx\n`ifdef F\ny\n`endif\nz\n`endif\nw\n"
            "// synthesis translate_off\nv\n// synthesis translate_on\nu\n")
    spans = source.sim_only_spans(text)
    assert [text[a:b] for a, b in spans] == ["`ifndef SYNTHESIS\nx\n`ifdef F\ny\n`endif\nz\n`endif",
                                             "synthesis translate_off\nv\n// "]
    xbar = open(os.path.join(sites.RTL_DIR, "ga2_sp_xbar.v")).read()
    check = xbar.index("`ifndef SYNTHESIS")
    found = sites.enumerate_sites(sites.RTL_DIR, ["ga2_sp_xbar"], {}, sites.ALL_CLASSES)
    assert found and all(s.start < check for s in found)


def test_the_chips_generated_parts_have_sites():
    """ga2_decode's per-op checks (ga2_decode_ops.vh) and ga2_top's vector units
    (ga2_units.vh) are mutated: each has sites of its own, in ga2_decode's and ga2_top's
    counts."""
    found = sites.enumerate_sites(sites.RTL_DIR, ["ga2_decode", "ga2_top"], {}, sites.ALL_CLASSES)
    by = {}
    for s in found:
        by.setdefault((s.file, s.module), []).append(s)
    assert len(by[("ga2_decode_ops.vh", "ga2_decode")]) > 500
    assert len(by[("ga2_units.vh", "ga2_top")]) > 50
    assert {f for f, _ in by} <= {"ga2_decode.v", "ga2_decode_ops.vh", "ga2_top.v", "ga2_units.vh"}


def test_a_second_run_on_one_work_dir_is_refused(tmp_path, capsys):
    """Two runs on one --work would remove each other's snapshot and builds (and the second
    would truncate the first's journal): the second is refused, exit 2, before it touches
    anything."""
    import fcntl
    work = tmp_path / "work"
    work.mkdir()
    journal = tmp_path / "j.jsonl"
    journal.write_text("the first run's journal\n")
    with open(work / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        rc = cli.main(["--sample", "1", "--work", str(work), "--journal", str(journal),
                       "--out", str(tmp_path / "o.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "another mutation run is using it" in err[0], err
    assert journal.read_text() == "the first run's journal\n" and not (work / "rtl_snapshot").exists()


def test_a_broken_preprocessor_is_a_fault_not_a_traceback(sample_dir, tmp_path, monkeypatch, capsys):
    """pyverilog preprocesses with iverilog -E: an iverilog that gives no output is a FAULT
    line naming the file (exit 1), not a traceback."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "iverilog").write_text("#!/bin/sh\nexit 127\n")
    (shim / "iverilog").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    assert cli.main(["--list", "--rtl", sample_dir]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "FAULT: iverilog -E" in err[0] and "cnt.v" in err[0], err


def test_classes_option():
    assert sites.parse_classes("") == sites.DEFAULT_CLASSES
    assert sites.parse_classes("all") == sites.DEFAULT_CLASSES + structural.NEW_CLASSES
    assert sites.parse_classes("narrow, prio") == ("narrow", "prio")
    with pytest.raises(ValueError, match="unknown mutation class"):
        sites.parse_classes("narrow,wider")


@pytest.mark.long
def test_one_structural_mutant_per_class_is_caught(harness_full):
    """One real mutant of each structural class, compiled and judged through the suite
    (ones the full run of docs/mutation_rtl.md catches, and quickly)."""
    pick = {"narrow": ("ga2_requant.v", "prod = $signed(a) * $signed({1'b0, m}): result one bit narrow"),
            "carry": ("ga2_mm_ctrl.v", "di_q = di_q + 2'd1: top bit of the sum dropped"),
            "delay": ("ga2_divu.v", "last = last_q: one cycle late"),
            "bypass": ("ga2_sram.v", "bypass removed: (wr_en[0] && wr_addr[0 +: AW] == ra) ? ... -> mem[ra]"),
            "prio": ("ga2_mm_ctrl.v", "if arms swapped: (rst) <-> (start)")}
    found = sites.enumerate_sites(harness_full["rtl"], classes=structural.NEW_CLASSES)
    for cls, (fn, desc) in pick.items():
        s = [x for x in found if x.cls == cls and x.file == fn and x.desc == desc]
        if cls == "prio":       # two such chains since the 16-bit A: the control's is the second
            assert len(s) == 2, (cls, desc)
            s = s[1:]
        assert len(s) == 1, (cls, desc)
        h = harness_full
        r = runner.judge(s[0], os.path.join(h["work"], "wn"), h["manifest"], h["timeout"], h["rtl"])
        assert r.status == outcomes.CAUGHT and r.caught, (cls, r)


def test_structural_widths_evaluate_clog2_and_conditionals():
    """Register widths written as $clog2 of a parameter (docs/rtl.md "Register widths"),
    a guarded `c ? a : b`, and defaults followed by a comment are evaluated, so the
    narrow / carry classes still find those registers."""
    from tb.mutation.rtl.structural import Evaluator
    text = ("module m #(\n  parameter SP_WORDS = 4096,   // words\n  parameter EXT = 1           // words\n) ();\n"
            "  localparam SAW = $clog2(SP_WORDS);\n  localparam EAW = (EXT > 1) ? $clog2(EXT) : 1;\n"
            "  localparam PCW = $clog2(1024 + 1);\n")
    ev = Evaluator(text, sites.RTL_DIR)
    assert (ev("SAW-1"), ev("EAW-1"), ev("PCW-1")) == (11, 0, 10)
    assert ev("$clog2(4097)") == 13 and ev("$clog2(2)") == 1 and ev("(4096 > 1) ? $clog2(4096) : 1") == 12
