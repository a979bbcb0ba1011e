"""The remedies on the RTL: generations with each remedy on Verilator (every step judged
against the reference chip by tb.hw, cycle for cycle, the scratchpad garbage), their ids
and cached rows held to the integer reference (tools/lm/remedies_ref.py); the tiled
attention at long contexts (one step after a cache the host prefills from the reference,
tools/lm/long.py) on Verilator and, small, on Icarus. Long: the remedies' chip is a
Verilator build of its own (about 2 minutes the first time)."""
import pytest

from tb import hw
from tools.lm import compiler as C
from tools.lm import data, long
from tools.lm import generation as G
from tools.lm.generate import load_model, run

pytestmark = pytest.mark.long


def need(sim):
    if sim not in hw.available_sims():
        pytest.skip(f"{sim} not installed")


def text(s):
    return [int(t) for t in data.encode(s)]


CASES = {
    "gqa-add": (("add", 1, 8), C.Remedies(), [data.add_problem(47, 85)[:4],
                                              data.add_problem(3, 99)[:4]], 3),
    "kv4": (("text", 0, 4), C.Remedies(kv_bits=4), [text("The "), text("x")], 3),
    "window": (("text", 0, 8), C.Remedies(window=6, sinks=2), [text("def ")], 5),
    "tiles": (("text", 0, 8), C.Remedies(tile=4), [text("The ")], 3),
    "all": (("text", 1, 4), C.Remedies(kv_bits=4, window=6, sinks=1, tile=4),
            [text("for "), text("x")], 4),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_remedy_on_verilator(case):
    need("verilator")
    (task, kvh, bits), rem, prompts, n = CASES[case]
    model = load_model(task, kv_heads=kvh, kv_bits=bits)
    g = G.generation(model, prompts, n, rem, "overlap", start=[k % 2 for k in range(len(prompts))])
    out = run(g, "verilator", garbage=1)
    assert out.error == "" and out.steps_ok
    assert out.tokens == out.ref_tokens and out.kv_ok


@pytest.mark.parametrize("T, B, rem", [(100, 2, C.Remedies()), (256, 4, C.Remedies()),
                                       (256, 2, C.Remedies(kv_bits=4))],
                         ids=["T100-B2", "T256-B4", "T256-B2-kv4"])
def test_tiled_long_context_on_verilator(T, B, rem):
    need("verilator")
    model = load_model("text", kv_bits=rem.kv_bits)          # positions past 64: row 63
    gen, ext, prog, want = long.case(model, rem, B, T)
    assert gen.layout.tile < T                               # tiled
    (r,) = hw.run_programs("verilator", [(prog, ext)], cfg=gen.layout.chip)
    assert r.ok, r.mismatch
    assert long.judge(gen, r.ext, want) == []


def test_tiled_attention_on_icarus():
    # Icarus (4-state) is slow: one step at position 19 in tiles of 8, on a 64K-word chip
    need("icarus")
    model = load_model("text")
    cfg = C.chip_config("overlap", ext_words=1 << 16, imem_depth=4096)
    gen, ext, prog, want = long.case(model, C.Remedies(tile=8), 1, 20, cfg=cfg)
    (r,) = hw.run_programs("icarus", [(prog, ext)], cfg=cfg)
    assert r.ok, r.mismatch
    assert long.judge(gen, r.ext, want) == []
