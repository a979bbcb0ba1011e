"""The command lines of chapter 9's scripts: bad input is exit 2 and ONE line naming it.

Parser is argparse's, but its errors (an unknown option, a value of the wrong type, two
options that exclude each other) print one line, `prog: message`, instead of the usage
and the message; refuse(prog, message) does the same for the values a script checks
itself. No traceback reaches the user for bad input.
"""
import argparse
import sys

BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are one line and exit 2."""

    def error(self, message):
        self.exit(BAD_INPUT, f"{self.prog}: {message}\n")


def refuse(prog, message):
    """Print `prog: message` (one line) on stderr; returns the exit code 2."""
    print(f"{prog}: {' '.join(str(message).split())}", file=sys.stderr)
    return BAD_INPUT


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
