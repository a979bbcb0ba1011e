"""tb/stimulus/ops/: each op's directed programs in its own module, the generic stimulus
files calling their hooks. The generic files name no op beyond LD, ST, MM and HALT (so an
added op needs no edit of them), every module's ops are records, and every public function
of a module is a hook (a misspelt hook would never be called) or one the tests use."""
import inspect
import pathlib
import re

import pytest

from model import ops as records
from tb.stimulus import ops

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXEMPT = {"LD", "ST", "MM", "HALT"}
# public functions of op modules that are not hooks: the tests and docs name them
HELPERS = {"self_contained_program", "wide_table_program"}


def test_the_generic_stimulus_files_name_no_op_of_their_own():
    names = [n for n in records.TABLE if n not in EXEMPT]
    pat = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    found = {}
    for p in sorted((ROOT / "tb" / "stimulus").glob("*.py")):
        hits = sorted(set(pat.findall(p.read_text())))
        if hits:
            found[p.name] = hits
    assert not found, found


def test_every_module_holds_records_in_opcode_order_and_each_op_once():
    mods = ops.modules()
    assert mods, "no op module found"
    seen = []
    for m in mods:
        assert m.OPS and all(op in records.TABLE for op in m.OPS), m.__name__
        seen += list(m.OPS)
    assert len(seen) == len(set(seen)), seen
    firsts = [records.TABLE[m.OPS[0]].code for m in mods]
    assert firsts == sorted(firsts)
    for op in seen:
        assert op in ops.owner(op).OPS
    assert ops.owner("LD") is None


def test_every_public_function_of_a_module_is_a_hook():
    for m in ops.modules():
        public = {n for n, f in inspect.getmembers(m, inspect.isfunction)
                  if not n.startswith("_") and f.__module__ == m.__name__}
        assert public <= ops.HOOKS | HELPERS, (m.__name__, sorted(public - ops.HOOKS - HELPERS))


def test_an_unknown_hook_name_is_refused():
    with pytest.raises(ValueError, match="not a hook"):
        ops.hooks("hand_program")
