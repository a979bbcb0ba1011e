"""Chapter 9's exercises as commands (tools/ch09/example_a.py, example_b.py, mutants.py).

Per command: the defaults reproduce the chapter's figures (numbers typed in from the spec
and docs/measurements.md, not recomputed by the code under test), a changed value
changes the result as the chapter's formula says (the formula written here), and every
bad value exits 2 with ONE line naming the problem and no traceback.
"""
import json
import math

import pytest
from test_ch09_cycles import step_cycles as contract_cycles  # the timing contract's closed form

from tools.ch09 import example_a as A
from tools.ch09 import example_b as B
from tools.ch09 import mutants as M

# the tests whose figure is laid out and written as the command writes it; every other test
# still draws its figure (the plotting code runs) but skips tight_layout and the PNG, half
# of an example's run and none of what it checks
FIGURE_TESTS = ("test_example_a_defaults_are_the_chapters", "test_example_a_where_no_chip_fits_still_draws_its_figure",
                "test_example_b_defaults_are_the_chapters")


@pytest.fixture(autouse=True)
def _figures_drawn_not_written(request, monkeypatch):
    if request.node.originalname not in FIGURE_TESTS:
        from tools.ch09 import figures
        monkeypatch.setattr(figures, "save", lambda fig, path, dpi=None: (figures.plt.close(fig), path)[1])


def _run(main, args, capsys):
    """(exit code, stdout, stderr) of main(args); argparse's own errors exit through SystemExit."""
    try:
        rc = main(args)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def _refused(main, args, capsys, tmp_path, match):
    rc, out, err = _run(main, list(args) + ["--out", str(tmp_path)], capsys)
    assert rc == 2, (args, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err + out
    assert match in lines[0], (match, lines[0])


# ------------------------------------------------------------------ example A
KV_2048 = 262144 * 2048          # 256 KiB per token x 2048 tokens = 536870912 bytes per request


def _rows(tmp_path):
    return {(r["chip"], r["context"]): r for r in json.loads((tmp_path / "ch09_example_a.json").read_text())["rows"]}


def test_example_a_defaults_are_the_chapters(tmp_path, capsys):
    rc, out, _ = _run(A.main, ["--out", str(tmp_path)], capsys)
    assert rc == 0
    assert "7e9 bytes of int8 weights, 256 KiB KV per token" in out
    rows = _rows(tmp_path)
    assert sorted({c for c, _ in rows}) == ["A", "B", "C"] and sorted({x for _, x in rows}) == [2048, 8192, 32768]
    # spec: A 24e9 bytes at 0.5e12 B/s, B 80e9 at 2e12, C 192e9 at 5e12
    assert (rows[("A", 2048)]["capacity"], rows[("A", 2048)]["bw"]) == (24e9, 0.5e12)
    assert (rows[("C", 8192)]["capacity"], rows[("C", 8192)]["bw"]) == (192e9, 5e12)
    # floor((24e9 - 7e9) / 536870912) = floor(31.66) = 31; chip B at 32768: 8; chip A at 32768: 1
    assert rows[("A", 2048)]["max_batch"] == 31
    assert rows[("B", 32768)]["max_batch"] == 8
    assert rows[("A", 32768)]["max_batch"] == 1
    assert rows[("A", 8192)]["max_batch"] == 7
    assert rows[("A", 2048)]["tok_s"]["1"] == pytest.approx(66.34, abs=0.01)    # 0.5e12 / (7e9 + 536870912)
    assert (tmp_path / "fig9_5_capacity.png").stat().st_size > 10000


def test_example_a_changed_values_follow_the_formula(tmp_path, capsys):
    assert _run(A.main, ["--weight-bytes", "14e9", "--out", str(tmp_path)], capsys)[0] == 0
    r = _rows(tmp_path)[("A", 2048)]
    assert r["max_batch"] == math.floor((24e9 - 14e9) / KV_2048) == 18
    assert r["tok_s"]["1"] == pytest.approx(0.5e12 / (14e9 + KV_2048))
    assert _run(A.main, ["--kv-per-token", "131072", "--out", str(tmp_path)], capsys)[0] == 0
    r = _rows(tmp_path)[("A", 2048)]
    assert r["max_batch"] == math.floor(17e9 / (131072 * 2048)) == 63
    assert r["limit"] == pytest.approx(0.5e12 / (131072 * 2048))
    assert _run(A.main, ["--contexts", "4096", "--out", str(tmp_path)], capsys)[0] == 0
    rows = _rows(tmp_path)
    assert set(rows) == {("A", 4096), ("B", 4096), ("C", 4096)}
    assert rows[("A", 4096)]["max_batch"] == math.floor(17e9 / (262144 * 4096)) == 15
    rc, out, _ = _run(A.main, ["--chip", "D:40e9:1e12", "--contexts", "4096", "--out", str(tmp_path)], capsys)
    assert rc == 0
    rows = _rows(tmp_path)
    r = rows[("D", 4096)]
    assert list(rows) == [("D", 4096)]
    assert r["max_batch"] == math.floor(33e9 / (262144 * 4096)) == 30
    assert r["best"] == pytest.approx(30 * 1e12 / (7e9 + 30 * 262144 * 4096))
    assert r["tok_s"]["64"] is None                     # 64 requests do not fit
    assert "765.1" in out


def test_example_a_where_no_chip_fits_still_draws_its_figure(tmp_path, capsys):
    """A context or a model no chip can hold is an answer (max batch 0, '--' everywhere),
    not an error: the table and the figure are written (the panel says no chip fits)."""
    for args in (["--contexts", "2048,99999999999"], ["--weight-bytes", "1e300"]):
        rc, out, err = _run(A.main, args + ["--out", str(tmp_path)], capsys)
        assert rc == 0 and "Traceback" not in err, err
        assert (tmp_path / "fig9_5_capacity.png").stat().st_size > 0
    rows = _rows(tmp_path)
    assert all(r["max_batch"] == 0 and r["best"] is None for r in rows.values())


def test_example_a_chips_files_equal_chip_options(tmp_path, capsys):
    js = tmp_path / "chips.json"
    js.write_text(json.dumps([{"name": "D", "capacity": 40e9, "bandwidth": 1e12},
                              {"name": "E", "capacity": 16e9, "bandwidth": 3e12}]))
    cs = tmp_path / "chips.csv"
    cs.write_text("# two chips\nname,capacity,bandwidth\nD,40e9,1e12\nE,16e9,3e12\n")
    got = []
    for args in (["--chips", str(js)], ["--chips", str(cs)], ["--chip", "D:40e9:1e12", "--chip", "E:16e9:3e12"]):
        assert _run(A.main, args + ["--out", str(tmp_path)], capsys)[0] == 0
        got.append({k: (r["max_batch"], r["best"]) for k, r in _rows(tmp_path).items()})
    assert got[0] == got[1] == got[2]
    assert got[0][("E", 2048)][0] == math.floor(9e9 / KV_2048) == 16


@pytest.mark.parametrize("args,match", [
    (["--chip", "X"], "expected NAME:CAPACITY:BANDWIDTH"),
    (["--chip", "X:0:1e12"], "capacity '0' must be a positive number"),
    (["--chip", "X:1e9:-2"], "bandwidth '-2' must be a positive number"),
    (["--chip", "X:abc:1e12"], "capacity 'abc' is not a number"),
    (["--chip", ":1e9:1e12"], "a chip without a name"),
    (["--chip", "A:1e9:1e9", "--chip", "A:2e9:1e9"], "chip 'A' given twice"),
    (["--weight-bytes", "0"], "--weight-bytes '0' must be a positive number"),
    (["--weight-bytes", "lots"], "--weight-bytes 'lots' is not a number"),
    (["--kv-per-token", "nan"], "--kv-per-token 'nan' must be a positive number"),
    (["--kv-per-token", "inf"], "--kv-per-token 'inf' must be a positive number"),
    (["--contexts", "2048,x"], "'x' is not an integer"),
    (["--contexts", "0"], "context 0 must be at least 1 token"),
    (["--contexts", ","], "--contexts: an empty list"),
    (["--contexts", "2048,2048"], "a context given twice"),
    (["--chips", "/nonexistent/chips.json"], "No such file or directory"),
    (["--chips", "CHIPS.txt"], "must end in .json or .csv"),
    (["--chips", "BAD.json"], "malformed JSON"),
    (["--chips", "NOBW.json"], "chip #1 must have exactly name, capacity, bandwidth"),
    (["--chips", "HEAD.csv"], "the CSV header must be name,capacity,bandwidth"),
    (["--chips", "SHORT.csv"], "CSV line 2 has 2 fields, expected 3"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
])
def test_example_a_bad_values_exit_2_with_one_line(args, match, tmp_path, capsys):
    files = {"CHIPS.txt": "D,1,1\n", "BAD.json": "[{", "NOBW.json": '[{"name": "D", "capacity": 1e9}]',
             "HEAD.csv": "chip,cap,bw\nD,1,1\n", "SHORT.csv": "name,capacity,bandwidth\nD,1e9\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    args = [str(tmp_path / a) if a in files else a for a in args]
    _refused(A.main, args, capsys, tmp_path, match)


# ------------------------------------------------------------------ example B
def _exb(tmp_path):
    return json.loads((tmp_path / "ch09_example_b.json").read_text())


def test_example_b_defaults_are_the_chapters(tmp_path, capsys):
    """The workload file is the chapter's (14, 3, 9, 5, 12, 2, 7, 10 tokens, 4 slots) and the
    engine's scheduler prices it as the chapter did: 112,660 cycles static (42,411 of them on
    finished requests riding along), 62,717 continuous (docs/measurements.md)."""
    assert B.WANTS == (14, 3, 9, 5, 12, 2, 7, 10) and B.SLOTS == 4
    rc, out, _ = _run(B.main, ["--out", str(tmp_path)], capsys)
    assert rc == 0
    assert "requests (tokens wanted): A=14, B=3, C=9, D=5, E=12, F=2, G=7, H=10" in out
    d = _exb(tmp_path)
    st, co = d["static"], d["continuous"]
    assert (st["total_cycles"], st["steps"], st["cycles_on_riding_slots"], st["idle_slot_steps"]) == \
        (112660, 26, 42411, 42)
    assert (co["total_cycles"], co["steps"], co["idle_slot_steps"]) == (62717, 19, 14)
    assert (round(st["mean_completion"]), round(co["mean_completion"])) == (60870, 36845)
    assert d["step_cycles_at_token_8"] == {"1": 1959, "2": 2842, "3": 3725, "4": 4608}
    assert " ".join(st["occupancy"]) == (
        "ABCD ABCD ABCD AxCD AxCD AxCx AxCx AxCx AxCx Axxx Axxx Axxx Axxx Axxx "
        "EFGH EFGH ExGH ExGH ExGH ExGH ExGH ExxH ExxH ExxH Exxx Exxx")
    assert " ".join(co["occupancy"]) == (
        "ABCD ABCD ABCD AECD AECD AECF AECF AECG AECG AEHG AEHG AEHG AEHG AEHG .EH. ..H. ..H. ..H. ..H.")
    assert "x1.80 in total time" in out and "costing 42411 cycles" in out
    assert (tmp_path / "fig9_6_static_vs_continuous.png").stat().st_size > 10000


def test_example_b_changed_values_follow_the_timing_contract(tmp_path, capsys):
    cyc = contract_cycles
    # two requests of 5 and 2 tokens in 2 slots: static computes B riding along at t = 3..5
    assert _run(B.main, ["--lens", "5,2", "--slots", "2", "--out", str(tmp_path)], capsys)[0] == 0
    d = _exb(tmp_path)
    st_total = sum(cyc([t, t]) for t in range(1, 6))
    co_total = cyc([1, 1]) + cyc([2, 2]) + sum(cyc([t]) for t in range(3, 6))
    assert d["static"]["total_cycles"] == st_total
    assert d["continuous"]["total_cycles"] == co_total
    assert d["static"]["cycles_on_riding_slots"] == st_total - co_total
    assert d["static"]["occupancy"] == ["AB", "AB", "Ax", "Ax", "Ax"]
    assert d["continuous"]["occupancy"] == ["AB", "AB", "A.", "A.", "A."]
    # one slot: nothing rides along, both policies run the requests one after the other
    assert _run(B.main, ["--slots", "1", "--out", str(tmp_path)], capsys)[0] == 0
    d = _exb(tmp_path)
    one = sum(cyc([t]) for w in (14, 3, 9, 5, 12, 2, 7, 10) for t in range(1, w + 1))
    assert d["static"]["total_cycles"] == d["continuous"]["total_cycles"] == one


def test_example_b_workload_file_with_arrivals(tmp_path, capsys):
    """A workload file's arrivals are kept (the engine's scheduler); a request's completion
    counts from its arrival: b (1 token, arriving at step 5) completes one step after it."""
    w = tmp_path / "w.json"
    w.write_text(json.dumps({"name": "w", "requests": [{"id": "a", "tokens": 2, "arrival": 0},
                                                       {"id": "b", "tokens": 1, "arrival": 5}]}))
    rc, out, _ = _run(B.main, ["--workload", str(w), "--slots", "1", "--out", str(tmp_path)], capsys)
    assert rc == 0
    assert "A (a)=2, B (b)=1; arrivals: B@5" in out
    co = _exb(tmp_path)["continuous"]
    assert co["total_cycles"] == contract_cycles([1]) + contract_cycles([2]) + contract_cycles([1])
    assert co["completion"] == [contract_cycles([1]) + contract_cycles([2]), contract_cycles([1])]


@pytest.mark.parametrize("args,match", [
    (["--lens", "14,x"], "--lens '14,x': 'x' is not an integer"),
    (["--lens", "17"], "request 'A': 17 tokens, outside 1..16"),
    (["--lens", "3,0"], "request 'B': zero tokens"),
    (["--lens", ","], "--lens: an empty list"),
    (["--lens", ",".join(["1"] * 62)], "62 requests, at most 61"),
    (["--slots", "0"], "--slots 0: outside 1..4"),
    (["--slots", "5"], "--slots 5: outside 1..4"),
    (["--capacity", "9"], "--slots 9: outside 1..4"),
    (["--slots", "two"], "invalid int value: 'two'"),
    (["--lens", "3", "--workload", "W.json"], "not allowed with argument"),
    (["--workload", "/nonexistent/w.json"], "No such file or directory"),
    (["--workload", "W.txt"], "must end in .json or .csv"),
    (["--workload", "BAD.json"], "malformed JSON"),
    (["--workload", "LONG.json"], "request 'long': 40 tokens, outside 1..16"),
    (["--workload", "DUP.csv"], "request 'a': duplicate id"),
])
def test_example_b_bad_values_exit_2_with_one_line(args, match, tmp_path, capsys):
    files = {"W.json": '{"requests": [{"id": "a", "tokens": 2}]}', "W.txt": "a,2\n", "BAD.json": "{",
             "LONG.json": '{"requests": [{"id": "long", "tokens": 40}]}', "DUP.csv": "id,tokens\na,2\na,3\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    args = [str(tmp_path / a) if a in files else a for a in args]
    _refused(B.main, args, capsys, tmp_path, match)


# ------------------------------------------------------------------ mut_ch09 --extra-mutant
SM_LINE = '        ins("SM", dst=SP_P, src=SP_S8, len=L)'


def test_mut_ch09_extra_mutants_append_to_the_default_24():
    labels = [m.label for m in M.mutants()]
    assert len(labels) == 24 and labels[0] == "projection with M = 1 instead of the batch"
    assert M.mutants(extra=()) == M.mutants()
    spec = M.check_extra("softmax one element short", SM_LINE, SM_LINE.replace("len=L)", "len=L - 1 if L > 1 else L)"))
    assert [m.label for m in M.mutants(extra=[spec])] == labels + ["softmax one element short"]
    assert [m.label for m in M.mutants(extra=[spec], extra_only=True)] == ["softmax one element short"]


def test_mut_ch09_extra_mutant_text_file_is_the_json_one(tmp_path):
    """The three-line text form of an extra mutant loads as the JSON object of docs/examples
    (which test_docs_exercise_commands_exit_0 runs and finds caught in all three columns)."""
    from tb import ROOT
    f = tmp_path / "m.txt"
    f.write_text("the softmax one element short\n" + SM_LINE + "\n"
                 + SM_LINE.replace("len=L)", "len=L - 1 if L > 1 else L)") + "\n")
    got = M.load_extra(str(f))
    want = M.load_extra(str(ROOT / "docs" / "examples" / "ch09_mutant.json"))
    assert got == want and len(got) == 1 and got[0][1] == SM_LINE


@pytest.mark.parametrize("name,text,match", [
    ("absent.txt", "x\nnot a line of the builder\ny\n", "occurs 0 times in model/batch.py"),
    ("twice.txt", "x\n        for c in range(0, D, ARRAY):\ny\n", "(it must occur exactly once)"),
    ("partial.txt", 'x\nins("SM", dst=SP_P, src=SP_S8, len=L)\ny\n', "is not a whole line of model/batch.py"),
    ("two.txt", "x\n        L = ts[j]\n", "exactly three lines (label, old line, new line), this file has 2"),
    ("nolabel.txt", "\n        L = ts[j]\n        L = 1\n", "the label must be a non-empty string"),
    ("same.json", '{"label": "a", "old": "        L = ts[j]", "new": "        L = ts[j]"}', "changes nothing"),
    ("taken.json", '{"label": "every attention length taken from the first sequence", "old": "        L = ts[j]", '
                   '"new": "        L = 1"}', "the label is taken"),
    ("nonew.json", '{"label": "a", "old": "        L = ts[j]"}', "must be an object with label, old, new"),
    ("key.json", '[{"label": "a", "old": "        L = ts[j]", "new": "        L = 1", "why": 1}]',
     "must be an object with label, old, new"),
    ("tags.json", '{"label": "a", "old": "        L = ts[j]", "new": "        L = 1", "tags": "length"}',
     "tags must be a list of strings"),
    ("twoline.json", '{"label": "a", "old": "        L = ts[j]", "new": "        L = 1\\n        L = 2"}',
     "the new line must be one line"),
    ("bad.json", '{"label": ', "malformed JSON"),
    ("empty.json", "[]", "no mutants"),
])
def test_mut_ch09_bad_extra_mutants_exit_2_with_one_line(name, text, match, tmp_path, capsys):
    f = tmp_path / name
    f.write_text(text)
    rc, out, err = _run(M.main, ["--extra-mutant", str(f), "--extra-only"], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err + out, err
    assert match in err, err


@pytest.mark.parametrize("args,match", [
    (["--extra-mutant", "/nonexistent/m.json"], "No such file or directory"),
    (["--extra-only"], "--extra-only without an --extra-mutant"),
    (["--jobs", "0"], "must be positive"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_mut_ch09_bad_options_exit_2_with_one_line(args, match, capsys):
    rc, out, err = _run(M.main, args, capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err + out, err
    assert match in err, err


# ------------------------------------------------------------------ the commands docs/ch09.md shows
def _doc_commands():
    import re

    from tb import ROOT
    text = (ROOT / "docs" / "ch09.md").read_text()
    sec = text.split("## Exercises, as commands", 1)[1]
    block = re.search(r"^```sh\n(.*?)^```", sec, re.M | re.S).group(1)
    return [ln.split("#")[0].split()[2:] for ln in block.splitlines() if ln.startswith("python -m ")]


def test_docs_exercise_block_is_seven_commands():
    cmds = _doc_commands()
    assert len(cmds) == 7 and {c[0] for c in cmds} == {"tools.ch09_example_a", "tools.ch09_example_b",
                                                        "tools.mut_ch09"}


@pytest.mark.parametrize("argv", _doc_commands(), ids=" ".join)
def test_docs_exercise_commands_exit_0(argv, tmp_path, monkeypatch, capsys):
    from tb import ROOT
    monkeypatch.chdir(ROOT)
    mod, args = argv[0], argv[1:]
    if mod == "tools.mut_ch09":
        main, args = M.main, args + ["--quick", "--json", str(tmp_path / "mut.json")]
    else:
        main, args = (A.main if mod == "tools.ch09_example_a" else B.main), args + ["--out", str(tmp_path)]
    rc, out, err = _run(main, args, capsys)
    assert rc == 0, (argv, out[-2000:], err)
    if mod == "tools.mut_ch09":         # the exercise's mutant, run: caught in all three columns
        d = json.loads((tmp_path / "mut.json").read_text())
        assert [r["label"] for r in d["mutants"]] == ["the softmax one element short"]
        r = d["mutants"][0]
        assert r["full"] and r["no_ragged"] and r["overlap"], r
        assert d["extra_mutants"][0]["old"] == SM_LINE
