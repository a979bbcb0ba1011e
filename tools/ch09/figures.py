"""Chapter 9 figures 9.1 to 9.4 and 9.7, drawn from out/ch09_run.json (matplotlib, Agg).

9.1 roofline of GA-2 with the measured steps in both timing modes; 9.2 how batching
stacks requests into one matrix product; 9.3 words per step against B; 9.4 arithmetic
intensity against B with its limit; 9.7 the unit timeline of the B = 4 step in both
modes (busy intervals from the chip's retire trace). Measured points (from the circuit's counters and the programs
it ran) are markers; derived curves are lines labelled "derived".
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

from model import batch
from tools.ch09 import roofline

PEAK = float(roofline.peak())        # MAC/cycle (the Config's array)
BW = float(roofline.bandwidth())     # word/cycle (the DMA)
L = roofline.L_CHAPTER               # the figures' context
_PARTS = roofline.parts(L)
SHARED_W, SEQ_W = _PARTS["shared_words"], _PARTS["seq_words"]      # words (768, 544 at L = 16)
PROJ, ATTN = _PARTS["proj_macs"], _PARTS["attn_macs"]               # MACs per sequence (768, 512)


def _src(data):
    return "reference model (MODEL ONLY)" if data.get("model_only") else "circuit counters"


def save(fig, path, dpi=110):
    """Lay fig out, write it to path and close it; returns path (every figure of the
    chapter's scripts and tools/prefix's)."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def roofline_axes(ax, xlim, title):
    """A roofline figure's axes (9.1, tools/prefix's): log-log, MAC/cycle against MAC per
    word, a grid and the legend in the upper left."""
    ax.set(xscale="log", yscale="log", xlim=xlim, ylim=(0.1, 30), title=title,
           xlabel="arithmetic intensity (MAC per word moved)", ylabel="throughput (MAC per cycle)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")


def fig_roofline(data, path):
    """9.1: roofline (derived) with each measured step at its intensity and achieved
    MAC/cycle: circles in-order mode, filled triangles overlap mode (both measured)."""
    import numpy as np
    fig, ax = plt.subplots(figsize=(7.5, 5))
    x = np.logspace(-1, 2, 300)
    ax.plot(x, np.minimum(PEAK, BW * x), "k-", lw=2,
            label=f"roofline min({PEAK:g}, {BW:g} word/cycle x I) (derived)")
    ax.axvline(PEAK / BW, color="grey", ls=":", lw=1)
    ax.text(PEAK / BW * 1.05, 0.12, f"ridge {PEAK / BW:g} MAC/word", color="grey", fontsize=8)
    rows = data.get("table") or []
    colors = plt.cm.viridis([i / max(1, len(rows) - 1) for i in range(len(rows))])
    for r, c in zip(rows, colors):
        ax.plot(r["mac_per_word"], r["mac_per_cycle"], "o", color=c, ms=8,
                label=f"{r['step']}: {r['mac_per_cycle']:.2f} MAC/cycle ({r['pct_ceiling']:.0f}% of ceiling)")
    for r, c in zip(data.get("table_overlap") or [], colors):
        ax.plot(r["mac_per_word"], r["mac_per_cycle"], "^", color=c, ms=8,
                label=f"{r['step']} overlap mode: {r['mac_per_cycle']:.2f} MAC/cycle "
                      f"({r['pct_ceiling']:.0f}%)")
    if rows:
        ax.plot([], [], "o", color="k", label="circles: in-order mode; triangles: overlap mode")
    roofline_axes(ax, (0.1, 100),
                  f"Fig 9.1  GA-2 roofline and the batched decode steps\n(points measured: {_src(data)})")
    return save(fig, path)


def fig_stacking(data, path, B=3):
    """9.2: the new tokens of B requests stacked as rows of one product with the shared
    weights; each request's attention reads its own K and V cache."""
    fig, ax = plt.subplots(figsize=(9, 4.8))
    ax.set_xlim(0, 30)
    ax.set_ylim(-1, 17)
    ax.axis("off")
    cols = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for j in range(B):                                  # X: B x 16
        ax.add_patch(Rectangle((0, 14 - j), 6, 1, fc=cols[j], ec="k", alpha=0.7))
        ax.text(-0.2, 14.5 - j, f"request {j}", ha="right", va="center", fontsize=8)
    ax.text(3, 15.4, f"new tokens: {B} x 16\n(one hidden row per request)", ha="center", fontsize=8)
    ax.text(6.8, 13.5, "x", fontsize=14, va="center")
    ax.add_patch(Rectangle((7.5, 9), 6, 6, fc="lightgrey", ec="k"))   # W: 16 x 16
    ax.text(10.5, 12, f"Wq | Wk | Wv\n{batch.DM} x {batch.D} each\n{SHARED_W} words,\nloaded ONCE\nper step",
            ha="center", va="center", fontsize=8)
    ax.text(14.2, 13.5, "=", fontsize=14, va="center")
    for j in range(B):                                  # Q/K/V rows
        ax.add_patch(Rectangle((15, 14 - j), 6, 1, fc=cols[j], ec="k", alpha=0.4))
    ax.text(18, 15.4, f"Q, K, V rows: {B} x 16\nMM with M = {B}, K = 16, N = 4", ha="center", fontsize=8)
    ax.text(15, 8.4, "shared: one weight load, M rows per MM", fontsize=9, weight="bold")
    for j in range(B):                                  # per-request caches
        y = 5.2 - 2.2 * j
        ax.add_patch(Rectangle((15, y), 5, 1.4, fc=cols[j], ec="k", alpha=0.25, hatch="//"))
        ax.text(17.5, y + 0.7, f"K, V cache {j}", ha="center", va="center", fontsize=8)
        ax.text(20.5, y + 0.7, f"attention of request {j}: its own cache,\n2 x 16 x (t-1) words in, 32 t MACs",
                va="center", fontsize=8)
    ax.text(15, 6.9, "not shared: each request reads its own cache", fontsize=9, weight="bold")
    ax.set_title(f"Fig 9.2  Batching stacks B = {B} requests into one matrix product (schematic)")
    return save(fig, path)


def fig_words(data, path):
    """9.3: words per step against B: fixed weights + per-request cache traffic."""
    import numpy as np
    fig, ax = plt.subplots(figsize=(7, 4.6))
    Bs = np.arange(1, 17)
    ax.bar(Bs, [SHARED_W] * len(Bs), color="lightgrey", ec="k", label=f"weights, {SHARED_W} words (shared)")
    ax.bar(Bs, SEQ_W * Bs, bottom=SHARED_W, color="tab:orange", alpha=0.6, ec="k",
           label=f"per request: {SEQ_W} words at L = {L} (derived)")
    meas = [r for r in (data.get("table") or []) if r["step"].startswith("B=")]
    ax.plot([r["tokens"] for r in meas], [r["words"] for r in meas], "ko", ms=7,
            label=f"words of the programs run (LD/ST; {_src(data)})")
    ax.set_xlabel("batch size B (requests per step)")
    ax.set_ylabel("words moved per decode step")
    ax.set_title(f"Fig 9.3  Words per step: {SHARED_W} + {SEQ_W} B (L = {L})")
    ax.set_xticks(Bs)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, path)


def fig_intensity(data, path):
    """9.4: intensity against B (derived curve, its limit) and the measured points."""
    import numpy as np
    fig, ax = plt.subplots(figsize=(7, 4.6))
    Bs = np.logspace(0, 4, 200)
    ax.plot(Bs, Bs * (PROJ + ATTN) / (SHARED_W + SEQ_W * Bs), "b-",
            label=f"B({PROJ}+{ATTN})/({SHARED_W}+{SEQ_W}B), L = {L} (derived)")
    lim = roofline.limit(L)
    ax.axhline(lim, color="b", ls="--", lw=1, label=f"limit {PROJ + ATTN}/{SEQ_W} = {lim:.2f} (derived)")
    ax.axhline(1.0, color="grey", ls=":", lw=1, label="limit as the context L grows: 1 (derived)")
    meas = [r for r in (data.get("table") or []) if r["step"].startswith("B=")]
    ax.plot([r["tokens"] for r in meas], [r["mac_per_word"] for r in meas], "ko", ms=7,
            label="programs run: MACs / words (from MM and LD/ST)")
    rag = [r for r in (data.get("table") or []) if r["step"].startswith("ragged")]
    for r in rag:
        ax.plot(r["tokens"], r["mac_per_word"], "rs", ms=7, label=f"{r['step']} (program run; shorter contexts)")
    ax.set(xscale="log", ylim=(0, 3), xlabel="batch size B (log scale)", ylabel="arithmetic intensity (MAC per word)",
           title=f"Fig 9.4  Batching raises intensity only to a limit far below the ridge ({PEAK / BW:g})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return save(fig, path)


UNIT_ROWS = (("dma", "DMA (LD, ST)"), ("mm", "matrix (MM)"), ("vec", "vector (RQ, SM)"))
OP_COLOR = {"LD": "tab:blue", "ST": "tab:cyan", "MM": "tab:orange", "RQ": "tab:green", "SM": "tab:red"}


def fig_timeline(data, path):
    """9.7: the units' busy intervals of the B = 4 step against cycles, both modes."""
    tl = data.get("timeline") or {}
    modes = [m for m in ("inorder", "overlap") if m in tl]
    fig, axes = plt.subplots(len(modes) or 1, 1, figsize=(10, 1.6 + 1.5 * max(1, len(modes))),
                             sharex=True, squeeze=False)
    span = max([tl[m]["cycles"] for m in modes] or [1])
    for ax, m in zip(axes[:, 0], modes):
        for row, (u, _) in enumerate(UNIT_ROWS):
            bars = [(s, e - s + 1) for uu, s, e, _ in tl[m]["intervals"] if uu == u]
            cols = [OP_COLOR[op] for uu, _, _, op in tl[m]["intervals"] if uu == u]
            ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=cols, edgecolor="none")
        ax.set_yticks(range(len(UNIT_ROWS)))
        ax.set_yticklabels([lab for _, lab in UNIT_ROWS], fontsize=8)
        ax.set_ylim(-0.6, len(UNIT_ROWS) - 0.4)
        ax.axvline(tl[m]["cycles"], color="k", lw=1)
        ax.set_title(f"{m} mode: {tl[m]['cycles']} cycles ({tl[m]['source']})", fontsize=9)
        ax.set_xlim(0, span * 1.02)
    for op, c in OP_COLOR.items():
        axes[0, 0].plot([], [], "s", color=c, label=op)
    axes[0, 0].legend(fontsize=7, ncol=5, loc="upper right")
    axes[-1, 0].set_xlabel("cycle")
    fig.suptitle("Fig 9.7  Unit timeline of the B = 4, L = 16 decode step (busy intervals from the "
                 "chip's retire trace)", fontsize=10)
    return save(fig, path)


ROW_KEYS = {"step": str, "tokens": (int, float), "words": (int, float), "mac_per_word": (int, float),
            "mac_per_cycle": (int, float)}


def _number(v, kinds):
    return isinstance(v, kinds) and not isinstance(v, bool) and (not isinstance(v, float) or v == v)


def load_run(json_path):
    """The run's JSON (tools/ch09/run.py --json) checked for what the figures read: a
    table's rows with their step, tokens, words and intensities, a timeline's cycles,
    source and (unit, start, end, op) intervals. ValueError naming the file and the first
    thing that is not so."""
    from tb import cli
    text = cli.text_file(json_path, json_path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{json_path}: not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{json_path}: not a chapter 9 run (a JSON object from tools.ch09.run --json)")
    if not isinstance(data.get("table"), list) or not data["table"]:
        raise ValueError(f"{json_path}: not a chapter 9 run (no table of steps: tools.ch09.run --json writes one)")
    for key in ("table", "table_overlap"):
        rows = data.get(key) or []
        if not isinstance(rows, list):
            raise ValueError(f"{json_path}: {key} is not a list of rows")
        for i, r in enumerate(rows):
            bad = [k for k, kinds in ROW_KEYS.items() if not isinstance(r, dict) or not _number(r.get(k), kinds)]
            if bad:
                raise ValueError(f"{json_path}: {key}[{i}] has no valid {bad[0]!r}")
    tl = data.get("timeline") or {}
    if not isinstance(tl, dict):
        raise ValueError(f"{json_path}: timeline is not an object")
    for m in ("inorder", "overlap"):
        if m not in tl:
            continue
        t = tl[m]
        if not isinstance(t, dict) or not _number(t.get("cycles"), int) or t["cycles"] < 0 \
                or not isinstance(t.get("source"), str) or not isinstance(t.get("intervals"), list):
            raise ValueError(f"{json_path}: timeline[{m!r}] needs cycles, source and intervals")
        for iv in t["intervals"]:
            if not (isinstance(iv, list) and len(iv) == 4 and isinstance(iv[0], str)
                    and _number(iv[1], int) and _number(iv[2], int) and iv[3] in OP_COLOR):
                raise ValueError(f"{json_path}: timeline[{m!r}] has an interval that is not "
                                 f"[unit, start, end, op]: {str(iv)[:60]}")
    return data


def draw_all(json_path, outdir):
    """All the figures from the run's JSON (load_run's checks); returns the PNG paths."""
    data = load_run(json_path)
    os.makedirs(outdir, exist_ok=True)
    return [fig_roofline(data, os.path.join(outdir, "fig9_1_roofline.png")),
            fig_stacking(data, os.path.join(outdir, "fig9_2_batching.png")),
            fig_words(data, os.path.join(outdir, "fig9_3_words.png")),
            fig_intensity(data, os.path.join(outdir, "fig9_4_intensity.png")),
            fig_timeline(data, os.path.join(outdir, "fig9_7_timeline.png"))]


def main(argv=None):
    from tb import ROOT, cli
    ap = cli.Parser(prog="tools.ch09.figures", description=__doc__.splitlines()[0])
    ap.add_argument("run_json", nargs="?", type=cli.in_file,
                    help="the run's JSON (tools.ch09.run --json; default out/ch09_run.json)")
    ap.add_argument("--out", type=cli.out_dir, default=os.path.join(ROOT, "out"),
                    help="the figures' directory (default out/)")
    a = ap.parse_args(argv)
    if a.run_json is None:
        a.run_json = os.path.join(ROOT, "out", "ch09_run.json")
        if not os.path.isfile(a.run_json):
            return cli.refuse(ap.prog,
                              "no out/ch09_run.json: run `make sim` (tools.ch09.run) first, or name a run's JSON")
    try:
        data = load_run(a.run_json)
    except ValueError as e:
        return cli.refuse(ap.prog, str(e))
    del data
    for p in draw_all(a.run_json, a.out):
        print("wrote", p)
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
