"""`python -m tools.serve`: the run script (tools/serve/run.py)."""
import sys

from tools.serve.run import main

from tb.cli import guard  # noqa: E402

sys.exit(guard(main))
