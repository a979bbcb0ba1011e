"""The held-out text: Python's pydoc topics (pydoc_data.topics), the same on every
machine with the same Python, nothing to download.

pydoc_text() is every topic's text in the module's (sorted) order, joined by newlines:
465,048 characters, 112,955 SmolLM2 tokens on Python 3.11.7. The slices the tools score
are named here once: HELD_OUT (the oracle's perplexity, the numerics study's held-out
text) and CALIBRATION (the study's static scales), apart from each other.
"""
import sys

# (first token, tokens) of pydoc_ids(): disjoint, inside the 112,955 tokens
HELD_OUT = (70_000, 1_024)
CALIBRATION = (20_000, 1_024)


def pydoc_text():
    """The pydoc topics as one text ('\\n' between topics, sorted by name)."""
    from pydoc_data.topics import topics
    return "\n".join(topics[k] for k in sorted(topics))


def pydoc_ids(tokenizer):
    """The token ids of pydoc_text() (about 1 s)."""
    return tokenizer.encode(pydoc_text())


def window(tokenizer, where, n=None):
    """The ids of a slice (first, count) of pydoc_ids(); n: only its first n.
    ValueError when the text (another Python) is too short for it."""
    first, count = where
    count = count if n is None else n
    ids = pydoc_ids(tokenizer)
    if first + count > len(ids):
        raise ValueError(f"pydoc topics on Python {sys.version.split()[0]}: {len(ids)} tokens, "
                         f"too few for tokens {first}..{first + count - 1}")
    return ids[first:first + count]
