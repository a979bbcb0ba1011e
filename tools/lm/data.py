"""The two tasks' data, generated here, deterministically, with nothing downloaded.

1. Addition (as minGPT's adder project): a + b for a, b in 0..99. A problem is 7 tokens:
   the two digits of a, the two of b, then the three digits of the sum written reversed
   (least significant first, which lets the model emit a digit once it has seen the digits
   that decide it). Problem i is a = i // 100, b = i % 100. 500 problems (a seeded
   permutation) are held out of training; the score is taken over all 10,000.
2. Text: the characters of Python's own pydoc_data.topics (the help() texts, shipped with
   the interpreter), topics in sorted order; the last 10% is held out. Its few non-ASCII
   characters are spelled in ASCII (NON_ASCII) so the vocabulary is fixed: newline and the
   95 printable ASCII characters, 96 tokens.

Vocabulary sizes are multiples of 4 (the head's output tiles the 4 x 4 array): the addition
vocabulary is the ten digits and two ids that never occur.
"""
import functools
import hashlib

import numpy as np

NDIGIT = 2
ADD_LEN = 3 * NDIGIT + 1            # a, b, reversed sum: 7 tokens
ADD_VOCAB = 12                      # digits 0..9; ids 10, 11 never occur
ADD_PROMPT = 2 * NDIGIT             # the model is given a and b, it writes the sum
ADD_HELD_OUT = 500
ADD_SPLIT_SEED = 1

TEXT_CHARS = "\n" + "".join(chr(c) for c in range(32, 127))
NON_ASCII = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2026": "...",
             "\u2014": "--", "\u2013": "-", "\u00df": "ss", "\u00b0": " degrees"}
TEXT_HELD_OUT = 0.1


# -- addition ---------------------------------------------------------------------------

def add_problem(a, b):
    """The 7 tokens of a + b: digits of a, digits of b, digits of the sum reversed."""
    if not (0 <= a < 10 ** NDIGIT and 0 <= b < 10 ** NDIGIT):
        raise ValueError(f"add_problem: operands must be 0..{10 ** NDIGIT - 1}, got {a}, {b}")
    s = f"{a:0{NDIGIT}d}{b:0{NDIGIT}d}{a + b:0{NDIGIT + 1}d}"
    return [int(c) for c in s[:2 * NDIGIT]] + [int(c) for c in reversed(s[2 * NDIGIT:])]


@functools.cache
def add_all():
    """(10000, 7) int64, read-only: problem i = a * 100 + b."""
    n = 10 ** NDIGIT
    p = np.array([add_problem(i // n, i % n) for i in range(n * n)], dtype=np.int64)
    p.flags.writeable = False
    return p


def add_answer(tokens):
    """The integer a sum's reversed digits (the last NDIGIT + 1 tokens) spell."""
    return sum(int(t) * 10 ** k for k, t in enumerate(tokens))


def add_split():
    """(train, held_out) problem indices: a permutation seeded by ADD_SPLIT_SEED."""
    perm = np.random.default_rng(ADD_SPLIT_SEED).permutation(10 ** (2 * NDIGIT))
    return np.sort(perm[ADD_HELD_OUT:]), np.sort(perm[:ADD_HELD_OUT])


def add_xy(idx):
    """(X, Y, mask) of problems idx: X the first 6 tokens, Y the next-token targets.

    The loss counts only the three targets that are digits of the sum (mask), as minGPT's
    adder does: the operands are given, not predicted.
    """
    p = add_all()[np.asarray(idx)]
    mask = np.zeros(p[:, 1:].shape, dtype=bool)
    mask[:, ADD_PROMPT - 1:] = True
    return p[:, :-1], p[:, 1:], mask


def add_batches(rng, idx, batch):
    """Endless (X, Y, mask) batches of batch problems drawn from idx by rng."""
    while True:
        yield add_xy(rng.choice(idx, size=batch))


# -- text -------------------------------------------------------------------------------

def text_corpus():
    """The whole text: pydoc_data.topics in sorted topic order, non-ASCII spelled out."""
    from pydoc_data.topics import topics
    s = "".join(topics[k] for k in sorted(topics))
    for c, r in NON_ASCII.items():
        s = s.replace(c, r)
    return s


def corpus_sha256():
    """The corpus's fingerprint: pydoc_data.topics changes with the Python version."""
    return hashlib.sha256(text_corpus().encode()).hexdigest()


_IDS = np.full(128, -1, dtype=np.int64)
_IDS[[ord(c) for c in TEXT_CHARS]] = np.arange(len(TEXT_CHARS))


def encode(s):
    """Token ids of a string; ValueError naming the first character outside the vocabulary."""
    codes = np.array([ord(c) for c in s], dtype=np.int64)
    ids = _IDS[np.minimum(codes, 127)]
    bad = np.flatnonzero((ids < 0) | (codes > 127))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"encode: character {s[i]!r} at position {i} is not in the "
                         f"vocabulary (newline and printable ASCII)")
    return ids


def decode(ids):
    """The string of token ids."""
    return "".join(TEXT_CHARS[int(t)] for t in ids)


def text_split():
    """(train, held_out) token arrays: the first 90% and the last 10% of the corpus."""
    ids = encode(text_corpus())
    cut = int(len(ids) * (1 - TEXT_HELD_OUT))
    return ids[:cut], ids[cut:]


def text_batches(rng, ids, batch, ctx):
    """Endless (X, Y, mask) batches of windows of ctx + 1 tokens at rng's offsets."""
    mask = np.ones((batch, ctx), dtype=bool)
    while True:
        off = rng.integers(0, len(ids) - ctx, size=batch)
        w = ids[off[:, None] + np.arange(ctx + 1)]
        yield w[:, :-1], w[:, 1:], mask


def text_windows(ids, ctx):
    """Non-overlapping (X, Y) windows covering ids, in order (for held-out loss)."""
    n = (len(ids) - 1) // ctx
    w = ids[:n * ctx + 1]
    return w[:-1].reshape(n, ctx), w[1:].reshape(n, ctx)
