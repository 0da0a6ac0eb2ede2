"""``inspector.data_folder``: one folder for the review store and the chunk sets, read once by each face."""

from __future__ import annotations

import re

from inspector.data_folder import ENV_DATA, data_folder, default_folder, first_use_note
from inspector.review.database import store_path
from inspector.views.launch import launch_config
from tests.support.paths import ROOT


def test_the_environment_names_the_folder_else_the_users_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert data_folder({}) == data_folder({ENV_DATA: ""}) == default_folder() == tmp_path / "share" / "chunk-inspector"
    assert data_folder({ENV_DATA: str(tmp_path)}) == tmp_path


def test_the_default_folder_is_announced_once_and_the_run_folder_stays_clean(tmp_path, monkeypatch, capsys):
    from inspector.cli import main
    from tests.support.paths import SAMPLE

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.delenv(ENV_DATA, raising=False)
    monkeypatch.chdir(tmp_path)
    assert first_use_note({ENV_DATA: str(tmp_path)}) is None
    for _ in range(2):
        assert main(["export", str(SAMPLE), "--spec", "fixed:4000", "-o", str(tmp_path / "chunks.jsonl")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: Chunk Inspector keeps")]
    assert notes == [f"note: Chunk Inspector keeps what it measures in {tmp_path / 'share' / 'chunk-inspector'} "
                     f"({ENV_DATA} names another folder)"]
    assert (tmp_path / "share" / "chunk-inspector").is_dir() and not (tmp_path / "data").exists()


def test_the_review_store_and_the_chunk_sets_share_it(tmp_path):
    launch = launch_config([], {ENV_DATA: str(tmp_path)})
    assert store_path(launch.data).parent == tmp_path
    assert launch.services.chunk_set_store().folder.parent == tmp_path


def test_the_environment_is_read_for_the_folder_by_the_faces_only():
    """The command line, the app's launch and ``split_document``'s default for an ``llm`` spec read
    it; everything else is handed the folder by one of them."""
    readers = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "inspector").rglob("*.py")
                     if path.name != "data_folder.py" and re.search(r"\bdata_folder\(", path.read_text()))
    assert readers == ["inspector/cli/config.py", "inspector/split/splitters.py", "inspector/views/launch.py"]
