"""The checked-in list of equivalent RTL mutants (tb/mutation/rtl/equivalents.txt).

Format, one mutant a line: FILE:LINE | CLASS | CODE LINE | CHANGE | WHY ('#' comments).
A mutant is matched by (file, class, whitespace-normalised code line, change), not by the
line number, so an entry survives edits elsewhere in the file. Only an entry whose WHY
starts with a tool's verdict "equivalent (proven by ..." counts as equivalent in the
run's score (proven()); the others are listed to be named, and count as survivors.
"""
import functools
import os

from tb import ROOT
from tb.mutation.rtl.sites import RTL_DIR, one_line

EQUIV_FILE = os.path.join(ROOT, "tb", "mutation", "rtl", "equivalents.txt")


@functools.lru_cache(maxsize=64)
def _normalized_lines(path, _mtime_ns):
    """The file's lines, whitespace-normalized (cached per path and modification time)."""
    return tuple(" ".join(x.split()) for x in open(path).read().splitlines())


def code_line(site, rtl_dir=RTL_DIR):
    """The site's line, whitespace-normalized; a line that occurs more than once in the
    file (a register cleared by reset and by start) gets ' [occurrence k]' from the 2nd."""
    path = os.path.join(rtl_dir, site.file)
    lines = _normalized_lines(path, os.stat(path).st_mtime_ns)
    code = lines[site.line - 1]
    k = lines[:site.line - 1].count(code) + 1
    return code if k == 1 else f"{code} [occurrence {k}]"


def equiv_key(site, rtl_dir=RTL_DIR):
    """What identifies a mutant in tb/mutation/rtl/equivalents.txt: file, class, code line, change
    (not the line number, so an entry survives edits elsewhere in the file)."""
    return (site.file, site.cls, code_line(site, rtl_dir), one_line(site.desc))


def load_equivalents(path=EQUIV_FILE):
    """{key: argument} from the equivalents file.

    Format, one mutant a line: FILE:LINE | CLASS | CODE LINE | CHANGE | WHY ('#' comments).
    """
    out = {}
    if not os.path.exists(path):
        return out
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 5:
            raise ValueError(f"{path}:{n}: expected 5 fields 'FILE:LINE | CLASS | CODE | CHANGE | WHY', "
                             f"got {len(parts)}")
        fl, cls, code, change, why = parts
        if not why:
            raise ValueError(f"{path}:{n}: an equivalent mutant needs its argument (WHY)")
        out[(fl.split(":")[0], cls, one_line(code), one_line(change))] = why
    return out


# what a WHY must start with for its entry to count as equivalent in the score: a tool's
# proof (tb/formal/miter.py's verdict); any other listed entry is a survivor
PROVEN = "equivalent (proven by "


def proven(why):
    """True when an entry's WHY is a tool's proof of equivalence (PROVEN)."""
    return why.startswith(PROVEN)


def equiv_line(site, why, rtl_dir=RTL_DIR):
    f, cls, code, change = equiv_key(site, rtl_dir)
    return f"{f}:{site.line} | {cls} | {code} | {change} | {why}"

