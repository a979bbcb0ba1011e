"""HALT: stop; done goes high (it retires in DECODE, no unit runs)."""
from . import Op


def execute(a, extra, ext, sp):
    """Nothing: HALT changes no memory."""


HALT = Op(
    name="HALT", code=6, unit=None, module=None,
    summary="stop: done goes high once every unit is idle",
    fields=(),
    execute=execute,
)
