"""Command lines whose bad input never breaks them: exit 2 and ONE line naming the problem.

Parser is argparse's ArgumentParser whose errors (a missing or unknown argument, an
unknown choice, a value its type= refuses) print one line, `prog: message`, and exit 2
(BAD_INPUT), instead of the usage and the message. The types refuse values at and beyond
their limits with argparse.ArgumentTypeError, so argparse names the argument:

    integer(lo, hi)     an integer (decimal, or 0x.. / 1_000) in lo..hi
    number(lo, hi)      a finite float in lo..hi; above=x: strictly greater than x
    in_file, in_dir     an existing file (not a directory), an existing directory
    out_file(parents)   a file to write: not a directory, under a writable directory
                        (parents=False: its directory must exist)
    out_dir             a directory to write into: not a file, under a writable directory
    scheduler           local:N or a Dask scheduler address (tcp://host:port)
    text_file(path)     a file's text; ValueError naming it when it is binary or unreadable

refuse(prog, message) prints the same one line for what a command checks itself and
returns 2. Exit codes in use elsewhere keep their meaning (ga2: 1 mismatch, 3 chip fault).
Every command of the project uses these (tests/flow/test_bad_input.py holds them to it).
"""
import argparse
import math
import os
import sys
from pathlib import Path

BAD_INPUT = 2
TOOL_FAULT = 4   # a simulator, its build or yosys failed: nothing is known of the chip or the input
MAX_JOBS = 256          # worker processes or threads a command may ask for
MAX_SECONDS = 1e6       # a wall-clock limit beyond this is a typing mistake (11 days)


def one_line(message):
    return " ".join(str(message).split())


def guard(main):
    """Run a command's main() (each command's `if __name__ == "__main__"`): a ToolFault
    -- a simulator, its build, yosys or iverilog's preprocessor failed, so nothing is
    known of the chip or of the input -- ends it with one line, `PROG: FAULT: ...`, and
    exit 4 instead of a traceback. Anything else propagates as it is."""
    from tb.sim.process import ToolFault
    try:
        return main()
    except ToolFault as e:
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        prog = getattr(spec, "name", None) or Path(sys.argv[0]).name
        print(f"{prog}: FAULT: {one_line(e)}", file=sys.stderr)
        return TOOL_FAULT


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are one line and exit 2."""

    def error(self, message):
        self.exit(BAD_INPUT, f"{self.prog}: {one_line(message)}\n")


def check_command(argv, prog, what, check, quick_help):
    """The command line of a check on the reference that text mutants are judged by
    (`python -m tools.serve.engine --check`, tools.prefix.cache): --check (the default
    action) and --quick run check(quick); a PROBLEM line for each of the first 20 problems
    (what marks a mutant caught, tb/mutation/text.py), then their count; exit 1 with any."""
    import time
    name = check.__name__
    ap = Parser(prog=prog, description=f"{what} check on the reference ({name})")
    ap.add_argument("--check", action="store_true", help=f"run {name} (the default action)")
    ap.add_argument("--quick", action="store_true", help=quick_help)
    a = ap.parse_args(argv)
    t0 = time.time()
    probs = check(a.quick)
    for p in probs[:20]:
        print("PROBLEM", p)
    print(f"{name}{' (quick)' if a.quick else ''}: {len(probs)} problem(s) in {time.time() - t0:.2f} s")
    sys.stdout.flush()
    return 1 if probs else 0


def refuse(prog, message):
    """Print `prog: message` (one line) on stderr; returns the exit code 2."""
    print(f"{prog}: {one_line(message)}", file=sys.stderr)
    return BAD_INPUT


def _bad(message):
    return argparse.ArgumentTypeError(message)


def _range(lo, hi):
    if lo is not None and hi is not None:
        return f"outside {lo:g}..{hi:g}" if isinstance(lo, float) or isinstance(hi, float) else f"outside {lo}..{hi}"
    return f"must be >= {lo}" if lo is not None else f"must be <= {hi}"


def integer(lo=None, hi=None):
    """type=: an integer in lo..hi (either end None: open)."""
    def parse(text):
        t = str(text).strip()
        if not t:
            raise _bad("an empty value, expected an integer")
        try:
            v = int(t, 10)
        except ValueError:
            try:
                v = int(t, 0)
            except ValueError:
                raise _bad(f"{text!r} is not an integer") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise _bad(f"{v} {_range(lo, hi)}")
        return v
    parse.__name__ = "integer"
    return parse


def number(lo=None, hi=None, above=None):
    """type=: a finite number in lo..hi; above: strictly greater than it."""
    def parse(text):
        t = str(text).strip()
        if not t:
            raise _bad("an empty value, expected a number")
        try:
            v = float(t)
        except ValueError:
            raise _bad(f"{text!r} is not a number") from None
        if not math.isfinite(v):
            raise _bad(f"{text!r} is not a finite number")
        if above is not None and v <= above:
            raise _bad(f"{t} must be > {above:g}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise _bad(f"{t} {_range(lo, hi)}")
        return v
    parse.__name__ = "number"
    return parse


def jobs(text):
    """type=: worker processes, 1..MAX_JOBS."""
    return integer(1, MAX_JOBS)(text)


def seconds(text):
    """type=: a wall-clock limit in seconds, > 0 and at most MAX_SECONDS."""
    return number(hi=MAX_SECONDS, above=0)(text)


def seed(text):
    """type=: a random seed, >= 0 (Python's random.Random(-1) is Random(1): no negative seeds)."""
    return integer(0)(text)


def _os_errors(check):
    """check (a path type=) with an OSError of the path itself (a name too long, a loop of
    links, no permission to look) turned into the refusal of that argument."""
    def parse(text):
        try:
            return check(text)
        except OSError as e:
            raise _bad(f"{text}: {e.strerror or e}") from None
    parse.__name__ = check.__name__
    parse.__doc__ = check.__doc__
    return parse


def _path(text):
    """(text, Path) of a path argument; the refusal of an empty one."""
    t = str(text)
    if not t:
        raise _bad("an empty path")
    return t, Path(t)


@_os_errors
def in_file(text):
    """type=: an existing file (not a directory); the path as given."""
    t, p = _path(text)
    if p.is_dir():
        raise _bad(f"{t}: a directory, not a file")
    if not p.exists():
        raise _bad(f"{t}: no such file")
    if not os.access(p, os.R_OK):
        raise _bad(f"{t}: not readable")
    return t


@_os_errors
def in_dir(text):
    """type=: an existing directory; the path as given."""
    t, p = _path(text)
    if not p.exists():
        raise _bad(f"{t}: no such directory")
    if not p.is_dir():
        raise _bad(f"{t}: not a directory")
    return t


def _writable_under(t, p, parents):
    """Why nothing can be written at p (its first existing ancestor), or None."""
    a = p.parent if str(p.parent) else Path(".")
    if not parents and not a.exists():
        return f"{t}: no such directory {a}"
    while not a.exists():
        a = a.parent
    if not a.is_dir():
        return f"{t}: {a} is not a directory"
    if not os.access(a, os.W_OK | os.X_OK):
        return f"{t}: {a} is not writable"
    return None


def out_file(parents=True, regular=False):
    """type=: a file to write (not a directory, under a writable directory; parents=False:
    its directory must exist, the command does not create it; regular=True: a file that
    exists must be a regular file, not a device or a pipe -- a journal, which is synced to
    disk and read back by --resume)."""
    def parse(text):
        t, p = _path(text)
        if p.is_dir():
            raise _bad(f"{t}: a directory, not a file")
        if regular and p.exists() and not p.is_file():
            raise _bad(f"{t}: not a regular file (a journal is synced to disk and read back by --resume)")
        why = _writable_under(t, p, parents)
        if why:
            raise _bad(why)
        return t
    parse.__name__ = "out_file"
    return _os_errors(parse)


@_os_errors
def out_dir(text):
    """type=: a directory to write into (created when missing): not a file, under a
    writable directory."""
    t, p = _path(text)
    if p.exists() and not p.is_dir():
        raise _bad(f"{t}: a file, not a directory")
    if not p.exists():
        why = _writable_under(t, p, True)
        if why:
            raise _bad(why)
    elif not os.access(p, os.W_OK | os.X_OK):
        raise _bad(f"{t}: not writable")
    return t


DASK_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def scheduler(text):
    """type=: local:N (1..MAX_JOBS workers) or a Dask scheduler address: scheme://host:port
    (tcp, tls, ...) or host:port."""
    t = str(text).strip()
    if t.startswith("local:"):
        n = t.split(":", 1)[1]
        try:
            k = int(n)
        except ValueError:
            raise _bad(f"{text!r}: local:N needs a number of workers, got {n!r}") from None
        if not 1 <= k <= MAX_JOBS:
            raise _bad(f"{text!r}: local:N needs 1..{MAX_JOBS} workers")
        return t
    rest = t
    if "://" in t:
        scheme, rest = t.split("://", 1)
        if scheme not in DASK_SCHEMES:
            raise _bad(f"{text!r}: unknown scheme {scheme!r} (a Dask address is tcp://host:port, or local:N)")
    host, _, port = rest.rpartition(":")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise _bad(f"{text!r}: the host {host!r} holds a ':' (an IPv6 host goes in brackets: [::1]:8786)")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise _bad(f"{text!r}: expected local:N or a Dask scheduler address host:port (tcp://host:8786)")
    return t


def text_file(path, what=None):
    """The text of a file; ValueError naming it when it is missing, a directory, binary
    (not UTF-8, or holding NUL bytes) or unreadable."""
    name = what or str(path)
    p = Path(path)
    try:
        if p.is_dir():
            raise ValueError(f"{name}: a directory, not a file")
        data = p.read_bytes()
    except OSError as e:
        raise ValueError(f"{name}: {e.strerror or e}") from None
    if b"\0" in data:
        raise ValueError(f"{name}: not a text file (binary data)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not a text file (not UTF-8)") from None


def journal_lines(path, kind):
    """[(line number, line, JSON value)] of the non-blank lines of a JSON-lines journal (the
    soak's, the mutation run's); a torn last line (no newline after it, behind a whole
    line: its writer was killed while writing it) is dropped; ValueError naming the file
    and line (of a `kind` journal) when a line is not JSON, or the file not text."""
    import json
    text = text_file(path, f"--journal {path}")
    lines = text.split("\n")
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append((n, line, json.loads(line)))
        except json.JSONDecodeError:
            if out and n == len(lines) and not text.endswith("\n"):
                break                                   # torn: its writer died writing it
            raise ValueError(f"--journal {path}:{n}: not a {kind} journal line (not JSON)") from None
    return out


def drop_torn_tail(path):
    """Cut a journal after its last newline: the line a killed run was writing is dropped,
    so the lines appended on resuming start on a line of their own."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)
