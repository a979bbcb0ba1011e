"""A generation on the chip: B sequences decoded together, one compiled step after another.

The host writes the external memory once (the int8 weights, the prompts' token ids), loads
and starts each step's program, and reads the token ids at the end. Nothing else crosses:
between steps the chip's only state is its external memory -- the weights, the token ids
(prompts, then the generated ones) and the KV cache -- so every step starts from whatever
its scratchpad holds (tests fill it with garbage). Prompts are prefilled on chip, one token
a step (a prefill row computes no logits); sequences may start at different steps, so one
step holds rows at different positions (a ragged batch).

The steps are tools/lm/compiler's (one description, one layout, one emitter); with
remedies (compiler.Remedies: a 4-bit cache, a sliding window with sinks, tiles; contexts
past the model's positions) the description's tiled plan, on the smallest chip of
compiler.CHIPS that holds it (generation()). The references for what comes out are
tools/lm/int8.py's Int8Model and tools/lm/remedies_ref.py (written from the spec, not from
the compiler): tools/lm/generate.py and the tests hold every token and cached row to them.
"""
import numpy as np

from tools.lm.compiler import CHIPS, LM_CHIP, Layout, Remedies, Row, chip_config, describe, step_program


class Generation:
    """B sequences: prompts (token id lists), new[b] tokens to generate for each, start[b]
    the step at which sequence b begins (0 for all by default; later starts make ragged
    positions: rows of one step at different positions).

    steps: per step its Row list (sequence b at step k is at position k - start[b], from
    0 through len(prompt) + new - 2: the last generated token is not fed back).
    remedies: a compiler.Remedies (or None: a plain model's whole plan; a grouped-query or
    4-bit model gets Remedies(kv_bits=its)), with a chip of compiler.chip_config for
    contexts past 64 positions. pipeline: the description's (default: the whole plan's
    steps may be pipelined, the tiled plan's not: compiler.describe). desc, layout: the
    compiler's description and layout.
    """

    def __init__(self, net, prompts, new, start=None, chip=LM_CHIP, remedies=None, pipeline=None):
        m = net.cfg
        B = len(prompts)
        if B < 1:
            raise ValueError("a generation needs at least one prompt")
        new = [new] * B if isinstance(new, int) and not isinstance(new, bool) else list(new)
        start = [0] * B if start is None else list(start)
        if len(new) != B or len(start) != B:
            raise ValueError(f"{B} prompts but {len(new)} token counts and {len(start)} starts")
        for b, (p, n, s0) in enumerate(zip(prompts, new, start)):
            if len(p) < 1:
                raise ValueError(f"sequence {b}: an empty prompt")
            if any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < m.vocab
                   for t in p):
                raise ValueError(f"sequence {b}: a token id outside 0..{m.vocab - 1}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"sequence {b}: tokens to generate must be >= 1, got {n!r}")
            if len(p) + n > m.ctx and remedies is None:
                raise ValueError(f"sequence {b}: {len(p)} prompt tokens + {n} new ones exceed "
                                 f"the context {m.ctx}")
            if isinstance(s0, bool) or not isinstance(s0, int) or s0 < 0:
                raise ValueError(f"sequence {b}: start must be >= 0, got {s0!r}")
        self.net, self.prompts = net, [list(map(int, p)) for p in prompts]
        self.new, self.start = new, start
        ctx = max(len(p) + n for p, n in zip(prompts, new))
        kv_bits = getattr(net, "kv_bits", 8)
        if remedies is None and (m.kv_heads or kv_bits != 8):
            remedies = Remedies(kv_bits=kv_bits)
        self.remedies = remedies
        self.desc = describe(net, remedies, pipeline)
        self.layout = Layout(self.desc, B, ctx, chip)
        self.steps = []
        for k in range(max(s0 + len(p) + n - 1 for p, n, s0 in zip(prompts, new, start))):
            rows = []
            for b, (p, n, s0) in enumerate(zip(prompts, new, start)):
                t = k - s0
                if 0 <= t < len(p) + n - 1:
                    rows.append(Row(b, t, t + 1 >= len(p)))
            if rows:
                self.steps.append(rows)

    def programs(self):
        """The step programs, in order."""
        return [step_program(self.net, self.layout, rows) for rows in self.steps]

    def image(self):
        return self.layout.image(self.net, self.prompts)

    def tokens(self, ext):
        """The generated ids of each sequence, read from a final external memory."""
        lay = self.layout
        return [[int(v) for v in ext[lay.tokens + b * lay.ctx + len(p):
                                     lay.tokens + b * lay.ctx + len(p) + n]]
                for b, (p, n) in enumerate(zip(self.prompts, self.new))]

    def cache(self, ext, layer, kind, b):
        """Sequence b's cached K (kind 0) or V (kind 1) rows of layer, from a final external
        memory: (positions it fed, d). The whole plan's only (cache_rows reads any)."""
        lay, n = self.layout, len(self.prompts[b]) + self.new[b] - 1
        if self.remedies is not None:
            raise ValueError("a remedied generation's cache is slots: read it with cache_rows")
        a = lay.kv(layer, kind, b)
        return np.asarray(ext[a:a + n * lay.row_words]).reshape(n, lay.row_words)


def generation(net, prompts, new, remedies, mode="overlap", start=None, pipeline=None):
    """Generation of prompts with remedies on the smallest chip_config of CHIPS whose
    external memory holds its layout (ValueError from the last when none does)."""
    for k, (ext, imem) in enumerate(CHIPS):
        try:
            return Generation(net, prompts, new, start=start, remedies=remedies,
                              chip=chip_config(mode, ext, imem), pipeline=pipeline)
        except ValueError as e:
            if k == len(CHIPS) - 1 or "external memory" not in str(e):
                raise


def unpack4(words):
    """Packed words (..., n) -> 4-bit values (..., 2n): bits 0-3 then 4-7, sign-extended
    (PACK4's format, docs/isa.md)."""
    w = np.asarray(words, dtype=np.int64)
    lo, hi = w & 15, (w >> 4) & 15
    out = np.empty(w.shape[:-1] + (2 * w.shape[-1],), dtype=np.int64)
    out[..., 0::2], out[..., 1::2] = lo - 16 * (lo > 7), hi - 16 * (hi > 7)
    return out


def cache_rows(gen, ext, layer, kind, b):
    """(positions, words, values) of sequence b's K (kind 0) or V (kind 1) rows of layer in
    a final external memory: the positions the cache holds after the last step (those the
    last step attended), each row's words as stored (dk / 2 packed words for a 4-bit cache)
    and its values (unpacked)."""
    lay = gen.layout
    t = len(gen.prompts[b]) + gen.new[b] - 2            # the last position fed
    pos = lay.attended(t)
    a = lay.kv(layer, kind, b)
    words = np.array([ext[a + lay.desc.slot(u) * lay.row_words:][:lay.row_words]
                      for u in pos], dtype=np.int64).reshape(len(pos), lay.row_words)
    return pos, words, unpack4(words) if lay.desc.kv_bits == 4 else words


def write_cache(gen, ext, layer, kind, b, positions, rows):
    """The host prefilling sequence b's K (kind 0) or V (kind 1) rows of layer: rows (one
    of dk values per position, 4-bit values packed) into their slots of ext, in place."""
    lay = gen.layout
    a = lay.kv(layer, kind, b)
    rows = np.asarray(rows, dtype=np.int64)
    if lay.desc.kv_bits == 4:
        rows = (rows[:, 0::2] & 15) | ((rows[:, 1::2] & 15) << 4)
    for u, r in zip(positions, rows):
        s = a + lay.desc.slot(u) * lay.row_words
        ext[s:s + lay.row_words] = r
