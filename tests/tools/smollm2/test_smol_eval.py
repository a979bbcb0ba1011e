"""ga2 eval --model smollm2 (tools/smollm2/evaluate.py): the JSON it writes and the table it
prints, on a cut of the real model (the loaders replaced, so the run takes a second); every
row of the ladder; bad input is exit 2 and one line."""
import json

import numpy as np
import pytest
from conftest import SHORT_TEXT

from tools import ga2
from tools.smollm2 import evaluate, gguf_model, intweights


def run(capsys, *argv):
    rc = ga2.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_json_and_the_table(capsys, tmp_path, monkeypatch, tok, cut_float, cut_int):
    monkeypatch.setattr(gguf_model, "load", lambda path=None: cut_float)
    monkeypatch.setattr(intweights, "prepare", lambda model: cut_int)
    f, js = tmp_path / "t.txt", tmp_path / "o" / "e.json"
    f.write_text(SHORT_TEXT)
    rc, out, err = run(capsys, "eval", "--model", "smollm2", "--text", str(f), "--tokens", "24",
                       "--json", str(js), "--rows", "int")
    assert rc == 0, err
    rep = json.loads(js.read_text())
    assert {"text_file", "tokens", "top1_agreement", "ppl_float", "ppl_int", "rows"} <= set(rep)
    assert rep["text_file"] == str(f) and rep["tokens"] == 24
    assert [r["row"] for r in rep["rows"]] == ["float", "int"]
    last = rep["rows"][-1]
    assert rep["top1_agreement"] == last["top1"] and rep["ppl_int"] == last["ppl"]
    assert rep["ppl_float"] == rep["rows"][0]["ppl"] and 0.5 <= last["top1"] <= 1
    assert "| int | int |" in out and f"{100 * last['top1']:.2f}%" in out
    peaks = rep["int_peaks"]
    assert rep["int_wraps"] == {} and "MM sums past int32 (wrapped, as the chip's accumulator wraps): none" in out
    assert {"mm qkv", "mm score", "mm pv", "mm head", "x", "w", "logits"} <= set(peaks)
    assert 0 < peaks["mm head"] < 2 ** 31 and 0 < peaks["logits"] < 2 ** 31


def test_every_row_of_the_ladder(tok, cut_float, cut_int):
    ids = tok.encode(SHORT_TEXT)[:16]
    rep = evaluate.run(cut_float, cut_int, ids, cal_ids=ids[::-1], log=lambda s: None)
    names = [r["row"] for r in rep["rows"]]
    assert names == ["float", "a", "b", "c", "d", "e", "e2", "e3", "f", "g", "h", "i", "j", "int"]
    assert [r["kind"] for r in rep["rows"]] == ["float"] + ["fake"] * 12 + ["int"]
    for r in rep["rows"][1:]:
        assert 0 <= r["top1"] <= 1 and r["ppl"] > 0 and r["kl"] >= 0
        assert r["meets_goal"] == (r["top1"] >= 0.9 and r["ppl"] <= 1.05 * rep["ppl_float"])
    assert rep["rows"][1]["kl"] > rep["rows"][-1]["kl"]      # the toy's numerics cost more than the chip's
    assert np.isclose(rep["rows"][-1]["ppl"], rep["ppl_int"])


@pytest.mark.parametrize("argv, says", [
    (["--text", "{d}/none.txt"], "none.txt: no such file"),
    (["--text", "{d}/bin.txt"], "bin.txt: not a text file"),
    (["--text", "{d}/short.txt", "--tokens", "50"], "3 tokens, fewer than --tokens 50"),
    (["--text", "{d}/short.txt", "--tokens", "1"], "--tokens: 1 outside 2..8192"),
    (["--tokens", "8193"], "--tokens: 8193 outside 2..8192"),
    (["--model", "llama", "--tokens", "8"], "--model llama: ga2 eval knows smollm2"),
    (["--text", "{d}", "--tokens", "8"], "a directory"),
])
def test_bad_input_is_exit_2_and_one_line(capsys, tmp_path, tok, argv, says):
    (tmp_path / "short.txt").write_text("one two three")
    (tmp_path / "bin.txt").write_bytes(b"\x00\xff" * 64)
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    if "--model" not in argv:
        argv = ["--model", "smollm2"] + argv
    rc, out, err = run(capsys, "eval", *argv, "--json", str(tmp_path / "e.json"))
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and says in err, (rc, out, err)
    assert not (tmp_path / "e.json").exists()


def test_the_int_option_of_python_m_tools_smollm2(capsys, tmp_path, monkeypatch, tok, cut_float, cut_int):
    """generate --int prints the integer reference's greedy tokens; ppl --int its perplexity."""
    from tools.smollm2 import cli, float_ref, int_ref
    monkeypatch.setattr(gguf_model, "load", lambda path=None: cut_float)
    monkeypatch.setattr(intweights, "prepare", lambda model: cut_int)
    prompt = SHORT_TEXT[:40]
    want = int_ref.IntRef(cut_int).generate(tok.encode(prompt), 4)
    assert cli.main(["generate", prompt, "--tokens", "4", "--int"]) == 0
    out, err = capsys.readouterr()
    assert out == prompt + tok.decode(want) + "\n" and "(integer reference)" in err
    f = tmp_path / "t.txt"
    f.write_text(SHORT_TEXT)
    assert cli.main(["ppl", "--text", str(f), "--tokens", "20", "--int"]) == 0
    out, err = capsys.readouterr()
    ppl = float_ref.perplexity(int_ref.IntRef(cut_int).teacher_forced(tok.encode(SHORT_TEXT)[:20]).nll)
    assert out.startswith(f"perplexity {ppl:.4f} over the first 20 tokens") and "integer reference" in out
