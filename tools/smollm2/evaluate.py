"""`ga2 eval --model smollm2`: the integer reference's quality on held-out text, with the
cost of each numeric decision on the way from today's chip numerics to it.

  ga2 eval --model smollm2 [--text FILE] [--tokens N] [--json out/smollm2_eval.json] [--rows all|int]
           [--pv-tile N]

The text is FILE's first N tokens (default 1,024) as one sequence, no BOS (default: the
held-out slice of the pydoc topics, text.HELD_OUT; never the calibration slice), scored
teacher-forced over its N - 1 predictions. Every row is measured against the float
reference (float_ref.py) on the same tokens: top-1 agreement of the argmax at each of the
N positions, perplexity, and the mean KL divergence of the next-token distribution from
the float one (nats). The goal (issue 38): top-1 >= 90% and perplexity <= float + 5%.

Rows, one numeric decision each, cumulative (every row keeps the ones above it):
  float  the float32 reference
  a      fake quantization: the chip's numerics of the toy model (int8 weights per tensor,
         int8 activations per tensor, static, calibrated on text.CALIBRATION)
  b      fake quantization: int8 weights per output channel (RMSNorm gains folded) and
         int8 activations per token (dynamic) at every matmul input
  c..e3  fake quantization: 16-bit activations (per token) at the down, o, q/k/v,
         gate/up and head inputs in turn (e3: every matmul input, as QNT with b16 = 1)
  f..j   fake quantization on e3: the KV cache int8 per token and KV head, Q15
         probabilities, exp by the 2^x table, SiLU by a table, the residual stream int32 Q12
  int    the bit-exact integer reference (int_ref.py): adds what fake quantization leaves
         float -- scale words of 16-bit mantissas, RMSNorm as QNT's integer rms mode, RoPE
         in Q14, every intermediate an int32 Q12 word, scores in log2 units (Q8) into SMW,
         the weighted sum's 16-bit QNT of p * vs, SWIGLU's interpolated sigmoid
The fake rows are numerics_study.py's machinery (float32 values on the integer grid);
--rows int keeps the float and int rows alone; --pv-tile N runs the integer reference with
the weighted sum of V in tiles of N keys (default 512, the chip's: tools/lm/compiler/wide_layout.py
PV_TILE; model.wide.PV_TILE_SAFE: the int32 headroom). top1_agreement and ppl_int are the
integer reference's. Writes the JSON {"text_file", "tokens", "top1_agreement",
"ppl_float", "ppl_int", "rows": [...]} (and the goal, the text's description, and
"int_peaks": the largest magnitude of each kind of integer word, the int32 headroom, and
"int_wraps": how many MM sums of each site wrapped).
"""
import json
import time
from pathlib import Path

import numpy as np

from tools.smollm2 import float_ref, gguf_model, int_ref, intweights, text, tokenizer
from tools.smollm2 import numerics_study as ns

GOAL_TOP1, GOAL_PPL = ns.GOAL_TOP1, ns.GOAL_PPL
_TOK8 = ns.int8_all("token")
# (row, what, weight mode, FakeQuant arguments): cumulative
FAKE_ROWS = (
    ("a", "int8 W per tensor, int8 A per tensor static (the toy model's chip numerics)", "tensor",
     {"act": ns.int8_all("static")}),
    ("b", "int8 W per channel (gains folded), int8 A per token", "channel", {"act": _TOK8}),
    ("c", "+ 16-bit A at the down input", "channel", {"act": ns.with16(_TOK8, "down")}),
    ("d", "+ 16-bit A at the o input", "channel", {"act": ns.with16(_TOK8, "down", "o")}),
    ("e", "+ 16-bit A at the q/k/v inputs", "channel", {"act": ns.with16(_TOK8, "down", "o", "qkv")}),
    ("e2", "+ 16-bit A at the gate/up inputs", "channel",
     {"act": ns.with16(_TOK8, "down", "o", "qkv", "gate_up")}),
    ("e3", "+ 16-bit A at the head input (every matmul input 16-bit)", "channel",
     {"act": ns.with16(_TOK8, *ns.SITES)}),
)
_E3 = FAKE_ROWS[-1][3]["act"]
for _name, _what, _kw in (("f", "+ KV cache int8 per token and KV head", {"kv": "token"}),
                          ("g", "+ probabilities Q15", {"prob_bits": 15}),
                          ("h", "+ exp by the 2^x table (cut at 2^-16)", {"exp_table": True}),
                          ("i", "+ SiLU by a 256-entry table", {"silu_lut": True}),
                          ("j", "+ residual stream int32 Q12", {"residual_frac": 12})):
    FAKE_ROWS += ((_name, _what, "channel", {**FAKE_ROWS[-1][3], "act": _E3, **_kw}),)
INT_WHAT = ("the integer reference, bit-exact: scale words, integer RMSNorm, RoPE Q14, Q12 words, "
            "Q8 log2 scores, SMW, 16-bit p*vs, SWIGLU")


def meets(top1, ppl, ppl_float):
    return top1 >= GOAL_TOP1 and ppl <= ppl_float * (1 + GOAL_PPL)


def run(model, weights, ids, cal_ids=None, rows="all", log=print, pv_tile=None):
    """The report (JSON-ready, without the text's description) of ids scored by the float
    reference of model, the fake-quantization rows (rows "all"; cal_ids: the calibration
    tokens of row a) and the integer reference of weights (intweights.IntWeights)."""
    ids = np.asarray(ids, dtype=np.int64)
    n = len(ids)
    t0 = time.perf_counter()
    ref = float_ref.FloatModel(model).teacher_forced(ids, keep_logits=True)
    ppl_f = float_ref.perplexity(ref.nll)
    out = [{"row": "float", "kind": "float", "what": "float32 reference", "top1": 1.0, "ppl": ppl_f,
            "ppl_change": 0.0, "kl": 0.0, "meets_goal": True, "seconds": time.perf_counter() - t0}]
    log(f"eval: float reference, perplexity {ppl_f:.4f} over {n} tokens ({out[0]['seconds']:.0f} s)")

    def add(name, kind, what, top1, ppl, kl, dt):
        r = {"row": name, "kind": kind, "what": what, "top1": top1, "ppl": ppl, "ppl_change": ppl / ppl_f - 1,
             "kl": kl, "meets_goal": meets(top1, ppl, ppl_f), "seconds": dt}
        out.append(r)
        log(f"eval: {name:5} {kind:4} {what[:64]:64} top-1 {100 * top1:6.2f}%  ppl {ppl:8.4f} "
            f"({100 * r['ppl_change']:+6.2f}%)  KL {kl:.4f}  {dt:4.0f} s")

    if rows == "all":
        if cal_ids is None:
            raise ValueError("row a needs calibration tokens")
        weights_by_mode, calib = {}, None
        for name, what, mode, kw in FAKE_ROWS:
            if mode not in weights_by_mode:
                weights_by_mode[mode] = ns.quantize_weights(model, mode)
                if mode == "tensor":
                    calib = ns.Recorder()
                    float_ref.FloatModel(weights_by_mode[mode], calib).teacher_forced(cal_ids)
            top1, ppl, kl, dt = ns.measure(weights_by_mode[mode], ns.FakeQuant(calib=calib, **kw), ids, ref)
            add(name, "fake", what, top1, ppl, kl, dt)
    t0 = time.perf_counter()
    ir = int_ref.IntRef(weights, pv_tile=pv_tile)
    s = ir.teacher_forced(ids, keep_logits=True)
    kl = ns.kl_divergence(ref.logits, s.logits / float(1 << int_ref.Q_HEAD))
    what = INT_WHAT + (f"; the weighted sum of V in tiles of {pv_tile} keys" if pv_tile else "")
    add("int", "int", what, float(np.mean(s.top1 == ref.top1)), float_ref.perplexity(s.nll), kl,
        time.perf_counter() - t0)
    last = out[-1]
    return {"tokens": n, "top1_agreement": last["top1"], "ppl_float": ppl_f, "ppl_int": last["ppl"],
            "goal": {"top1": GOAL_TOP1, "ppl_rel": GOAL_PPL}, "meets_goal": last["meets_goal"],
            "top1_standard_error": float(np.sqrt(0.9 * 0.1 / n)), "rows": out,
            "int_peaks": dict(sorted(ir.peaks.items())), "int_wraps": dict(sorted(ir.wraps.items()))}


def table(rep):
    """The report as a markdown table."""
    lines = [f"text: {rep['text']} ({rep['tokens']} tokens, teacher-forced as one sequence, no BOS)",
             "| row | kind | numerics (cumulative) | top-1 vs float | perplexity | change | KL from float "
             "| goal | wall s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rep["rows"]:
        goal = "" if r["row"] == "float" else ("yes" if r["meets_goal"] else "no")
        lines.append(f"| {r['row']} | {r['kind']} | {r['what']} | {100 * r['top1']:.2f}% | {r['ppl']:.4f} | "
                     f"{100 * r['ppl_change']:+.2f}% | {r['kl']:.4f} | {goal} | {r['seconds']:.0f} |")
    lines.append(f"goal: top-1 >= {100 * GOAL_TOP1:.0f}% and perplexity <= float + {100 * GOAL_PPL:.0f}%; "
                 f"the integer reference: top-1 {100 * rep['top1_agreement']:.2f}%, perplexity "
                 f"{rep['ppl_int']:.4f} against {rep['ppl_float']:.4f} "
                 f"({100 * (rep['ppl_int'] / rep['ppl_float'] - 1):+.2f}%): "
                 + ("meets it" if rep["meets_goal"] else "MISSES it")
                 + f" (one standard error of a 90% agreement: {100 * rep['top1_standard_error']:.2f} points)")
    lines.append("the integer reference's largest |word| (int32 headroom; mm: the exact sums before MM's "
                 "wrap): " + ", ".join(f"{k} {v:,}" for k, v in rep["int_peaks"].items()))
    lines.append("MM sums past int32 (wrapped, as the chip's accumulator wraps): "
                 + (", ".join(f"{k} {v:,}" for k, v in rep["int_wraps"].items()) or "none"))
    return "\n".join(lines)


def main(a):
    """ga2 eval --model smollm2 (tools/ga2.py parses; a: --text, --tokens, --json, --rows).
    ValueError: bad input (the caller's exit 2 and one line)."""
    from tb import cli
    if a.model != "smollm2":
        raise ValueError(f"--model {a.model}: ga2 eval knows smollm2 (the toy models' eval: make lm-eval)")
    if a.tokens < 2:
        raise ValueError(f"--tokens {a.tokens}: a sequence to score needs at least 2")
    ctx = gguf_model.SHAPES.ctx
    if a.tokens > ctx:
        raise ValueError(f"--tokens {a.tokens}: beyond the context of {ctx}")
    body = cli.text_file(a.text, f"--text {a.text}") if a.text else None
    model, tok = gguf_model.load(), tokenizer.load()
    if body is None:
        ids = text.window(tok, (text.HELD_OUT[0], a.tokens))
        what = f"pydoc topics tokens {text.HELD_OUT[0]}..{text.HELD_OUT[0] + a.tokens - 1} (the held-out slice)"
    else:
        ids = tok.encode(body)
        if len(ids) < a.tokens:
            raise ValueError(f"--text {a.text}: {len(ids)} tokens, fewer than --tokens {a.tokens}")
        ids, what = ids[:a.tokens], f"{a.text}, its first {a.tokens} tokens"
    cal = text.window(tok, text.CALIBRATION, min(a.tokens, text.CALIBRATION[1])) if a.rows == "all" else None
    t0 = time.perf_counter()
    rep = run(model, intweights.prepare(model), ids, cal, a.rows, pv_tile=a.pv_tile)
    rep = {"text_file": a.text, "text": what, **rep, "pv_tile": a.pv_tile, "seconds": time.perf_counter() - t0}
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(rep, indent=1) + "\n")
    print(table(rep))
    print(f"eval: {rep['seconds']:.0f} s; figures in {a.json}")
    return 0
