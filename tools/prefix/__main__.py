"""`python -m tools.prefix`: the run script (tools/prefix/run.py)."""
import sys

from tools.prefix.run import main

from tb.cli import guard

sys.exit(guard(main))
