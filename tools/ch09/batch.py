"""Chapter 9's batching oracle on the command line: `python -m tools.ch09.batch --check`.

The builder and the oracle are model/batch.py (the path chapter 9 names); this is their
command line (check_batching over the fixed and ragged batches, one PROBLEM line per
problem, exit 1 on any), which chapter 9's mutation run (tools/ch09/mutants.py) judges by.
"""
import sys
import time

from model import config
from model.batch import CFG, Refused, check_batching


def main(argv=None):
    from tb import cli
    ap = cli.Parser(prog="tools.ch09.batch", description="chapter 9 batching oracle (check_batching)")
    ap.add_argument("--check", action="store_true", help="run check_batching (the default action)")
    ap.add_argument("--no-ragged", action="store_true", help="skip the ragged batches (fixed and random)")
    ap.add_argument("--quick", action="store_true", help="a quick subset")
    ap.add_argument("--mode", choices=config.MODES, default=CFG.mode,
                    help="timing mode of the chip the steps are built for (default %(default)s)")
    a = ap.parse_args(argv)
    t0 = time.time()
    found = check_batching(ragged=not a.no_ragged, quick=a.quick, cfg=CFG.replace(mode=a.mode))
    probs = [p for p in found if not isinstance(p, Refused)]
    refused = [p for p in found if isinstance(p, Refused)]
    for p in probs[:20]:
        print("PROBLEM", p)
    for p in refused[:20]:
        print("REFUSED", p)
    print(f"check_batching{' (no ragged)' if a.no_ragged else ''}{' (quick)' if a.quick else ''} "
          f"[{a.mode}]: "
          f"{len(probs)} problem(s), {len(refused)} refusal(s) in {time.time() - t0:.2f} s")
    return 1 if found else 0


def guarded_main():
    """main() through tb.cli.guard (a tool fault: one FAULT line, exit 4), for this
    module's `python -m`."""
    from tb.cli import guard
    return guard(main)


if __name__ == "__main__":
    sys.exit(guarded_main())
