"""The SmolLM2 curve's arithmetic (tools/smollm2/curve.py) on a small description: the
bound, the tokens per 1,000 cycles and the goals against numbers computed here (the
words a step moves from the model's shapes: every weight once, whatever the batch), and
that the whole model's B = 16 layout fits the chip (the curve's largest points)."""
import pytest

from model import isa, stalls, timing
from tools.lm.compiler.desc import Desc
from tools.lm.compiler.wide import Row, step_program
from tools.lm.compiler.wide_layout import WideLayout
from tools.smollm2 import curve

SMALL = Desc(layers=2, d=128, heads=2, kv_heads=1, mlp=192, vocab=96, ctx=64, head_dim=64,
             activation="swiglu", positions="rope", tied_head=True, numerics="per-channel",
             residual="int32", attention="tiled")


def expected_words(desc, B, T):
    """Words one decode step of B rows at position T moves, from the shapes: every
    matrix and its column scales once, the head and its scales once, the 65 constant
    words; per row its token, embedding row, rope row, per layer and KV head its cache's
    T + 1 key and value rows (64 words) and scale words and the two new rows and scales
    stored, and its next token stored."""
    d, dk, f, V = desc.d, desc.kv_heads * 64, desc.mlp, desc.vocab
    mats = [(d, d), (dk, d), (dk, d), (d, d), (f, d), (f, d), (d, f)]
    weights = desc.layers * sum(o * k + o for o, k in mats) + V * d + V + 65
    n = T + 1
    per_row = 1 + d + 64 + desc.layers * desc.kv_heads * (2 * (n * 64 + n) + 2 * (64 + 1)) + 1
    return weights + B * per_row


@pytest.mark.parametrize("B,T,mode", [(1, 9, "overlap"), (5, 20, "overlap"), (5, 20, "inorder")])
def test_point_arithmetic(B, T, mode):
    p = curve.measure(SMALL, B, T, mode)
    cfg = curve.chip(mode)
    prog = step_program(curve.layout(SMALL, B, T, cfg), [Row(b, T, True) for b in range(B)])
    words = sum(i.len for i in prog if i.op in ("LD", "ST", "LDX"))
    macs = sum(i.M * (i.K + 256 * i.khi) * i.N for i in prog if i.op == "MM")
    vec = sum(timing.busy_cycles(i, cfg) for i in prog if timing.UNIT.get(i.op) == "vec")
    assert words == p["words"] == expected_words(SMALL, B, T)
    assert macs == p["macs"]
    assert vec == p["vec"]
    assert p["bound_cycles"] == max(words, macs / 16, vec)
    assert p["binding"] == "dma" and p["bound_cycles"] == words      # a small model: memory-bound
    assert p["tokens_per_kcycle"] == 1000 * B / p["cycles"]
    assert p["bound_tokens_per_kcycle"] == 1000 * B / words
    assert p["cycles"] == timing.schedule(prog, cfg).cycles
    assert p["cycles"] >= words and p["sim"] == "model"
    assert p["instructions"] == len(prog) and isa.program_words(prog) == words
    if mode == "overlap":         # the DMA's idle cycles, each attributed once
        s = timing.schedule(prog, cfg)
        assert p["idle_unit"] == "dma" and p["idle"] == stalls.idle(prog, cfg, "dma")
        assert sum(p["idle"].values()) == s.cycles - s.counters.dma
        issued = {e.pc: e.issue for e in s.events if e.unit}
        assert {w.pc: w.issue for w in stalls.waits(prog, cfg)} == issued
        for unit in ("mm", "vec"):
            assert sum(stalls.idle(prog, cfg, unit).values()) == s.cycles - getattr(s.counters, unit)
        line = curve.idle_line(p)
        assert f"(dma) idles (the timing model's schedule) {s.cycles - s.counters.dma:,} cycles: " in line
    else:
        assert "idle" not in p


def test_goals_on_made_up_points():
    def pt(B, T, mode, cycles, bound, words):
        return dict(B=B, T=T, mode=mode, cycles=cycles, bound_cycles=bound, of_bound=bound / cycles,
                    of_memory=words / cycles, tokens_per_kcycle=1000 * B / cycles,
                    bound_tokens_per_kcycle=1000 * B / bound)
    pts = [pt(1, 256, "overlap", 100, 96, 96), pt(16, 256, "overlap", 150, 140, 140),
           pt(1, 256, "inorder", 200, 96, 96)]
    g = curve.goals(pts)
    assert g["overlap"]["b1_memory"]["met"] and g["overlap"]["b1_memory"]["measured"] == 0.96
    assert g["overlap"]["every_point"]["met"]
    r = g["overlap"]["ratio_T256"]
    assert r["measured"] == pytest.approx(16 * 100 / 150)       # 10.67x
    assert r["roofline"] == pytest.approx(16 * 96 / 140)        # 10.97x
    assert r["met"]                                              # 2.8% short
    assert not g["inorder"]["b1_memory"]["met"] and g["inorder"]["every_point"]["below"] == [[1, 256]]
    far = curve.goals([pt(1, 256, "overlap", 100, 96, 96), pt(16, 256, "overlap", 200, 140, 140)])
    assert not far["overlap"]["ratio_T256"]["met"]               # 8x against 10.97x


def test_whole_model_batch_of_16_fits():
    """B = 16 at T = 256 and at T = 1,024 fit the chip (scratchpad and external memory:
    16 caches of 1,026 positions beside the weights need 355,145,441 words, past 2^28 and
    within the 2^29 that 13 bits of xhi reach); 16 rows over 1,026 positions fit the
    scratchpad; 16 caches of 2,050 positions (546,920,161 words) do not fit."""
    from tools.smollm2 import chip, gguf_model
    desc = chip.describe(gguf_model.SHAPES, gguf_model.SHAPES.ctx)
    cfg = curve.chip("overlap")
    lay = curve.layout(desc, 16, 256, cfg)
    assert lay.sp_words <= cfg.sp_words and lay.ext_words <= cfg.ext_words
    assert lay.tile_buffers >= 2 and lay.key_tile == 64
    wide = WideLayout(desc, 8, 1026, cfg, rows=16)
    assert wide.sp_words <= cfg.sp_words
    assert cfg.ext_words == 1 << 29
    assert curve.layout(desc, 16, 1024, cfg).ext_words == 355_145_441
    with pytest.raises(ValueError, match="546920161 words of external memory"):
        curve.layout(desc, 16, 2048, cfg)


def test_cli_refuses_bad_points(capsys):
    with pytest.raises(SystemExit) as e:
        curve.main(["--points", "3"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "B:T" in err
    assert curve.main(["--points", "1:8191"]) == 2
    assert "beyond the context" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        curve.main(["--sim", "gem5"])
    assert e.value.code == 2 and "--sim" in capsys.readouterr().err


def test_a_step_past_the_instruction_memory_is_skipped_not_a_traceback(monkeypatch, tmp_path, capsys):
    """A point whose step program the chip's instruction memory cannot hold (here a stand-in
    program one word past it) is listed as skipped with the reason, as a point its external
    memory cannot hold is; the command still writes its JSON and exits 0."""
    import json

    from model import config
    monkeypatch.setattr(curve, "step_program", lambda lay, rows: [None] * (config.IMEM_MAX + 1))
    out = tmp_path / "c.json"
    assert curve.main(["--points", "1:8", "--modes", "overlap", "--json", str(out),
                       "--png", str(tmp_path / "c.png")]) == 0
    got = json.loads(out.read_text())
    assert got["points"] == [] and len(got["skipped"]) == 1
    why = got["skipped"][0]["why"]
    assert f"{config.IMEM_MAX + 1:,} instructions" in why and "21 bits" in why
    assert "skipped B = 1, T = 8, overlap" in capsys.readouterr().out


@pytest.mark.long
@pytest.mark.parametrize("B, T, instructions, ext_words, overlap, inorder, idle", [
    (1, 256, 95_341, None, 137_762_681, 176_420_072,
     {"its FETCH and DECODE": 25_344, "own: raw on vec": 8_200, "after its last instruction": 1}),
    (16, 1024, 1_202_620, 355_145_441, 352_900_237, 676_755_332,
     {"own: war on mm": 25_850_157, "its FETCH and DECODE": 118_614, "own: war on vec": 36_390,
      "own: raw on vec": 14_499, "after its last instruction": 1}),
])
def test_the_published_curve_points(B, T, instructions, ext_words, overlap, inorder, idle):
    """docs/smollm2.md's curve table, its table of where the DMA idles, and
    docs/measurements.md, pinned: the whole model's step at (B, T), compiled for the
    curve's chip and scheduled in both timing modes (no weights: timing is the program's
    alone). -m long: the B = 16, T = 1,024 step is 1.2M instructions (about 3 min to
    compile, 3 to schedule)."""
    from tools.smollm2 import chip, gguf_model
    desc = chip.describe(gguf_model.SHAPES, gguf_model.SHAPES.ctx)
    p = {mode: curve.measure(desc, B, T, mode) for mode in ("overlap", "inorder")}
    assert p["overlap"]["instructions"] == p["inorder"]["instructions"] == instructions
    assert (p["overlap"]["cycles"], p["inorder"]["cycles"]) == (overlap, inorder)
    assert p["overlap"]["idle_unit"] == "dma"
    assert {k: p["overlap"]["idle"][k] for k in idle} == idle
    assert sum(p["overlap"]["idle"].values()) == overlap - p["overlap"]["dma"]
    if ext_words is not None:
        assert curve.layout(desc, B, T, curve.chip("overlap")).ext_words == ext_words


def test_the_figure_has_the_idle_panel_with_overlap_points(tmp_path, monkeypatch):
    """figure(): a second panel when a point carries its idle causes (bars of
    model/stalls.by_unit's groups as % of the step's cycles), none without."""
    import matplotlib.axes
    pts = [curve.measure(SMALL, B, 9, mode) for B in (1, 5) for mode in ("inorder", "overlap")]
    widths = []
    real = matplotlib.axes.Axes.barh

    def barh(self, y, width, *a, **k):
        widths.append(list(width))
        return real(self, y, width, *a, **k)
    monkeypatch.setattr(matplotlib.axes.Axes, "barh", barh)
    curve.figure(pts, tmp_path / "f.png")
    ovl = [p for p in pts if p["mode"] == "overlap"]
    assert len(widths) == len(stalls.GROUPS)
    for i, p in enumerate(ovl):        # the bars of each point add up to its idle share
        assert sum(w[i] for w in widths) == pytest.approx(100 * (p["cycles"] - p["dma"]) / p["cycles"])
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    widths.clear()
    curve.figure([p for p in pts if p["mode"] == "inorder"], tmp_path / "g.png")
    assert widths == [] and (tmp_path / "g.png").exists()
