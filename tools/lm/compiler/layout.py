"""Where a compiled step's data is: the external memory (weights, token area, KV cache) and
the scratchpad (activations, weight tiles, attention buffers), and the address protocol.

External memory, from `base` (docs/lm.md "The memory image"):
  weights     every matrix of matrices(desc), in that order, row-major, one int8 value a word:
              wte (vocab x d), wpe (ctx x d), per layer i h{i}.wq, .wk, .wv, .wo, .w1, .w2,
              then the output head as column tiles wout.0, wout.1, ... (TILE_COLS columns
              each, the last narrower), each row-major, so each tile is one load
  tokens      batch x ctx words: sequence b's ids at tokens + b*ctx + t (prompts, then the
              generated ids) -- unless cache=False
  KV cache    kv(layer, kind, b): sequence b's `slots` rows of `row_words` words for layer,
              K (kind 0) or V (kind 1), at kv0 + ((layer*2 + kind)*batch + b)*slots*row_words;
              position t in slot desc.slot(t) -- unless cache=False
A host with its own memory map (tools/serve/lm_memory.py: a paged pool, a second model's
weights) lays out the weights alone (cache=False, base) and passes the step its own
address functions.

The address protocol (one for every memory map): an object with
  token(b, t)                    the external address of sequence b's token id at position t
  kv_row(layer, kind, b, t)      where position t's K (kind 0) or V (kind 1) row is stored
  kv_attend(layer, kind, b, t)   what the row at position t attends: (runs, index, n): n rows
                                 on chip (tile index 0..n-1, in any order: softmax and the
                                 weighted sum do not depend on it), this step's own row at
                                 tile index `index`, the cached ones loaded as runs
                                 [(first tile index, external address, rows)], in tile order
Contiguous is this layout's own (a ring of slots with a window); lm_memory.Paged a pool's.
"""
import numpy as np

from tools.lm.compiler.chips import LM_CHIP

WEIGHT_BUFFERS = 4      # weight tiles on chip at once: one in use, three loading ahead
PIPE_BUFFERS = 6        # ... when the scratchpad has room: the pipelined step
RESULT_BUFFERS = 3      # int32 product buffers (a matrix's products, then its RQ, rotate)
KV_BUFFERS = 4          # attention buffer sets at most (rows whose attention overlaps)
GROUP = 4               # rows per group: the array's M; RQ and ADD go a group at a time
TILE_COLS = 32          # the output head streams in tiles of 32 columns (d x 32 words)
AUTO_TILE = 64          # the tiled plan: untiled up to 64 attended rows, tiles beyond
PAGE = 1 << 16          # an LD/ST's src/dst reach 64K words; xhi picks the 64K page
LD_MAX = 8188           # LD/ST len is 13 bits: longer transfers are split (a multiple of 4)


def matrices(desc):
    """The weight matrices in external-memory order: (name, rows, columns)."""
    d, dk = desc.d, desc.dk
    out = [("wte", desc.vocab, d), ("wpe", desc.ctx, d)]
    for i in range(desc.layers):
        out += [(f"h{i}.wq", d, d), (f"h{i}.wk", d, dk), (f"h{i}.wv", d, dk), (f"h{i}.wo", d, d),
                (f"h{i}.w1", d, desc.mlp), (f"h{i}.w2", desc.mlp, d)]
    return out + [(f"wout.{j}", d, min(TILE_COLS, desc.vocab - c0))
                  for j, c0 in enumerate(range(0, desc.vocab, TILE_COLS))]


def weights(net, name):
    """The int8 values of a matrix of matrices() (a column tile of the output head) of net."""
    if name.startswith("wout."):
        c0 = int(name[5:]) * TILE_COLS
        return np.asarray(net.w["wout"], dtype=np.int64)[:, c0:c0 + TILE_COLS]
    return np.asarray(net.w[name], dtype=np.int64)


def pipe_buffers(desc):
    """The weight buffers a pipelined step needs: a layer end's three matrices beside the
    next layer's three or beside every tile of the output head."""
    return 3 + max(3, -(-desc.vocab // TILE_COLS))


def _ceil4(n):
    return -(-n // 4) * 4


class Layout:
    """Where everything of `batch` sequences of up to `ctx` tokens is, for desc on chip (the
    module docstring has the external memory). ValueError when it does not fit the chip.

    Attributes: w (name -> address), weight_words (the end of the weights), tokens, kv0,
    ext_words; row_words (a cached row's words: dk, or dk / 2 for a 4-bit cache), slots
    (cache rows a sequence: the whole plan every position of ctx, the tiled plan the positions
    fed, at most the window), n_max (rows a step attends at most), tile (rows per tile),
    sets (attention buffer sets), weight_buffers; sp (name -> scratchpad address), sp_words.

    The scratchpad, every buffer a multiple of 4 words: per row tok, nxt, x, t0, t1, h, q,
    k, v, o, u, logits (and kp, vp: packed k, v for a 4-bit cache), RESULT_BUFFERS int32
    product buffers a0.., weight_buffers tile buffers wb0.. (PIPE_BUFFERS when desc.pipeline,
    the batch is more than two groups and they cost no attention set), then `sets` attention
    sets: two tile buffers tile{s}.0 and .1 (tile rows of dk), for a 4-bit cache two packed
    staging buffers pack{s}.0 and .1, and per head c its int32 scores s32.{s}.{c}, int8
    scores s8, Q16 probabilities p, int8 weights w8 (the tiled plan: s8 is s32 and w8 is p,
    rewritten in place) and its int32 weighted sum o32 (head_dim words).
    """

    def __init__(self, desc, batch, ctx, chip=LM_CHIP, cache=True, base=0):
        if desc.ready():
            raise ValueError(f"the compiler does not emit {', '.join(desc.ready())} yet")
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        whole = desc.attention == "whole"
        if whole and (not isinstance(ctx, int) or isinstance(ctx, bool) or not 1 <= ctx <= desc.ctx):
            raise ValueError(f"ctx must be 1..{desc.ctx} (the model's context), got {ctx!r}")
        if not isinstance(ctx, int) or isinstance(ctx, bool) or ctx < 1:
            raise ValueError(f"ctx must be a positive integer, got {ctx!r}")
        self.desc, self.batch, self.ctx, self.chip = desc, batch, ctx, chip
        dk, kv4 = desc.dk, desc.kv_bits == 4
        self.row_words = dk // 2 if kv4 else dk
        if whole:
            self.slots = ctx
        else:
            fed = max(1, ctx - 1)                    # positions fed: the last token never is
            self.slots = min(fed, desc.window) if desc.window else fed
        self.n_max = self.slots
        if self.n_max > chip.sm_max_len:
            raise ValueError(f"a step would attend {self.n_max} rows; the chip's softmax takes "
                             f"at most {chip.sm_max_len}")
        self._external(cache, base)
        self._scratchpad(whole)

    def _external(self, cache, base):
        desc, batch, ctx = self.desc, self.batch, self.ctx
        at = base
        self.w = {}
        for name, r, c in matrices(desc):
            self.w[name] = at
            at += r * c
        self.weight_words = at
        self.tokens = at
        if cache:
            at += batch * ctx
        self.kv0 = at
        if cache:
            at += desc.layers * 2 * batch * self.slots * self.row_words
        self.ext_words = at
        if at > self.chip.ext_words:
            raise ValueError(f"a batch of {batch} sequences of {ctx} tokens needs {at} words "
                             f"of external memory (weights {self.weight_words}, KV cache "
                             f"{at - self.kv0}); the chip has {self.chip.ext_words}")
        if self.tokens + (batch * ctx if cache else 0) > PAGE:
            raise ValueError("the weights and token area must sit in the first 64K words")

    def _scratchpad(self, whole):
        desc, chip, R = self.desc, self.chip, self.batch
        d, dk, rw, kv4 = desc.d, desc.dk, self.row_words, desc.kv_bits == 4
        sp = {}
        at = 0

        def take(name, n):
            nonlocal at
            sp[name] = at
            at += _ceil4(n)

        for name, n in (("tok", R), ("nxt", R), ("x", R * d), ("t0", R * d), ("t1", R * d),
                        ("h", R * d), ("q", R * d), ("k", R * dk), ("v", R * dk),
                        ("o", R * d), ("u", R * desc.mlp), ("logits", R * desc.vocab)):
            take(name, n)
        if kv4:
            take("kp", R * rw)
            take("vp", R * rw)
        for k in range(RESULT_BUFFERS):
            take(f"a{k}", R * max(d, desc.mlp))
        biggest = _ceil4(max(r * c for name, r, c in matrices(desc) if name not in ("wte", "wpe")))
        vectors = 4 if whole else 2                  # s32, s8, p, w8; or s8, w8 in place

        def per_set(TR):
            return (2 * _ceil4(TR * dk) + (2 * _ceil4(TR * rw) if kv4 else 0) +
                    desc.heads * (vectors * _ceil4(self.n_max) + _ceil4(desc.head_dim)))

        # the tile: the whole plan's is every attended row; the tiled plan's the option, or
        # untiled up to AUTO_TILE rows, else the largest of AUTO_TILE, 32, 16 rows with which
        # two attention sets fit beside WEIGHT_BUFFERS weight buffers (8 if none does)
        room = chip.sp_words - at - WEIGHT_BUFFERS * biggest
        if whole:
            TR = self.n_max
        elif desc.tile:
            TR = min(desc.tile, self.n_max)
        else:
            tries = [T for T in (self.n_max, AUTO_TILE, 32, 16) if T <= min(self.n_max, AUTO_TILE)]
            TR = next((T for T in tries if 2 * per_set(T) <= room), 8)
        self.tile = TR
        # PIPE_BUFFERS weight buffers (the pipelined order) for a batch of three groups or
        # more when they cost no attention set; else WEIGHT_BUFFERS. With one or two groups
        # the pipelined order buys nothing: no third group's work to fill the matrix unit's
        # waits (docs/lm.md, the sweep)
        def sets(nb):
            return min(KV_BUFFERS, max(0, (chip.sp_words - at - nb * biggest) // per_set(TR)))

        pipe = desc.pipeline and R > 2 * GROUP and \
            sets(PIPE_BUFFERS) >= max(2, sets(WEIGHT_BUFFERS))
        self.weight_buffers = PIPE_BUFFERS if pipe else WEIGHT_BUFFERS
        for k in range(self.weight_buffers):
            take(f"wb{k}", biggest)
        # as many attention sets as fit, up to KV_BUFFERS (the whole plan at least 2, so the
        # next row's cache loads run ahead), the next rows' loads running under this one's
        self.sets = max(2 if whole else 1, min(KV_BUFFERS, max(0, (chip.sp_words - at) // per_set(TR))))
        for s in range(self.sets):
            take(f"tile{s}.0", TR * dk)
            take(f"tile{s}.1", TR * dk)
            if kv4:                               # packed staging, one per tile buffer
                take(f"pack{s}.0", TR * rw)
                take(f"pack{s}.1", TR * rw)
            for c in range(desc.heads):
                take(f"s32.{s}.{c}", self.n_max)
                if whole:
                    take(f"s8.{s}.{c}", self.n_max)
                take(f"p.{s}.{c}", self.n_max)
                if whole:
                    take(f"w8.{s}.{c}", self.n_max)
                else:
                    sp[f"s8.{s}.{c}"], sp[f"w8.{s}.{c}"] = sp[f"s32.{s}.{c}"], sp[f"p.{s}.{c}"]
                take(f"o32.{s}.{c}", desc.head_dim)
        self.sp = sp
        self.sp_words = at
        if at > chip.sp_words:
            raise ValueError(f"a batch of {R} sequences of {self.ctx} tokens needs {at} words "
                             f"of scratchpad; the chip has {chip.sp_words}")

    def kv(self, layer, kind, b):
        """The external address of sequence b's cache slots of K (kind 0) or V (kind 1)."""
        return self.kv0 + ((layer * 2 + kind) * self.batch + b) * self.slots * self.row_words

    def attended(self, t):
        """The positions a row at position t attends (their rows are in the cache)."""
        W, S = self.desc.window, self.desc.sinks
        return list(range(t + 1)) if not W or t < W else \
            list(range(S)) + list(range(t + 1 - (W - S), t + 1))

    def live(self, t):
        """The positions whose K and V rows the step after one at position t attends (a
        paged host keeps their blocks; every other position's may return to the pool)."""
        return [u for u in self.attended(t + 1) if u <= t]

    def image(self, net, prompts):
        """The external memory the host writes: net's weights and the prompts' token ids
        (everything else zero)."""
        ext = np.zeros(self.ext_words, dtype=np.int64)
        for name, r, c in matrices(self.desc):
            w = weights(net, name)
            if w.shape != (r, c):
                raise ValueError(f"weights {name}: shape {w.shape}, the model needs {(r, c)}")
            ext[self.w[name]:self.w[name] + r * c] = w.reshape(-1)
        for b, p in enumerate(prompts):
            ext[self.tokens + b * self.ctx:self.tokens + b * self.ctx + len(p)] = p
        return ext


class Contiguous:
    """The address protocol of a Layout's own memory map: sequence b's token ids at
    lay.tokens + b*ctx + t; its cache of a layer and kind `slots` rows at lay.kv(...),
    position t in slot desc.slot(t) (t itself without a window), a step attending its live
    slots in slot order."""

    def __init__(self, lay):
        self.lay = lay

    def token(self, b, t):
        return self.lay.tokens + b * self.lay.ctx + t

    def kv_row(self, layer, kind, b, t):
        return self.lay.kv(layer, kind, b) + self.lay.desc.slot(t) * self.lay.row_words

    def kv_attend(self, layer, kind, b, t):
        """The live slots 0..n-1; a full ring loads all of them, this step's slot then
        overwritten by its own row."""
        lay = self.lay
        n = min(t + 1, lay.slots)
        hi = n if t >= lay.slots else t
        return ([(0, lay.kv(layer, kind, b), hi)] if hi else []), lay.desc.slot(t), n
