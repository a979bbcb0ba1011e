"""SmolLM2's tokenizer: PyPI `tokenizers` built from the GGUF's vocabulary, as llama.cpp runs it.

The GGUF says `tokenizer.ggml.model` gpt2 (byte-level BPE) and `tokenizer.ggml.pre`
smollm. llama.cpp's `smollm` pre-tokenizer (src/llama-vocab.cpp, shared with starcoder,
refact, command-r, codeshell, exaone) splits in two passes:
    1. \\p{N}  -- every digit a piece of its own;
    2. the GPT-2 pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)
Here that is tokenizers' Split(\\p{N}, isolated) then ByteLevel(use_regex=True, no prefix
space), whose regex is the same GPT-2 pattern (plus a final \\s+ that only takes what the
lookahead leaves, as llama.cpp's own GPT-2 splitter does). The BPE model is the GGUF's
tokens and merges in their order (no ignore_merges: that is llama3's); the 17 control
tokens (token_type 3: <|endoftext|>, <|im_start|>, <|im_end|>, ...) are special tokens
that always tokenize as one id, wherever they appear in the text (llama.cpp's
parse_special). No BOS is added (the GGUF: add_bos_token false); bos 1, eos 2.

tests/tools/smollm2/tokenizer_table.json holds texts and the ids llama.cpp gave them
(python -m tools.smollm2.oracle --make-tokenizer-table); the tests hold this tokenizer to it.
"""
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

CONTROL = 3     # llama.cpp's LLAMA_TOKEN_TYPE_CONTROL in tokenizer.ggml.token_type
SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


def chat_prompt(prompt, system=SYSTEM):
    """The ChatML text of one user turn, ready for the assistant's reply (the GGUF's
    tokenizer.chat_template with add_generation_prompt, for one user message)."""
    return (f"<|im_start|>system\n{system}<|im_end|>\n"
            f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n")


class SmolTokenizer:
    """encode(text) -> [ids] and decode(ids) -> text, built from a gguf_model.Model."""

    def __init__(self, model):
        vocab = {t: i for i, t in enumerate(model.tokens)}
        if len(vocab) != len(model.tokens):
            raise ValueError("the GGUF's vocabulary repeats a token")
        merges = []
        for k, m in enumerate(model.merges):
            parts = m.split(" ")
            if len(parts) != 2:
                raise ValueError(f"the GGUF's merge {k} {m!r} is not two tokens")
            merges.append((parts[0], parts[1]))
        tk = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
        tk.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\p{N}"), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
        tk.decoder = decoders.ByteLevel()
        specials = [t for t, ty in zip(model.tokens, model.token_types) if ty == CONTROL]
        tk.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])
        self._tk = tk
        self.specials = {t: vocab[t] for t in specials}
        self.bos, self.eos = model.bos, model.eos
        self.vocab_size = len(model.tokens)

    def encode(self, text):
        """The ids of text (no BOS; special tokens as single ids)."""
        if not isinstance(text, str):
            raise ValueError(f"text to tokenize must be a str, not {type(text).__name__}")
        return self._tk.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts):
        """encode() of each text (tokenizers' threads)."""
        return [e.ids for e in self._tk.encode_batch(list(texts), add_special_tokens=False)]

    def decode(self, ids, skip_special=False):
        """The text of ids (bytes joined, then UTF-8; an incomplete character at the end
        shows as U+FFFD, as the partial text of a stream does)."""
        bad = [i for i in ids if not 0 <= int(i) < self.vocab_size]
        if bad:
            raise ValueError(f"token id {bad[0]} outside 0..{self.vocab_size - 1}")
        return self._tk.decode([int(i) for i in ids], skip_special_tokens=skip_special)


_CACHE = {}


def load(path=None):
    """The SmolTokenizer of the pinned model (or of the GGUF at path), one per process."""
    from tools.smollm2 import gguf_model
    if path not in _CACHE:
        _CACHE[path] = SmolTokenizer(gguf_model.load(path))
    return _CACHE[path]
