"""The model description the step compiler compiles: what the network is and how its step
is to be laid out, frozen, every field checked, no weights.

`describe(net, remedies)` reads it from an int8 export (tools/lm/int8.py's Int8Model: its
Config and kv_bits) and the remedies asked for. `Remedies` is the set of the chapter's cache
remedies a host asks for (ga2 generate's and ga2 serve's options); the description holds them
as its own fields, so a remedy is a parameter of the one compiler, not another builder.

Fields that name an architecture choice (activation, positions, norm, tied_head,
numerics, residual) accept today's one value; the next issue's model (SmolLM2-135M: 30
layers, GQA 9/3 of head dim 64, SwiGLU, RoPE, RMSNorm, an int32 residual, per-channel and
per-token scales, the tied 49,152-row head) adds the others with the emit blocks they
choose (tools/lm/compiler/emit.py, BLOCKS) -- `desc.ready()` names what is not emitted yet.
"""
from dataclasses import dataclass, replace

MAX_TILE = 255          # MM's K field is 8 bits: the weighted sum of a tile takes at most 255 rows

# the architecture choices a description may name, today's first; the others are the
# extension points of the next issue (ValueError: "not emitted yet")
CHOICES = {
    "activation": ("relu", "swiglu"),          # the MLP: relu(x W1) W2, or (silu(x Wg) * x Wu) Wd
    "positions": ("learned", "rope"),          # a learned table added (EMB, ADD), or rotary q, k
    "norm": ("rms",),                          # NORM: integer RMSNorm, its gain folded
    "numerics": ("per-tensor", "per-channel"),  # one scale a matrix, or per channel and per token
    "residual": ("int8", "int32"),             # the residual stream's words
    "attention": ("whole", "tiled"),           # the attention buffers' plan (Desc's docstring)
}
EMITTED = {"activation": "relu", "positions": "learned", "norm": "rms", "numerics": "per-tensor",
           "residual": "int8"}
# the wide path (tools/lm/compiler/wide.py): SmolLM2-135M's architecture, as a whole
WIDE = {"activation": "swiglu", "positions": "rope", "norm": "rms", "numerics": "per-channel",
        "residual": "int32", "tied_head": True, "attention": "tiled"}


def _int(name, v, lo=0, hi=None):
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be an integer {rng}, got {v!r}")


@dataclass(frozen=True)
class Remedies:
    """The chapter's cache remedies a host asks for. kv_bits: 8, or 4 (the model must be
    exported for it); window: 0 (attend everything) or W, the tokens attended; sinks: S < W
    of them the first tokens; tile: rows per tile of the cached K and V (0: untiled up to 64
    rows, tiles beyond)."""
    kv_bits: int = 8
    window: int = 0
    sinks: int = 0
    tile: int = 0

    def __post_init__(self):
        for f in ("kv_bits", "window", "sinks", "tile"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"remedies: {f} must be an integer, got {v!r}")
        if self.kv_bits not in (4, 8):
            raise ValueError(f"remedies: kv_bits must be 4 or 8, got {self.kv_bits}")
        if self.window < 0 or self.window == 1:
            raise ValueError(f"remedies: window must be 0 (none) or >= 2, got {self.window}")
        if self.sinks < 0 or (self.sinks and not self.window) or \
                (self.window and self.sinks >= self.window):
            raise ValueError(f"remedies: sinks must be 0..window-1 with a window, got "
                             f"{self.sinks} (window {self.window})")
        if not 0 <= self.tile <= MAX_TILE:
            raise ValueError(f"remedies: tile must be 0 (auto) or 1..{MAX_TILE} rows, got {self.tile}")

    def slot(self, t):
        """The cache slot of position t: t, or with a window S + (t - S) % (W - S) past S."""
        W, S = self.window, self.sinks
        return t if not W or t < S else S + (t - S) % (W - S)


@dataclass(frozen=True)
class Desc:
    """A decoder-only transformer as the compiler sees it.

    Shape: layers; d (the residual width) = heads * head_dim; kv_heads (= heads: multi-head;
    fewer: grouped-query, query head c reads KV head c // (heads / kv_heads)); mlp (the
    hidden width); vocab; ctx (the positions the model has learned: a position past them
    takes the last one's row).
    Architecture: activation, positions, norm, tied_head (the head is the token table),
    numerics, residual (CHOICES).
    Remedies: kv_bits (8, or 4: the cache two values a word, PACK4 / UNPACK4), window and
    sinks (a ring of W slots per sequence; S of them the first positions'), tile (rows per
    tile of the attended K and V; 0 automatic).
    Plan: attention "whole" -- a sequence's attended rows on chip at once, every position
    of the context reserved in the cache, the cached K and V loaded before this step's row
    joins them, separate int8 score and weight vectors (the unmodified model's step since
    the language model's first issue); "tiled" -- the attended rows in tiles (multi-pass and
    exact: one softmax over every score), the cache the positions fed (a ring with a window),
    scores and weights rewritten in place (the remedies' step). pipeline: the layout may
    give a large batch the pipelined order's weight buffers (emit.step_program keeps the
    faster order by the timing model)."""
    layers: int
    d: int
    heads: int
    kv_heads: int
    mlp: int
    vocab: int
    ctx: int
    head_dim: int = 16
    activation: str = "relu"
    positions: str = "learned"
    norm: str = "rms"
    tied_head: bool = False
    numerics: str = "per-tensor"
    residual: str = "int8"
    kv_bits: int = 8
    window: int = 0
    sinks: int = 0
    tile: int = 0
    attention: str = "tiled"
    pipeline: bool = False

    def __post_init__(self):
        for name in ("layers", "d", "heads", "kv_heads", "mlp", "vocab", "ctx", "head_dim"):
            _int(f"desc: {name}", getattr(self, name), 1)
        for name in ("d", "mlp", "vocab", "head_dim"):
            if getattr(self, name) % 4:
                raise ValueError(f"desc: {name} = {getattr(self, name)} is not a multiple of 4 "
                                 "(matrices tile the 4 x 4 array)")
        if self.d != self.heads * self.head_dim:
            raise ValueError(f"desc: d = {self.d} must be heads * head_dim = "
                             f"{self.heads * self.head_dim}")
        if self.heads % self.kv_heads:
            raise ValueError(f"desc: kv_heads = {self.kv_heads} does not divide heads = {self.heads}")
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"desc: {name} must be one of {', '.join(allowed)}, "
                                 f"got {getattr(self, name)!r}")
        for name in ("tied_head", "pipeline"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"desc: {name} must be True or False")
        Remedies(self.kv_bits, self.window, self.sinks, self.tile)     # their checks
        if self.attention == "whole" and (self.kv_bits != 8 or self.window or self.tile or
                                          self.kv_heads != self.heads):
            raise ValueError("desc: the whole attention plan has no remedies (kv_bits 8, no "
                             "window, no tile, a KV head per query head): use attention='tiled'")

    @property
    def dk(self):
        """Columns of k and v, and values of a cached K or V row: kv_heads heads."""
        return self.kv_heads * self.head_dim

    @property
    def group(self):
        """Query heads per KV head."""
        return self.heads // self.kv_heads

    @property
    def remedies(self):
        return Remedies(self.kv_bits, self.window, self.sinks, self.tile)

    def slot(self, t):
        """The cache slot of position t (Remedies.slot)."""
        return self.remedies.slot(t)

    def ready(self):
        """The choices of this description the compiler does not emit yet: [] when it can
        compile it (the next issue's blocks fill the rest)."""
        if self.wide:
            out = [f"{k} {getattr(self, k)!r}" for k, v in WIDE.items() if getattr(self, k) != v]
            rem = self.kv_bits != 8 or self.window or self.tile
            return out + (["the cache remedies with per-channel numerics"] if rem else [])
        out = [f"{k} {getattr(self, k)!r}" for k, v in EMITTED.items() if getattr(self, k) != v]
        return out + (["a tied head"] if self.tied_head else [])

    @property
    def wide(self):
        """True for the per-channel numerics: the wide path (tools/lm/compiler/wide.py)."""
        return self.numerics == "per-channel"

    def replace(self, **changes):
        return replace(self, **changes)


def describe(net, remedies=None, pipeline=None):
    """The Desc of an int8 export net (tools/lm/int8.py's Int8Model: its shape, net.cfg, and
    its kv_bits) with remedies (a Remedies, or None): describe_shape's."""
    return describe_shape(net.cfg, getattr(net, "kv_bits", 8), remedies, pipeline)


def describe_shape(shape, kv_bits=8, remedies=None, pipeline=None):
    """The Desc of a network of shape (tools/lm/model.py's Config: layers, d, heads,
    kv_heads, mlp, vocab, ctx) whose cache is kv_bits wide, with remedies (or None).
    Without remedies a plain network (an 8-bit cache, a KV head per query head) gets the
    whole attention plan, anything else the tiled one with Remedies(kv_bits=kv_bits);
    pipeline: default True for the whole plan (today's steps), False for the tiled one.
    ValueError for remedies the network was not exported for."""
    kvh = shape.kv_heads or shape.heads
    if remedies is None and (kvh != shape.heads or kv_bits != 8):
        remedies = Remedies(kv_bits=kv_bits)
    if remedies is not None and remedies.kv_bits != kv_bits:
        raise ValueError(f"a {remedies.kv_bits}-bit KV cache needs a model exported for it; "
                         f"this one's cache is {kv_bits}-bit "
                         "(remedies_ref.export_kv4 exports the 4-bit one)")
    attention = "whole" if remedies is None else "tiled"
    rem = remedies or Remedies()
    return Desc(layers=shape.layers, d=shape.d, heads=shape.heads, kv_heads=kvh,
                mlp=shape.mlp, vocab=shape.vocab, ctx=shape.ctx, head_dim=shape.d // shape.heads,
                kv_bits=rem.kv_bits, window=rem.window, sinks=rem.sinks, tile=rem.tile,
                attention=attention,
                pipeline=(attention == "whole") if pipeline is None else pipeline)
