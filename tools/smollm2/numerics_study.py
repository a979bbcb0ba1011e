"""What integer numerics cost SmolLM2-135M: fake quantization on the float reference.

  python -m tools.smollm2.numerics_study [--tokens 1024] [--out out/smollm2_numerics.json]

Every row runs the float reference's forward pass (float_ref.FloatModel) with some of its
arithmetic replaced by what a chip would do -- values rounded to the integer grid and
held in float32 ("fake quantization") -- teacher-forced over the held-out text
(text.HELD_OUT: 1,024 tokens of pydoc topics as one sequence, no BOS). Static scales
are calibrated on a different slice (text.CALIBRATION) with the float model. A row is
measured against the float reference on the same tokens: top-1 agreement (the argmax at
every position), the perplexity change, and the mean KL divergence of its next-token
distribution from the float one (nats; steadier than the other two on few tokens). The project's goal: top-1 >= 90% and
perplexity <= float + 5%.

The rows (RMSNorm stays float everywhere; softmax and SiLU float unless the row says):
  a  int8 weights per tensor, int8 activations per tensor, static (calibrated max-abs):
     the chip today
  b  int8 weights per output channel, the RMSNorm gains folded into the matrices after
     them (q/k/v, gate/up; the final norm keeps its gain: the head is the embedding,
     tied), and int8 activations per token, dynamic (max-abs of each row), at every
     matmul input (q/k/v, o, gate/up, down, head)
  c  b with 16-bit activations (per token, dynamic) at the FFN down input
  d  c and 16-bit at the o-projection input
  e  d and 16-bit at the q/k/v inputs
  e2 e and 16-bit at the gate/up inputs (every matmul input but the head's)
  w  int8 weights per channel alone, every activation float: the weights' share
     the BASE below is the first of b..e2 that reaches the goal (the cheapest)
  f  BASE + the KV cache int8: per token and KV head (dynamic), or per channel (static,
     calibrated per layer, head and channel)
  g  BASE + the attention probabilities rounded to 8 bits (2^-8 steps) or 15 (Q15) for
     the weighted sum of V
  h  BASE + softmax's exp as 2^x from a table: x = (s - max) log2 e rounded to 2^-8,
     2^x = T[frac] 2^-int with T a 256-entry table of 2^(-k/256) in 16 fraction bits,
     keys with exponent beyond 2^-16 contributing exactly 0
  i  BASE + SiLU from a 256-entry table over [-16, 16) (steps of 1/8, float entries)
     with linear interpolation; x >= 16 gives x, x < -16 gives 0
  j  BASE + the residual stream in int32 fixed point, 12 fractional bits (the
     embeddings and every add rounded to 2^-12)
  f..j each take the cheapest option that meets the goal alone on BASE (none did: the
  one of least KL). The chip needs all of them, so they are added one by one on BASE
  (cumulative); when the whole set misses the goal there, it runs on each costlier base
  of the ladder in turn: the first that meets the goal is the cheapest complete set;
  then the same set on e2, for the margin 16 bits at the gate/up inputs buy.
  (Top-1 over 1,024 positions has a standard error of about 0.9 points at 90%: the
  goal's edge is within the noise; the mean KL shows which choices cost something.)
Prints the table (with each row's wall time) and writes it to --out.
"""
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from tb import ROOT
from tools.smollm2 import float_ref, gguf_model, text, tokenizer

SITES = ("qkv", "o", "gate_up", "down", "head")
GOAL_TOP1 = 0.90
GOAL_PPL = 0.05


# ------------------------------------------------------------------ quantizers
def fake_quant(x, scale, bits):
    """x on the symmetric grid of `bits` bits: round(x / scale) clamped to +-(2^(bits-1) - 1),
    times scale (scale broadcasts; 0 where x is all 0)."""
    qmax = float(2 ** (bits - 1) - 1)
    s = np.where(scale > 0, scale, 1.0).astype(np.float32)
    return (np.clip(np.rint(x / s), -qmax, qmax) * s).astype(np.float32)


def per_row(x, bits):
    """Dynamic per-row (per token, per output channel) max-abs quantization over the last axis."""
    scale = np.abs(x).max(axis=-1, keepdims=True) / (2 ** (bits - 1) - 1)
    return fake_quant(x, scale, bits)


def per_tensor(x, bits, amax=None):
    """One scale for the whole array: max-abs, or the calibrated amax (values beyond it clamp)."""
    amax = float(np.abs(x).max()) if amax is None else float(amax)
    return fake_quant(x, np.float32(amax / (2 ** (bits - 1) - 1)), bits)


def quantize_weights(model, mode):
    """A Model of int8 weights (held as float32 on the grid). mode "tensor": one scale a
    matrix, the norm gains kept; "channel": one scale per output channel (row), the
    attn_norm / ffn_norm gains folded into q/k/v and gate/up (gains then 1). The tied
    embedding/head is quantized once (per tensor, or per vocabulary row) and serves both."""
    layers = []
    for L in model.layers:
        if mode == "tensor":
            q = {f: per_tensor(getattr(L, f), 8) for f in ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down")}
            layers.append(replace(L, **q))
        elif mode == "channel":
            fa, ff = L.attn_norm[None, :], L.ffn_norm[None, :]
            q = {"wq": per_row(L.wq * fa, 8), "wk": per_row(L.wk * fa, 8), "wv": per_row(L.wv * fa, 8),
                 "wo": per_row(L.wo, 8), "w_gate": per_row(L.w_gate * ff, 8), "w_up": per_row(L.w_up * ff, 8),
                 "w_down": per_row(L.w_down, 8)}
            one = np.ones_like(L.attn_norm)
            layers.append(replace(L, attn_norm=one, ffn_norm=one, **q))
        else:
            raise ValueError(f"weight mode {mode!r}: expected 'tensor' or 'channel'")
    embed = per_tensor(model.embed, 8) if mode == "tensor" else per_row(model.embed, 8)
    return replace(model, embed=embed, head=embed, layers=tuple(layers))


EXP_FRAC = 8            # bits of the exponent's fraction: the table's index
EXP_TABLE = np.rint(2.0 ** 16 * 2.0 ** (-np.arange(256) / 256.0)) / 2.0 ** 16    # 16 fraction bits
EXP_CUT = 16            # 2^-16 and below contribute 0


def exp2_table(x):
    """2^x for x <= 0 (x = -inf gives 0) from EXP_TABLE and a shift, as a chip computes it."""
    q = np.rint(-np.where(np.isfinite(x), x, -64.0) * 2 ** EXP_FRAC).astype(np.int64)
    n, k = q >> EXP_FRAC, q & (2 ** EXP_FRAC - 1)
    return np.where(n < EXP_CUT, EXP_TABLE[k] * np.exp2(-n.astype(np.float64)), 0.0)


SILU_LO, SILU_HI, SILU_N = -16.0, 16.0, 256
SILU_STEP = (SILU_HI - SILU_LO) / SILU_N
_grid = SILU_LO + SILU_STEP * np.arange(SILU_N + 1)
SILU_TABLE = (_grid / (1 + np.exp(-_grid))).astype(np.float32)
SILU_TABLE[-1] = SILU_HI            # the segment's end: the out-of-range rule's value at 16


def silu_table(x):
    """SiLU from SILU_TABLE with linear interpolation; x >= 16: x; x < -16: 0."""
    u = (np.clip(x, SILU_LO, SILU_HI) - SILU_LO) / SILU_STEP
    i = np.minimum(np.floor(u).astype(np.int64), SILU_N - 1)
    f = (u - i).astype(np.float32)
    y = SILU_TABLE[i] + f * (SILU_TABLE[i + 1] - SILU_TABLE[i])
    return np.where(x >= SILU_HI, x, np.where(x < SILU_LO, 0.0, y)).astype(np.float32)


# ------------------------------------------------------------------ the numerics
class Recorder(float_ref.Numerics):
    """Float numerics that record the calibration: max-abs of each matmul input per (site,
    layer), and of each K and V channel per (layer, KV head, channel)."""

    def __init__(self):
        self.act_max, self.k_max, self.v_max = {}, {}, {}

    def act(self, x, site, layer):
        key = (site, layer)
        self.act_max[key] = max(self.act_max.get(key, 0.0), float(np.abs(x).max()))
        return x

    def kv(self, k, v, layer):
        km, vm = np.abs(k).max(axis=1), np.abs(v).max(axis=1)            # (kv heads, head_dim)
        self.k_max[layer] = np.maximum(self.k_max.get(layer, 0), km)
        self.v_max[layer] = np.maximum(self.v_max.get(layer, 0), vm)
        return k, v


class FakeQuant(float_ref.Numerics):
    """The float reference with the choices of one row (see the module doc)."""

    def __init__(self, act=None, calib=None, kv=None, prob_bits=None, exp_table=False,
                 silu_lut=False, residual_frac=None):
        self.acts = act or {}           # site -> (bits, "token" | "static")
        self.calib = calib
        self.kv_mode = kv               # None | "token" | "channel"
        self.prob_bits = prob_bits
        self.exp_table = exp_table
        self.silu_lut = silu_lut
        self.residual_frac = residual_frac

    def act(self, x, site, layer):
        if site not in self.acts:
            return x
        bits, kind = self.acts[site]
        if kind == "token":
            return per_row(x, bits)
        return per_tensor(x, bits, self.calib.act_max[(site, layer)])

    def kv(self, k, v, layer):
        if self.kv_mode == "token":
            return per_row(k, 8), per_row(v, 8)
        if self.kv_mode == "channel":
            ks = self.calib.k_max[layer][:, None, :] / 127
            vs = self.calib.v_max[layer][:, None, :] / 127
            return fake_quant(k, ks, 8), fake_quant(v, vs, 8)
        return k, v

    def softmax(self, s):
        if not self.exp_table:
            return super().softmax(s)
        m = s.max(axis=-1, keepdims=True)
        e = exp2_table((s - m) * np.log2(np.e))
        return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)

    def probs(self, p, layer):
        if self.prob_bits is None:
            return p
        top = 2 ** self.prob_bits
        return (np.minimum(np.rint(p * top), top - 1) / top).astype(np.float32)

    def silu(self, x):
        return silu_table(x) if self.silu_lut else super().silu(x)

    def residual(self, x, layer):
        if self.residual_frac is None:
            return x
        one = 2.0 ** self.residual_frac
        q = np.rint(x.astype(np.float64) * one)
        if np.abs(q).max() >= 2 ** 31:
            raise ValueError(f"the residual stream overflows int32 with {self.residual_frac} fractional bits")
        return (q / one).astype(np.float32)


def int8_all(kind):
    return {s: (8, kind) for s in SITES}


def with16(acts, *sites):
    return {**acts, **{s: (16, "token") for s in sites}}


# ------------------------------------------------------------------ the study
def kl_divergence(ref_logits, logits, chunk=128):
    """The mean over positions of KL(softmax(ref) || softmax(row)), in nats (float64)."""
    total = 0.0
    for a in range(0, len(ref_logits), chunk):
        p, q = (np.asarray(x[a:a + chunk], np.float64) for x in (ref_logits, logits))
        lp = p - p.max(axis=-1, keepdims=True)
        lp -= np.log(np.exp(lp).sum(axis=-1, keepdims=True))
        lq = q - q.max(axis=-1, keepdims=True)
        lq -= np.log(np.exp(lq).sum(axis=-1, keepdims=True))
        total += float((np.exp(lp) * (lp - lq)).sum())
    return total / len(ref_logits)


def measure(model, numerics, ids, ref):
    """(top-1 agreement with ref, perplexity, mean KL from ref, seconds) of one row."""
    t0 = time.perf_counter()
    s = float_ref.FloatModel(model, numerics).teacher_forced(ids, keep_logits=True)
    dt = time.perf_counter() - t0
    return (float(np.mean(s.top1 == ref.top1)), float_ref.perplexity(s.nll), kl_divergence(ref.logits, s.logits), dt)


def meets(row, ppl_float):
    return row["top1"] >= GOAL_TOP1 and row["ppl"] <= ppl_float * (1 + GOAL_PPL)


def run(n_tokens=1024, log=print):
    """Every row of the module doc; returns the report (JSON-ready)."""
    model = gguf_model.load()
    tok = tokenizer.load()
    ids = text.window(tok, text.HELD_OUT, n_tokens)
    cal_ids = text.window(tok, text.CALIBRATION, min(n_tokens, text.CALIBRATION[1]))
    t0 = time.perf_counter()
    ref = float_ref.FloatModel(model).teacher_forced(ids, keep_logits=True)
    ppl_f = float_ref.perplexity(ref.nll)
    rows = [{"row": "float", "what": "float32 reference", "top1": 1.0, "ppl": ppl_f, "kl": 0.0,
             "seconds": time.perf_counter() - t0}]
    log(f"study: float reference, perplexity {ppl_f:.4f} over {n_tokens} tokens ({rows[0]['seconds']:.0f} s)")

    calib = {}
    for mode in ("tensor", "channel"):
        rec = Recorder()
        qm = quantize_weights(model, mode)
        float_ref.FloatModel(qm, rec).teacher_forced(cal_ids)
        calib[mode] = (qm, rec)

    def row(name, what, mode, **kw):
        qm, rec = calib[mode] if mode else (model, None)
        top1, ppl, kl, dt = measure(qm, FakeQuant(calib=rec, **kw), ids, ref)
        r = {"row": name, "what": what, "top1": top1, "ppl": ppl, "kl": kl, "seconds": dt,
             "meets_goal": None}
        r["meets_goal"] = meets(r, ppl_f)
        rows.append(r)
        log(f"study: {name:6} {what[:70]:70} top-1 {100 * top1:6.2f}%  ppl {ppl:8.4f} "
            f"({100 * (ppl / ppl_f - 1):+7.2f}%)  KL {kl:.4f}  {dt:5.0f} s")
        return r

    tok8 = int8_all("token")
    row("a", "int8 W per tensor, int8 A per tensor static", "tensor", act=int8_all("static"))
    # the activations' candidates for BASE, cheapest first (16-bit MACs a token: o 0.33M,
    # q/k/v 0.55M, down 0.88M, gate/up 1.77M; the head's 28.3M stays int8)
    ladder = [
        ("b", "int8 W per channel (gains folded), int8 A per token", tok8),
        ("c", "b + 16-bit A at the down input", with16(tok8, "down")),
        ("d", "c + 16-bit A at the o input", with16(tok8, "down", "o")),
        ("e", "d + 16-bit A at the q/k/v inputs", with16(tok8, "down", "o", "qkv")),
        ("e2", "e + 16-bit A at the gate/up inputs (all but the head's)", with16(tok8, "down", "o", "qkv", "gate_up")),
    ]
    base = None
    for name, what, acts in ladder:
        r = row(name, what, "channel", act=acts)
        if base is None and r["meets_goal"]:
            base = (name, acts)
    row("w", "int8 W per channel alone, float activations (the weights' share)", "channel")
    bname, bacts = base or ladder[-1][::2]
    # each remaining choice alone on BASE; the options of a choice, cheapest first
    choices = [
        ("f", [("KV int8 per token and head (dynamic)", {"kv": "token"}),
               ("KV int8 per channel (static)", {"kv": "channel"})]),
        ("g", [("probabilities 8 bits", {"prob_bits": 8}),
               ("probabilities 15 bits (Q15)", {"prob_bits": 15})]),
        ("h", [("exp by the 2^x table", {"exp_table": True})]),
        ("i", [("SiLU by the table", {"silu_lut": True})]),
        ("j", [("residual int32, 12 fraction bits", {"residual_frac": 12})]),
    ]
    chosen = {}
    for name, options in choices:
        tried = []
        for k, (what, kw) in enumerate(options):
            r = row(f"{name}{k + 1 if len(options) > 1 else ''}", f"{bname} + {what}", "channel", act=bacts, **kw)
            tried.append((not r["meets_goal"], r["kl"], k))
        # the cheapest option that met the goal alone; when none did, the one of least KL
        met = [k for miss, _, k in tried if not miss]
        chosen[name] = options[met[0] if met else min(tried)[2]]
    # the chip needs every one of f..j: added one by one on BASE (cumulative); when the whole
    # set misses the goal on BASE, the whole set on each costlier base of the ladder in turn
    kw_all, names = {}, [bname]
    for name, _ in choices:
        what, kw = chosen[name]
        kw_all.update(kw)
        names.append(name)
        last = row("+".join(names), f"cumulative: + {what}", "channel", act=bacts, **kw_all)
    cheapest = last["row"] if last["meets_goal"] else None
    for name, _, acts in ladder[[n for n, _, _ in ladder].index(bname) + 1:]:
        if cheapest:
            break
        r = row(f"{name}+f..j", f"{name} with the same f..j", "channel", act=acts, **kw_all)
        cheapest = r["row"] if r["meets_goal"] else None
    if cheapest and not cheapest.startswith(ladder[-1][0] + "+"):
        # the same set on the last base: how much margin 16 bits at the gate/up inputs buy
        row(f"{ladder[-1][0]}+f..j", f"{ladder[-1][0]} with the same f..j (the margin)", "channel",
            act=ladder[-1][2], **kw_all)
    held = f"pydoc topics tokens {text.HELD_OUT[0]}..{text.HELD_OUT[0] + n_tokens - 1}"
    return {"tokens": n_tokens, "held_out": held,
            "calibration": f"pydoc topics tokens {text.CALIBRATION[0]}..{text.CALIBRATION[0] + len(cal_ids) - 1}",
            "goal": {"top1": GOAL_TOP1, "ppl_rel": GOAL_PPL}, "base": bname, "base_meets_goal": base is not None,
            "chosen": {k: v[0] for k, v in chosen.items()}, "cheapest": cheapest,
            "top1_standard_error": float(np.sqrt(0.9 * 0.1 / n_tokens)), "rows": rows}


def table(rep):
    """The report as a markdown table."""
    ppl_f = rep["rows"][0]["ppl"]
    lines = [f"held-out: {rep['held_out']} (teacher-forced, one sequence, no BOS); calibration: {rep['calibration']}",
             "| row | numerics | top-1 vs float | perplexity | change | KL from float | goal | wall s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rep["rows"]:
        goal = "" if r["row"] == "float" else ("yes" if r["meets_goal"] else "no")
        lines.append(f"| {r['row']} | {r['what']} | {100 * r['top1']:.2f}% | {r['ppl']:.4f} | "
                     f"{100 * (r['ppl'] / ppl_f - 1):+.2f}% | {r['kl']:.4f} | {goal} | {r['seconds']:.0f} |")
    lines.append(f"goal: top-1 >= {100 * rep['goal']['top1']:.0f}% and perplexity <= float + "
                 f"{100 * rep['goal']['ppl_rel']:.0f}%; one standard error of a 90% agreement over "
                 f"{rep['tokens']} positions: {100 * rep['top1_standard_error']:.2f} points")
    lines.append(f"base (the cheapest of b..e2 meeting the goal): {rep['base']}"
                 + ("" if rep["base_meets_goal"] else " (none met it: the last)") + "; f..j: "
                 + "; ".join(f"{k}: {v}" for k, v in rep["chosen"].items()))
    lines.append(f"the cheapest complete set meeting the goal: {rep['cheapest'] or 'none'}")
    return "\n".join(lines)


def main(argv=None):
    from tb import cli
    ap = cli.Parser(prog="tools.smollm2.numerics_study", description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=cli.integer(16, 4 * text.HELD_OUT[1]), default=text.HELD_OUT[1],
                    help="held-out tokens scored from the held-out slice's start (the study's figures: 1,024)")
    ap.add_argument("--out", type=cli.out_file(), default=str(ROOT / "out" / "smollm2_numerics.json"))
    a = ap.parse_args(argv)
    try:
        rep = run(a.tokens)
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    except RuntimeError as e:
        print(f"{ap.prog}: {cli.one_line(e)}", file=sys.stderr)
        return 1
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(rep, indent=1) + "\n")
    print(table(rep))
    print(f"study: figures in {a.out}")
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
