"""The shrinker (tb/shrink.py) on oracles whose bug is known: it must find exactly
the instructions and image words the bug needs, and the saved text must replay."""
import numpy as np
import pytest

from model import isa
from model.asm import assemble_file
from tb.shrink import ddmin, save, shrink
from tb.stimulus import randprog


def test_ddmin_finds_the_two_needed_items_and_batches_its_questions():
    asked = []

    def fails(cands):
        asked.append(len(cands))
        return [3 in c and 11 in c for c in cands]
    assert ddmin(list(range(20)), fails) == [3, 11]
    assert max(asked) > 1                     # candidates judged a round at a time


def test_ddmin_single_item_and_empty_failure():
    assert ddmin([1, 2, 3], lambda cs: [2 in c for c in cs]) == [2]
    assert ddmin([1, 2, 3], lambda cs: [True for _ in cs]) == []


def _bug(prog, image):
    """A made-up chip bug: an RQ of len >= 5 somewhere before an SM, with ext[300] != 0."""
    ops = [i.op for i in prog]
    rq = [k for k, i in enumerate(prog) if i.op == "RQ" and i.len >= 5]
    return bool(rq) and "SM" in ops[rq[0]:] and image[300] != 0


def test_shrink_a_random_program_to_the_bug(tmp_path):
    rng = np.random.default_rng(5)
    for _ in range(200):
        prog, image = randprog.random_program(rng, n_instr=30)
        image[300] = 7
        if _bug(prog, image):
            break
    else:
        pytest.fail("no failing random program found")
    small, img = shrink(prog, image, lambda cands: [_bug(p, i) for p, i in cands])
    assert [i.op for i in small] == ["RQ", "SM", "HALT"]
    assert np.count_nonzero(img) <= 64 and img[300] == 7     # only the needed block is left
    cmd = save(small, img, tmp_path / "repro.s", note="made-up bug")
    assert "./ga2 run" in cmd and str(tmp_path / "repro.s") in cmd
    assert assemble_file(tmp_path / "repro.s") == small


def test_shrink_refuses_a_passing_program():
    prog, image = randprog.random_program(1)
    with pytest.raises(ValueError, match="does not fail"):
        shrink(prog, image, lambda cands: [False for _ in cands])
    assert isa.build("HALT") == prog[-1]
