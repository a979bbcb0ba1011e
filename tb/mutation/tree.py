"""The project tree a text mutant is applied to: copying it, hashing it, the mutant's anchor.

A text mutant replaces the single occurrence of its old text in one file; it is applied
to a fresh copy of the project (copy_project, skipping COPY_IGNORE), never to the tree
itself. tree_digest names the tree a run judged (a journal of another tree is never
resumed: tb/mutation/journal.py). Why here: the text judge and the journal share the one
notion of what a copy holds.
"""
import hashlib
import os
import pathlib
import shutil

COPY_IGNORE = (".venv", "build", "out", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".cache")
EMPTY_DIRS = ("out", "build")      # recreated empty in the copy when the project has them
# linked, not copied, into the copy when the project has them: .cache holds SmolLM2's fetched
# GGUF and its float32 cache (about 600 MB, content-addressed by the GGUF's hash, read-only
# once made); copying it made every judged mutant write 600 MB (seconds of system time each)
LINKED_DIRS = (".cache",)


def tree_digest(root, copy_ignore=COPY_IGNORE):
    """sha256 of every file a mutant's copy of root holds (names and contents): a journal
    of a run on another tree is never resumed."""
    root = os.path.abspath(root)
    ignore = shutil.ignore_patterns(*copy_ignore)
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        skip = ignore(dirpath, dirnames + filenames)
        dirnames[:] = sorted(d for d in dirnames if d not in skip and not os.path.islink(os.path.join(dirpath, d)))
        for fn in sorted(f for f in filenames if f not in skip):
            p = os.path.join(dirpath, fn)
            h.update(os.path.relpath(p, root).encode() + b"\0")
            if not os.path.islink(p):
                with open(p, "rb") as f:
                    h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def anchor_problem(root, mutant):
    """Why mutant cannot be applied to root (a string), or None when old occurs exactly once."""
    path = pathlib.Path(root) / mutant.file
    if not path.is_file():
        return f"file {mutant.file} not found"
    if not isinstance(mutant.old, str) or not isinstance(mutant.new, str) or mutant.old == "":
        return "old and new must be strings, old non-empty"
    if mutant.old == mutant.new:
        return "old == new (the mutant changes nothing)"
    n = path.read_text().count(mutant.old)
    if n == 0:
        return f"old text not found in {mutant.file}"
    if n > 1:
        return f"old text occurs {n} times in {mutant.file} (must be unique)"
    return None


def catalogue_problems(root, mutants, fast, least):
    """What is wrong with an app's mutant catalogue (its tests assert the list is empty):
    fewer than `least` mutants, a mutant whose old or new text spans lines or whose anchor
    is not found exactly once (anchor_problem), a label of the fast subset that names no
    mutant."""
    out = [] if len(mutants) >= least else [f"{len(mutants)} mutants, fewer than {least}"]
    for m in mutants:
        why = anchor_problem(root, m) or ("old or new spans lines" if "\n" in m.old + m.new else None)
        if why:
            out.append(f"{m.label}: {why}")
    out += [f"fast label {x!r} names no mutant" for x in sorted(set(fast) - {m.label for m in mutants})]
    return out


def copy_project(root, dest, copy_ignore=COPY_IGNORE):
    """Copy root into dest (which must not exist), skipping copy_ignore patterns; the
    ignored EMPTY_DIRS made empty there, the ignored LINKED_DIRS a link to root's."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*copy_ignore), symlinks=True)
    for name in EMPTY_DIRS:
        if name in copy_ignore and (pathlib.Path(root) / name).is_dir():
            (pathlib.Path(dest) / name).mkdir(exist_ok=True)
    for name in LINKED_DIRS:
        if name in copy_ignore and (pathlib.Path(root) / name).is_dir():
            (pathlib.Path(dest) / name).symlink_to((pathlib.Path(root) / name).resolve(), target_is_directory=True)


def apply_mutant(copy_dir, mutant):
    """Write the mutated file into copy_dir (anchor already checked on the original)."""
    path = pathlib.Path(copy_dir) / mutant.file
    text = path.read_text()
    assert text.count(mutant.old) == 1, mutant.label
    path.write_text(text.replace(mutant.old, mutant.new, 1))
