"""Chapter 9's roofline, derived once (tools/ch09/roofline.py), against the chapter's numbers.

docs/ch09.md and the spec: 16 MAC/cycle peak, 1 word/cycle of memory, ridge 16 MAC/word;
at L = 16 a step moves 768 weight words once and 544 words per sequence, and computes 768
projection and 512 attention MACs per sequence; intensity B(768+512)/(768+544B), limit
1280/544 = 2.35. Every script that draws or prints them takes them from roofline.py."""
import pathlib

import pytest

from model import config
from tb import ROOT
from tools.ch09 import figures, roofline
from tools.ch09 import run as ch09_run
from tools.prefix import run as prefix_run


def test_the_chapters_numbers():
    assert roofline.peak() == 16 == config.CH09.peak_macs
    assert roofline.bandwidth() == 1 == config.CH09.dma_words_per_cycle
    assert roofline.ridge() == 16
    assert roofline.parts(16) == {"shared_words": 768, "seq_words": 544, "proj_macs": 768, "attn_macs": 512}
    assert roofline.limit() == 1280 / 544 == pytest.approx(2.353, abs=1e-3)
    for B in (1, 2, 4, 16, 64):
        assert roofline.intensity(B) == B * (768 + 512) / (768 + 544 * B)
    # against the context: (768 + 32 L) / (32 L + 32), tending to 1
    for L in (16, 64, 4096):
        assert roofline.limit(L) == pytest.approx((768 + 32 * L) / (32 * L + 32))
    assert roofline.ceiling(0.5) == 0.5 and roofline.ceiling(40) == 16


def test_every_user_takes_them_from_roofline():
    assert prefix_run.LIMIT == roofline.limit() and (prefix_run.PEAK, prefix_run.BW) == (16.0, 1.0)
    assert (figures.SHARED_W, figures.SEQ_W, figures.PROJ, figures.ATTN) == (768, 544, 768, 512)
    sh = ch09_run.sharing()
    assert (sh["shared_words"], sh["per_seq_words"], sh["limit"]) == (768, 544, 1280 / 544)
    for f in ("tools/ch09/figures.py", "tools/prefix/run.py", "tools/ch09/run.py"):
        text = (pathlib.Path(ROOT) / f).read_text()
        for typed in ("1280 / 544", "= 768, 544", "= 768, 512", "PEAK, BW = 16"):
            assert typed not in text, (f, typed)
