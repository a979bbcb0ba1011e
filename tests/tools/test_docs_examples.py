"""docs/programming.md cannot go stale: every ```python block on it runs (in order, in one
namespace) and every `./ga2 ...` command in its ```sh blocks exits 0, on the reference
here; the commands that name simulators run in tests/tb/test_docs_cosim.py."""
import re

import pytest

from tb import ROOT
from tools import ga2

PAGE = ROOT / "docs" / "programming.md"


def blocks(lang):
    return re.findall(rf"^```{lang}\n(.*?)^```", PAGE.read_text(), re.M | re.S)


def commands():
    return [line.split()[1:] for b in blocks("sh") for line in b.splitlines() if line.startswith("./ga2 ")]


def test_page_has_python_blocks_and_commands():
    assert len(blocks("python")) >= 2 and len(commands()) >= 2


def test_python_blocks_run(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    ns = {}
    for code in blocks("python"):
        exec(compile(code, str(PAGE), "exec"), ns)       # asserts inside the blocks
    out = capsys.readouterr().out
    assert "MM   dst=256 A=0 B=128" in out                 # the disassembly was printed


@pytest.mark.parametrize("argv", [c for c in commands() if "--sim" not in c], ids=" ".join)
def test_reference_commands_exit_0(argv, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert ga2.main(argv) == 0, capsys.readouterr()


def test_the_example_text_is_the_example_file():
    text = (ROOT / "docs" / "examples" / "tiled_matmul.s").read_text()
    shown = blocks("")[0]
    body = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(";")]
    assert [ln.split(";")[0].rstrip() for ln in body] == \
        [ln.split(";")[0].rstrip() for ln in shown.splitlines() if ln.strip()]
