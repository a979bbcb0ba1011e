"""Chapter 9's roofline and its batching arithmetic, derived in one place.

The roofs come from the chip's Config (model/config.py): peak = cfg.peak_macs MACs per
cycle (16: the 4 x 4 array), bandwidth = cfg.dma_words_per_cycle words per cycle (1), the
ridge point peak / bandwidth (16 MAC/word). The step's words and MACs come from the
chapter's traffic formula (model/batch.py traffic, the model slice's sizes DM = D =
16): at context L a step moves the weights once, shared = 3 DM D words (768), and per
sequence seq_words(L) = DM + 2 (L - 1) D + 2 D + D words (544 at L = 16); it computes
proj = 3 DM D projection MACs (768) and attn(L) = 2 D L attention MACs (512) per
sequence. So B sequences reach the intensity

    B (proj + attn(L)) / (shared + seq_words(L) B)  ->  limit(L) = (proj + attn(L)) / seq_words(L)

(1280 / 544 = 2.35 MAC/word at L = 16, tending to 1 as L grows). tools/ch09/run.py,
tools/ch09/figures.py and tools/prefix/run.py take every one of these numbers from here.
"""
from model import batch

L_CHAPTER = batch.LMAX        # the chapter's context for its roofline figures (16)


def peak(cfg=batch.CFG):
    """MACs per cycle at the compute roof."""
    return cfg.peak_macs


def bandwidth(cfg=batch.CFG):
    """Words per cycle at the memory roof."""
    return cfg.dma_words_per_cycle


def ridge(cfg=batch.CFG):
    """The intensity (MAC/word) where the two roofs meet."""
    return peak(cfg) / bandwidth(cfg)


def ceiling(intensity, cfg=batch.CFG):
    """The roofline: min(peak, bandwidth x intensity) MACs per cycle."""
    return min(peak(cfg), bandwidth(cfg) * intensity)


def parts(L=L_CHAPTER):
    """A step's words and MACs at context L, shared and per sequence:
    {shared_words, seq_words, proj_macs, attn_macs} (per sequence except shared_words)."""
    tr = batch.traffic([L])
    return {"shared_words": tr["shared_words"], "seq_words": tr["per_seq_words"][0],
            "proj_macs": tr["proj_macs"], "attn_macs": tr["attn_macs"]}


def intensity(B, L=L_CHAPTER):
    """MACs per word of a step of B sequences all at context L."""
    p = parts(L)
    return B * (p["proj_macs"] + p["attn_macs"]) / (p["shared_words"] + p["seq_words"] * B)


def limit(L=L_CHAPTER):
    """The intensity batching tends to as B grows, at context L."""
    p = parts(L)
    return (p["proj_macs"] + p["attn_macs"]) / p["seq_words"]
