"""`ga2 generate --model smollm2`: SmolLM2-135M-Instruct decoding greedily, on the chip or
on either reference.

  --sim model      the cycle-exact Machine runs the compiled steps (tools/smollm2/chip.py);
                   its tokens and every cached K/V row are held to the integer reference
  --sim int        the integer reference alone (tools/smollm2/int_ref.py)
  --sim float      the float reference alone (tools/smollm2/float_ref.py)
  --sim icarus|verilator   the simulated RTL (tb.hw, every step judged against the Machine:
                   counters, retire trace, the token area and KV cache read back after each
                   step, every write inside them); tokens and KV rows held to the integer
                   reference as on the Machine

The first line says what will run and, for the chip, its predicted cycles (the timing
model) and wall time (derived from the Machine's measured speed, MACHINE_CYCLES_PER_S).
Then the text as it is decoded, the cycles and tokens per second at the build's measured
clock (derived: tools/flow/fpga/measured.json), and PASS or FAIL. --json FILE writes
{"prompt", "tokens", "text", "sim", "cycles", "pass"}.
"""
import json
import time
from pathlib import Path

from model import timing
from tools.lm.compiler.wide_layout import PV_TILE
from tools.smollm2 import chip, float_ref, gguf_model, int_ref, intweights, tokenizer

SIMS = ("model", "int", "float", "icarus", "verilator")
# each way's speed on the whole model's steps, measured on this machine type (2026-12-06):
# for the first line's estimate only (docs/smollm2.md)
CYCLES_PER_S = {"model": 10.8e6, "verilator": 0.95e6, "icarus": 7.0e3}


def _clock(mode):
    """The language models' chips' measured clock (tools/flow/clock.py), or None: the
    SmolLM2 chip's own 65,536-word scratchpad is not routed (it does not fit the ECP5's
    block RAM), so the LM's largest routed build clocks it, and the label says so."""
    from tools.flow import clock
    try:
        return clock.clock(mode, "lm")
    except ValueError:
        return None


def run(prompt_text, n, sim="model", mode="overlap", chat=False, json_path=None, log=print):
    """Generate n tokens after prompt_text on sim; the exit code (0 PASS, 1 FAIL).
    ValueError for bad input (a prompt beyond the context, n < 1, an unknown sim)."""
    if sim not in SIMS:
        raise ValueError(f"--sim {sim}: one of {', '.join(SIMS)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"--tokens must be >= 1, got {n!r}")
    m = gguf_model.load()
    tok = tokenizer.load()
    text = tokenizer.chat_prompt(prompt_text) if chat else prompt_text
    ids = tok.encode(text)
    if not ids:
        raise ValueError("the prompt has no tokens")
    if len(ids) + n > m.config.ctx:
        raise ValueError(f"the prompt's {len(ids)} tokens + {n} new: {len(ids) + n} positions, "
                         f"beyond the context of {m.config.ctx}")
    t0 = time.perf_counter()
    if sim == "float":
        log(f"float reference: {len(ids)} prompt tokens, {n} new")
        out = float_ref.FloatModel(m).generate(ids, n)
        return _report(tok, prompt_text, ids, out, sim, None, True, json_path, log, t0)
    W = intweights.prepare(m)
    ref = int_ref.IntRef(W, pv_tile=PV_TILE)            # the chip's tiles of the weighted sum of V
    if sim == "int":
        log(f"integer reference: {len(ids)} prompt tokens, {n} new")
        out = ref.generate(ids, n)
        return _report(tok, prompt_text, ids, out, sim, None, True, json_path, log, t0)
    gen = chip.SmolGeneration(W, ids, n, chip=chip.full_chip(mode))
    progs = gen.programs()
    cfg = gen.layout.chip.for_program(max(len(p) for p in progs))
    predicted = sum(timing.schedule(p, cfg).cycles for p in progs)
    rate = CYCLES_PER_S[sim]
    log(f"{'the Machine' if sim == 'model' else sim} ({mode}): {len(gen.steps)} steps, "
        f"{sum(len(p) for p in progs)} instructions, {predicted:,} cycles predicted; about "
        f"{predicted / rate / 60:.1f} min (derived: {rate:,.0f} cycles/s measured)", flush=True)
    out = chip.run(gen, sim, window=sim != "model")
    want = ref.generate(ids, n)
    kv_ok = not out.error and chip.cache_equal(gen, out.ext, ref)
    ok = not out.error and out.tokens == want and kv_ok
    cycles = sum(int(c.cycles) for c in out.counters)
    if out.error:
        log(f"FAIL: {out.error}")
    code = _report(tok, prompt_text, ids, out.tokens, sim, cycles, ok, json_path, log, t0)
    clk = _clock(mode)
    if clk and cycles:
        log(f"{n * clk.mhz * 1e6 / cycles:.4f} tokens/s (derived: {n} tokens in the counters' "
            f"{cycles:,} cycles at {clk.label})")
    log(f"{'PASS' if ok else 'FAIL'}: tokens {'equal' if out.tokens == want else 'differ from'} the "
        f"integer reference's, KV cache {'equal' if kv_ok else 'differs'}")
    fl = float_ref.FloatModel(m).generate(ids, n)
    same = next((k for k, (a, b) in enumerate(zip(out.tokens, fl)) if a != b), None)
    log("the float reference's tokens: " + ("the same" if same is None else
        f"{fl} (the first difference at token {same}: the integer numerics' choice, "
        "docs/smollm2.md; not a failure)"))
    return code


def _report(tok, prompt_text, ids, out, sim, cycles, ok, json_path, log, t0):
    text = tok.decode(out)
    log(prompt_text + text)
    log(f"{sim}: {len(out)} tokens {out}" + (f", {cycles:,} cycles" if cycles else "") +
        f", {time.perf_counter() - t0:.1f} s")
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps({"prompt": prompt_text, "tokens": out, "text": text,
                                               "sim": sim, "cycles": cycles, "pass": ok}, indent=1))
    return 0 if ok else 1
