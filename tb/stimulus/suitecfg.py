"""The chip and the seeds of the RTL mutation suite's programs (tb/stimulus/programs.py and
the groups it draws from: edges.py, crafted.py), stated once."""
from model import config

CFG = config.CH09               # chapter 9's chip (8192 external words); all programs share it
CFG_OVERLAP = config.CH09_OVERLAP   # the same chip in the overlap timing mode (second suite)
EXT = CFG.ext_words
N_COLLIDING = 10                # overlap suite: random programs built to collide
N_RANDOM_FIRST = 4              # random programs before the error programs
N_RANDOM_LATE = 8               # random programs after them
RANDOM_SEED = 20240
