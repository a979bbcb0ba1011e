"""QNT's RTL-step emulation (tb/mutation/rtl/qnt_emu.py) against the reference's scale word,
and each of QNT's searched edge rows against the mutant it was found for: the row's word
under the constant one off differs from the RTL's, so the suite's exact compare catches
that mutant (docs/mutation_rtl.md "ga2_qnt")."""
import random

import numpy as np
import pytest

from model.ops import qnt as Q
from tb.mutation.rtl import qnt_emu as E


def test_the_emulation_is_the_reference_on_random_rows():
    rng = random.Random(5)
    for _ in range(300):
        x = [rng.randint(-(1 << 31), (1 << 31) - 1) >> rng.randint(0, 31) for _ in range(rng.randint(1, 40))]
        for b16 in (0, 1):
            for rms in (0, 1):
                q = rng.randint(0, 31)
                assert E.scale_word(x, b16, rms, q) == Q.row_params(np.array(x, dtype=np.int64), q, b16, rms)[2], x


@pytest.mark.parametrize("row,mutant", [
    ([625414975, -12141] + [0] * 142, {"thresh": E.one_off(3)}),      # ga2_qnt.v :142 68 -> 67
    ([10391, -661590580] + [0] * 7, {"thresh": E.one_off(4)}),        # :146 72 -> 71
    ([162730] + [0] * 35, {"thresh": E.one_off(5)}),                  # :150 74 -> 73
    ([-974529, 9622216], {"sign_bit": 32}),                            # :175 diff[33] -> diff[32]
], ids=["68", "72", "74", "sign bit"])
def test_each_searched_edge_row_tells_its_mutant_apart(row, mutant):
    from tb.stimulus.ops import qnt as stim
    assert row in stim._rows(random.Random(37))
    gold = E.scale_word(row, 1, 1)
    assert gold == Q.row_params(np.array(row, dtype=np.int64), 0, 1, 1)[2]
    assert E.scale_word(row, 1, 1, **mutant) != gold


def test_the_first_normalisations_thresholds_are_not_told_apart_by_the_search():
    """The survivors :130, :134, :138 (docs/mutation_rtl.md): 2,000 tries find no row."""
    def differs(th):
        return lambda x: E.scale_word(x, 1, 1, thresh=th) != E.scale_word(x, 1, 1)
    for k in (0, 1, 2):
        assert E.search(differs(E.one_off(k)), (2, 300), 2000) is None, k
