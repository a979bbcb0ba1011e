"""The chip and the seeds of the RTL mutation suite's programs (tb/stimulus/programs.py and
the groups it draws from: edges.py, crafted.py), stated once."""
from model import config

CFG = config.CH09               # chapter 9's chip (8192 external words); all programs share it
CFG_OVERLAP = config.CH09_OVERLAP   # the same chip in the overlap timing mode (second suite)
# the third suite's chip: the overlap chip with the largest scratchpad (2^16 words) and
# softmax length (1,024), where a range the decoder's widest sums reach fits beside its
# siblings, and hull addresses have bits 12..15 (the sp64k suite: programs.sp64k_programs)
CFG_SP64K = CFG_OVERLAP.replace(sp_words=1 << 16, sm_max_len=config.SM_LEN_LIMIT)
EXT = CFG.ext_words
N_COLLIDING = 10                # overlap suite: random programs built to collide
N_RANDOM_FIRST = 4              # random programs before the error programs
N_RANDOM_LATE = 8               # random programs after them
RANDOM_SEED = 20240
