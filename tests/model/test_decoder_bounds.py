"""model/decoder_gen._check_bounds: the generated decoder sums in 32 bits, so a record one of
whose ranges could reach 2^31 is refused. A range reaches its extent's bound plus its base
field's span (2^width), and an external range with xhi 2^(16 + xhi's width) more; the
expected verdicts are computed here from those widths, at the boundary."""
import dataclasses

import pytest

from model import decoder_gen, ops


def _widened(name, **widths):
    rec = ops.TABLE[name]
    return dataclasses.replace(rec, fields=tuple((n, widths.get(n, w)) for n, w in rec.fields))


def test_every_record_is_inside_32_bit_arithmetic():
    for rec in ops.TABLE.values():
        decoder_gen._check_bounds(rec)


@pytest.mark.parametrize("src_w, len_w", [(30, 30), (31, 1), (30, 31), (16, 30), (29, 29)])
def test_a_scratchpad_range_counts_its_base_fields_span(src_w, len_w):
    """SMW's src range: len words from src, so it may reach 2^len_w - 1 + 2^src_w."""
    rec = _widened("SMW", src=src_w, len=len_w, dst=1)
    top = (1 << len_w) - 1 + (1 << src_w)
    if top >= 1 << 31:
        with pytest.raises(ValueError, match=r"SMW: the range at (src|dst) may reach \d+, past 32-bit"):
            decoder_gen._check_bounds(rec)
    else:
        decoder_gen._check_bounds(rec)


@pytest.mark.parametrize("xhi_w, refused", [(13, False), (14, False), (15, True)])
def test_an_external_range_counts_xhi(xhi_w, refused):
    """LD's src range: (2^13 - 1) + 2^16 + 2^(16 + xhi_w), past 2^31 first at xhi_w = 15."""
    rec = _widened("LD", xhi=xhi_w)
    assert ((1 << 13) - 1 + (1 << 16) + (1 << (16 + xhi_w)) >= 1 << 31) == refused
    if refused:
        with pytest.raises(ValueError, match=r"LD: the range at src may reach \d+, past 32-bit"):
            decoder_gen._check_bounds(rec)
    else:
        decoder_gen._check_bounds(rec)
