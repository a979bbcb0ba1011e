"""requirements.lock against requirements.txt and the .venv the set-up made from it.

The set-up installs the lock with --no-deps (tools/flow/setup.sh), so nothing else checks
that it is whole: a pin of requirements.txt missing or at another version, or a
distribution a locked one requires left out, would give a .venv no one resolved.
"""
import importlib.metadata as md
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tools.flow import lock

ROOT = Path(__file__).resolve().parents[2]


def test_every_pin_of_requirements_txt_is_locked_at_its_version():
    pins, locked = lock.parse(ROOT / "requirements.txt"), lock.parse(ROOT / "requirements.lock")
    assert pins, "requirements.txt pins nothing"
    wrong = {name: (v, locked.get(name)) for name, v in pins.items() if locked.get(name) != v}
    assert not wrong, f"requirements.lock disagrees with requirements.txt ({{name: (txt, lock)}}): {wrong}; " \
                      "run python3 -m tools.flow.lock"


def test_the_lock_is_closed_under_its_distributions_requirements():
    locked = lock.parse(ROOT / "requirements.lock")
    missing = []
    for name, version in sorted(locked.items()):
        for text in md.requires(name) or []:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            dep = lock.canonical(req.name)
            if dep not in locked or not req.specifier.contains(locked[dep], prereleases=True):
                missing.append(f"{name}=={version} needs {text!r}, the lock has {locked.get(dep)}")
    assert not missing, "\n".join(missing)


def test_the_venv_holds_exactly_the_lock():
    locked = lock.parse(ROOT / "requirements.lock")
    have = {lock.canonical(d.metadata["Name"]): d.version for d in md.distributions()}
    have.pop("ga2", None)
    assert have == locked, (f"not locked: {sorted(set(have) - set(locked))}, not installed: "
                            f"{sorted(set(locked) - set(have))}, other versions: "
                            f"{sorted(k for k in set(have) & set(locked) if have[k] != locked[k])}")


def test_only_what_uv_refuses_is_marked_for_pip():
    marked = lock.pip_marked(ROOT / "requirements.lock")
    assert marked == {"python-constraint"}, marked


@pytest.mark.parametrize("name, version, file, uv", [
    ("numpy", "2.4.6", "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.whl", True),
    ("pyverilog", "1.3.0", "pyverilog-1.3.0.tar.gz", True),                  # PEP 625's form
    ("python-constraint", "1.4.0", "python-constraint-1.4.0.tar.bz2", False),
    ("python-constraint", "1.4.0", "python-constraint-1.4.0.tar.gz", False),  # name not normalised
    ("python-constraint", "1.4.0", "python_constraint-1.4.0.tar.gz", True),
    ("foo", "1.0", "foo-1.0.zip", False),
])
def test_pep_625_decides_uv_or_pip(name, version, file, uv):
    assert lock.uv_takes(name, version, f"https://files.example/{file}") is uv


def test_a_line_that_is_not_a_pin_is_refused(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text("numpy>=2\n")
    with pytest.raises(ValueError, match="not a name==version pin"):
        lock.parse(p)
