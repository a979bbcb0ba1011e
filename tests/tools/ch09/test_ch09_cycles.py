"""Chapter 9's cycle counts pinned to the timing contract, independently of the builder.

The expected cycles of a batched step are a closed-form function of its lengths, written
here from docs/isa.md's timing contract (every instruction 2 issue cycles + busy; LD, ST,
RQ busy len + 1; MM busy K + 7 + M*N; SM busy 2*(len + 1) + 34*len; HALT 2) and the
step's structure as docs/ch09.md describes it -- not by walking program()'s instruction
list. They must equal the chapter's published numbers (typed in) and the counters of the
reference Machine running program(...).
"""
import pytest

from model import batch


def _ins(busy):
    return 2 + busy


def _ldst(n):          # LD, ST and RQ of n words
    return _ins(n + 1)


def _mm(M, K, N):
    return _ins(K + 7 + M * N)


def _sm(n):
    return _ins(2 * (n + 1) + 34 * n)


def step_cycles(ts):
    """Cycles of one batched step with slot lengths ts, from the timing contract."""
    B = len(ts)
    c = B * _ldst(16)                                      # per slot: its hidden row
    c += _ldst(3 * 16 * 16)                                # Wq, Wk, Wv in one load
    c += sum(2 * _ldst(16 * (t - 1)) for t in ts if t > 1)  # per cached slot: K and V rows
    c += 12 * _mm(B, 16, 4)                                # 3 weights x 4 column blocks
    c += _ldst(16 * B)                                     # all queries requantized
    c += B * (2 * _ldst(16) + 2 * _ldst(16))               # per slot: new K, V rows; 2 stores
    for t in ts:                                           # per slot: attention
        c += sum(_mm(1, 16, min(4, t - s)) for s in range(0, t, 4))   # scores, 4 keys a block
        c += _ldst(t) + _sm(t) + _ldst(t)                  # RQ scores, softmax, RQ weights
        c += 4 * _mm(1, t, 4)                              # weights x V, 4 column blocks
        c += _ldst(16) + _ldst(16)                         # RQ output, store output
    return c + 2                                           # HALT


# The chapter's published cycle counts (measured on Icarus and Verilator by make sim; docs/ch09.md).
PUBLISHED = {(16,): 2609, (16, 16): 4142, (16, 16, 16): 5675, (16, 16, 16, 16): 7208, (3, 9, 1, 14): 4252}


def test_closed_form_by_hand():
    # B = 1, t = 16: 19 + 771 + 2*243 + 12*29 + 19 + 76 + (116 + 19 + 580 + 19 + 116 + 19 + 19) + 2
    assert step_cycles([16]) == 19 + 771 + 486 + 348 + 19 + 76 + 888 + 2 == 2609
    # one token, no cache: 19 + 771 + 348 + 19 + 76 + (26 + 4 + 40 + 4 + 4*14 + 38) + 2
    assert step_cycles([1]) == 19 + 771 + 348 + 19 + 76 + 168 + 2


@pytest.mark.parametrize("ts", list(PUBLISHED))
def test_cycles_of_the_chapter_steps(ts):
    want = step_cycles(ts)
    assert want == PUBLISHED[ts]
    seqs = list(range(len(ts)))
    ex = batch.make_batch(len(ts), max(ts), 1)
    prog = batch.program(seqs, list(ts), batch.rq_params(ex))
    res = batch.fresh_machine(1).run(prog, batch.ext_image(ex))
    assert res.counters[0] == want


def test_cycles_of_random_ragged_steps():
    # slot order and sequence ids do not change the cycles; only the lengths do
    P = batch.rq_params(batch.make_batch(4, 16, 1))
    img = batch.ext_image(batch.make_batch(4, 16, 1))
    for seqs, ts in batch.ragged_configs(5, 8):
        res = batch.fresh_machine(5).run(batch.program(seqs, ts, P), img)
        assert res.counters[0] == step_cycles(ts), (seqs, ts)
