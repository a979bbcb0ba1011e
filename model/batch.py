"""`model/batch.py`, the path chapter 9 names: a face of `tools/ch09/batch.py` (the batched decode builder and its
oracle).

Importing this module gives that module itself; `python -m model.batch` runs its main().
"""
import sys

from tools.ch09 import batch as _impl

if __name__ == "__main__":
    sys.exit(_impl.guarded_main())
sys.modules[__name__] = _impl
