"""``inspector.data_folder``: one folder for the review store and the chunk sets, read once by each face."""

from __future__ import annotations

import re
from pathlib import Path

from inspector.data_folder import DEFAULT_FOLDER, ENV_DATA, data_folder
from inspector.review.database import store_path
from inspector.views.launch import launch_config
from tests.support.paths import ROOT


def test_the_environment_names_the_folder_else_data(tmp_path):
    assert data_folder({}) == data_folder({ENV_DATA: ""}) == Path(DEFAULT_FOLDER) == Path("data")
    assert data_folder({ENV_DATA: str(tmp_path)}) == tmp_path


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
