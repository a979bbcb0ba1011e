"""make test's scheduling on xdist workers (tests/conftest.py scope_of): the tests that share
one simulator run go to one worker per simulator, so that run is made once, not once per
worker (it was split by test case once, and the units bench ran twice: 15 CPU-s)."""
import conftest


def test_the_units_tests_of_one_simulator_share_one_scope():
    ids = [f"tests/tb/test_units_cosim.py::test_unit[{case}-{sim}]"
           for case in ("test_softmax", "test_mm_tiles", "test_divu") for sim in ("icarus", "verilator")]
    scopes = {sim: {conftest.scope_of(i) for i in ids if i.endswith(f"-{sim}]")} for sim in ("icarus", "verilator")}
    assert len(scopes["icarus"]) == 1 and len(scopes["verilator"]) == 1, scopes
    assert scopes["icarus"] != scopes["verilator"]


def test_a_group_module_is_one_scope_and_other_tests_their_own():
    a = conftest.scope_of("tests/tb/test_mut_rtl.py::test_mutant0_passes")
    b = conftest.scope_of("tests/tb/test_mut_rtl.py::test_tokenizer_and_literals")
    assert a == b == "tests/tb/test_mut_rtl.py"
    other = "tests/tb/test_cosim.py::test_random_programs[icarus-0]"
    assert conftest.scope_of(other) == other
