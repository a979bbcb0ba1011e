"""Shrink a failing program to a minimal reproducer (delta debugging), and save it as text.

A random program that makes the chip differ from the reference is usually long; the bug
it shows usually needs two or three of its instructions. shrink() removes instructions
(Zeller's ddmin over the instructions before HALT), then zeroes what it can of the
external image, keeping every step only while the candidate still fails. The oracle is a
function fails(candidates) -> [bool] over a list of (prog, image) pairs, so one
simulator call can judge a whole round of candidates; chip_oracle() builds one that runs
each candidate on a simulator from a zeroed scratchpad (its power-up state, so the
reproducer also fails when run alone).

save() writes the reproducer as assembly text (model/asm.py) and its image, with the
command that replays it.
"""
from pathlib import Path

import numpy as np

from model import config, isa


def _halted(prog):
    """prog up to and including its first HALT (a HALT appended when there is none)."""
    out = []
    for ins in prog:
        ins = ins if isinstance(ins, isa.Instr) else isa.decode(ins)
        out.append(ins)
        if ins.op == "HALT":
            return out
    return out + [isa.build("HALT")]


def ddmin(items, fails):
    """A 1-minimal sublist of items for which fails holds (fails(items) must be True).

    fails takes a LIST of candidate sublists and returns a list of bools, so each round's
    candidates (the n subsets, then the n complements) are judged together.
    """
    items = list(items)
    n = 2
    while len(items) >= 2:
        size = max(1, len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        subsets = chunks if len(chunks) > 1 else []
        complements = [[x for j, c in enumerate(chunks) if j != i for x in c] for i in range(len(chunks))]
        cands = subsets + (complements if len(chunks) > 2 else [])
        verdicts = fails(cands) if cands else []
        hit = next((i for i, v in enumerate(verdicts) if v), None)
        if hit is not None and hit < len(subsets):
            items, n = cands[hit], 2
        elif hit is not None:
            items, n = cands[hit], max(n - 1, 2)
        elif n < len(items):
            n = min(len(items), 2 * n)
        else:
            break
    if len(items) == 1 and fails([[]])[0]:
        return []
    return items


def shrink(prog, image, fails, cfg=None):
    """(prog, image) minimal under fails; fails([(prog, image), ...]) -> [bool].

    Raises ValueError when the starting pair does not fail (nothing to shrink).
    """
    cfg = config.resolve(cfg)
    prog = _halted(prog)
    image = np.asarray(image, dtype=np.int64)
    if not fails([(prog, image)])[0]:
        raise ValueError("shrink: the program does not fail to begin with")
    body, halt = prog[:-1], prog[-1:]
    body = ddmin(body, lambda cands: fails([(c + halt, image) for c in cands]))
    prog = body + halt
    # the image: all zero, else zero each half of what is left, coarse to fine
    zero = np.zeros_like(image)
    if fails([(prog, zero)])[0]:
        return prog, zero
    step = max(1, image.size // 2)
    while step >= 64:
        cands = []
        for lo in range(0, image.size, step):
            if image[lo:lo + step].any():
                c = image.copy()
                c[lo:lo + step] = 0
                cands.append(c)
        verdicts = fails([(prog, c) for c in cands]) if cands else []
        for c, v in zip(cands, verdicts):
            if v:
                image = c
                break
        else:
            step //= 2
    return prog, image


def chip_oracle(sim, cfg=None, **run_kw):
    """fails() judging candidates on sim: each runs from a zeroed scratchpad, in one call."""
    from tb import hw
    cfg = config.resolve(cfg)

    def fails(cands):
        zero_sp = np.zeros(cfg.sp_words, dtype=np.int64)
        jobs = [[(p, img, zero_sp)] for p, img in cands]
        res = hw.run(sim, jobs, cfg=cfg, **run_kw)
        return [not job[0].ok for job in res]
    return fails


def save(prog, image, path, note=""):
    """Write the reproducer: PATH (assembly) and PATH.ext.txt (the image); returns the replay command."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ext_path = path.with_suffix(path.suffix + ".ext.txt")
    nz = np.nonzero(np.asarray(image))[0]
    last = int(nz[-1]) + 1 if nz.size else 0
    ext_path.write_text("# external memory image (words 0..; the rest zero)\n"
                        + "\n".join(str(int(v)) for v in np.asarray(image)[:last]) + "\n")
    from tb import ROOT

    def shown(q):            # relative to the repository when inside it, as ./ga2 runs there
        q = q.resolve()
        return q.relative_to(ROOT) if q.is_relative_to(ROOT) else q
    cmd = f"./ga2 run {shown(path)} --ext {shown(ext_path)} --raw --sim both"
    head = [f"; minimal reproducer{': ' + note if note else ''}", f"; replay: {cmd}"]
    path.write_text("\n".join(head) + "\n" + isa.disasm(prog) + "\n")
    return cmd
