"""What the host hands the chip, checked before anything runs: programs and memory images.

The chip's memories hold exactly 128-bit instruction words and 32-bit data words. A
value that does not fit is a host bug: it gets a ValueError naming the item here, before
the reference or a simulator sees it, instead of being wrapped, truncated or reported
later as a chip mismatch.

    program_words(prog, cfg)        Instr objects or integer words -> list of Python ints
    memory_image(image, words, what) integers -> np.int64 array of signed 32-bit words

A data word may be given signed (-2^31 .. 2^31-1) or unsigned (0 .. 2^32-1); both mean
the same 32 bits. Floats, booleans and strings are refused, even when integral, because
a float image is almost always a scale that was not quantized.
"""
import numbers

import numpy as np

from . import config, isa

WORD_MIN, WORD_END = -(1 << 31), 1 << 32


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _checked_ints(items):
    """items as an np.int64 array when every item is a plain int (or every item the same
    numpy integer type) inside -2^31 .. 2^32-1; None otherwise (the caller then finds and
    names the first bad item word by word). Speed (tools/bench/bench_model.py): the type
    test is one pass over the types, the range test two array reductions, instead of a
    Python check per word."""
    types = set(map(type, items))
    if not types or types == {int}:
        try:
            vals = np.array(items, dtype=np.int64)
        except OverflowError:           # past 64 bits: certainly past 32
            return None
    elif len(types) == 1 and issubclass(next(iter(types)), np.integer):
        vals = np.array(items, dtype=next(iter(types)))
    else:
        return None
    if vals.size and (int(vals.min()) < WORD_MIN or int(vals.max()) >= WORD_END):
        return None
    return vals.astype(np.int64, copy=False)


def program_words(prog, cfg=None):
    """The instruction words of prog (isa.Instr or integer words, mixed), as Python ints.

    ValueError for a word outside 0 .. 2^128-1, a non-integer item (isa.as_words), or a
    program longer than cfg's instruction memory.
    """
    cfg = config.resolve(cfg)
    out = isa.as_words(prog)
    if len(out) > cfg.imem_depth:
        raise ValueError(f"program of {len(out)} instructions exceeds the instruction memory "
                         f"({cfg.imem_depth})")
    return out


def memory_image(image, words, what="external memory"):
    """A words-long np.int64 array of signed 32-bit values from a shorter image (zero-padded).

    image: None, a sequence of integers, or an integer numpy array. ValueError for a
    longer image, a non-integer value (floats included), or a value outside
    -2^31 .. 2^32-1.
    """
    out = np.zeros(int(words), dtype=np.int64)
    if image is None:
        return out
    if isinstance(image, np.ndarray):
        if image.dtype.kind not in "iu":
            raise ValueError(f"{what} image has dtype {image.dtype}: integer words only "
                             "(quantize floats first)")
        flat = image.ravel()
        if flat.size > words:
            raise ValueError(f"{what} image of {flat.size} words larger than the memory ({words})")
        if flat.size and (int(flat.min()) < WORD_MIN or int(flat.max()) >= WORD_END):
            bad = next(i for i, v in enumerate(flat.tolist()) if not WORD_MIN <= v < WORD_END)
            raise ValueError(f"{what} image word {bad} = {int(flat[bad])} does not fit 32 bits "
                             f"(-2^31 .. 2^32-1)")
        vals = flat.astype(np.int64)
    else:
        if isinstance(image, (str, bytes)) or not hasattr(image, "__iter__"):
            raise ValueError(f"{what} image must be a sequence of integer words, got {type(image).__name__}")
        items = list(image)
        if len(items) > words:
            raise ValueError(f"{what} image of {len(items)} words larger than the memory ({words})")
        vals = _checked_ints(items)
        if vals is not None:            # every word an integer that fits: checked in one pass
            out[:vals.size] = ((vals & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
            return out
        # a word that is not an integer or does not fit: find the first one, in order
        for i, v in enumerate(items):
            if not _is_int(v):
                raise ValueError(f"{what} image word {i} = {v!r} is not an integer "
                                 "(integer words only; quantize floats first)")
            if not WORD_MIN <= int(v) < WORD_END:
                raise ValueError(f"{what} image word {i} = {int(v)} does not fit 32 bits (-2^31 .. 2^32-1)")
        vals = np.array([int(v) for v in items], dtype=np.int64)
    out[:vals.size] = ((vals & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    return out
