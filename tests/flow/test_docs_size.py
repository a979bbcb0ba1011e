"""The reference pages stay reference pages: every docs/*.md (not the journal, docs/journal/,
which keeps the dated history) is at most 40 KB, so a reader finds the current design and
figures fast; and docs/measurements.md is one table row per figure, each naming the command
that measures it again, a command of this repository."""
import re

from tb import ROOT

LIMIT = 40 * 1024
MEASURED = ["figure", "value", "measured", "command"]


def test_every_reference_page_is_at_most_40_kb():
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert len(pages) >= 10, pages
    big = [f"{p.name}: {p.stat().st_size:,} bytes" for p in pages if p.stat().st_size > LIMIT]
    assert not big, f"over {LIMIT:,} bytes (move the history to docs/journal/): {big}"


def test_the_journal_says_its_figures_are_historical():
    readme = (ROOT / "docs" / "journal" / "README.md").read_text()
    assert "historical" in readme
    named = set(re.findall(r"`([\w-]+\.md)`", readme))
    present = {p.name for p in (ROOT / "docs" / "journal").glob("*.md")} - {"README.md"}
    assert present and present <= named, f"journal pages its README does not describe: {present - named}"


def cells(line):
    """The cells of a markdown table row (an escaped \\| stays inside its cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def tables(text):
    """[(header cells, [row cells])] of every markdown table of a page."""
    out, rows = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            if rows is None:
                rows = [cells(line)]
            elif not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
                rows.append(cells(line))
        elif rows is not None:
            out.append((rows[0], rows[1:]))
            rows = None
    if rows is not None:
        out.append((rows[0], rows[1:]))
    return out


def test_measurements_rows_each_name_a_command():
    text = (ROOT / "docs" / "measurements.md").read_text()
    found = tables(text)
    assert len(found) >= 5 and sum(len(rows) for _, rows in found) >= 40, len(found)
    bad = []
    for head, rows in found:
        assert head == MEASURED, f"a table of docs/measurements.md with header {head}, not {MEASURED}"
        for row in rows:
            if len(row) != len(MEASURED):
                bad.append(f"{len(row)} cells: {row}")
                continue
            figure, value, measured, command = row
            if not (figure and value and re.search(r"\b20\d\d-\d\d-\d\d\b", measured)):
                bad.append(f"no figure, value or date: {row}")
            if not re.search(r"`[^`]*\w[^`]*`", command):
                bad.append(f"no command in `...`: {row}")
    assert not bad, "\n".join(bad)


def runnable(command):
    """'' when the first `...` of a command cell names something of this repository (a make
    target, a module or script, ./ga2, .ci/run) or says it is not part of it; else why not."""
    cmd = re.search(r"`([^`]+)`", command).group(1).split()
    targets = set(re.findall(r"^([a-z0-9-]+):", (ROOT / "Makefile").read_text(), re.M))
    if "not part of the repository" in command:
        return ""
    if cmd[0] == "make":
        return "" if cmd[1] in targets else f"no make target {cmd[1]!r}"
    if cmd[0] == "./ga2":
        return ""
    if cmd[0] == "env":
        cmd = [w for w in cmd if "=" not in w][1:]
    if cmd[0] in ("python", "bash"):
        if cmd[1] == "-m":
            mod = ROOT / cmd[2].replace(".", "/")
            ok = mod.with_suffix(".py").is_file() or (mod / "__main__.py").is_file() or cmd[2] == "pytest"
            return "" if ok else f"no module {cmd[2]}"
        return "" if (ROOT / cmd[1]).is_file() else f"no file {cmd[1]}"
    return f"not a command of this repository: {cmd[0]!r}"


def test_measurements_commands_are_this_repositorys():
    rows = [row for _, rows in tables((ROOT / "docs" / "measurements.md").read_text()) for row in rows]
    bad = [f"{row[0]}: {why}" for row in rows for why in [runnable(row[-1])] if why]
    assert not bad, "\n".join(bad)


def test_one_row_per_figure():
    """A figure appears once in its section: a new measurement replaces its row."""
    twice = []
    for section in re.split(r"^## ", (ROOT / "docs" / "measurements.md").read_text(), flags=re.M)[1:]:
        names = [row[0] for _, rows in tables(section) for row in rows]
        twice += [f"{section.splitlines()[0]}: {n}" for n in sorted(set(names)) if names.count(n) > 1]
    assert not twice, f"figures with more than one row: {twice}"
