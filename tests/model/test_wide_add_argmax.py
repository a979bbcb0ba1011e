"""Issue 37's extensions of ADD and ARGMAX in the twin: ADD over int32 (w = 1: the wide
residual stream, saturating at both ends of int32) and ARGMAX across tiles (base, pair,
acc: a running (index, maximum) pair carried from call to call), each against a
plain-Python transcription of docs/isa.md written here (Python integers, one element at
a time, no numpy), on a fresh Machine per case; plus their ranges, busy cycles, read
counts and faults, and the old words unchanged."""
import random

import pytest

from model import config, func, isa, timing
from model.machine import Machine

CFG = config.DEFAULT
BIG = CFG.replace(sp_words=1 << 14)           # a scratchpad for the field's 8,191 and 4,096-word tiles
B = isa.build
HALT = isa.build("HALT")
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def s8(v):
    return ((v & 0xFF) ^ 0x80) - 0x80


def run(prog, sp=None, image=(), cfg=CFG):
    m = Machine(cfg)
    if sp is not None:
        m.sp[:len(sp)] = sp
    return m.run(prog + [HALT], list(image))


# ------------------------------------------------------------------ the definitions
def add_ref(mem, dst, src, n, src2, w):
    """docs/isa.md ADD: element by element in increasing order (so an overlapping dst
    feeds later elements), each sum clamped (w: int32 words, else their low bytes)."""
    mem = list(mem)
    lo, hi = (I32_MIN, I32_MAX) if w else (-128, 127)
    for i in range(n):
        a, b = mem[src + i], mem[src2 + i]
        mem[dst + i] = max(lo, min(hi, a + b if w else s8(a) + s8(b)))
    return mem


def argmax_ref(mem, dst, src, n, base=0, acc=0, pair=0):
    """docs/isa.md ARGMAX: the running best starts at the pair (acc) or at nothing; a word
    replaces it only when strictly greater (or when there is none yet)."""
    mem = list(mem)
    best, idx = (mem[dst + 1], mem[dst] % (1 << 17)) if acc else (None, None)
    for i in range(n):
        v = mem[src + i]
        if best is None or v > best:
            best, idx = v, base + i
    mem[dst] = idx
    if acc or pair:
        mem[dst + 1] = best
    return mem


# ------------------------------------------------------------------ ADD w = 1
def test_add_wide_saturates_at_both_ends_of_int32():
    a = [I32_MAX, I32_MAX, I32_MIN, I32_MIN, I32_MAX, 1 << 30, -(1 << 30), I32_MAX - 5, I32_MIN + 5,
         123456789, -1, 0, 0x7F, -0x80, 100, 1 << 30]
    c = [1, I32_MAX, -1, I32_MIN, I32_MIN, 1 << 30, -(1 << 30) - 1, 5, -5, -987654321, 1, 0, 1, -1, 100,
         (1 << 30) - 1]
    mem = a + c
    r = run([B("ADD", dst=100, src=0, len=16, src2=16, w=1)], sp=mem)
    got = r.sp[100:116].tolist()
    assert got == add_ref(mem + [0] * 100, 100, 0, 16, 16, 1)[100:116]
    # the ends, typed in: never wrapped
    assert got[:10] == [I32_MAX, I32_MAX, I32_MIN, I32_MIN, -1, I32_MAX, I32_MIN, I32_MAX, I32_MIN,
                        123456789 - 987654321]
    assert got[10:] == [0, 0, 0x80, -0x81, 200, I32_MAX]     # no int8 clamp with w = 1


def test_add_wide_random_against_the_definition():
    rng = random.Random(37)
    for trial in range(30):
        n = rng.choice([1, 2, 7, 64, 576])
        kind = trial % 3
        draw = [lambda: rng.randrange(I32_MIN, I32_MAX + 1),
                lambda: rng.choice([I32_MIN, I32_MAX, -1, 0, 1, I32_MIN + 1, I32_MAX - 1]),
                lambda: rng.randrange(-(1 << 30), 1 << 30)][kind]
        mem = [draw() for _ in range(2 * n)]
        w = 1 if trial % 4 else 0                 # w = 0 on the same wide words: their low bytes
        r = run([B("ADD", dst=2000, src=0, len=n, src2=n, w=w)], sp=mem)
        assert r.sp[2000:2000 + n].tolist() == add_ref(mem + [0] * 3000, 2000, 0, n, n, w)[2000:2000 + n]


@pytest.mark.parametrize("dst, src, src2", [(1, 0, 40), (3, 0, 40), (0, 0, 40), (40, 0, 40),
                                            (41, 0, 40), (39, 40, 0), (0, 0, 0), (5, 0, 0)])
def test_add_wide_streams_in_place(dst, src, src2):
    # dst ahead of an operand by less than len: element i + k reads element i's result;
    # in place (dst = src) and onto itself (src = src2 = dst: doubling, saturating)
    rng = random.Random(dst * 100 + src2)
    mem = [rng.choice([I32_MAX, I32_MIN, rng.randrange(I32_MIN, I32_MAX + 1), 1 << 29]) for _ in range(96)]
    r = run([B("ADD", dst=dst, src=src, len=32, src2=src2, w=1)], sp=mem)
    assert r.sp[:96].tolist() == add_ref(mem, dst, src, 32, src2, 1)


def test_add_wide_longest_streamed_onto_itself():
    # the field's 8,191 (the model needs 576): sp[k+1] = sat32(sp[k] + sp[k+1]), a
    # running sum that reaches the top and stays there
    n = 8191
    mem = [1 << 20] * (n + 1)
    r = run([B("ADD", dst=1, src=0, len=n, src2=1, w=1, cfg=BIG)], sp=mem, cfg=BIG)
    want = add_ref(mem, 1, 0, n, 1, 1)
    assert r.sp[:n + 1].tolist() == want
    assert want[2046] == 2047 << 20 and want[2047] == I32_MAX and want[n] == I32_MAX


def test_add_w_changes_nothing_else():
    for w in (0, 1):
        ins = B("ADD", dst=10, src=100, len=57, src2=300, w=w)
        assert timing.busy_cycles(ins, CFG) == 2 * 57 + 1
        assert func.sp_reads(ins) == 2 * 57
        assert [tuple(r) for r in func.reads(ins)] == [("sp", 100, 156), ("sp", 300, 356)]
        assert [tuple(r) for r in func.writes(ins)] == [("sp", 10, 66)]
    # an old word (w absent) is the w = 0 word, bit for bit
    assert isa.encode(B("ADD", dst=1, src=2, len=3, src2=4)) == isa.encode(B("ADD", dst=1, src=2, len=3, src2=4, w=0))
    assert isa.encode(B("ADD", dst=1, src=2, len=3, src2=4, w=1)) >> 65 == 1


# ------------------------------------------------------------------ ARGMAX across tiles
def tiled(logits, tile, dst, src, last_pair=1):
    """The tile calls of an argmax over logits at sp[src ..): the first with pair = 1, the
    others with acc = 1, each with its base (no set-up instruction)."""
    prog = []
    for k, b0 in enumerate(range(0, len(logits), tile)):
        n = min(tile, len(logits) - b0)
        prog.append(B("ARGMAX", dst=dst, src=src + b0, len=n, base=b0, acc=int(k > 0), pair=last_pair))
    return prog


def test_argmax_base_pair_acc_against_the_definition():
    rng = random.Random(5)
    for trial in range(200):
        n = rng.choice([1, 2, 3, 8, 40])
        kind = trial % 4
        vals = ([rng.randrange(I32_MIN, I32_MAX + 1) for _ in range(n)] if kind == 0 else
                [rng.randrange(-2, 3) for _ in range(n)] if kind == 1 else
                [rng.choice([I32_MIN, I32_MAX]) for _ in range(n)] if kind == 2 else
                [I32_MIN] * n)
        base, acc, pair = rng.choice([0, 1, 4095, 65535, rng.randrange(1 << 16)]), rng.randrange(2), rng.randrange(2)
        run_pair = [rng.choice([0, 3, (1 << 17) - 1, 1 << 17, -1, I32_MAX]),
                    rng.choice([I32_MIN, I32_MAX, 0, -1, 1, vals[0], max(vals)])]
        mem = run_pair + [0] * 8 + vals
        r = run([B("ARGMAX", dst=0, src=10, len=n, base=base, acc=acc, pair=pair)], sp=mem)
        assert r.sp[:10 + n].tolist() == argmax_ref(mem, 0, 10, n, base, acc, pair), (base, acc, pair, mem)


def test_argmax_index_is_17_bits():
    # base + i past 2^16 (the last tile of a 2^16-word vocabulary and beyond): the index
    # word holds it whole; a running index is read as its word's low 17 bits
    vals = [1, 2, 9, 3]
    r = run([B("ARGMAX", dst=0, src=10, len=4, base=65535)], sp=[0] * 10 + vals)
    assert r.sp[0] == 65535 + 2
    r = run([B("ARGMAX", dst=0, src=10, len=4, base=65535, acc=1)], sp=[(5 << 17) + 7, 100] + [0] * 8 + vals)
    assert r.sp[:2].tolist() == [7, 100]
    r = run([B("ARGMAX", dst=0, src=10, len=4, base=65535, acc=1)], sp=[-1, 9] + [0] * 8 + vals)
    assert r.sp[:2].tolist() == [(1 << 17) - 1, 9]        # a tie: the running pair stays, 17 bits


@pytest.mark.parametrize("where", ["first", "same tile", "later tile", "last word"])
def test_argmax_ties_across_tiles_the_lowest_index_wins(where):
    # 12 tiles of 256 (a 3,072-word vector); the maximum M appears in several tiles
    n, tile, M = 3072, 256, 1000
    rng = random.Random(len(where))
    logits = [rng.randrange(-5000, M) for _ in range(n)]
    spots = {"first": [0, 256, 3071], "same tile": [300, 301, 511], "later tile": [767, 768, 2048],
             "last word": [3071]}[where]
    for s in spots:
        logits[s] = M
    dst, src = 4000, 100
    r = run(tiled(logits, tile, dst, src), sp=[0] * src + logits)
    assert r.sp[dst] == min(spots) == logits.index(max(logits))
    assert r.sp[dst + 1] == M


def test_argmax_tiles_equal_one_pass_and_feed_ldx():
    # a vocabulary of 4,000 logits in tiles of 512 and in ragged tiles: the token equals
    # the one-pass argmax, and LDX reads it from sp[dst] (the embedding row)
    rng = random.Random(9)
    n = 4000
    for trial in range(8):
        logits = [rng.randrange(-(1 << 31), 1 << 31) if trial % 2 else rng.randrange(-3, 3) for _ in range(n)]
        want = logits.index(max(logits))
        for tile in (512, 1000, 1, 4000, 333):
            prog = tiled(logits[:50], 1, 10, 60) if tile == 1 else tiled(logits, tile, 10, 60)
            w = logits[:50].index(max(logits[:50])) if tile == 1 else want
            r = run(prog, sp=[0] * 60 + logits)
            assert (r.sp[10], r.sp[11]) == (w, max(logits[:50]) if tile == 1 else max(logits))
    # LDX row sp[dst] of a 4000-row table of 1 word at ext 0
    logits = [rng.randrange(-100, 100) for _ in range(n)]
    table = [7 * k + 1 for k in range(n)]
    prog = tiled(logits, 512, 10, 60) + [B("LDX", dst=20, src=0, len=1, idx=10, rows=n)]
    r = run(prog, sp=[0] * 60 + logits, image=table)
    assert r.sp[20] == table[logits.index(max(logits))]


def test_argmax_smollm2_head_is_the_tile_calls():
    # 49,152 logits as 12 tiles of 4,096: 12 instructions, no set-up; the tiles are
    # brought in one by one, the pair stays at sp[0..1]; the last tile's index is 49,151
    rng = random.Random(49152)
    vocab, tile = 49152, 4096
    logits = [rng.randrange(-(1 << 20), 1 << 20) for _ in range(vocab)]
    logits[40000] = logits[45000] = 1 << 21                   # a tie in two late tiles
    m = Machine(BIG)
    prog = []
    for b0 in range(0, vocab, tile):
        m.sp[2:2 + tile] = logits[b0:b0 + tile]
        ins = B("ARGMAX", dst=0, src=2, len=tile, base=b0, acc=int(b0 > 0), pair=1, cfg=BIG)
        m.run([ins, HALT])
        prog.append(ins)
    assert len(prog) == 12 and (int(m.sp[0]), int(m.sp[1])) == (40000, 1 << 21)
    m.sp[2 + tile - 1] = 1 << 22                                # the very last logit: 49,151
    m.run([prog[-1], HALT])
    assert (int(m.sp[0]), int(m.sp[1])) == (vocab - 1, 1 << 22)


def test_argmax_fields_ranges_busy_reads():
    cases = [  # (base, acc, pair) -> busy extra, reads of dst, writes of dst
        ((0, 0, 0), 0, None, (300, 300)),
        ((7, 0, 1), 1, None, (300, 301)),
        ((7, 1, 0), 3, (300, 301), (300, 301)),
        ((9, 1, 1), 3, (300, 301), (300, 301)),
    ]
    for (base, acc, pair), extra, rd, wr in cases:
        ins = B("ARGMAX", dst=300, src=10, len=40, base=base, acc=acc, pair=pair)
        assert timing.busy_cycles(ins, CFG) == 40 + 1 + extra
        assert func.sp_reads(ins) == 40 + 2 * acc
        assert [tuple(r) for r in func.reads(ins)] == [("sp", 10, 49)] + ([("sp", *rd)] if rd else [])
        assert [tuple(r) for r in func.writes(ins)] == [("sp", *wr)]
    old = B("ARGMAX", dst=3, src=4, len=5)
    assert isa.encode(old) == isa.encode(B("ARGMAX", dst=3, src=4, len=5, base=0, acc=0, pair=0))


@pytest.mark.parametrize("fields, ok", [
    (dict(dst=4095, src=0, len=7), True),                     # the index alone fits the last word
    (dict(dst=4095, src=0, len=7, pair=1), False),
    (dict(dst=4095, src=0, len=7, acc=1), False),
    (dict(dst=4094, src=0, len=7, acc=1, pair=1), True),
    (dict(dst=4094, src=0, len=7, base=65535, acc=1), True),
])
def test_argmax_pair_must_fit(fields, ok):
    bad = isa.check(isa.raw("ARGMAX", **{"base": 0, "acc": 0, "pair": 0, **fields}), CFG)
    assert (bad is None) == ok
    if not ok:
        assert bad[:2] == (isa.ERR_SP_RANGE, "dst")


def test_argmax_reads_every_input_before_writing():
    # dst inside the tile: the pair is written after the whole scan (and acc's pair read
    # before it), so the tile's words at dst, dst + 1 count with their old values
    vals = [3, 50, 50, 7, 60, 1]
    for acc in (0, 1):
        mem = [0] * 10 + vals
        r = run([B("ARGMAX", dst=13, src=10, len=6, base=100, acc=acc, pair=1)], sp=mem)
        assert r.sp[:16].tolist() == argmax_ref(mem, 13, 10, 6, 100, acc, 1)
