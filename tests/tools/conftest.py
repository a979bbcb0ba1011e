"""Shared pytest set-up for the application tests: broken engines built from their mutants.

The product has no `bug=` switches: a deliberately broken builder is a mutant of an app's
mutants.py (tb/mutation/outcomes.py Mutant: one line of one file replaced). The fixture
`mutated_module(mutant)` applies the mutant, with the engine's own apply_mutant, to a copy
of its file in a temporary directory and imports that copy as a fresh module (the
original module and the tree stay untouched); a test then calls the copy's functions, or
monkeypatches the original module's builder with the copy's for the length of the test.
"""
import importlib.util
import shutil
import sys

import pytest


@pytest.fixture
def mutated_module(tmp_path, monkeypatch):
    """mutated_module(mutant) -> the module of mutant.file with the mutant applied."""
    from tb import ROOT
    from tb.mutation import tree
    made = []

    def load(mutant):
        why = tree.anchor_problem(ROOT, mutant)
        assert why is None, f"{mutant.label}: {why}"
        dest = tmp_path / f"m{len(made)}"
        (dest / mutant.file).parent.mkdir(parents=True)
        shutil.copy(ROOT / mutant.file, dest / mutant.file)
        tree.apply_mutant(dest, mutant)
        name = mutant.file[:-3].replace("/", ".") + f"__mutant{len(made)}"
        spec = importlib.util.spec_from_file_location(name, dest / mutant.file)
        mod = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, mod)
        spec.loader.exec_module(mod)
        made.append(mod)
        return mod
    return load
