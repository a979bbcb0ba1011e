"""`python -m tools.smollm2`: the command line (tools/smollm2/cli.py)."""
import sys

from tb.cli import guard
from tools.smollm2.cli import main

sys.exit(guard(main))
