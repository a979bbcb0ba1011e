"""`tools/ch09_example_a.py`, the path chapter 9 names: a face of `tools/ch09/example_a.py` (running example A, the
capacity planner).

Importing this module gives that module itself; `python -m tools.ch09_example_a` runs its main().
"""
import sys

from tools.ch09 import example_a as _impl

if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(_impl.main))
sys.modules[__name__] = _impl
