"""``inspector.data_folder``: one folder for the review store and the chunk sets."""

from __future__ import annotations

from pathlib import Path

from inspector.chunks.sets import ChunkSetStore
from inspector.data_folder import DEFAULT_FOLDER, ENV_DATA, data_folder
from inspector.review.database import default_store_path


def test_the_environment_names_the_folder_else_data(tmp_path):
    assert data_folder({}) == data_folder({ENV_DATA: ""}) == Path(DEFAULT_FOLDER) == Path("data")
    assert data_folder({ENV_DATA: str(tmp_path)}) == tmp_path


def test_the_review_store_and_the_chunk_sets_share_it(tmp_path):
    environ = {ENV_DATA: str(tmp_path)}
    assert default_store_path(environ).parent == data_folder(environ)
    assert ChunkSetStore.in_data_folder(environ).folder.parent == data_folder(environ)
