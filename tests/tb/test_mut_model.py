"""tb/mutation/model.py, the reference's mutation run: its sites on a file written here (the
expected list by hand), pytest's exit codes as statuses, and the two stages on a small
project of its own, with checks that exit 1 on a failure as pytest does (a mutant the first
stage catches, one only the second catches, an equivalent one that survives both)."""
import sys
import textwrap

from tb.mutation import model as mm
from tb.mutation.outcomes import CAUGHT, CRASHED, INCOMPETENT, SURVIVED, TIMED_OUT

SRC = textwrap.dedent('''\
    """Doc: a + b < 3 is not code."""
    X = 7  # comment - 2


    def f(a, b):
        return a + b


    def g(a, b):
        return a + b
''')


def test_sites_are_the_operators_and_integers_of_code_each_anchored_once(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "m.py").write_text(SRC)
    got = mm.sites(tmp_path, ("model/*.py",))
    assert [m.label for m in got] == ["model/m.py:2:5 7 -> 8", "model/m.py:6:14 + -> -", "model/m.py:10:14 + -> -"]
    text = SRC
    for m in got:
        assert text.count(m.old) == 1 and m.old != m.new
    # the two equal returns: each anchored with the lines after it until unique (at the
    # file's end, the lines before it)
    assert got[1].old == "    return a + b\n\n" and got[1].new == "    return a - b\n\n"
    assert got[2].old == "def g(a, b):\n    return a + b\n" and text.endswith(got[2].old)
    assert got[2].new == "def g(a, b):\n    return a - b\n"


def test_pytest_exit_codes_as_statuses():
    assert mm.pytest_outcome(0, "") == SURVIVED
    assert mm.pytest_outcome(1, "") == CAUGHT
    assert mm.pytest_outcome(2, "") == CAUGHT          # a collection error: an import broken
    assert mm.pytest_outcome(None, "") == TIMED_OUT
    assert mm.pytest_outcome(4, "") == CRASHED
    assert mm.pytest_outcome(5, "") == CRASHED          # no tests ran


def test_two_stages_on_a_project_of_its_own(tmp_path):
    root = tmp_path / "proj"
    (root / "model").mkdir(parents=True)
    (root / "model" / "__init__.py").write_text("")
    (root / "model" / "m.py").write_text(textwrap.dedent('''\
        def add(a, b):
            return a + b


        def big(a):
            return a > 100


        def same(a):
            return a * 1
    '''))
    # the stages' checks: plain Python (exit 1 on a failed assert), as cheap as a check gets
    check_a = "from model import m; assert m.add(2, 3) == 5"
    check_b = check_a + "; assert m.big(100) is False and m.big(101) is True"
    stages = (("a", [sys.executable, "-c", check_a], 60), ("a and b", [sys.executable, "-c", check_b], 60))
    muts = {m.label: m for m in mm.sites(root, ("model/*.py",))}
    pick = [muts["model/m.py:2:14 + -> -"], muts["model/m.py:6:14 > -> >="], muts["model/m.py:10:16 1 -> 2"]]
    got = mm.run(pick, jobs=1, stages=stages, root=root, progress=False)
    assert {k: (r.status, stage) for k, (r, stage) in got.items()} == {
        "model/m.py:2:14 + -> -": (CAUGHT, "a"),
        "model/m.py:6:14 > -> >=": (CAUGHT, "a and b"),
        "model/m.py:10:16 1 -> 2": (SURVIVED, "a and b"),
    }


def test_a_mutant_that_does_not_compile_is_incompetent_and_not_judged(tmp_path):
    """The star of `first, *rest = x` is an operator token; as + the file does not compile."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "s.py").write_text("def f(x):\n    first, *rest = x\n    return rest\n")
    (star,) = mm.sites(tmp_path, ("model/*.py",))
    assert star.label == "model/s.py:2:12 * -> +"
    assert mm.syntax_error(star, tmp_path).endswith("(line 2)")
    got = mm.run([star], stages=(("never", ["false"], 10),), root=tmp_path, progress=False)
    assert got[star.label][0].status == INCOMPETENT and got[star.label][1] is None
