"""The two tasks' data is what tools/lm/data.py says: every sum against Python's a + b,
the addition split a partition, the text split the whole corpus."""
import numpy as np
import pytest

from tools.lm import data


def test_the_sums_are_pythons():
    P = data.add_all()
    assert P.shape == (10000, data.ADD_LEN)
    for i in range(10000):
        a, b = divmod(i, 100)
        assert P[i, :4].tolist() == [a // 10, a % 10, b // 10, b % 10]
        assert data.add_answer(P[i, 4:]) == a + b


def test_the_addition_split_is_a_partition():
    tr, ho = data.add_split()
    assert len(ho) == data.ADD_HELD_OUT and not set(tr) & set(ho)
    assert sorted(set(tr) | set(ho)) == list(range(10000))


def test_the_text_split_is_the_corpus():
    tr, ho = data.text_split()
    assert data.decode(np.concatenate([tr, ho])) == data.text_corpus()
    assert len(ho) == pytest.approx(0.1 * (len(tr) + len(ho)), abs=1)
