"""Chapter 9's own argument type: int_list, a comma-separated list of integers.

The command lines of chapter 9's scripts take everything else from tb/cli.py (every command
of the project uses it: Parser, refuse and the argument types): bad input is exit 2 and ONE
line naming it, no traceback.
"""


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
