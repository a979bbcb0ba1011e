"""SmolLM2 on the chip: a greedy generation compiled by the step compiler's wide path
(tools/lm/compiler/wide.py), run on the cycle-exact Machine or a simulated RTL, and held
to the integer reference (tools/smollm2/int_ref.py: written from the pipeline's statement,
not from the compiler).

A generation of one prompt: prefill steps of up to PREFILL_ROWS of the prompt's positions
as rows, as many as the scratchpad holds (the last one's ARGMAX writes the first new
token), then one decode step a token
(its row at the next position, the token it reads the one the previous step stored: the
host never touches the memory between steps). Everything the chip keeps between steps is
in its external memory (WideLayout: weights, rope rows, token area, KV cache).

Chips: CUT_CHIP (a 65,536-word scratchpad, 2^20 external words, 4,096 instructions) holds
the cut-down models the tests run; full_chip() the whole model (FULL_EXT external words,
2^17 instructions: a step is up to about 80,000).
"""
from collections import namedtuple

import numpy as np

from model import config
from tools.lm.compiler.desc import Desc
from tools.lm.compiler.wide import Row, step_program
from tools.lm.compiler.wide_layout import HEAD_DIM, PV_TILE, VOCAB_CHUNK, WideLayout
from tools.lm.generate import chip_steps, hw_item, machine_steps

PREFILL_ROWS = 4          # prompt positions a prefill step takes (the array's M)
SP_WORDS = 1 << 16
CUT_CHIP = config.Config(sp_words=SP_WORDS, ext_words=1 << 20, imem_depth=4096, mode="overlap")


FULL_EXT = 180 << 20      # the weights (162.8M words) and a KV cache of about 2,200 positions


def full_chip(mode="overlap", imem_depth=1 << 17, ext_words=FULL_EXT):
    """The whole model's chip: the largest scratchpad, 180 x 2^20 external words (up to
    2^28 for contexts past about 2,200 positions)."""
    return config.Config(sp_words=SP_WORDS, ext_words=ext_words, imem_depth=imem_depth, mode=mode)


def describe(shape, ctx):
    """The compiler's description of a SmolLM2-shaped model (a gguf_model.Config: n_layer,
    d, n_head, n_kv_head, head_dim, ffn, vocab) with ctx positions."""
    return Desc(layers=shape.n_layer, d=shape.d, heads=shape.n_head, kv_heads=shape.n_kv_head,
                mlp=shape.ffn, vocab=shape.vocab, ctx=ctx, head_dim=shape.head_dim,
                activation="swiglu", positions="rope", tied_head=True, numerics="per-channel",
                residual="int32", attention="tiled")


class SmolGeneration:
    """A greedy generation of `new` tokens after prompt (ids) with weights W
    (intweights.IntWeights) on chip (a model.config.Config; its mode is the steps' order).
    ctx: the positions laid out (default the prompt and the new tokens); vocab_chunk and
    pv_tile: the layout's (the head's logits held at once; the keys of a tile of the
    weighted sum of V: its integer reference is int_ref.IntRef(W, pv_tile=pv_tile))."""

    def __init__(self, W, prompt, new, chip=CUT_CHIP, ctx=None, vocab_chunk=VOCAB_CHUNK, pv_tile=PV_TILE):
        shape = W.config
        prompt = [int(t) for t in prompt]
        if not prompt:
            raise ValueError("an empty prompt")
        if any(not 0 <= t < shape.vocab for t in prompt):
            raise ValueError(f"a prompt token outside 0..{shape.vocab - 1}")
        if isinstance(new, bool) or not isinstance(new, int) or new < 1:
            raise ValueError(f"tokens to generate must be >= 1, got {new!r}")
        need = len(prompt) + new
        ctx = need if ctx is None else ctx
        if need > ctx:
            raise ValueError(f"{len(prompt)} prompt tokens + {new} new: {need} positions, beyond "
                             f"the {ctx} laid out")
        self.W, self.prompt, self.new = W, prompt, new
        self.desc = describe(shape, ctx)
        for rows in range(min(PREFILL_ROWS, len(prompt)), 0, -1):    # the most that fit
            try:
                self.layout = WideLayout(self.desc, 1, ctx, chip, rows=rows, vocab_chunk=vocab_chunk,
                                         pv_tile=pv_tile)
                break
            except ValueError:
                if rows == 1:
                    raise
        P = len(prompt)
        self.steps = [[Row(0, t, t == P - 1) for t in range(t0, min(P, t0 + rows))]
                      for t0 in range(0, P, rows)]
        self.steps += [[Row(0, t, True)] for t in range(P, P + new - 1)]

    def programs(self):
        """Every step's program; the chip's instruction memory must hold the longest."""
        progs = [step_program(self.layout, rows) for rows in self.steps]
        longest = max(len(p) for p in progs)
        if longest > self.layout.chip.imem_depth:
            raise ValueError(f"a step of {longest} instructions: the chip's instruction memory "
                             f"holds {self.layout.chip.imem_depth}")
        return progs

    def image(self):
        return self.layout.image(self.W, [self.prompt])

    def tokens(self, ext):
        """The generated ids the chip stored in the token area."""
        P, lay = len(self.prompt), self.layout
        return [int(ext[lay.token(0, t)]) for t in range(P, P + self.new)]

    def cache(self, ext, layer, kind, g, n):
        """(rows (n x 64 int8 values), scale words (n)) of KV head g's K (kind 0) or V
        (kind 1) cache of layer for positions 0..n-1, as the chip left them."""
        lay = self.layout
        a, s = lay.kv(layer, kind, g, 0), lay.kvs(layer, kind, g, 0)
        return ext[a:a + n * HEAD_DIM].reshape(n, HEAD_DIM), ext[s:s + n]


class SmolBatch(SmolGeneration):
    """A greedy generation of several prompts at once (a batch of len(prompts) sequences
    on one layout): each prompt prefilled alone (its steps of up to PREFILL_ROWS of its
    positions), then `new` - 1 decode steps of one row per sequence, each at its own
    position (ragged when the prompts' lengths differ): what a decode step's batch shares
    is every weight tile, loaded once for all its rows. tokens(ext): one list per sequence;
    cache(..., b): sequence b's."""

    def __init__(self, W, prompts, new, chip=CUT_CHIP, ctx=None, vocab_chunk=VOCAB_CHUNK, pv_tile=PV_TILE):
        shape = W.config
        prompts = [[int(t) for t in p] for p in prompts]
        if not prompts or any(not p for p in prompts):
            raise ValueError("an empty prompt (or no prompts)")
        if any(not 0 <= t < shape.vocab for p in prompts for t in p):
            raise ValueError(f"a prompt token outside 0..{shape.vocab - 1}")
        if isinstance(new, bool) or not isinstance(new, int) or new < 1:
            raise ValueError(f"tokens to generate must be >= 1, got {new!r}")
        need = max(len(p) for p in prompts) + new
        ctx = need if ctx is None else ctx
        if need > ctx:
            raise ValueError(f"the longest prompt + {new} new: {need} positions, beyond the {ctx} laid out")
        B = len(prompts)
        self.W, self.prompts, self.prompt, self.new = W, prompts, prompts[0], new
        self.desc = describe(shape, ctx)
        longest = max(len(p) for p in prompts)
        for rows in range(min(PREFILL_ROWS, longest), 0, -1):    # the most that fit
            try:
                self.layout = WideLayout(self.desc, B, ctx, chip, rows=max(rows, B),
                                         vocab_chunk=vocab_chunk, pv_tile=pv_tile)
                break
            except ValueError:
                if rows == 1:
                    raise
        self.steps = []
        for b, p in enumerate(prompts):
            P = len(p)
            self.steps += [[Row(b, t, t == P - 1) for t in range(t0, min(P, t0 + rows))]
                           for t0 in range(0, P, rows)]
        self.steps += [[Row(b, len(p) + k, True) for b, p in enumerate(prompts)] for k in range(new - 1)]

    def image(self):
        return self.layout.image(self.W, self.prompts)

    def tokens(self, ext):
        lay = self.layout
        return [[int(ext[lay.token(b, t)]) for t in range(len(p), len(p) + self.new)]
                for b, p in enumerate(self.prompts)]

    def cache(self, ext, layer, kind, g, n, b=0):
        lay = self.layout
        a, s = lay.kv(layer, kind, g, b), lay.kvs(layer, kind, g, b)
        return ext[a:a + n * HEAD_DIM].reshape(n, HEAD_DIM), ext[s:s + n]


Outcome = namedtuple("Outcome", "tokens counters steps_ok error ext")
Outcome.__doc__ = """tokens: the generated ids read from the chip's external memory;
counters: isa.Counters per step; steps_ok: every step equal to the reference Machine (True
on "model"); error: "" or the chip's error; ext: the final external memory."""


class Window:
    """The external memory from word `first` on (a simulator's read-back window), indexed
    by full addresses (an int or a slice within the window)."""

    def __init__(self, first, words):
        self.first, self.words = first, np.asarray(words)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.start is None or key.start < self.first or key.step not in (None, 1):
                raise IndexError(f"{key}: outside the read-back window from {self.first}")
            return self.words[key.start - self.first:key.stop - self.first]
        if key < self.first:
            raise IndexError(f"word {key}: below the read-back window from {self.first}")
        return self.words[key - self.first]


def run(gen, sim="model", window=False):
    """Run gen's steps on sim ("model", "icarus", "verilator"): an Outcome. window: on a
    simulator, read back only the token area and the KV cache after each step (the judge
    holds every write to them; tb/sim/run.py's window): the whole model's weights are 160M
    words; the Outcome's ext is then a Window."""
    progs = gen.programs()
    ext, ok, cfg = gen.image(), True, gen.layout.chip
    if sim == "model":
        ext, counters, error = machine_steps(progs, ext, cfg)
    else:
        items = [hw_item(p, ext, k) for k, p in enumerate(progs)]
        span = (gen.layout.tokens, gen.layout.ext_words) if window else None
        ext, counters, ok, error = chip_steps(sim, items, cfg.for_program(max(len(p) for p in progs)),
                                              window=span)
        ext = Window(*ext) if window else ext
    return Outcome(gen.tokens(ext), counters, ok and not error, error,
                   ext if isinstance(ext, Window) else np.asarray(ext))


def cache_equal(gen, ext, ref):
    """Whether the chip's cache (ext) equals the integer reference's (ref: an IntRef after
    the same generation) at every layer, KV head, kind and position fed."""
    n = len(gen.prompt) + gen.new - 1
    c = gen.W.config
    for layer in range(c.n_layer):
        for g in range(c.n_kv_head):
            for kind, rows, scales in ((0, ref.cache.k8, ref.cache.ks), (1, ref.cache.v8, ref.cache.vs)):
                got_rows, got_scales = gen.cache(ext, layer, kind, g, n)
                if not (np.array_equal(got_rows, rows[layer, g, :n]) and
                        np.array_equal(got_scales, scales[layer, g, :n])):
                    return False
    return True
