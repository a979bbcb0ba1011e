"""The three layers import one way (README "Layout"), checked by parsing every import.

1. the twin (model/): imports nothing else of the repository;
2. verification (tb/): imports the twin only;
3. the applications (tools/): import the other two; nothing imports them.

There is no exception: chapter 9's builder lives at the path the chapter names
(model/batch.py) and imports the twin only; its command line is an application
(tools/ch09/batch.py). A planted wrong-way import makes these tests fail
(test_a_planted_wrong_way_import_is_caught).
"""
import pathlib

import pytest
from pyimports import statements

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAYERS = {"model": 0, "tb": 1, "tools": 2}
ALLOWED = {"model": {"model"}, "tb": {"model", "tb"}, "tools": {"model", "tb", "tools"}}


def imports(path):
    """(line, absolute module) of every import in path (relative imports resolved): a
    `from m import x` gives m and m.x."""
    return [(line, m) for line, mod, names in statements(ROOT, path) for m in [mod] + [f"{mod}.{n}" for n in names]]


def violations(path, layer):
    """The wrong-way imports of one file of `layer`, as 'file:line imports module'."""
    rel = path.relative_to(ROOT).as_posix()
    bad = []
    for line, mod in imports(path):
        top = mod.split(".")[0]
        if top in LAYERS and top not in ALLOWED[layer]:
            bad.append(f"{rel}:{line} imports {mod}")
        if top == "tests":
            bad.append(f"{rel}:{line} imports the tests ({mod})")
    return bad


def layer_files(layer):
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_imports_run_one_way(layer):
    files = layer_files(layer)
    assert files, f"no Python files in {layer}/"
    bad = [v for f in files for v in violations(f, layer)]
    assert not bad, "wrong-way imports:\n" + "\n".join(bad)


def test_the_twin_imports_only_itself_and_libraries():
    """Stricter than the layer rule: the twin names no path of the rest of the repository."""
    for f in layer_files("model"):
        text = f.read_text()
        for other in ("tb.", "tools.", "from tb ", "from tools "):
            assert other not in [ln.strip()[:len(other)] for ln in text.splitlines()
                                 if ln.strip().startswith(("import", "from"))], f


def test_verification_goes_through_one_entry_point():
    """Outside tb/ the simulation library (tb.sim.*) is reached through tb.hw only."""
    bad = []
    for layer in ("tools",):
        for f in layer_files(layer):
            for line, mod in imports(f):
                if mod.startswith("tb.sim"):
                    bad.append(f"{f.relative_to(ROOT)}:{line} imports {mod}")
    assert not bad, "use tb.hw, the one entry point:\n" + "\n".join(bad)


def test_a_planted_wrong_way_import_is_caught(tmp_path, monkeypatch):
    """The check is not vacuous: a twin module importing tb, and tb importing tools, fail."""
    for layer, planted in (("model", "from tb import hw\n"), ("tb", "import tools.ga2\n"),
                           ("model", "from tools.ch09 import batch\n"),
                           ("tb", "from tools import ROOT\n")):
        fake = tmp_path / "repo"
        (fake / layer).mkdir(parents=True, exist_ok=True)
        f = fake / layer / "planted.py"
        f.write_text('"""planted"""\n' + planted)
        monkeypatch.setattr(__import__(__name__), "ROOT", fake)
        assert violations(f, layer), (layer, planted)
    f = tmp_path / "repo" / "tools" / "ok.py"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text("from model import isa\nfrom tb import hw\nfrom tools import ga2\n")
    assert violations(f, "tools") == []
