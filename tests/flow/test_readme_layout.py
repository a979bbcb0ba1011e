"""The README's layout tree stays true: every folder and file it names exists, and every
folder of the top-level folders is named in it."""
import re

from tb import ROOT


def layout():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"^## Layout\n(?:[^`\n][^\n]*\n)*```\n(.*?)^```", text, re.M | re.S)
    assert block, "README has no ## Layout code block"
    return block.group(1)


def test_named_paths_exist():
    top = None
    missing = []
    for line in layout().splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        first = line.split()[0]
        if indent == 0:
            top = first.rstrip("/")
            assert (ROOT / top).is_dir(), top
            continue
        if first.endswith("/"):
            if not (ROOT / top / first).is_dir():
                missing.append(f"{top}/{first}")
        # the names before the description (separated by two or more spaces)
        head = re.split(r"\s{2,}", line.strip())[0]
        for n in re.findall(r"[\w./]+\.(?:py|v|vh|f|md|sh)\b", head):
            if not list((ROOT / top).rglob(n.split("/")[-1])):
                missing.append(f"{top}/{n}")
    assert not missing, f"README layout names what does not exist: {missing}"


def test_every_folder_is_named():
    text = layout()
    unnamed = []
    for top in ("rtl", "tb", "model", "tools", "tests"):
        for d in sorted((ROOT / top).iterdir()):
            if d.is_dir() and not d.name.startswith((".", "__")) and f"{d.name}/" not in text:
                unnamed.append(f"{top}/{d.name}")
    assert not unnamed, f"folders missing from the README layout: {unnamed}"


def test_readme_names_every_make_target():
    """Every target `make help` lists (a `## ` comment in the Makefile) is named in the
    README, as `make NAME` or in its list of the other targets."""
    targets = re.findall(r"^([a-z0-9-]+):.*## ", (ROOT / "Makefile").read_text(), re.M)
    readme = (ROOT / "README.md").read_text()
    missing = [t for t in targets if f"`{t}`" not in readme and f"`{t} " not in readme
               and f"make {t}" not in readme]
    assert len(targets) > 30 and not missing, missing
