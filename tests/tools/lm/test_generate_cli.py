"""`ga2 generate` as a user runs it: the text it prints, as the chip produces it.

The expected text is the integer reference's greedy decode (tools/lm/int8.py's greedy over
Int8Model.logits, not the chip's builder), decoded by the task's vocabulary. On a
simulator the command prints each generated character while the simulator still runs
(tb/sim/run.py's on_outcome): the test reads the output as it arrives and checks that the
characters came spread over the run, not all at its end.
"""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tools.lm import data
from tools.lm.generate import load_model
from tools.lm.int8 import greedy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def reference_text(prompt, n):
    model = load_model("text")
    ids = greedy(model.logits, np.array([data.encode(prompt)]), n, model.cfg.ctx)[0]
    return data.decode(ids[len(prompt):].tolist())


def run_timed(args):
    """(exit code, [(seconds since start, bytes)]) of `python -m tools.ga2 args`, read as it comes."""
    p = subprocess.Popen([sys.executable, "-m", "tools.ga2", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    t0, chunks = time.perf_counter(), []
    while True:
        b = os.read(p.stdout.fileno(), 4096)
        if not b:
            break
        chunks.append((time.perf_counter() - t0, b))
    p.stderr.read()
    return p.wait(), chunks


@pytest.mark.parametrize("where", ["model", "verilator"])
def test_generate_prints_the_reference_text_then_pass(where):
    n = 6
    rc, chunks = run_timed(["generate", "The ", "--tokens", str(n), "--sim", where])
    out = b"".join(b for _, b in chunks).decode()
    assert rc == 0, out
    want = "The " + reference_text("The ", n)
    assert out.startswith(want + "\n"), (out, want)
    assert f"{n} tokens" in out and "\nPASS" in out
    # the fetch counters (the chip's on a simulator): one word per instruction of the steps
    # (no step faults), the data words those of their LD / ST / LDX
    from model import isa
    from tools.lm.compiler import LM_CHIP_OVERLAP
    from tools.lm.generation import Generation
    progs = Generation(load_model("text"), [data.encode("The ")], n, chip=LM_CHIP_OVERLAP).programs()
    fetched, moved = sum(len(p) for p in progs), sum(isa.program_words(p) for p in progs)
    assert (f"instruction traffic: {fetched} words of 128 bits fetched = {4 * fetched} words of 32 bits, "
            f"{100 * 4 * fetched / moved:.2f}% of the data traffic ({moved} words moved by the DMA)") in out, out


def test_generate_addition_prints_the_sum():
    rc, chunks = run_timed(["generate", "12+34", "--tokens", "3", "--task", "add", "--sim", "model"])
    out = b"".join(b for _, b in chunks).decode()
    assert rc == 0 and "12+34=46" in out and "PASS" in out, out
