"""The language model's step programs and memory images are the pinned ones
(tests/tools/lm/program_digests.json, recorded from the two step builders before they were
merged into one compiler): every case of program_digests.cases() recomputed, digest for
digest. make test runs every fourth quick case of the chip's and the remedies' groups, make
test-long the rest."""
import json

import program_digests as PD
import pytest

PIN = json.loads(PD.PIN.read_text())
GROUPS = sorted({name.split("/")[0] for name in PIN})


def test_every_pinned_case_is_enumerated():
    assert {name for name, _, _ in PD.cases()} == set(PIN)
    assert sum(len(v) for v in PIN.values()) > 2000


def _check(group, long, part=None):
    """part 0 .. 3: every fourth case of the group (sorted by name) from the part-th, for make
    test's share."""
    names = sorted(name for name, is_long, _ in PD.cases() if is_long == long and
                   name.split("/")[0] == group)
    names = set(names if part is None else names[part::4])
    got = PD.compute(lambda n: n in names)
    assert got.keys() == names
    bad = [(c, lab) for c, v in got.items() for lab in set(v) | set(PIN[c])
           if v.get(lab) != PIN[c].get(lab)]
    assert not bad, f"{len(bad)} programs or images differ from the pin: {bad[:5]}"


# make test's groups: the chip's and the remedies' steps (what the serving groups' programs
# are built from); the serving groups' quick cases join their long ones in make test-long
SERVED = {"serve", "serve-remedies"}


# make test: every fourth quick case of the chip's and the remedies' groups (16 CPU-s for all
# of them); the other three quarters with make test-long
@pytest.mark.parametrize("part", [0] + [pytest.param(k, marks=pytest.mark.long) for k in (1, 2, 3)])
@pytest.mark.parametrize("group", [pytest.param(g, marks=[pytest.mark.long] * (g in SERVED)) for g in GROUPS])
def test_quick_cases_equal_the_pin(group, part):
    _check(group, long=False, part=part)


@pytest.mark.long
@pytest.mark.parametrize("group", GROUPS)
def test_long_cases_equal_the_pin(group):
    _check(group, long=True)
