"""The calibration workload `make test` ends with (tools/bench/calibrate.py, tests/conftest.py).

Its result is pinned (so the time printed is always of the same work), a changed workload
is refused rather than timed, and a pytest run given --calibration ends with its line
after pytest's own count."""
import re
import subprocess
import sys

import pytest

from tb import ROOT
from tools.bench import calibrate


def test_the_workload_is_the_pinned_one():
    assert calibrate.workload() == calibrate.CHECKSUM


def test_its_loop_is_the_one_its_docstring_names():
    """The loop's checksum from a second, plain computation of the same walk (the % per
    step and the % once at the end agree: every term is non-negative)."""
    x, total = 1, 0
    for i in range(calibrate.LOOP):
        x = (x * 1103515245 + 12345) % 2 ** 31
        total += (x >> 16) + i
    assert total % 1_000_003 == calibrate.CHECKSUM[0]


def test_a_changed_workload_is_refused(monkeypatch):
    monkeypatch.setattr(calibrate, "workload", lambda: (0, 0))
    with pytest.raises(RuntimeError, match="workload changed"):
        calibrate.measure(1)


def test_the_line_names_the_workload_and_the_ratio():
    text = calibrate.line(0.5, [0.7, 0.5, 0.6], tests_seconds=150)
    assert text.startswith("calibration: fixed CPU workload (tools/bench/calibrate.py")
    assert "0.50 s, best of 3" in text and "150 s wall = 300x the workload" in text
    assert "their CPU" not in text
    text = calibrate.line(0.5, [0.5], tests_seconds=150, cpu_seconds=290.4)
    assert text.endswith("150 s wall = 300x the workload; their CPU 290 s (user + system, every process)")


def test_cpu_seconds_counts_the_children_waited_for():
    """A child that spins for about 0.3 s of CPU adds that much to cpu_seconds once waited for."""
    before = calibrate.cpu_seconds()
    subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\n"
                    "while time.process_time() - t < 0.3: pass"], check=True, timeout=60)
    assert 0.3 <= calibrate.cpu_seconds() - before < 5


def test_pytest_with_calibration_ends_with_the_line(tmp_path):
    """A real pytest run (one test of this suite) with --calibration=1 (make test gives
    --calibration: 3 runs): its last line is the calibration's, after pytest's count."""
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "--calibration=1",
                        "tests/tools/test_calibrate.py::test_the_line_names_the_workload_and_the_ratio"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = p.stdout.strip().splitlines()
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "1 passed" in lines[-2], lines[-3:]
    assert lines[-1].startswith("calibration: fixed CPU workload") and "best of 1" in lines[-1], lines[-1]
    assert re.search(r"their CPU \d+ s \(user \+ system, every process\)$", lines[-1]), lines[-1]
