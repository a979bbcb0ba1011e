"""Training is bit-deterministic and the committed files are what it and the export give.

The first 20 steps of each task's training, from its seed, give exactly the committed
losses (tools/lm/weights/<task>_trace.json), on the corpus the text model was trained on;
the committed weights are the tasks' Configs.
"""
import json
import os

import numpy as np
import pytest

from tools.lm import data, train
from tools.lm import model as M

STEPS = 20


def _trace(task):
    with open(os.path.join(train.WEIGHTS, f"{task}_trace.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("task", sorted(train.TASKS))
def test_the_first_steps_reproduce_the_committed_trace(task):
    tr = _trace(task)
    if task == "text":
        assert data.corpus_sha256() == tr["corpus_sha256"], (
            f"pydoc_data.topics differs from the one trained on (Python {tr['python']})")
    assert tr["cfg"] == train.TASKS[task]["cfg"].as_dict()
    assert len(tr["losses"]) == tr["steps"] == train.TASKS[task]["steps"]
    _, losses = train.train(task, STEPS)
    assert losses == tr["losses"][:STEPS]


def test_the_committed_weights_have_the_tasks_config():
    for task in train.TASKS:
        p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
        assert cfg == train.TASKS[task]["cfg"]
        assert sorted(p) == sorted(M.names(cfg))


@pytest.mark.parametrize("task", sorted(train.TASKS))
def test_the_committed_int8_export_is_the_export_of_the_committed_weights(task):
    from tools.lm import int8
    p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
    want = int8.export(p, cfg, train.calibration(task))
    got = int8.Int8Model.load(os.path.join(train.WEIGHTS, f"{task}_int8.npz"))
    assert got.cfg == want.cfg and got.rq == want.rq and got.logit_scale == want.logit_scale
    assert sorted(got.w) == sorted(want.w)
    assert all(np.array_equal(got.w[n], want.w[n]) for n in want.w)
