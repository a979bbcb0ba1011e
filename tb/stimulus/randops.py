"""The random drawers of the co-simulation's programs: fields, images and one instruction each.

rand_op(rng, cfg, b, op) draws ONE valid instruction of any op (through the builder b,
model.isa.build on the chip's Config) from its record's random-stimulus ranges (model/ops,
Op.stim): its shape fields at their limits or inside them (a length: mostly short,
sometimes up to its cap), its ranges placed at both ends of their memory (past 2^16 on a
chip with more external words: build splits them into xhi and the 16-bit field), a
destination over a source when the record asks ("near:src": ahead, behind, in place),
mantissa / shift pairs from realistic to extreme (rand_ms), other fields uniform in their
width. rand_ld, rand_st and rand_mm draw the ops every program uses with finer control
(strides including 0 and overlapping outputs, tb), rand_lookup an embedding lookup whose
index word another op has written. random_image draws an external memory mixing
int8-range and full 32-bit words. Why a module: the random programs (randprog.py), the
hazard programs (collide.py), the units bench and the tests draw from the same
distributions.
"""
import numpy as np

from model import ops


def rng_of(seed_or_rng):
    """A numpy Generator: seed_or_rng itself, or a new one seeded with it."""
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng
    return np.random.default_rng(seed_or_rng)


def random_image(rng, ext, n=None):
    """ext words: int8-range values, full 32-bit words and zeros, mixed in runs."""
    n = ext if n is None else n
    img = np.zeros(n, dtype=np.int64)
    pos = 0
    while pos < n:
        run = int(rng.integers(1, 300))
        kind = rng.integers(0, 4)
        seg = slice(pos, min(n, pos + run))
        m = seg.stop - seg.start
        if kind == 0:
            img[seg] = rng.integers(-128, 128, size=m)
        elif kind == 1:
            img[seg] = rng.integers(-(1 << 31), 1 << 31, size=m)
        elif kind == 2:
            img[seg] = rng.choice([-128, 127, -1, 0, 1, -(1 << 31), (1 << 31) - 1], size=m)
        else:
            img[seg] = rng.integers(-8, 8, size=m)
        pos = seg.stop
    return img


def _addr(rng, span, size, small=1024):
    """A base address so that base .. base+span-1 fits in size words; often low, sometimes at the end."""
    hi = size - span
    if hi < 0:
        raise ValueError(f"span {span} does not fit {size} words")
    r = rng.random()
    if r < 0.08:
        return hi                               # touches the last word
    if r < 0.12:
        return 0
    if r < 0.75:
        return int(rng.integers(0, min(hi, small) + 1))
    return int(rng.integers(0, hi + 1))


def _len(rng, cap):
    r = rng.random()
    if r < 0.5:
        n = int(rng.integers(1, 17))
    elif r < 0.85:
        n = int(rng.integers(1, 129))
    elif r < 0.95:
        n = int(rng.integers(1, 513))
    else:
        n = 1
    return min(n, cap)


def rand_ld(rng, cfg, b):
    ext, SP = cfg.ext_words, cfg.sp_words
    n = _len(rng, min(ext, SP))
    return b("LD", dst=_addr(rng, n, SP), src=_addr(rng, n, ext), len=n)


def rand_st(rng, cfg, b, src=None, n=None):
    ext, SP = cfg.ext_words, cfg.sp_words
    n = _len(rng, min(ext, SP)) if n is None else min(n, ext)
    src = _addr(rng, n, SP) if src is None else src
    return b("ST", src=src, dst=_addr(rng, n, ext), len=n)


def _stride(rng, minimum):
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.2:
        return int(rng.integers(0, max(1, minimum)))    # overlapping rows
    if r < 0.85:
        return minimum + int(rng.integers(0, 8))
    return int(rng.integers(0, 4096 // 8))


def rand_mm(rng, cfg, b):
    SP = cfg.sp_words
    M, N = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    r = rng.random()
    K = int(rng.integers(1, 9)) if r < 0.5 else int(rng.integers(1, 65)) if r < 0.9 else int(rng.integers(1, 256))
    tb = int(rng.integers(0, 2))
    # 16-bit A operands in a quarter; a depth past 255 (khi) in a twentieth, where it fits
    a16 = int(rng.random() < 0.25)
    if rng.random() < 0.05 and SP >= 4 * 256:
        K = int(rng.integers(256, min(2048, SP // 4 + 1)))
    lda, ldb = _stride(rng, K), _stride(rng, K if tb else N)
    ldc = _stride(rng, N)
    for _ in range(20):
        a_span = (M - 1) * lda + K
        b_span = ((N - 1) * ldb + K) if tb else ((K - 1) * ldb + N)
        c_span = (M - 1) * ldc + N
        if max(a_span, b_span, c_span) <= SP:
            break
        lda, ldb, ldc = lda // 2, ldb // 2, ldc // 2
    return b("MM", dst=_addr(rng, c_span, SP), A=_addr(rng, a_span, SP), B=_addr(rng, b_span, SP),
             M=M, K=K & 255, N=N, tb=tb, lda=lda, ldb=ldb, ldc=ldc, khi=K >> 8, a16=a16)


def rand_ms(rng):
    """(m, s) of a record's "ms" pair: realistic mantissa/shift, or extremes of both fields."""
    r = rng.random()
    if r < 0.5:
        return int(rng.integers(1 << 14, 1 << 15)), int(rng.integers(8, 31))
    if r < 0.7:
        return int(rng.integers(0, 1 << 16)), int(rng.integers(0, 64))
    return (int(rng.choice([0, 1, 1 << 14, (1 << 15) - 1, 1 << 15, (1 << 16) - 1])),
            int(rng.choice([0, 1, 2, 15, 16, 31, 32, 47, 48, 62, 63])))


def rand_norm_ms(rng):
    """(m, s) of a record's "normms" pair: mostly the language model's norm range (results
    of random int8 inputs inside -128..127, where a wrong r shows), else rand_ms's."""
    if rng.random() < 0.6:
        return int(rng.integers(1 << 14, 1 << 15)), int(rng.integers(27, 34))
    return rand_ms(rng)


def rand_value(rng, kind, width, fields=None):
    """A value field by its record's stimulus kind: "ms" / "normms" a mantissa or shift
    (the caller takes the pair); "rare": 0 mostly (a field that multiplies an extent:
    MM's khi); "stride:<field>" a row stride for rows of that field's words ("stride:<n>":
    of n words; _stride: 0, overlapping, a few words past, any), else uniform in its
    width."""
    if kind == "rare" and rng.random() < 0.85:
        return 0
    if isinstance(kind, str) and kind.startswith("stride:"):
        row = kind[len("stride:"):]
        row = int(row) if row.isdigit() else (fields or {}).get(row, 1)
        return min(_stride(rng, row), (1 << width) - 1)
    return int(rng.integers(0, 1 << width))


def _shape_value(rng, rec, s, cfg):
    """A shape field's value: inside its record's bounds, often at them."""
    lo, hi = ops.shape_limits(rec, s, cfg)
    cap = rec.stim.get(s.field)
    if hi is not None:
        top = hi if not isinstance(cap, int) else min(hi, cap)
        if rng.random() < 0.7:
            return int(rng.integers(lo, top + 1))
        return int(rng.choice([lo, min(lo + 1, top), max(lo, top - 1), top]))
    top = cap if isinstance(cap, int) else min(cfg.ext_words, cfg.sp_words)
    return max(lo, _len(rng, min(top, (1 << rec.widths[s.field]) - 1)))


def rand_op(rng, cfg, b, op, **fixed):
    """One valid instruction of op drawn from its record's stimulus ranges (the module
    docstring); fixed: fields given by the caller."""
    rec = ops.TABLE[op]
    f = dict(fixed)
    for s in rec.shape:
        if s.field not in f:
            f[s.field] = _shape_value(rng, rec, s, cfg)
    kinds = rec.stim
    if kinds.get("m") in ("ms", "normms") and "m" not in f:
        f["m"], f["s"] = rand_norm_ms(rng) if kinds["m"] == "normms" else rand_ms(rng)
    bases = {r.base for r in rec.ranges}
    for name, w in rec.fields:
        if name not in f and name not in bases and name != "xhi":
            f[name] = rand_value(rng, kinds.get(name), w, f)
    # the extents follow from the fields drawn so far (the drawn shape fields and strides
    # halved until every range fits its memory); the bases are placed to fit them
    for _ in range(32):
        a = tuple(f.get(n, 0) for n, _ in rec.fields)
        spans = {r.base: n(a, cfg) for r, n in zip(rec.ranges, ops.VIEWS[op]["extents"])}
        if all(spans[r.base] <= (cfg.sp_words if r.space == ops.SP else cfg.ext_words) for r in rec.ranges):
            break
        for name in kinds:
            if (kinds[name] == "rare" or str(kinds[name]).startswith("stride:")) and name not in fixed:
                f[name] //= 2
        for sh in rec.shape:
            if sh.field not in fixed:
                lo = ops.shape_limits(rec, sh, cfg, tuple(f.get(n, 0) for n, _ in rec.fields))[0]
                f[sh.field] = max(lo, f[sh.field] // 2)
    for r in rec.ranges:
        if r.base in f:
            continue
        size = cfg.sp_words if r.space == ops.SP else cfg.ext_words
        hint = kinds.get(r.base, "")
        near = [x for x in hint[len("near:"):].split("|") if x in f] if hint.startswith("near:") else []
        same = hint[len("same:"):] if hint.startswith("same:") else None
        if same in f and rng.random() < 0.15:
            f[r.base] = f[same]
        elif near and rng.random() < 0.3:
            base = f[near[int(rng.integers(0, len(near)))]]
            d = int(rng.integers(-spans[r.base], spans[r.base] + 1))
            f[r.base] = min(max(base + d, 0), size - spans[r.base])
        else:
            f[r.base] = _addr(rng, spans[r.base], size)
    return b(op, **f)


def rand_lookup(rng, cfg, b, idx, rows_min):
    """A table lookup reading its index at idx from a table of at least rows_min rows (an
    index below rows_min is valid): the hook rand_lookup of tb/stimulus/ops/."""
    from tb.stimulus import ops as stim_ops
    return stim_ops.hooks("rand_lookup")[0](rng, cfg, b, idx, rows_min)
