"""llama.cpp as the float reference's oracle (make smollm2-oracle; never in make test).

  python -m tools.smollm2.oracle [--out out/smollm2_oracle.json]
  python -m tools.smollm2.oracle --make-tokenizer-table
        rewrite tests/tools/smollm2/tokenizer_table.json (texts and llama.cpp's ids)
  python -m tools.smollm2.oracle --make-reference-table
        rewrite tests/tools/smollm2/llama_cpp_reference.json (llama.cpp's greedy tokens and
        perplexity over 128 held-out tokens and over a short text, for the fast tests that
        hold the float reference and the command line to them)

The oracle is llama-cpp-python (LLAMA_CPP, pinned), built from its sdist into this .venv
on first use, CPU only (no native tuning, BLAS, CUDA, Metal or Vulkan; 45 minutes when
first measured, on 2 cores shared with other jobs, under nice). It runs an F32 GGUF
written here from the very float32 arrays the reference uses (gguf_model.load(): the Q4_1
/ Q8_0 weights dequantized by gguf), with the original file's metadata and tokenizer
copied, so both sides compute from the same weights and only the arithmetic differs.

The checks (the goal of each in GOALS):
  tokens       llama.cpp's tokenization of every prompt equals tokenizer.py's;
  greedy       16 new tokens from each of PROMPTS, token for token (a difference is
               reported with the reference's logit margin at that step: a near-tie);
  top-1        teacher-forced over text.HELD_OUT (1,024 tokens of pydoc topics), the
               argmax at each position: agreement >= 96%;
  perplexity   on the same text, within 0.5%.
Prints a table and writes the figures to --out. Exit 0 when every check holds, 1 otherwise.
"""
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tb import ROOT
from tools.smollm2 import fetch, float_ref, gguf_model, text, tokenizer

LLAMA_CPP = "0.3.36"
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF"
F32_GGUF = fetch.CACHE / "SmolLM2-135M-Instruct.F32.gguf"
TESTS = ROOT / "tests" / "tools" / "smollm2"
TOKENIZER_TABLE = TESTS / "tokenizer_table.json"
REFERENCE_TABLE = TESTS / "llama_cpp_reference.json"
NEW_TOKENS = 16
PROMPTS = ("The capital of France is", "Once upon a time", "def fibonacci(n):",
           "The three primary colors are", "In 1969, Neil Armstrong",
           tokenizer.chat_prompt("What is the capital of France?"),
           tokenizer.chat_prompt("Write a haiku about the sea."))
GOALS = {"top1": 0.96, "ppl_rel": 0.005}
SHORT_TEXT = "The quick brown fox jumps over the lazy dog. It was a sunny day, and the fox was happy."

# the tokenizer table's texts: prose, unicode, code, numbers, whitespace runs, the template
TABLE_TEXTS = [
    "Hello world", "Hello, world!", " leading space", "trailing space ", "The capital of France is",
    "I'm sure they'll say we've done it, isn't it? You'd think so.", "UPPER lower MiXeD CamelCase snake_case",
    "12345", "3.14159 2.71828 -42 +7 1e-5 0x1F 1,000,000", "In 2024, about 8.1 billion people.",
    "Phone: 555-0123, ZIP 90210.", "  two leading spaces", "tabs\there\tand\tthere", "line one\nline two\n",
    "\n\n\nthree newlines first", "spaces     in      runs", "   \n  \t \n", " ", "\t", "\n",
    "mixed \r\n line endings\r\n", "café naïve résumé façade", "Straße, Ærø, Øresund, Łódź",
    "日本語のテキストです。", "中文文本，标点符号。", "한국어 텍스트", "Ελληνικά και русский текст",
    "עברית ו العربية", "emoji: 🙂🚀🎉 and 👩‍👩‍👧", "math: ∑ x² ≤ ∞, α→β, ½ ¾",
    "“smart quotes” ‘single’ — dash … ellipsis",
    "def f(x):\n    return x ** 2  # square\n", "for (int i = 0; i < n; ++i) { a[i] += b[i]; }",
    "<html><body class=\"x\">Hi</body></html>", "{\"key\": [1, 2, 3], \"n\": null}",
    "SELECT * FROM t WHERE id = 7;", "$ pip install numpy==2.4.6 && echo ok", "https://example.com/a?b=1&c=2#d",
    "a" * 40, "!!!???...;;;", "<|im_start|>user\nHi<|im_end|>", "<|endoftext|>text after<|endoftext|>",
    tokenizer.chat_prompt("What is the capital of France?"),
]


def _pip():
    cmd = fetch.pip_command()
    return cmd + (["--python", sys.executable] if cmd[0] != sys.executable else [])


def installed_version():
    """The llama-cpp-python version installed in this .venv (pip's record), or None."""
    from importlib import metadata
    try:
        return metadata.version("llama_cpp_python")
    except metadata.PackageNotFoundError:
        return None


def importable():
    p = subprocess.run([sys.executable, "-c", "import llama_cpp"], capture_output=True, text=True)
    return p.returncode == 0


def install(log=print):
    """Build llama-cpp-python LLAMA_CPP from its sdist into this .venv, CPU only, unless
    that version is there and imports (pip then only adds a missing dependency).
    RuntimeError when the build fails (its log's tail)."""
    have = installed_version()
    if have == LLAMA_CPP and importable():
        return
    if have != LLAMA_CPP:
        log(f"oracle: building llama-cpp-python {LLAMA_CPP} from its sdist (CPU only, nice; "
            f"{'replacing ' + have if have else 'first time'}: about 45 minutes on 2 busy cores)")
    env = dict(os.environ, CMAKE_ARGS=CMAKE_ARGS, FORCE_CMAKE="1", CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    cmd = ["nice", "-n", "10"] + _pip() + ["install", "--disable-pip-version-check", "--no-binary",
                                           "llama-cpp-python", f"llama-cpp-python=={LLAMA_CPP}"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0 or installed_version() != LLAMA_CPP or not importable():
        tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"installing llama-cpp-python {LLAMA_CPP} failed (exit {p.returncode}):\n{tail}")


def write_f32_gguf(model, src, dest=F32_GGUF):
    """An F32 GGUF at dest of model's float32 arrays, with src's metadata and tokenizer
    (every key but the file type, now 0: all F32). Skipped when dest is newer than the
    source GGUF and this module."""
    import gguf
    dest = Path(dest)
    if dest.is_file() and dest.stat().st_mtime > max(Path(src).stat().st_mtime, Path(__file__).stat().st_mtime):
        return dest
    reader = gguf.GGUFReader(src, "r")
    tmp = dest.with_suffix(".part")
    w = gguf.GGUFWriter(tmp, reader.fields["general.architecture"].contents())
    for key, f in reader.fields.items():
        if key.startswith("GGUF.") or key in ("general.architecture", "general.file_type"):
            continue
        sub = f.types[-1] if f.types[0] == gguf.GGUFValueType.ARRAY else None
        w.add_key_value(key, f.contents(), f.types[0], sub_type=sub)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    names = [t.name for t in reader.tensors]
    arrays = {"token_embd.weight": model.embed, "output_norm.weight": model.out_norm}
    for i, layer in enumerate(model.layers):
        for n, field in zip(gguf_model.LAYER_TENSORS, ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm",
                                                        "w_gate", "w_up", "w_down")):
            arrays[f"blk.{i}.{n}.weight"] = getattr(layer, field)
    for n in names:             # the original's order
        w.add_tensor(n, np.ascontiguousarray(arrays[n], dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, dest)
    return dest


class LlamaCpp:
    """llama.cpp on a GGUF: tokenize, logits of a sequence, greedy decoding."""

    def __init__(self, path, n_ctx=2048):
        from llama_cpp import Llama
        self.llm = Llama(model_path=str(path), n_ctx=n_ctx, n_batch=512, n_threads=os.cpu_count() or 2,
                         logits_all=True, verbose=False)

    def tokenize(self, s):
        return self.llm.tokenize(s.encode("utf-8"), add_bos=False, special=True)

    def logits(self, ids):
        """(len(ids), vocab) float32: the logits at every position of ids run from empty."""
        self.llm.reset()
        self.llm.eval(list(ids))
        return np.array(self.llm.scores[:len(ids)], dtype=np.float32)

    def greedy(self, ids, n):
        """n greedy new tokens after ids (argmax of llama.cpp's logits)."""
        self.llm.reset()
        self.llm.eval(list(ids))
        out = []
        for _ in range(n):
            t = int(np.argmax(self.llm.scores[self.llm.n_tokens - 1]))
            out.append(t)
            self.llm.eval([t])
        return out


def _ids_digest(ids):
    return hashlib.sha256(np.asarray(ids, dtype="<i4").tobytes()).hexdigest()


def make_tokenizer_table(lc, log=print):
    """The tokenizer table: each TABLE_TEXTS text with llama.cpp's ids, and the whole of
    pydoc topics summarized (count, sha256 of the ids, of the text, the Python version)."""
    rows = [{"text": s, "ids": lc.tokenize(s)} for s in TABLE_TEXTS]
    pd = text.pydoc_text()
    full = lc.tokenize(pd)
    doc = {"made_by": f"python -m tools.smollm2.oracle --make-tokenizer-table (llama-cpp-python {LLAMA_CPP}, "
                      "tokenize(text, add_bos=False, special=True))",
           "rows": rows,
           "pydoc_topics": {"python": sys.version.split()[0], "chars": len(pd),
                            "text_sha256": hashlib.sha256(pd.encode()).hexdigest(),
                            "tokens": len(full), "ids_sha256": _ids_digest(full)}}
    TOKENIZER_TABLE.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    log(f"oracle: wrote {TOKENIZER_TABLE.relative_to(ROOT)}: {len(rows)} texts, pydoc topics {len(full):,} tokens")


def run_checks(lc, fm, tok, log=print):
    """Every check of the module doc; returns the report (a dict, JSON-ready)."""
    rep = {"llama_cpp_python": LLAMA_CPP, "gguf": F32_GGUF.name, "prompts": [], "goals": GOALS}
    for p in PROMPTS:
        ids = tok.encode(p)
        same_tok = lc.tokenize(p) == ids
        t0 = time.perf_counter()
        want = lc.greedy(ids, NEW_TOKENS)
        t_lc = time.perf_counter() - t0
        t0 = time.perf_counter()
        got = fm.generate(ids, NEW_TOKENS)
        t_ref = time.perf_counter() - t0
        # the reference's margins along llama.cpp's path (teacher-forced on it)
        sc = fm.teacher_forced(ids + want, chunk=64)
        margins = [float(sc.margin[len(ids) - 1 + i]) for i in range(NEW_TOKENS)]
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
        rep["prompts"].append({"prompt": p, "prompt_tokens": len(ids), "tokenization_equal": same_tok,
                               "llama_cpp": want, "reference": got, "equal": got == want,
                               "first_difference": first,
                               "margin_at_difference": None if first is None else margins[first],
                               "smallest_margin": min(margins), "text": tok.decode(want),
                               "seconds_llama_cpp": round(t_lc, 2), "seconds_reference": round(t_ref, 2)})
        log(f"oracle: {p[:40]!r}: {'equal' if got == want else f'differs at {first}'} "
            f"(smallest margin {min(margins):.3f})")
    ids = text.window(tok, text.HELD_OUT)
    t0 = time.perf_counter()
    lg = lc.logits(ids)
    t_lc = time.perf_counter() - t0
    t0 = time.perf_counter()
    sc = fm.teacher_forced(ids, keep_logits=True)
    t_ref = time.perf_counter() - t0
    lc_top1 = lg.argmax(axis=-1)
    agree = sc.top1 == lc_top1
    ppl_lc = float_ref.perplexity(float_ref.log_softmax_nll(lg[:-1], np.asarray(ids[1:])))
    ppl_ref = float_ref.perplexity(sc.nll)
    misses = np.flatnonzero(~agree)
    rep["teacher_forced"] = {
        "text": f"pydoc topics tokens {text.HELD_OUT[0]}..{text.HELD_OUT[0] + len(ids) - 1}",
        "positions": len(ids), "top1_agreement": float(agree.mean()),
        "misses": [{"position": int(i), "reference": int(sc.top1[i]), "llama_cpp": int(lc_top1[i]),
                    "reference_margin": float(sc.margin[i])} for i in misses],
        "ppl_llama_cpp": ppl_lc, "ppl_reference": ppl_ref, "ppl_rel_diff": (ppl_ref - ppl_lc) / ppl_lc,
        "max_abs_logit_diff": float(np.abs(lg - sc.logits).max()) if sc.logits is not None else None,
        "seconds_llama_cpp": round(t_lc, 1), "seconds_reference": round(t_ref, 1)}
    tf = rep["teacher_forced"]
    rep["pass"] = {"tokens": all(r["tokenization_equal"] for r in rep["prompts"]),
                   "greedy": all(r["equal"] for r in rep["prompts"]),
                   "top1": tf["top1_agreement"] >= GOALS["top1"],
                   "ppl": abs(tf["ppl_rel_diff"]) <= GOALS["ppl_rel"]}
    return rep


def make_reference_table(lc, tok, log=print):
    """llama.cpp's greedy tokens for the first PROMPTS and its perplexity over 128 tokens
    of the held-out text: what the fast tests hold the float reference to."""
    rows = []
    for p in PROMPTS[:3] + PROMPTS[5:6]:
        ids = tok.encode(p)
        rows.append({"prompt": p, "ids": ids, "llama_cpp": lc.greedy(ids, 8)})
    ids = text.window(tok, text.HELD_OUT, 128)
    lg = lc.logits(ids)
    short = tok.encode(SHORT_TEXT)
    lg_short = lc.logits(short)
    doc = {"made_by": f"python -m tools.smollm2.oracle --make-reference-table (llama-cpp-python {LLAMA_CPP} "
                      f"on {F32_GGUF.name}, the reference's own float32 weights)",
           "greedy": rows,
           "perplexity": {"ids": ids,
                          "ppl": float_ref.perplexity(float_ref.log_softmax_nll(lg[:-1], np.asarray(ids[1:]))),
                          "top1": lg.argmax(axis=-1).tolist()},
           "short_text": {"text": SHORT_TEXT, "tokens": len(short),
                          "ppl": float_ref.perplexity(float_ref.log_softmax_nll(lg_short[:-1], np.asarray(short[1:])))}}
    REFERENCE_TABLE.write_text(json.dumps(doc, ensure_ascii=False) + "\n")
    log(f"oracle: wrote {REFERENCE_TABLE.relative_to(ROOT)}")


def table(rep):
    """The report as text: one row a prompt, then the teacher-forced figures."""
    lines = [f"{'prompt':42} {'tok=':>4} {'greedy 16':>10} {'min margin':>10}  llama.cpp's text"]
    for r in rep["prompts"]:
        p = r["prompt"].replace("\n", "\\n")
        p = p if len(p) <= 40 else "..." + p[-37:]
        g = "equal" if r["equal"] else f"diff@{r['first_difference']}"
        lines.append(f"{p:42} {'yes' if r['tokenization_equal'] else 'NO':>4} {g:>10} "
                     f"{r['smallest_margin']:10.3f}  {r['text'][:50]!r}")
    tf = rep["teacher_forced"]
    lines.append(f"teacher-forced, {tf['text']} ({tf['positions']} positions): top-1 agreement "
                 f"{100 * tf['top1_agreement']:.2f}% (goal >= {100 * GOALS['top1']:.0f}%), "
                 f"{len(tf['misses'])} misses, reference margins "
                 f"{', '.join(format(m['reference_margin'], '.3f') for m in tf['misses'][:12])}")
    lines.append(f"perplexity: llama.cpp {tf['ppl_llama_cpp']:.4f}, reference {tf['ppl_reference']:.4f}, "
                 f"{100 * tf['ppl_rel_diff']:+.3f}% (goal within {100 * GOALS['ppl_rel']:.1f}%); "
                 f"largest logit difference {tf['max_abs_logit_diff']:.4f}")
    lines.append("checks: " + ", ".join(f"{k} {'pass' if v else 'FAIL'}" for k, v in rep["pass"].items()))
    return "\n".join(lines)


def main(argv=None):
    from tb import cli
    ap = cli.Parser(prog="tools.smollm2.oracle", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=cli.out_file(), default=str(ROOT / "out" / "smollm2_oracle.json"))
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--make-tokenizer-table", action="store_true")
    what.add_argument("--make-reference-table", action="store_true")
    a = ap.parse_args(argv)
    try:
        model = gguf_model.load()
        install()
        src = write_f32_gguf(model, fetch.GGUF_PATH)
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    except RuntimeError as e:
        print(f"{ap.prog}: {e}", file=sys.stderr)
        return 1
    tok = tokenizer.load()
    lc = LlamaCpp(src, n_ctx=2048)
    if a.make_tokenizer_table:
        make_tokenizer_table(lc)
        return 0
    if a.make_reference_table:
        make_reference_table(lc, tok)
        return 0
    fm = float_ref.FloatModel(model)
    rep = run_checks(lc, fm, tok)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(rep, indent=1, ensure_ascii=False) + "\n")
    print(table(rep))
    print(f"oracle: figures in {a.out}")
    return 0 if all(rep["pass"].values()) else 1


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
