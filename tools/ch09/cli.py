"""The command lines of chapter 9's scripts: bad input is exit 2 and ONE line naming it.

Parser, refuse and the argument types are tb/cli.py's (every command of the project uses
them): argparse's errors (an unknown option, a value of the wrong type, two options that
exclude each other) print one line, `prog: message`, instead of the usage and the
message; refuse(prog, message) does the same for the values a script checks itself. No
traceback reaches the user for bad input. int_list is chapter 9's own.
"""
from tb.cli import BAD_INPUT, Parser, integer, out_dir, out_file, refuse, text_file  # noqa: F401


def int_list(text, what):
    """The integers of a comma-separated list (ValueError naming the first bad item)."""
    items = [t.strip() for t in str(text).split(",")]
    if not any(items):
        raise ValueError(f"{what}: an empty list")
    out = []
    for t in items:
        try:
            out.append(int(t))
        except ValueError:
            raise ValueError(f"{what} {text!r}: {t!r} is not an integer") from None
    return out
