"""python -m tools.smollm2 as a user runs it: generate prints the prompt and llama.cpp's
continuation (the stored reference's greedy tokens, decoded), --chat only the reply;
ppl prints llama.cpp's perplexity of a short text; bad input is exit 2 and one line naming it."""
import pytest
from conftest import table

from tools.smollm2 import cli


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_generate_prints_llama_cpps_continuation(capsys, tok):
    row = next(r for r in table("llama_cpp_reference.json")["greedy"] if r["prompt"] == "The capital of France is")
    rc, out, err = run(capsys, "generate", row["prompt"], "--tokens", "4")
    assert rc == 0, err
    assert out == row["prompt"] + tok.decode(row["llama_cpp"][:4]) + "\n"
    assert "4 tokens after a prompt of 5" in err


def test_chat_prints_the_reply_alone(capsys, tok):
    row = next(r for r in table("llama_cpp_reference.json")["greedy"] if r["prompt"].startswith("<|im_start|>"))
    question = row["prompt"].split("user\n")[1].split("<|im_end|>")[0]
    rc, out, err = run(capsys, "generate", question, "--tokens", "8", "--chat")
    assert rc == 0, err
    want = row["llama_cpp"][:row["llama_cpp"].index(2)] if 2 in row["llama_cpp"] else row["llama_cpp"]
    assert out == tok.decode(want) + "\n" and "<|im" not in out


def test_ppl_prints_llama_cpps_perplexity(capsys, tmp_path):
    ref = table("llama_cpp_reference.json")["short_text"]
    f = tmp_path / "t.txt"
    f.write_text(ref["text"])
    rc, out, err = run(capsys, "ppl", "--text", str(f), "--tokens", str(ref["tokens"]))
    assert rc == 0, err
    assert abs(float(out.split()[1]) / ref["ppl"] - 1) < 0.005 and f"{ref['tokens'] - 1} predictions" in out


@pytest.mark.parametrize("argv, says", [
    (["generate", "", "--tokens", "3"], "an empty prompt"),
    (["generate", "hi", "--tokens", "0"], "--tokens: 0 outside 1..8191"),
    (["generate", "hi", "--tokens", "8192"], "--tokens: 8192 outside 1..8191"),
    (["generate", " a" * 8200, "--tokens", "1"],
     "8200 tokens + --tokens 1 = 8201 positions, beyond the context of 8192"),
    (["generate", "hi hi hi", "--tokens", "8190"], "3 tokens + --tokens 8190 = 8193 positions"),
    (["ppl", "--text", "{d}/short.txt", "--tokens", "50"], "3 tokens, fewer than --tokens 50"),
    (["ppl", "--text", "{d}/bin.txt", "--tokens", "5"], "bin.txt: not a text file"),
    (["ppl", "--text", "{d}/none.txt", "--tokens", "5"], "none.txt: no such file"),
    (["ppl", "--text", "{d}/short.txt", "--tokens", "8193"], "--tokens: 8193 outside 2..8192"),
    (["generate", "hi", "--model", "{d}/bin.txt"], "bin.txt: not a readable GGUF"),
    (["generate", "hi", "--model", "{d}"], "a directory"),
])
def test_bad_input_is_exit_2_and_one_line(capsys, tmp_path, tok, argv, says):
    (tmp_path / "short.txt").write_text("one two three")
    (tmp_path / "bin.txt").write_bytes(b"\x00\xff" * 64)
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    try:
        rc = cli.main(argv)
    except SystemExit as e:          # argparse's refusals
        rc = e.code
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and says in err, (rc, out, err)
