"""The tokenizer against llama.cpp: every text of tests/tools/smollm2/tokenizer_table.json
(made once with llama.cpp: prose, unicode, code, numbers, whitespace runs, special tokens,
the chat template) gives llama.cpp's ids; the template's special tokens are single ids;
decoding gives the text back. The long test: all of Python's pydoc topics (112,955 tokens
on Python 3.11.7) tokenized exactly as llama.cpp did (the count and a hash of the ids)."""
import hashlib
import sys

import numpy as np
import pytest
from conftest import table

from tools.smollm2 import text, tokenizer


def test_every_text_of_the_table_gives_llama_cpps_ids(tok):
    rows = table("tokenizer_table.json")["rows"]
    assert len(rows) >= 40
    bad = [(r["text"], tok.encode(r["text"]), r["ids"]) for r in rows if tok.encode(r["text"]) != r["ids"]]
    assert not bad, bad[:3]


def test_decoding_gives_the_text_back(tok):
    for r in table("tokenizer_table.json")["rows"]:
        assert tok.decode(r["ids"]) == r["text"]


def test_the_chat_template_and_its_special_tokens(tok):
    s = tokenizer.chat_prompt("Hi")
    assert s == ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face"
                 "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    ids = tok.encode(s)
    assert ids[0] == 1 and ids.count(1) == 3 and ids.count(2) == 2       # <|im_start|>, <|im_end|>
    assert tok.encode("<|im_end|>") == [2] and tok.encode("<|endoftext|>") == [0]
    assert (tok.bos, tok.eos) == (1, 2)
    assert tok.encode("Hi")[0] != 1                                      # no BOS added


def test_digits_are_single_tokens_and_bad_ids_are_refused(tok):
    assert [tok.decode([i]) for i in tok.encode("year 2024")][-4:] == ["2", "0", "2", "4"]
    with pytest.raises(ValueError, match="token id 49152 outside 0..49151"):
        tok.decode([5, 49152])
    with pytest.raises(ValueError, match="must be a str"):
        tok.encode(b"bytes")


@pytest.mark.long
def test_pydoc_topics_tokenize_as_llama_cpp_did(tok):
    want = table("tokenizer_table.json")["pydoc_topics"]
    body = text.pydoc_text()
    if hashlib.sha256(body.encode()).hexdigest() != want["text_sha256"]:
        pytest.skip(f"pydoc topics of Python {sys.version.split()[0]} differ from the table's "
                    f"(Python {want['python']}): no llama.cpp ids for this text")
    ids = tok.encode(body)
    assert len(ids) == want["tokens"] == 112_955
    assert hashlib.sha256(np.asarray(ids, dtype="<i4").tobytes()).hexdigest() == want["ids_sha256"]
