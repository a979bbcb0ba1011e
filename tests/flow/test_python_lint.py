"""The Python is lint-clean: ruff (pinned in requirements.txt) with pyproject.toml's rule set
over the whole repository, the check `make lint` runs too; and each noqa that remains names
its rule and says why, as `# noqa: E741 -- I emits an instruction`.

A planted finding fails the same check (test_a_planted_finding_is_caught), so the rule set
is live and the run is not vacuous.
"""
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUFF = Path(sys.executable).parent / "ruff"      # .venv's, installed by make setup
FOLDERS = ("model", "tb", "tools", "tests")
# a noqa comment: its rules, then ' -- ' and the reason
NOQA = re.compile(r"#\s*noqa\b")
NOQA_WITH_REASON = re.compile(r"#\s*noqa: [A-Z]+[0-9]+(?:,\s*[A-Z]+[0-9]+)* -- \S")


def ruff(*args):
    if not RUFF.exists():
        pytest.fail(f"no {RUFF}: `make setup` installs the pinned ruff (requirements.txt)")
    return subprocess.run([str(RUFF), "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_finds_nothing():
    p = ruff(".")
    assert p.returncode == 0, f"ruff check (pyproject.toml [tool.ruff]) found:\n{p.stdout}{p.stderr}"


def test_a_planted_finding_is_caught(tmp_path):
    """An unused import, a line past 120 columns and a noqa that suppresses nothing each fail
    the check, named by rule, with the repository's configuration."""
    f = tmp_path / "planted.py"
    f.write_text("import os\n\nX = '" + "x" * 120 + "'\nY = 1  # noqa: E501 -- nothing to suppress\n")
    p = ruff("--config", str(ROOT / "pyproject.toml"), str(f))
    assert p.returncode == 1, p.stdout + p.stderr
    for rule in ("F401", "E501", "RUF100"):
        assert re.search(rf"planted\.py:\d+:\d+: {rule} ", p.stdout), (rule, p.stdout)


def noqa_problems(path, text=None):
    """'file:line: comment' of each noqa comment in path that does not give a rule and a reason."""
    text = path.read_text() if text is None else text
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT and NOQA.search(tok.string) and not NOQA_WITH_REASON.search(tok.string):
            out.append(f"{path}:{tok.start[0]}: {tok.string}")
    return out


def test_every_noqa_gives_its_rule_and_reason():
    files = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 200
    bad = [b for f in files for b in noqa_problems(f.relative_to(ROOT), f.read_text())]
    assert not bad, "a noqa names its rule and its reason ('# noqa: RULE -- why'):\n" + "\n".join(bad)


def test_a_noqa_without_a_reason_is_caught():
    text = ('x = 1  # noqa\ny = 2  # noqa: E501\nz = 3  # noqa: E501 -- a table row\n'
            's = "# noqa in a string is no comment"\n')
    assert [b.split(": ", 1)[0] for b in noqa_problems(Path("t.py"), text)] == ["t.py:1", "t.py:2"]
