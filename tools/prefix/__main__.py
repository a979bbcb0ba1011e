"""`python -m tools.prefix`: the run script (tools/prefix/run.py)."""
import sys

from tools.prefix.run import main

from tb.cli import guard  # noqa: E402

sys.exit(guard(main))
