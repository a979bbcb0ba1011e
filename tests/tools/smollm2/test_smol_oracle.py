"""The oracle's F32 GGUF is the reference's own weights: written by tools/smollm2/oracle.py
and read back by gguf, every tensor equals the float32 array the reference uses, with the
original's metadata and tokenizer (the file type now F32). Long: it writes 540 MB."""
import numpy as np
import pytest

from tools.smollm2 import fetch, gguf_model, oracle


@pytest.mark.long
def test_the_f32_gguf_holds_the_references_weights(model, tmp_path):
    path = oracle.write_f32_gguf(model, fetch.fetch(), tmp_path / "m.f32.gguf")
    back = gguf_model.read_gguf(path, sha256=None)
    assert back.config == model.config and back.tokens == model.tokens and back.merges == model.merges
    assert back.token_types == model.token_types and (back.bos, back.eos) == (model.bos, model.eos)
    assert back.meta["general.file_type"] == 0 and back.meta["tokenizer.ggml.pre"] == "smollm"
    assert back.chat_template == model.chat_template
    for a, b in zip(back.layers, model.layers):
        for f in ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"):
            assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert np.array_equal(back.embed, model.embed) and np.array_equal(back.out_norm, model.out_norm)


def test_the_report_table_names_every_check():
    rep = {"prompts": [{"prompt": "p" * 60, "tokenization_equal": True, "equal": False, "first_difference": 3,
                        "smallest_margin": 0.01, "text": "x"}],
           "teacher_forced": {"text": "t", "positions": 10, "top1_agreement": 0.9,
                              "misses": [{"reference_margin": 0.5}], "ppl_llama_cpp": 10.0,
                              "ppl_reference": 10.1, "ppl_rel_diff": 0.01, "max_abs_logit_diff": 0.1},
           "pass": {"tokens": True, "greedy": False, "top1": False, "ppl": False}}
    t = oracle.table(rep)
    assert "diff@3" in t and "90.00%" in t and "+1.000%" in t and "greedy FAIL" in t and "tokens pass" in t
