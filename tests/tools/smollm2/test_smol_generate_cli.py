"""ga2 generate --model smollm2: its refusals (exit 2, one line, before any long run), and
the integer reference's greedy tokens through the command (the JSON it writes)."""
import json
import subprocess
import sys

import pytest

from tb import ROOT


def ga2(*args):
    return subprocess.run([sys.executable, "-m", "tools.ga2", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("args,says", [
    (["--sim", "float", "--tokens", "0", "x"], "--tokens"),
    (["--tokens", "2", "--window", "8", "x"], "--window applies to the toy model only"),
    (["--tokens", "2"], "no prompt"),
    (["--tokens", "8190", "The capital of France is"], "beyond the context of 8192"),
])
def test_refusals(args, says, model):
    r = ga2("generate", "--model", "smollm2", *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_toy_refuses_the_smollm2_options():
    r = ga2("generate", "--sim", "int", "--tokens", "2", "The ")
    assert r.returncode == 2 and "for --model smollm2" in r.stderr


def test_float_reference_through_the_command(tmp_path, model, tok, fm):
    """--sim float: the tokens the float reference decodes (called here directly), in the JSON."""
    out = tmp_path / "g.json"
    r = ga2("generate", "--model", "smollm2", "--sim", "float", "--tokens", "3", "--json", str(out),
            "The capital of France is")
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())
    want = fm.generate(tok.encode("The capital of France is"), 3)
    assert got["tokens"] == want and got["sim"] == "float" and got["pass"] is True
    assert got["text"] == tok.decode(want) and "Paris" in got["text"]
