"""`python -m tools.serve`: the run script (tools/serve/run.py)."""
import sys

from tools.serve.run import main

from tb.cli import guard

sys.exit(guard(main))
