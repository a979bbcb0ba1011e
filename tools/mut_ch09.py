"""`tools/mut_ch09.py`, the path chapter 9 names: a face of `tools/ch09/mutants.py` (chapter 9's mutation run).

Importing this module gives that module itself; `python -m tools.mut_ch09` runs its main().
"""
import sys

from tools.ch09 import mutants as _impl

if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(_impl.main))
sys.modules[__name__] = _impl
