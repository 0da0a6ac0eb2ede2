"""Uploads kept on the server: the same files always in the same folder under the data folder's
``uploads``, names that could climb out or hide refused, and only folders under that root count as
kept."""

from __future__ import annotations

import pytest

from inspector import load_corpus
from inspector.views import is_kept, keep_uploads, kept_root
from inspector.views.frames import uploads_corpus

FILES = [("b.md", b"# B\n\nSecond.\n"), ("a.md", b"# A\n\nFirst, 7430.\n")]


def test_the_same_files_are_kept_in_the_same_folder_and_read_as_uploaded(tmp_path):
    folder = keep_uploads(FILES, tmp_path)
    assert folder.parent == kept_root(tmp_path) and keep_uploads(list(reversed(FILES)), tmp_path) == folder
    assert sorted(p.name for p in folder.iterdir()) == ["a.md", "b.md"]
    uploaded, _ = uploads_corpus(FILES, mode="markdown")
    assert {d.id: d.text for d in load_corpus(folder).documents} == {d.id: d.text for d in uploaded.documents}
    assert keep_uploads([("c.md", b"other")], tmp_path) != folder
    assert is_kept(str(folder), tmp_path) and not is_kept(str(kept_root(tmp_path)), tmp_path)
    assert not is_kept(str(folder / ".." / ".." / ".."), tmp_path), "a path climbing out is not kept"


@pytest.mark.parametrize("items, words", [
    ([(".env", b"x")], "cannot be a file name"),
    ([("", b"x")], "cannot be a file name"),
    ([("x/a.md", b"1"), ("y/a.md", b"2")], "two uploads share a name"),
])
def test_names_that_cannot_be_kept_are_refused(tmp_path, items, words):
    with pytest.raises(ValueError, match=words):
        keep_uploads(items, tmp_path)


def test_a_path_is_kept_as_its_last_part(tmp_path):
    folder = keep_uploads([("../../etc/passwd.md", b"# P\n")], tmp_path)
    assert [p.name for p in folder.iterdir()] == ["passwd.md"] and (folder / "passwd.md").parent == folder
