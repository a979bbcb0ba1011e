"""docs/lm.md's measured figures are the committed ones (tools/lm/weights/measured.json and
the traces), so the page cannot go stale after a `make train`."""
import json
import os

from tb import ROOT
from tools.lm.train import WEIGHTS


def test_the_quality_table_is_measured_json():
    page = (ROOT / "docs" / "lm.md").read_text()
    with open(os.path.join(WEIGHTS, "measured.json")) as f:
        m = json.load(f)
    a, t = m["add"], m["text"]
    want = [f"| {a['float']['right']:,} ({100 * a['float']['right'] / a['float']['of']:.2f}%) "
            f"| {a['int8']['right']:,} ({100 * a['int8']['right'] / a['int8']['of']:.2f}%) |",
            f"| {t['loss_float']:.4f} | {t['loss_int8']:.4f} "
            f"({100 * (t['loss_int8'] / t['loss_float'] - 1):+.2f}%) |",
            f"| {100 * t['top1_agreement']:.2f}% |",
            f"| {100 * t['top1_accuracy_float']:.2f}% | {100 * t['top1_accuracy_int8']:.2f}% |"]
    want += [f"| `{s['prompt']}` | {s['float'][len(s['prompt']):]} | "
             f"{s['int8'][len(s['prompt']):]} |" for s in t["samples"]]
    missing = [w for w in want if w not in page]
    assert not missing, f"docs/lm.md lacks the measured figures: {missing}"


def test_the_training_table_is_the_traces():
    page = (ROOT / "docs" / "lm.md").read_text()
    for task in ("add", "text"):
        with open(os.path.join(WEIGHTS, f"{task}_trace.json")) as f:
            tr = json.load(f)
        row = (f"| {tr['train_seconds']:.0f} s ({tr['train_cpu_seconds']:.0f} s) | "
               f"{tr['losses'][0]:.4f} / ")
        assert row in page, (task, row)
