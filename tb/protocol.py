"""Hex files between the Python side and the GA-2 benches.

Writing: write_words (any width), write_imem (128-bit instructions, zero-padded to the
instruction memory's depth so $readmemh never warns of a short file), write_mem32 (ext
or scratchpad images, 32-bit two's complement). Reading: parse_mem32 ($writememh text ->
signed words and the indices that hold x/z, vectorised), read_status (the cocotb
wrapper's "key value" lines in hex, x/z reported) and read_trace ("pc cycle" lines).
"""
from pathlib import Path

import numpy as np

_NIBBLE = np.full(256, -1, dtype=np.int64)
for _i, _c in enumerate("0123456789abcdef"):
    _NIBBLE[ord(_c)] = _i
    _NIBBLE[ord(_c.upper())] = _i


def write_words(path, words, digits):
    """One word a line, `digits` hex digits each (words are masked to that width)."""
    mask = (1 << (4 * digits)) - 1
    Path(path).write_text("".join(format(int(w) & mask, f"0{digits}x") + "\n" for w in words))


def write_imem(path, words, depth=None):
    """128-bit instruction words, then zero words up to depth (when given)."""
    words = [int(w) for w in words]
    if depth is not None and len(words) > depth:
        raise ValueError(f"program of {len(words)} instructions exceeds instruction memory ({depth})")
    pad = 0 if depth is None else depth - len(words)
    Path(path).write_text("".join(f"{w:032x}\n" for w in words) + ("0" * 32 + "\n") * pad)


def write_mem32(path, image):
    """32-bit words (ext or scratchpad image), two's complement."""
    img = (np.asarray(image, dtype=np.int64).ravel() & 0xFFFFFFFF).tolist()
    Path(path).write_text("".join(map("{:08x}\n".format, img)))


def hexint(tok):
    """int of a hex token; None when it holds x or z."""
    t = tok.lower()
    if any(c in t for c in "xz"):
        return None
    return int(t, 16)


def parse_mem32(text, words, what="memory"):
    """($writememh text of 32-bit words) -> (signed np.int64 array, [indices holding x/z]).

    Comment lines (Icarus writes '// 0x...' address comments) and @address lines are
    dropped, then each 8-digit line is decoded through a nibble table.
    """
    lines = [ln.strip() for ln in text.split("\n")]
    lines = [ln for ln in lines if ln and not ln.startswith("//") and not ln.startswith("@")]
    if len(lines) != words:
        raise RuntimeError(f"{what} has {len(lines)} words, expected {words}")
    if any(len(ln) != 8 for ln in lines):
        raise RuntimeError(f"{what}: a line is not 8 hex digits")
    raw = np.frombuffer("".join(lines).encode("ascii"), dtype=np.uint8).reshape(words, 8)
    nib = _NIBBLE[raw]
    bad = np.nonzero((nib < 0).any(axis=1))[0]
    nib = np.where(nib < 0, 0, nib)
    val = np.zeros(words, dtype=np.int64)
    for k in range(8):
        val = (val << 4) | nib[:, k]
    return ((val ^ 0x80000000) - 0x80000000), [int(i) for i in bad]


def read_status(path):
    """The wrapper's status file ("key value ..." in hex, any number of lines) ->
    ({key: int, x/z read as 0}, [keys that held x/z])."""
    toks = Path(path).read_text().split()
    st = dict(zip(toks[0::2], toks[1::2]))
    xz = [k for k, v in st.items() if hexint(v) is None]
    return {k: (hexint(v) or 0) for k, v in st.items()}, xz


def read_trace(path, base=16):
    """"pc cycle" lines -> ([(pc, cycle)], number of entries that held x/z, read as 0)."""
    trace, bad = [], 0
    for line in Path(path).read_text().split("\n"):
        if line.strip():
            a, b = line.split()
            if base == 16:
                pa, pb = hexint(a), hexint(b)
            else:
                pa, pb = int(a, base), int(b, base)
            if pa is None or pb is None:
                bad += 1
            trace.append((pa or 0, pb or 0))
    return trace, bad
