"""`python -m tools.serve`: the run script (tools/serve/run.py)."""
import sys

from tb.cli import guard
from tools.serve.run import main

sys.exit(guard(main))
