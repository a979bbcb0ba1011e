"""Fixed-point softmax of GA-2 (its instruction: model/ops/sm.py), exactly as the spec fixes it.

Scores are int8 in units of 1/16; the exponential comes from a 256-entry table
LUT[d] = floor(65535 * exp(-d/16) + 0.5) indexed by d = max - x; probabilities are Q16
integers p_i = floor(e_i * 65536 / S). The RTL's exp table is generated from LUT below.
"""
import math

LUT_SIZE = 256
Q16 = 1 << 16


def lut_entry(d):
    """One exp table entry: floor(65535 * exp(-d/16) + 0.5)."""
    return math.floor(65535 * math.exp(-d / 16) + 0.5)


LUT = tuple(lut_entry(d) for d in range(LUT_SIZE))


def softmax_fixed(x):
    """Q16 softmax of a non-empty sequence of int8 values (list of ints)."""
    x = [int(v) for v in x]
    if not x:
        raise ValueError("softmax_fixed: empty input")
    if any(v < -128 or v > 127 for v in x):
        raise ValueError("softmax_fixed: inputs must be int8 (-128..127)")
    mx = max(x)
    e = [LUT[mx - v] for v in x]
    total = sum(e)
    return [ei * Q16 // total for ei in e]
