"""Training is deterministic and the committed files are what it and the export give.

What is bit for bit, on any machine, and what is held to a tolerance:
- the int8 exports (tools/lm/weights/<task>_int8.npz, <task>_kv4_int8.npz): every int8
  table and matrix value and every requant (m, s) are the chip's contract (its programs,
  the toy model's tokens and cycles); they and the logit_scale are the export of the
  committed float weights bit for bit. The export's arithmetic is fixed-order float64
  without BLAS (tools/lm/int8.py peaks), and a child process under another BLAS kernel
  (OPENBLAS_CORETYPE=Sandybridge, two threads) and without numpy's dispatched SIMD code
  (NPY_DISABLE_CPU_FEATURES: numpy's float64 exp is then libm's, not its AVX-512 one)
  gives the committed files bit for bit. (Before, the calibration ran the float model's
  forward with BLAS and np.exp: those two environments moved add's, text's and
  text_ctx256's logit_scale in the last bits.)
- the training losses are informational: the first 20 steps of each task's training,
  from its seed, give the committed losses (tools/lm/weights/<task>_trace.json) to 1e-12
  relative, on the corpus the text model was trained on. Training is float64 through
  BLAS, and numpy's OpenBLAS (DYNAMIC_ARCH) picks its matrix kernels by CPU; kernels sum
  a dot product in different orders. The traces were made with the SkylakeX kernels (an
  Intel AVX-512 machine); on an AMD EPYC of the same machine type OpenBLAS picks other
  kernels and the losses differ from step 14 in the last bit (at most 4e-16 relative;
  OPENBLAS_CORETYPE=SkylakeX gives the committed bits there). Any change of the training
  itself (a rate, a seed, a step of AdamW) moves them by far more than 1e-12. No test
  retrains a whole task: the committed float weights are the one run's, and the exports
  above are computed from them. The replay runs in a child process with one BLAS thread,
  as make train does: a threaded BLAS on the two busy cores of pytest -n 2 is ten times
  slower, and one thread is the configuration the trace was made in.
- the committed weights are the tasks' Configs.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tb import ROOT
from tools.lm import data, train
from tools.lm import model as M

STEPS = 20
REL = 1e-12          # the BLAS kernels' last bit (the docstring), far below any real change
# the tasks, then the remedies' variants (train.VARIANTS: long, they replay in make test-long)
ALL = sorted(set(train.TASKS) - set(train.VARIANTS)) + [
    pytest.param(v, marks=pytest.mark.long) for v in sorted(train.VARIANTS)]
KV4 = ["add", "text", "add_kv1", "text_kv1", "text_ctx256"]     # the 4-bit-cache exports


def _trace(task):
    with open(os.path.join(train.WEIGHTS, f"{task}_trace.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("task", ALL)
def test_the_first_steps_reproduce_the_committed_trace(task):
    tr = _trace(task)
    if train.source(task) == "text":
        assert data.corpus_sha256() == tr["corpus_sha256"], (
            f"pydoc_data.topics differs from the one trained on (Python {tr['python']})")
    assert tr["cfg"] == train.TASKS[task]["cfg"].as_dict()
    assert len(tr["losses"]) == tr["steps"] == train.TASKS[task]["steps"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    code = ("import json, sys; from tools.lm import train; "
            "print(json.dumps(train.train(sys.argv[1], int(sys.argv[2]))[1]))")
    run = subprocess.run([sys.executable, "-c", code, task, str(STEPS)], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == pytest.approx(tr["losses"][:STEPS], rel=REL, abs=0)


def test_the_committed_weights_have_the_tasks_config():
    for task in train.TASKS:
        p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
        assert cfg == train.TASKS[task]["cfg"]
        assert sorted(p) == sorted(M.names(cfg))


@pytest.mark.parametrize("task", ALL)
def test_the_committed_int8_export_is_the_export_of_the_committed_weights(task):
    from tools.lm import int8
    p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
    want = int8.export(p, cfg, train.calibration(task))
    got = int8.Int8Model.load(os.path.join(train.WEIGHTS, f"{task}_int8.npz"))
    assert got.cfg == want.cfg and got.rq == want.rq and got.logit_scale == want.logit_scale
    assert sorted(got.w) == sorted(want.w)
    assert all(np.array_equal(got.w[n], want.w[n]) for n in want.w)


@pytest.mark.long
@pytest.mark.parametrize("task", KV4)
def test_the_committed_4bit_export_is_export_kv4_of_the_committed_weights(task):
    from tools.lm import int8, remedies_ref
    p, cfg = M.load(os.path.join(train.WEIGHTS, f"{task}.npz"))
    want = remedies_ref.export_kv4(p, cfg, train.calibration(task))
    got = int8.Int8Model.load(os.path.join(train.WEIGHTS, f"{task}_kv4_int8.npz"))
    assert got.kv_bits == want.kv_bits == 4
    assert got.cfg == want.cfg and got.rq == want.rq and got.logit_scale == want.logit_scale
    assert all(np.array_equal(got.w[n], want.w[n]) for n in want.w)


# another machine: OpenBLAS's Sandybridge kernels (AVX, not the SkylakeX or Zen ones this
# numpy picks on an AVX-512 or AMD CPU), two BLAS threads, and numpy with none of its
# dispatched SIMD code (the list np.show_runtime reports)
def _another_machine():
    from numpy._core._multiarray_umath import __cpu_dispatch__
    return dict(os.environ, OPENBLAS_CORETYPE="Sandybridge", OPENBLAS_NUM_THREADS="2",
                OMP_NUM_THREADS="2", NPY_DISABLE_CPU_FEATURES=" ".join(__cpu_dispatch__))


# make test replays add's export on the other machine (the same export code as text's, 10 s
# each); text's and the variants' are -m long
@pytest.mark.parametrize("task,kind", [
    pytest.param(t, "int8", marks=[pytest.mark.long] * (t in train.VARIANTS or t == "text"))
    for t in sorted(train.TASKS)] + [
    pytest.param(t, "kv4_int8", marks=pytest.mark.long) for t in KV4])
def test_the_export_is_the_same_bits_on_another_machine(task, kind, tmp_path):
    from tools.lm import int8
    code = ("import sys; from tools.lm import train, int8, remedies_ref; "
            "from tools.lm import model as M; task, kind, out = sys.argv[1:]; "
            "p, cfg = M.load(f'{train.WEIGHTS}/{task}.npz'); "
            "fn = int8.export if kind == 'int8' else remedies_ref.export_kv4; "
            "fn(p, cfg, train.calibration(task)).save(out)")
    out = tmp_path / "export.npz"
    run = subprocess.run([sys.executable, "-c", code, task, kind, str(out)],
                         env=_another_machine(), cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    got = int8.Int8Model.load(out)
    want = int8.Int8Model.load(os.path.join(train.WEIGHTS, f"{task}_{kind}.npz"))
    assert got.cfg == want.cfg and got.rq == want.rq and got.kv_bits == want.kv_bits
    assert sorted(got.w) == sorted(want.w)
    assert all(np.array_equal(got.w[n], want.w[n]) for n in want.w)
    assert got.logit_scale.hex() == want.logit_scale.hex()


def test_the_draft_model_reproduces_its_trace_and_export():
    """--size draft (tools/serve/spec.py's draft): its first steps give the committed
    losses, its weights have the draft Config, its export is the export of its weights."""
    from tools.lm import int8
    tr = _trace("text_draft")
    cfg = train.hyper("text", "draft")["cfg"]
    assert tr["cfg"] == cfg.as_dict() and tr["size"] == "draft"
    assert (cfg.layers, cfg.heads, cfg.d, cfg.mlp) == (1, 1, 16, 16)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    code = ("import json, sys; from tools.lm import train; "
            "print(json.dumps(train.train('text', int(sys.argv[1]), size='draft')[1]))")
    run = subprocess.run([sys.executable, "-c", code, "5"], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == pytest.approx(tr["losses"][:5], rel=REL, abs=0)
    p, pcfg = M.load(os.path.join(train.WEIGHTS, "text_draft.npz"))
    assert pcfg == cfg
    want = int8.export(p, cfg, train.calibration("text"))
    got = int8.Int8Model.load(os.path.join(train.WEIGHTS, "text_draft_int8.npz"))
    assert got.rq == want.rq and all(np.array_equal(got.w[n], want.w[n]) for n in want.w)
    assert got.logit_scale == want.logit_scale
    with pytest.raises(ValueError, match="size"):
        train.hyper("text", "huge")
