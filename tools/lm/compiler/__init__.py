"""The step compiler of the language models: one description, one layout, one emitter.

    desc = describe(net, remedies)          # desc.py: the model description (frozen)
    lay = Layout(desc, batch, ctx, chip)     # layout.py: external memory and scratchpad
    prog = step_program(net, lay, rows, mem) # emit.py: one decode or prefill step, HALT

A description names the network's shape (layers, d, heads, KV heads, head dim, MLP width,
vocabulary, learned positions), its architecture (activation, positions, norm, tied head,
numerics, residual), the chapter's remedies as parameters (a 4-bit cache, a window with
sinks, tiles) and the plan of its attention buffers ("whole": the unmodified model's step;
"tiled": the remedies'). The layout puts the weights in one documented order (docs/lm.md
"The memory image"), the token area and the KV cache (or leaves them to a host's memory map),
and the step's scratchpad buffers. The emitter takes one address protocol (token, kv_row,
kv_attend: layout.Contiguous, or a host's such as tools/serve/lm_memory.Paged) and has the
pipelined order wherever the layout gives it the buffers (desc.pipeline).

Every program today's tools run is pinned by digest (tests/tools/lm/program_digests.json,
recorded from the two builders this compiler replaced): the same programs word for word.

For the next issue's model (SmolLM2-135M: 30 layers, GQA 9 / 3 with head dim 64, SwiGLU
FFN 1536, RoPE, RMSNorm, an int32 residual, per-channel and per-token scales, the tied
49,152-row head in vocabulary tiles with a running argmax across tiles, prefill with the
prompt's tokens as rows) the description already has the fields (desc.CHOICES; desc.ready()
names what is not emitted yet); what is to add is emit blocks (emit.BLOCKS, chosen by those
fields), their scratchpad buffers in layout.Layout and the operations they need, not a
builder.
"""
from tools.lm.compiler.chips import CHIPS, LM_CHIP, LM_CHIP_OVERLAP, SM_MAX, chip_config
from tools.lm.compiler.desc import MAX_TILE, Desc, Remedies, describe, describe_shape
from tools.lm.compiler.emit import Row, order_rows, step_program
from tools.lm.compiler.layout import (
                                      GROUP,
                                      PIPE_BUFFERS,
                                      TILE_COLS,
                                      WEIGHT_BUFFERS,
                                      Contiguous,
                                      Layout,
                                      matrices,
                                      weights,
)

__all__ = ["CHIPS", "LM_CHIP", "LM_CHIP_OVERLAP", "SM_MAX", "chip_config", "MAX_TILE", "Desc",
           "Remedies", "describe", "describe_shape", "Row", "order_rows", "step_program", "GROUP", "PIPE_BUFFERS",
           "TILE_COLS", "WEIGHT_BUFFERS", "Contiguous", "Layout", "matrices", "weights"]
