"""Chapter 9's programs, frozen as verification stimulus (tb/stimulus/named/ch09.npz).

The benches run chapter 9's five batched decode steps (B = 1..4 at token 16 and the ragged
batch) in both timing modes, but verification may not import an application (the layers
import one way, tests/flow/test_layers.py). So the application writes its programs and
their external-memory images here, as data, and tb/stimulus/programs.py reads them:

    python -m tools.ch09.stimulus --write    # regenerate after changing the builder
    python -m tools.ch09.stimulus --check    # exit 1 when the file is stale (a test runs it)
"""
import sys
from pathlib import Path

import numpy as np

from model import config, isa
from tb import cli
from tb.stimulus.programs import CH09_FILE
from tools.ch09 import run


def programs(cfg):
    """[(label, prog, image)]: the run script's five steps (tools/ch09/run.py steps, seed 1),
    built for cfg (its timing mode picks their order)."""
    return [("ch09 " + label, prog, img) for label, _, _, prog, img, _ in run.steps(cfg=cfg)]


def arrays():
    """The file's arrays: labels, images (int32), and per timing mode the programs as hex words."""
    ino, ovl = programs(config.CH09), programs(config.CH09_OVERLAP)
    assert [x[0] for x in ino] == [x[0] for x in ovl]
    width = max(len(p) for _, p, _ in ino + ovl)

    def words(progs):
        a = np.full((len(progs), width), "", dtype=f"<U{isa.INSTR_W // 4}")
        for i, (_, p, _) in enumerate(progs):
            a[i, :len(p)] = [format(isa.encode(ins), f"0{isa.INSTR_W // 4}x") for ins in p]
        return a
    return {"labels": np.array([x[0] for x in ino]),
            "images": np.array([np.asarray(x[2], dtype=np.int64) for x in ino]).astype(np.int32),
            "inorder": words(ino), "overlap": words(ovl)}


def stale(path=CH09_FILE):
    """'' when path holds exactly arrays(), else what differs."""
    if not Path(path).exists():
        return f"{path} is missing"
    want = arrays()
    with np.load(path) as got:
        for k, v in want.items():
            if k not in got or got[k].shape != v.shape or not np.array_equal(got[k], v):
                return f"{path}: {k} differs from model/batch.py's programs"
    return ""


def main(argv=None):
    ap = cli.Parser(prog="tools.ch09.stimulus", description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="write the file")
    g.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    a = ap.parse_args(argv)
    if a.write:
        np.savez_compressed(CH09_FILE, **arrays())
        print(f"wrote {CH09_FILE}")
        return 0
    why = stale()
    print(why or f"{CH09_FILE} is up to date")
    return 1 if why else 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
