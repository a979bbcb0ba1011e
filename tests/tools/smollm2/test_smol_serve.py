"""SmolLM2 served (tools/smollm2/serve.py): the server's policies over a paged KV pool on
cut-downs of the real weights, on the Machine and live on the circuit; each request's
tokens held to the integer reference's greedy decoding of it alone (tools/smollm2/int_ref.py,
run here), the paged cache's rows held to the reference's cache at the addresses the pool's
documentation states (computed here), and the command's refusals."""
import numpy as np
import pytest

from tools.lm.compiler import LM_CHIP_OVERLAP
from tools.lm.compiler.wide import Row, step_program
from tools.serve import lm_run as L
from tools.serve import requests as rq
from tools.serve import wide_memory as wm
from tools.smollm2 import chip, int_ref, intweights
from tools.smollm2 import serve as S


class CutTok:
    """A tokenizer for a cut vocabulary: fixed ids per prompt (no text model needed)."""
    eos = 2

    def __init__(self, table):
        self.table = table

    def encode(self, text):
        return list(self.table[text])

    def decode(self, ids):
        return " ".join(map(str, ids))


@pytest.fixture(scope="module")
def gqa(model):
    return intweights.cut(model, layers=2, kv_heads=1, ffn=256, vocab=512)


@pytest.fixture(scope="module")
def tiny(model):
    return intweights.cut(model, layers=2, kv_heads=1, ffn=32, vocab=64, group=1)


PROMPTS = {"a": [17, 30, 45, 9, 59], "b": [8, 41], "c": [50, 31, 7, 48], "d": [5, 6, 7, 8, 9, 10]}


def _reqs(arrivals, new=(4, 4, 3, 3)):
    return [rq.LMRequest(k, k, n, t) for k, n, t in zip(PROMPTS, new, arrivals)]


def _alone(W, reqs, tok):
    ref = int_ref.IntRef(W)
    return [ref.generate(tok.encode(q.prompt), q.max_new, eos=tok.eos) for q in reqs]


SMALL = chip.CUT_CHIP.replace(ext_words=1 << 16)       # the tiny cut's weights and pool fit


@pytest.mark.parametrize("mode,policies", [
    ("inorder", [("static", "whole"), ("reserve", "chunked"), ("preempt", "chunked")]),
    pytest.param("overlap", L.ALL, marks=pytest.mark.long)], ids=["inorder-3", "overlap-all"])
def test_policies_serve_each_request_as_alone(tiny, mode, policies):
    """The policies on a pool of 6 blocks of 4 positions that four requests (2 blocks each)
    cannot hold at once: every request's tokens equal to the integer reference's alone;
    the policies make different schedules; preempt preempts and no other does; every
    step's cycles equal to the timing model (the server's own finding, in problems)."""
    tok = CutTok(PROMPTS)
    reqs = _reqs((0, 0, 20_000, 40_000))
    want = _alone(tiny, reqs, tok)
    runs, probs, alone = S.serve_all(tiny, tok, reqs, policies, chip_cfg=SMALL.replace(mode=mode),
                                     n_blocks=6)
    assert probs == []
    assert alone == want
    for run in runs:
        assert run.tokens == want
    steps = {(r.policy, r.prefill): len(r.steps) for r in runs}
    assert len(set(steps.values())) > 1, steps
    assert all(sum(r.preemptions) > 0 for r in runs if r.policy == "preempt")
    assert all(sum(r.preemptions) == 0 for r in runs if r.policy != "preempt")


def test_paged_cache_rows_equal_the_reference(gqa):
    """One request through scattered blocks [5, 0, 3] of 4 positions: prefill of its 6
    prompt rows in two steps, three decode steps; every K and V row and scale word of
    positions 0..8 read at the address the pool's documentation states (plane (layer, kind,
    g) of rows then scale words, block i's rows at +i * 4 * 64), computed here, equal to the
    integer reference's cache; the tokens equal to its greedy decoding."""
    W, ctx, bt, nb = gqa, 16, 4, 6
    prompt = PROMPTS["d"]
    mm = wm.WideMap(chip.describe(W.config, ctx), 1, nb, bt, ctx, 4, chip.CUT_CHIP)
    tables = {0: [5, 0, 3]}
    ext = np.zeros(mm.ext_words, dtype=np.int64)
    w = mm.lay.image(W, [])
    ext[:w.size] = w
    tok0 = mm.lay.weight_words
    ext[tok0:tok0 + len(prompt)] = prompt
    steps = [[Row(0, t, False) for t in range(4)], [Row(0, 4, False), Row(0, 5, True)]]
    steps += [[Row(0, t, True)] for t in (6, 7, 8)]
    from model.machine import Machine
    m = Machine(chip.CUT_CHIP)
    for rows in steps:
        ext = np.asarray(m.run(step_program(mm.lay, rows, mem=wm.WidePaged(mm, tables)), ext).ext)
    got = [int(v) for v in ext[tok0 + 6:tok0 + 10]]
    ref = int_ref.IntRef(W)
    assert got == ref.generate(prompt, 4)
    c = W.config
    n, G = 9, c.n_kv_head
    pool0 = tok0 + ctx                      # one token area of ctx words
    plane = nb * bt * 64 + nb * bt
    for layer in range(c.n_layer):
        for kind, rows8, scales in ((0, ref.cache.k8, ref.cache.ks), (1, ref.cache.v8, ref.cache.vs)):
            for g in range(G):
                p = pool0 + ((layer * 2 + kind) * G + g) * plane
                for t in range(n):
                    blk, r = tables[0][t // bt], t % bt
                    a = p + (blk * bt + r) * 64
                    assert np.array_equal(ext[a:a + 64], rows8[layer, g, t]), (layer, kind, g, t)
                    assert ext[p + nb * bt * 64 + blk * bt + r] == scales[layer, g, t]


def test_a_step_refuses_a_position_its_table_lacks(gqa):
    mm = wm.WideMap(chip.describe(gqa.config, 16), 1, 4, 4, 16, 4, chip.CUT_CHIP)
    with pytest.raises(ValueError, match="table holds no block 1"):
        step_program(mm.lay, [Row(0, 5, True)], mem=wm.WidePaged(mm, {0: [2]}))
    with pytest.raises(ValueError, match="no block table"):
        step_program(mm.lay, [Row(1, 0, True)], mem=wm.WidePaged(mm, {0: [2]}))
    with pytest.raises(ValueError, match="needs .* words of external memory"):
        wm.WideMap(chip.describe(gqa.config, 16), 1, 100_000, 4, 16, 4, chip.CUT_CHIP)


def test_live_on_verilator(tiny):
    """Three requests live on Verilator (the LM chip, overlap): the host decides each step
    from the chip's outcome through the read-back window of the token areas and the pool;
    every step judged against the Machine; the tokens equal to the reference's alone."""
    from tb import hw
    if "verilator" not in hw.available_sims():
        pytest.skip("verilator not installed")
    table = {"a": [17, 30, 45], "b": [8, 41], "c": [50, 31, 7, 60]}
    tok = CutTok(table)
    reqs = [rq.LMRequest(k, k, n, t) for k, n, t in zip(table, (3, 3, 2), (0, 0, 60_000))]
    cfg = LM_CHIP_OVERLAP
    kw = dict(n_blocks=4, slots=2, rows=2, ctx=8)
    mm = S.SmolServer(tiny, reqs, tok, "reserve", "chunked", chip_cfg=cfg, **kw).mm
    with hw.Live("verilator", cfg=cfg, max_cycles=1 << 26, window=(mm.tokens, mm.ext_words)) as live:
        runs, probs, _ = S.serve_all(tiny, tok, reqs, [("preempt", "chunked")], chip_cfg=cfg,
                                     chip=live, **kw)
        assert all(r.ok for r in live.results) and len(live.results) == len(runs[0].steps)
    assert probs == []
    assert runs[0].tokens == _alone(tiny, reqs, tok)


@pytest.mark.parametrize("args,words", [
    (["--requests", "5"], "--requests"),
    (["--blocks", "1"], "needs 2 blocks, the pool has 1"),
    (["--policies", "fifo"], "unknown policy"),
    (["--sim", "gem5"], "--sim"),
])
def test_refusals_exit_2_with_one_line(args, words, capsys):
    from tools import ga2
    assert ga2.main(["serve", "--model", "smollm2", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_a_workload_past_the_context_is_refused(tmp_path, capsys):
    from tools import ga2
    f = tmp_path / "w.json"
    f.write_text('[{"id": "x", "prompt": "' + "word " * 70 + '", "max_new": 2, "arrival": 0}]')
    assert ga2.main(["serve", "--model", "smollm2", "--workload", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exceed the serving context 64" in err, err
