"""The paths chapter 9 names keep working (the chapter is read beside this code): each face
is the application module itself when imported, and runs its main() under `python -m`."""
import importlib
import subprocess
import sys

import pytest

from tb import ROOT

FACES = {"tools.ch09_run": "tools.ch09.run",
         "tools.ch09_example_a": "tools.ch09.example_a", "tools.ch09_example_b": "tools.ch09.example_b",
         "tools.mut_ch09": "tools.ch09.mutants"}


@pytest.mark.parametrize("face", sorted(FACES))
def test_the_face_is_the_module(face):
    assert importlib.import_module(face) is importlib.import_module(FACES[face])
    assert (ROOT / (face.replace(".", "/") + ".py")).is_file()


@pytest.mark.parametrize("face", sorted(FACES))
def test_the_face_runs_its_main(face):
    p = subprocess.run([sys.executable, "-m", face, "--help"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert "usage:" in p.stdout
