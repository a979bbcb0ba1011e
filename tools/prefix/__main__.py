"""`python -m tools.prefix`: the run script (tools/prefix/run.py)."""
import sys

from tb.cli import guard
from tools.prefix.run import main

sys.exit(guard(main))
