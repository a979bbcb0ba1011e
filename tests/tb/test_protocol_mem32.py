"""tb/protocol.py's 32-bit memory files: the vectorised writer and reader against a line-by-line
reference (Python's own hex formatting and int(., 16)), in both simulators' layouts."""
import numpy as np
import pytest

from tb import protocol

WORDS = 4096


def _image(seed):
    rng = np.random.default_rng(seed)
    img = rng.integers(-(1 << 31), 1 << 31, WORDS, dtype=np.int64)
    img[:4] = [0, -1, (1 << 31) - 1, -(1 << 31)]                   # the boundaries
    return img


def test_write_mem32_is_eight_hex_digits_a_line(tmp_path):
    img = _image(1)
    protocol.write_mem32(tmp_path / "m.hex", img)
    want = "".join(f"{int(w) & 0xFFFFFFFF:08x}\n" for w in img)
    assert (tmp_path / "m.hex").read_text() == want
    protocol.write_mem32(tmp_path / "e.hex", [])
    assert (tmp_path / "e.hex").read_bytes() == b""


def _reference(lines):
    vals, bad = [], []
    for i, ln in enumerate(lines):
        if any(c in ln.lower() for c in "xz"):
            vals.append(0)
            bad.append(i)
        else:
            v = int(ln, 16)
            vals.append(v - (1 << 32) if v >> 31 else v)
    return vals, bad


@pytest.mark.parametrize("layout,xz", [("verilator", False), ("verilator", True), ("icarus", False),
                                       ("icarus", True), ("crlf", True), ("indented", True)])
def test_parse_mem32_equals_line_by_line(layout, xz):
    lines = [f"{int(w) & 0xFFFFFFFF:08x}" for w in _image(2)]
    if xz:
        lines[7], lines[WORDS - 1] = "0000x0zz", "XXXXXXXX"          # x/z words
    vals, bad = _reference(lines)
    if layout == "verilator":                                        # 8 digits and a newline
        text = "".join(ln + "\n" for ln in lines)
    elif layout == "icarus":                                         # an address comment every 16
        text = "".join((f"// 0x{i:08x}\n" if i % 16 == 0 else "") + ln + "\n" for i, ln in enumerate(lines))
    elif layout == "crlf":
        text = "".join(ln + "\r\n" for ln in lines)
    else:
        text = "@0\n" + "".join("  " + ln + "\n" for ln in lines)
    got, got_bad = protocol.parse_mem32(text, WORDS)
    assert got.tolist() == vals and got_bad == bad


def test_parse_mem32_refuses_short_and_long_lines():
    text = "".join(f"{i:08x}\n" for i in range(WORDS))
    with pytest.raises(RuntimeError, match="has 4095 words, expected 4096"):
        protocol.parse_mem32(text[:-9], WORDS)
    with pytest.raises(RuntimeError, match="a line is not 8 hex digits"):
        protocol.parse_mem32("123456789\n" + text[9:], WORDS)


@pytest.mark.parametrize("window", [(0, 20), (3, 20), (5, 8), (8, 20), (11, 17), (0, 8)])
def test_read_outcome_joins_the_two_arrays_of_a_memory_past_the_bank(tmp_path, monkeypatch, window):
    """Past EXT_BANK words the wrapper writes the words from EXT_BANK on into pK_ext_hi_out.hex
    (tb/hdl/ga2_harness.v write_ext; the low file empty when the window starts past it):
    read_outcome gives words ext_from .. ext_to - 1 in order, x/z indices counted from
    ext_from in both files."""
    monkeypatch.setattr(protocol, "EXT_BANK", 8)
    words, (lo, hi) = 20, window
    img = _image(7)[:words]
    keys = " ".join(f"{k} 0" for k in protocol.STATUS_KEYS)
    protocol.program_file(tmp_path, 0, "status").write_text(keys + "\n")
    protocol.program_file(tmp_path, 0, "trace").write_text("")
    text = ["".join(f"{int(w) & 0xFFFFFFFF:08x}\n" for w in img[a:b]) for a, b in ((lo, min(hi, 8)),
                                                                                 (max(lo, 8), hi))]
    if hi > 8:
        text[1] = text[1].replace(text[1][:8], "xxxxxxxx", 1)          # the first word past the bank
    protocol.program_file(tmp_path, 0, "ext_out").write_text(text[0] if lo < 8 else "")
    if hi > 8:
        protocol.program_file(tmp_path, 0, "ext_hi_out").write_text(text[1])
    out = protocol.read_outcome(tmp_path, 0, words, lo, hi)
    got = out["ext"] if (lo, hi) == (0, words) else out["ext_tail"][1]
    want = img[lo:hi].copy()
    if hi > 8:
        want[max(lo, 8) - lo] = 0
    assert np.array_equal(got, want)
    assert out["ext_xz"] == ([max(lo, 8)] if hi > 8 else [])
