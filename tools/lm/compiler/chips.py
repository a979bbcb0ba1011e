"""The chips the language model's steps are compiled for (model.config.Config).

LM_CHIP: the weights (20,480 int8 words for the text model: more than the 16,384-word
scratchpad holds) and a batch's KV cache live in the external memory (the ISA's 16-bit
addresses: 65,536 words); the scratchpad holds one step's activations, its weight tiles
and its attention buffers; 4,096 instructions hold a step of 16 rows at position 63.
chip_config: the same scratchpad with an external memory past 64K words (xhi), a softmax
of up to SM_MAX scores and a deeper instruction memory: the remedies' long contexts.
"""
from model import config

LM_CHIP = config.Config(sp_words=16384, ext_words=65536, imem_depth=4096)
LM_CHIP_OVERLAP = LM_CHIP.replace(mode="overlap")
SM_MAX = 1024           # the softmax unit's longest vector on chip_config's chips

# (ext_words, imem_depth) of chip_config's chips, smallest first: a generation takes the
# first whose external memory holds its layout (generation.generation)
CHIPS = ((1 << 20, 32768), (1 << 24, 65535))


def chip_config(mode="inorder", ext_words=1 << 20, imem_depth=16384):
    """LM_CHIP's scratchpad, external memory past 64K words (xhi), SM over up to SM_MAX
    scores, a deeper instruction memory (a step of 16 rows at context 256 is up to 17,500
    instructions)."""
    return config.Config(sp_words=LM_CHIP.sp_words, ext_words=ext_words,
                         imem_depth=imem_depth, sm_max_len=SM_MAX, mode=mode)
