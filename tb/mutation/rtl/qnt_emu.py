"""ga2_qnt's scale word step by step, as rtl/ga2_qnt.v computes it, with the constants a
mutant changes as parameters: the normalisations' thresholds and shifts, the square root's
sign bit, the mantissa's 19-bit restoring division (which a mutant may feed a divisor
below 2^31), j from Qm's top bits, the 17-bit rounding sum. With the RTL's constants it
equals the reference (model/ops/qnt.py) on every row (tests/tb/test_qnt_emu.py); with one
constant off it finds the rows that tell such a mutant apart (QNT's edge rows,
tb/stimulus/ops/qnt.py: one_off() and search())."""
import random

THRESH = (12, 44, 60, 68, 72, 74)        # a normalisation step shifts while v >> t == 0
SHIFTS = (64, 32, 16, 8, 4, 2)
KQ = {1: 0x80010002, 0: 0x81020408}       # round(2^(31+n) / qmax)
W76 = (1 << 76) - 1


def norm(v, thresh=THRESH, shifts=SHIFTS):
    """The shift the six greedy steps give v (76-bit register)."""
    y = 0
    for s, t in zip(shifts, thresh):
        if ((v << y) & W76) >> t == 0:
            y += s
    return y


def isqrt_steps(v64, sign_bit=33):
    """S_SQ: 32 steps of two bits, the 34-bit difference's sign read at sign_bit."""
    root = rem = 0
    for k in range(32):
        trial = (rem << 2) | ((v64 >> (62 - 2 * k)) & 3)
        diff = (trial - (((root << 2) | 1) & ((1 << 33) - 1))) & ((1 << 34) - 1)
        fits = not (diff >> sign_bit) & 1
        rem = (diff if fits else trial) & ((1 << 32) - 1)
        root = ((root << 1) | fits) & ((1 << 32) - 1)
    return root


def qm_steps(pt, c):
    """S_DM: 19 restoring steps of pt * 2^19 / c, 0s as the next bits (the remainder kept
    in 32 bits, as the register is)."""
    rem, q = pt, 0
    for _ in range(19):
        trial = rem << 1
        fits = trial >= c
        rem = ((trial - c) if fits else trial) & ((1 << 32) - 1)
        q = ((q << 1) | fits) & ((1 << 19) - 1)
    return q


def scale_word(x, b16, rms, q=0, thresh=THRESH, shifts=SHIFTS, sign_bit=33):
    """The scale word of the int32 row x (a list of ints)."""
    A = max(abs(v) for v in x)
    if A == 0:
        return 0
    n = 15 if b16 else 7
    sh = 32 - A.bit_length()
    pt = ((A << sh) * KQ[b16]) >> 33
    if rms:
        ss = sum(v * v for v in x)
        y = norm(ss, thresh, shifts)
        mn = ((ss << y) & W76) // len(x)
        y2 = norm(mn, thresh, shifts)
        c = isqrt_steps(((mn << y2) & W76) >> 12, sign_bit)
        X = (y + y2) // 2 - 8 - n - sh
    else:
        c, X = 1 << 31, 29 - n - sh - q
    qm = qm_steps(pt, c)
    q18, q17 = (qm >> 18) & 1, (qm >> 17) & 1
    j = ((q18 | q17) << 1) | (1 - q17)
    mr = ((qm >> j) & 0xFFFF) + ((qm >> (j - 1)) & 1)
    if j == 3:
        mr &= 0xFFFF                      # j = 3's sum is 16 bits
    e = (X + j + (mr >> 16)) & 0xFF
    return (e << 16) | (((mr >> 16) | ((mr >> 15) & 1)) << 15) | (mr & 0x7FFF)


def one_off(k):
    """The thresholds with step k's one bit lower (ga2_qnt.v's `ss_q >> t` const mutants)."""
    t = list(THRESH)
    t[k] -= 1
    return tuple(t)


def search(differs, lens, n, seed=1):
    """A row [a, -b] + zeros of a length in lens (16-bit, rms) whose word differs(x) says
    tells a mutant apart, or None after n tries."""
    rng = random.Random(seed)
    for _ in range(n):
        a = rng.randint(1, (1 << 31) - 1) >> rng.randint(0, 20)
        b = rng.randint(0, (1 << 31) - 1) >> rng.randint(0, 31)
        x = [a, -b] + [0] * (rng.randint(*lens) - 2)
        if differs(x):
            return x
    return None
