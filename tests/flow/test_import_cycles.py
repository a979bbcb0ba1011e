"""No import cycles: the modules of model, tb, tools and tests import each other as a tree
(README "Layout"; test_layers.py checks the direction between the layers, this the cycles
inside and across them).

Every import counts, at any depth (a function's local import too: it runs the first time the
function does, and a cycle through it is one all the same). The graph's nodes are the
modules of the four folders; `from a.b import c` is an edge to a.b.c when that is a module
(a file), else to a.b; relative imports are resolved; a test module's plain import of a
sibling (`import bad_input_table`, as pytest's import mode finds it) is an edge to it. A
package's __init__ counts only when a module names it. Each cycle fails the test, named
with the import lines that close it; test_a_planted_cycle_is_caught shows the check is not
vacuous.
"""
import pathlib

from pyimports import statements

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("model", "tb", "tools", "tests")
# Cycles known and allowed for now, each a set of modules; the test fails when one is gone
# (so the exception cannot outlive its reason) or when any other cycle appears.
KNOWN_CYCLES = []        # none (the language model's two step builders, tools.lm.chip <->
                         # tools.lm.remedies, went with the step compiler that replaced them)


def module_name(root, path):
    """The dotted name of a .py file under root (a package's __init__ is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules(root):
    """{dotted name: path} of every .py file in root's FOLDERS."""
    out = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            out[module_name(root, path)] = path
    return out


def imports(root, path, known):
    """[(line, module)] of path's imports at any depth that name a module in known."""
    siblings = {p.stem: module_name(root, p) for p in path.parent.glob("*.py")}
    in_tests = path.relative_to(root).parts[0] == "tests"
    out = []

    def target(name):
        """The module in known that importing `name` loads, or None (a library)."""
        if name in known:
            return name
        if in_tests and name.split(".")[0] in siblings:     # a test helper beside the test
            return siblings[name.split(".")[0]]
        return None

    for line, mod, names in statements(root, path):
        if not names:                                        # import a.b
            out.append((line, target(mod)))
        for n in names:                                      # from a import b: a.b if a module, else a
            out.append((line, target(f"{mod}.{n}") or target(mod)))
    return [(line, mod) for line, mod in out if mod is not None]


def graph(root):
    """{module: {imported module: first line}} of the modules of root."""
    known = modules(root)
    out = {}
    for name, path in known.items():
        edges = {}
        for line, mod in imports(root, path, known):
            if mod != name:
                edges.setdefault(mod, line)
        out[name] = edges
    return out


def strongly_connected(g):
    """The strongly connected components of g with more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(g):
        if v not in index:
            visit(v)
    return comps


def describe(g, comp, paths):
    """One cycle through comp in words: 'a -> b -> a (a.py:12 imports b; b.py:3 imports a)'."""
    start = min(comp)
    route, todo = {start: [start]}, [start]
    while todo:                    # breadth first inside the component, back to start
        v = todo.pop(0)
        for w in sorted(g[v]):
            if w == start:
                cycle = route[v] + [start]
                where = [f"{paths[a]}:{g[a][b]} imports {b}" for a, b in zip(cycle, cycle[1:])]
                return f"{' -> '.join(cycle)} ({'; '.join(where)})"
            if w in comp and w not in route:
                route[w] = route[v] + [w]
                todo.append(w)
    return ", ".join(sorted(comp))


def cycles(root):
    """[(set of modules, one cycle in words)] of root's import cycles."""
    g = graph(root)
    paths = {name: path.relative_to(root).as_posix() for name, path in modules(root).items()}
    return [(comp, describe(g, comp, paths)) for comp in strongly_connected(g)]


def problems(found, known):
    """What is wrong with the cycles found: those not known, and the known ones not found."""
    out = [f"import cycle: {text}" for comp, text in found if comp not in known]
    out += [f"known cycle {sorted(k)} is no longer there: remove it from KNOWN_CYCLES"
            for k in known if k not in [comp for comp, _ in found]]
    return out


def test_the_repository_has_no_import_cycle():
    assert len(modules(ROOT)) > 200, "the module walk found too few modules"
    bad = problems(cycles(ROOT), KNOWN_CYCLES)
    assert not bad, "move what both sides need to the module it belongs to:\n" + "\n".join(bad)


def _tree(root, files):
    for rel, text in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return root


def test_a_planted_cycle_is_caught(tmp_path):
    """Cycles through a function's local import, a relative import, a package's module and a
    test's sibling are found, each named; the same tree without them has none."""
    files = {
        "model/__init__.py": "",
        "model/a.py": "import numpy\nfrom model import b\n",
        "model/b.py": "def f():\n    from model.a import g\n    return g\n",
        "tb/__init__.py": "",
        "tb/sim/__init__.py": "",
        "tb/sim/x.py": "from . import y\n",
        "tb/sim/y.py": "from .. import z\n",
        "tb/z.py": "import tb.sim.x\n",
        "tools/__init__.py": "from tb import z\n",
        "tests/flow/helper.py": "import test_it\n",
        "tests/flow/test_it.py": "import pytest\nfrom helper import thing\nfrom tools import ROOT\n",
    }
    found = cycles(_tree(tmp_path / "bad", files))
    assert sorted(sorted(c) for c, _ in found) == [
        ["model.a", "model.b"], ["tb.sim.x", "tb.sim.y", "tb.z"],
        ["tests.flow.helper", "tests.flow.test_it"]]
    texts = [t for _, t in found]
    assert "model.a -> model.b -> model.a (model/a.py:2 imports model.b; model/b.py:2 imports model.a)" in texts, texts
    files.update({"model/b.py": "def f():\n    return 1\n", "tb/z.py": "X = 1\n",
                  "tests/flow/helper.py": "thing = 1\n"})
    assert cycles(_tree(tmp_path / "good", files)) == []


def test_a_known_cycle_must_still_be_there():
    """An exception that no longer matches a cycle fails (it cannot outlive its reason); a
    cycle grown beyond its exception is a new one."""
    ab = ({"m.a", "m.b"}, "m.a -> m.b -> m.a")
    abc = ({"m.a", "m.b", "m.c"}, "m.a -> m.b -> m.c -> m.a")
    assert problems([ab], [{"m.a", "m.b"}]) == []
    assert problems([], [{"m.a", "m.b"}]) == [
        "known cycle ['m.a', 'm.b'] is no longer there: remove it from KNOWN_CYCLES"]
    assert problems([abc], [{"m.a", "m.b"}]) == [
        "import cycle: m.a -> m.b -> m.c -> m.a",
        "known cycle ['m.a', 'm.b'] is no longer there: remove it from KNOWN_CYCLES"]
