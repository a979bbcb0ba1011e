"""The compositional proofs' fast part (tb/formal/compose.py; docs/formal.md "The
reciprocal constants, proven by composition"): the arithmetic lemmas proven by z3, a
planted dividend that some reachable divisor tells apart refuted (its model checked here
against the isqrt's specification), and ga2_divu's contract proven at a small width (the
make formal run proves it at the units' widths, 30 and 32)."""
import shutil

import pytest

from tb.formal import compose, engine

pytestmark = pytest.mark.skipif(not (shutil.which("yosys") and shutil.which("yosys-smtbmc") and shutil.which("z3")),
                                reason="yosys, yosys-smtbmc and z3 (make setup)")


def test_horner_and_euclid_are_proven():
    assert compose.smt_check("equiv/compose/test-horner", compose.HORNER).result == "proven"
    assert compose.smt_check("equiv/compose/test-euclid", compose.EUCLID).result == "proven"


def test_norm_lemma_is_proven():
    v = compose.smt_check("equiv/compose/test-norm-lemma", compose.norm_lemma(compose.NORM_N, compose.NORM_N_GATE))
    assert v.result == "proven", v


def test_a_dividend_a_reachable_root_divides_is_refuted():
    """2^29 + 32 = 32 * (2^24 + 1): some root = isqrt(ss * 2^10) gives another quotient."""
    bad = compose.NORM_N + 32
    v = compose.smt_check("equiv/compose/test-norm-planted", compose.norm_lemma(compose.NORM_N, bad))
    assert v.result == "FAILED", v
    vals = {}
    for name, bits in __import__("re").findall(r"\((\w+) #([bx][0-9a-f]+)\)", v.detail):
        vals[name] = int(bits[1:], 2 if bits[0] == "b" else 16)
    ss, root = vals["ss"], vals["root"]
    assert 1 <= ss <= 1 << 20
    assert root * root <= ss * 1024 < (root + 1) ** 2          # root = isqrt(ss * 2^10)
    assert compose.NORM_N // root != bad // root


def test_divider_contract_small_width():
    v = engine.run(compose.divu(8, timeout=120))
    assert v.result == "proven", v
