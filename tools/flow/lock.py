"""requirements.lock: every distribution .venv holds, pinned, resolved by pip from requirements.txt.

    python3 -m tools.flow.lock          # resolve requirements.txt again, write requirements.lock
    make lock                           # the same (needs only python3 and its pip, no .venv)

requirements.txt names what GA-2 uses (its top-level pins, with why); the lock adds what those
pull in, each at the version pip resolved when the lock was written. The set-up
(tools/flow/setup.sh) installs the lock with --no-deps through uv (a pin of requirements.txt),
which fetches and unpacks the wheels in parallel: on this machine type 2.5 s against pip's 20 s
for the same 83 distributions. A distribution whose source file name predates PEP 625 (uv
refuses those) is marked "# pip" and installed by pip. tests/flow/test_lock.py checks that the
lock keeps every pin of requirements.txt, is closed under the locked distributions' own
requirements, and is what .venv holds.

Resolution is pip's own (`pip install --dry-run --ignore-installed --report`): nothing is
installed, and it needs PyPI.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tb import cli

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements.lock"
PIP_MARK = "# pip"
HEADER = """\
# requirements.lock: written by `python3 -m tools.flow.lock` from requirements.txt (pip's
# resolution of its pins); the set-up installs exactly these with --no-deps, through uv, and
# the lines marked "# pip" through pip (uv refuses a source file name older than PEP 625).
# Edit requirements.txt, then write this file again; tests/flow/test_lock.py checks the two.
"""


def canonical(name):
    """PEP 503's normalised name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def uv_takes(name, version, url):
    """Whether uv installs this download: a wheel, or an sdist named as PEP 625 says."""
    file = url.rsplit("/", 1)[-1]
    return file.endswith(".whl") or file == f"{canonical(name).replace('-', '_')}-{version}.tar.gz"


def lock_lines(report):
    """The lock's lines (sorted by name) from pip's installation report."""
    lines = []
    for item in sorted(report["install"], key=lambda i: canonical(i["metadata"]["name"])):
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        mark = "" if uv_takes(name, version, item["download_info"]["url"]) else f"  {PIP_MARK}"
        lines.append(f"{canonical(name)}=={version}{mark}")
    return lines


def parse(path):
    """{canonical name: version} of a pin file (name==version lines; comments and blanks skipped)."""
    out = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        if not m:
            raise ValueError(f"{path}: not a name==version pin: {line!r}")
        out[canonical(m.group(1))] = m.group(2)
    return out


def pip_marked(path):
    """The canonical names of the lock's lines marked for pip."""
    return {canonical(line.split("==", 1)[0]) for line in Path(path).read_text().splitlines()
            if line.rstrip().endswith(PIP_MARK) and not line.startswith("#")}


def resolve():
    """pip's report of what requirements.txt resolves to, for this interpreter; RuntimeError
    when pip fails (PyPI unreachable, a pin that does not exist)."""
    pip = [sys.executable, "-m", "pip"]
    if subprocess.run(pip + ["--version"], capture_output=True).returncode != 0:
        host = shutil.which("python3")
        if host is None:
            raise RuntimeError("no pip: neither this interpreter's nor python3's")
        pip = [host, "-m", "pip", "--python", sys.executable]
    with tempfile.TemporaryDirectory() as d:
        report = Path(d) / "report.json"
        run = subprocess.run(pip + ["install", "--dry-run", "--ignore-installed", "-q",
                                    "--disable-pip-version-check", "--report", str(report),
                                    "-r", str(REQUIREMENTS)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"pip could not resolve {REQUIREMENTS.name} (exit {run.returncode}): {last}")
        return json.loads(report.read_text())


def main(argv=None):
    cli.Parser(prog="tools.flow.lock", description=__doc__.splitlines()[0]).parse_args(argv)
    try:
        lines = lock_lines(resolve())
    except RuntimeError as e:
        print(f"tools.flow.lock: {cli.one_line(e)}", file=sys.stderr)
        return 1
    LOCK.write_text(HEADER + "\n".join(lines) + "\n")
    print(f"{LOCK.name}: {len(lines)} distributions, {sum(PIP_MARK in x for x in lines)} through pip")
    return 0


if __name__ == "__main__":
    sys.exit(cli.guard(main))
