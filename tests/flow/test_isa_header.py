"""rtl/ga2_isa.vh is generated from model/isa.py and must not be stale.

Runs tools/flow/headers.py --check on the committed header, shows the check fails on
a stale copy, and spot-checks a few defines against the docs/isa.md values.
"""
import re
import subprocess
import sys

from tb import ROOT

HEADER = ROOT / "rtl" / "ga2_isa.vh"
CFG_HEADER = ROOT / "rtl" / "ga2_cfg.vh"


def run_tool(*args):
    return subprocess.run([sys.executable, "-m", "tools.flow.headers", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_committed_header_is_up_to_date():
    r = run_tool("--check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "up to date" in r.stdout


def test_check_fails_on_stale_or_missing_copy(tmp_path):
    good = HEADER.read_text()
    stale = tmp_path / "ga2_isa.vh"
    stale.write_text(good.replace("`define GA2_OP_MM 4'd3", "`define GA2_OP_MM 4'd9"))
    assert stale.read_text() != good
    r = run_tool("--check", "--header", str(stale))
    assert r.returncode == 1 and "ga2_isa.vh is stale" in r.stdout
    # one character at the end is enough
    stale.write_text(good + "\n")
    assert run_tool("--check", "--header", str(stale)).returncode == 1
    assert run_tool("--check", "--header", str(tmp_path / "missing.vh")).returncode == 1


def test_regenerate_into_a_copy_then_check_passes(tmp_path):
    out, cfg_out = tmp_path / "fresh.vh", tmp_path / "fresh_cfg.vh"
    r = run_tool("--header", str(out), "--cfg-header", str(cfg_out))
    assert r.returncode == 0
    assert out.read_text() == HEADER.read_text()
    assert cfg_out.read_text() == CFG_HEADER.read_text()
    assert run_tool("--check", "--header", str(out), "--cfg-header", str(cfg_out)).returncode == 0


def test_stale_config_header_fails_the_check(tmp_path):
    stale = tmp_path / "ga2_cfg.vh"
    stale.write_text(CFG_HEADER.read_text().replace("`define GA2_SP_WORDS 4096", "`define GA2_SP_WORDS 2048"))
    r = run_tool("--check", "--cfg-header", str(stale))
    assert r.returncode == 1 and "ga2_cfg.vh is stale" in r.stdout


def test_header_values():
    text = HEADER.read_text()
    d = dict(re.findall(r"^`define (\w+) (\S+)$", text, re.M))
    d.update(re.findall(r"^`define (\w+) (\S+)$", CFG_HEADER.read_text(), re.M))
    assert d["GA2_INSTR_W"] == "128" and d["GA2_SP_WORDS"] == "4096"
    assert d["GA2_IMEM_DEPTH"] == "1024" and d["GA2_ARRAY"] == "4"
    assert [d[f"GA2_OP_{op}"] for op in ("LD", "ST", "MM", "RQ", "SM", "HALT")] == \
        ["4'd1", "4'd2", "4'd3", "4'd4", "4'd5", "4'd6"]
    # MM: dst at 4, A at 20, B at 36, M at 52 (3), K at 55 (8), N at 63, tb 66, lda 67, ldb 79, ldc 91
    assert (d["GA2_MM_K_LSB"], d["GA2_MM_K_W"]) == ("55", "8")
    assert (d["GA2_MM_LDC_LSB"], d["GA2_MM_LDC_W"]) == ("91", "12")
    # RQ: dst 4, src 20, len 36 (13), m 49 (16), s 65 (6)
    assert (d["GA2_RQ_S_LSB"], d["GA2_RQ_S_W"]) == ("65", "6")
    assert d["GA2_ERR_PC"] == "3'd5" and d["GA2_MM_FILL"] == "7" and d["GA2_SM_DIV_CYCLES"] == "34"
    assert text.startswith("// GENERATED") and "`ifndef GA2_ISA_VH" in text
    assert d["GA2_EXT_WORDS"] == "4096" and d["GA2_SM_MAX_LEN"] == "64" and d["GA2_ISSUE_CYCLES"] == "2"


def test_isa_doc_tables_are_current_and_a_stale_one_is_caught(tmp_path, monkeypatch):
    """docs/isa.md's generated tables (tools/flow/isa_doc.py) are those of the records,
    and a table edited by hand is found stale."""
    from tools.flow import isa_doc
    r = subprocess.run([sys.executable, "-m", "tools.flow.isa_doc", "--check"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (ROOT / "docs" / "isa.md").read_text()
    assert "| ARGMAX | 9 |" in text and "<!-- generated: timing -->" in text
    assert isa_doc.render(text.replace("| ARGMAX | 9 |", "| ARGMAX | 19 |")) == text


def test_the_docs_lists_of_vector_ops_are_the_records():
    """The hand-written lists of the vector unit's operations (docs/contract.md's vec counter,
    docs/isa.md's timing modes) name every op whose record's unit is vec, in table order: an
    op added without them fails here (QNT was once missing from the contract's)."""
    from model import ops
    want = ", ".join(n for n, r in ops.TABLE.items() if r.unit == "vec")
    for page, lead in (("contract.md", "cycles the vector units ("), ("isa.md", "and the vector unit (")):
        text = " ".join((ROOT / "docs" / page).read_text().split())
        assert f"{lead}{want})" in text, f"docs/{page}: the list after {lead!r} is not ({want})"
