"""No operation is named in more than LIMIT hand-written files on the hardware side.

An operation's name is named in a file when its uppercase name appears there as a whole
word. The hardware side is model/, rtl/, tb/ and tools/flow/; a generated file (written by
tools/flow/headers.py, tools/flow/core.py or tools/flow/exp_lut.py, asked here for its
paths) does not count, nor does a binary file. The operations come from model.ops.TABLE;
LD, ST, MM and HALT, which every program uses, are exempt. Adding an operation should touch
a handful of files (docs/adding_an_op.md); an op named everywhere means the code around it
is not yet driven by the records. The failure lists, per op over the limit, its files.
"""
import pathlib
import re

from model import ops

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("model", "rtl", "tb", "tools/flow")
LIMIT = 8
EXEMPT = {"LD", "ST", "MM", "HALT"}
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache"}


def generated():
    """The generated files of the hardware side, from their generators."""
    from tools.flow import core, exp_lut, headers
    paths = {headers.HEADER, headers.CFG_HEADER, headers.DECODE, headers.UNITS, exp_lut.OUT}
    paths |= set(core.outputs())
    return {pathlib.Path(p).resolve() for p in paths}


def hand_files():
    """{relative path: text} of every hand-written text file under FOLDERS."""
    gen = generated()
    out = {}
    for folder in FOLDERS:
        for p in sorted((ROOT / folder).rglob("*")):
            if not p.is_file() or SKIP_DIRS & set(p.relative_to(ROOT).parts):
                continue
            if p.resolve() in gen:
                continue
            try:
                text = p.read_text()
            except UnicodeDecodeError:
                continue
            if "\0" in text:
                continue
            out[p.relative_to(ROOT).as_posix()] = text
    return out


def counted_ops():
    return [name for name in ops.TABLE if name not in EXEMPT]


def files_naming(files, name):
    pat = re.compile(rf"\b{re.escape(name)}\b")
    return sorted(rel for rel, text in files.items() if pat.search(text))


def test_the_generated_files_exist_and_are_excluded():
    gen = generated()
    assert all(p.exists() for p in gen), sorted(str(p) for p in gen if not p.exists())
    names = set(hand_files())
    assert not {p.relative_to(ROOT).as_posix() for p in gen} & names


def test_the_count_sees_a_name_in_a_hand_written_file():
    # the counter is not blind: each op's own record names it
    files = hand_files()
    for name in counted_ops():
        assert files_naming(files, name), f"{name}: named nowhere (the counter is broken)"


def test_every_op_is_named_in_at_most_limit_files():
    files = hand_files()
    over = {}
    for name in counted_ops():
        named = files_naming(files, name)
        if len(named) > LIMIT:
            over[name] = named
    lines = [f"{name} in {len(fs)} files (limit {LIMIT}): " + ", ".join(fs) for name, fs in over.items()]
    assert not over, "\n".join(lines)
