"""The fault check the op tests share: one instruction of an op with given fields, either
accepted by isa.check and run by the Machine, or refused with the expected code and field
(isa.check's verdict, the Machine's GA2Error). Why one place: each op's test_faults table
differs only in its rows."""
import pytest

from model import config, isa
from model.machine import GA2Error


def check_fault(op, fields, code, field, run):
    """op's instruction of `fields`: code None, accepted and run (run([ins], []) returns);
    else run raises GA2Error with `code` and isa.check names `field`."""
    ins = isa.raw(op, **fields)
    if code is None:
        assert isa.check(ins, config.DEFAULT) is None
        run([ins], [])
        return
    with pytest.raises(GA2Error) as e:
        run([ins], [])
    assert e.value.code == code
    assert isa.check(ins, config.DEFAULT)[1] == field
