"""A small language model trained here and decoded on the chip's numerics (docs/lm.md).

data.py the two tasks' data (addition, text); model.py the float model (numpy forward and
backward); train.py seeded, deterministic training (make train); int8.py the integer
reference of the whole model (the chip's MM, RQ, SM and the new ops' numerics); eval.py
the measured quality, float against int8 (make lm-eval). weights/ the committed models.
Imports the twin (model.quant, model.softmax_gold) only for the chip's numerics.
"""
