"""`tools/ch09_run.py`, the path chapter 9 names: a face of `tools/ch09/run.py` (the run script of make sim).

Importing this module gives that module itself; `python -m tools.ch09_run` runs its main().
"""
import sys

from tools.ch09 import run as _impl

if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(_impl.main))
sys.modules[__name__] = _impl
