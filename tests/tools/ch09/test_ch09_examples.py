"""Chapter 9's running examples: the capacity planner (A) and static vs continuous
batching priced with the real batched programs (B)."""
import pytest

from model import batch, timing
from tools.ch09 import example_a as A
from tools.ch09 import example_b as B


# ------------------------------------------------------------------ example A
def test_capacity_hand_checked_points():
    # chip A, 2048 tokens: (24e9 - 7e9) / (262144 * 2048 = 536870912) = 31.66 -> 31
    assert A.max_batch(24e9, 2048) == 31
    # chip B, 32768 tokens: 73e9 / 8589934592 = 8.50 -> 8
    assert A.max_batch(80e9, 32768) == 8
    # chip A, 32768 tokens: 17e9 / 8.59e9 = 1.98 -> 1
    assert A.max_batch(24e9, 32768) == 1
    # weights alone do not fit: no batch
    assert A.max_batch(6e9, 2048) == 0
    # b = 1 on chip A at 2048: 0.5e12 / (7e9 + 536870912) = 66.34 tokens/s
    assert A.tokens_per_s(1, 0.5e12, 2048) == pytest.approx(66.34, abs=0.01)
    with pytest.raises(ValueError):
        A.max_batch(24e9, 0)


def test_plan_marks_batches_that_do_not_fit_and_limits():
    rows = {(r["chip"], r["context"]): r for r in A.plan()}
    r = rows[("A", 8192)]
    assert r["max_batch"] == 7 and r["tok_s"]["4"] is not None and r["tok_s"]["16"] is None
    for r in rows.values():
        assert r["limit"] == pytest.approx(r["bw"] / (262144 * r["context"]))
        if r["best"] is not None:
            assert r["best"] < r["limit"]
            assert all(v is None or v <= r["best"] for v in r["tok_s"].values())


# ------------------------------------------------------------------ example B
def test_static_waste_equals_idle_slots_counted_step_by_step():
    st = B.price(B.schedule_static())
    # group 1 (14, 3, 9, 5) runs 14 steps, group 2 (12, 2, 7, 10) 12 steps
    idle = sum(max(0, 14 - w) for w in (14, 3, 9, 5)) + sum(max(0, 12 - w) for w in (12, 2, 7, 10))
    assert idle == 42
    assert st["steps"] == 26
    assert st["riding_slot_steps"] == idle == st["idle_slot_steps"]
    assert sum(row.count("x") for row in st["occupancy"]) == idle


def test_step_costs_are_the_real_programs_cycles():
    P = batch.rq_params(batch.make_batch(1, 1, 1))
    co = B.price(B.schedule_continuous())
    steps = B.schedule_continuous()
    for st, c in zip(steps, co["step_cycles"]):
        prog = batch.program([s for s, _, _, _ in st], [t for _, _, t, _ in st], P)
        assert c == timing.schedule(prog, batch.CFG).cycles
    assert co["total_cycles"] == sum(co["step_cycles"])


def test_continuous_never_slower_and_every_token_made_once():
    st, co = B.price(B.schedule_static()), B.price(B.schedule_continuous())
    assert co["total_cycles"] <= st["total_cycles"]
    assert co["worst_completion"] <= st["worst_completion"]
    assert co["mean_completion"] <= st["mean_completion"]
    for sched in (B.schedule_static(), B.schedule_continuous()):
        made = {}
        for step in sched:
            assert len(step) <= 4 and len({s for s, _, _, _ in step}) == len(step)
            for _, r, t, useful in step:
                if useful:
                    made.setdefault(r, []).append(t)
        assert made == {r: list(range(1, w + 1)) for r, w in enumerate(B.WANTS)}
    # continuous: a freed slot is refilled at once while the queue lasts (no empty slot before the tail)
    assert all(len(s) == 4 for s in B.schedule_continuous()[:14])
