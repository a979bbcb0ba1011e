"""rtl/ga2.f names every RTL module file exactly once, and its reader rejects bad lists."""
import pytest

from tb import ROOT
from tb.sim.files import rtl_files, top_file


def test_filelist_names_every_rtl_file_once():
    listed = [p.name for p in rtl_files()]
    on_disk = sorted(p.name for p in (ROOT / "rtl").glob("*.v"))
    assert sorted(listed) == on_disk
    assert len(set(listed)) == len(listed)
    assert top_file().name == "ga2_top.v"


def test_filelist_reader_rejects_missing_and_duplicate_files(tmp_path):
    (tmp_path / "a.v").write_text("")
    (tmp_path / "ga2.f").write_text("// comment\na.v\nb.v\n")
    with pytest.raises(FileNotFoundError, match="ga2.f:3: b.v does not exist"):
        rtl_files(tmp_path)
    (tmp_path / "ga2.f").write_text("a.v\na.v  // again\n")
    with pytest.raises(ValueError, match="listed twice"):
        rtl_files(tmp_path)
    (tmp_path / "ga2.f").unlink()
    with pytest.raises(FileNotFoundError, match="no filelist"):
        rtl_files(tmp_path)
