"""`tools/ch09_example_b.py`, the path chapter 9 names: a face of `tools/ch09/example_b.py` (running example B,
static against continuous batching).

Importing this module gives that module itself; `python -m tools.ch09_example_b` runs its main().
"""
import sys

from tools.ch09 import example_b as _impl

if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(_impl.main))
sys.modules[__name__] = _impl
