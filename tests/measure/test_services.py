"""A corpus's services are one value: a workspace built with it has every store wired once, and
equal settings are one key (the app's cached workspace, a worker's) that crosses to a worker."""

from __future__ import annotations

import pickle
from pathlib import Path

from inspector import Workspace, load_corpus
from inspector.measure.services import Services
from inspector.views.launch import launch_config
from tests.support.paths import SAMPLE

CORPUS = load_corpus(SAMPLE)


def test_a_workspace_built_with_services_has_its_stores_in_their_folders(tmp_path):
    services = Services(str(tmp_path), str(tmp_path / "sets"), "http://127.0.0.1:9/v1", "http://127.0.0.1:8")
    work = Workspace(CORPUS, "markdown", services)
    assert work.services == services
    assert Path(work.chunk_set_store.folder) == tmp_path / "sets"
    assert str(work.vector_folder) == str(tmp_path)
    assert (work.embeddings_url, work.rerank_url) == ("http://127.0.0.1:9/v1", "http://127.0.0.1:8")
    assert work.question_store.folder.parent == tmp_path
    for store in (work.context_store, work.split_answers, work.analysis_store, work.kept):
        assert store.path.parent == tmp_path, store
    part = work.subset([CORPUS.documents[0].id])
    assert part.services == services and part.context_store is work.context_store


def test_a_workspace_without_services_keeps_nothing_and_asks_the_default_servers():
    work = Workspace(CORPUS, "markdown")
    assert work.services == Services()
    assert (work.chunk_set_store, work.vector_folder, work.question_store, work.context_store, work.analysis_store,
            work.kept, work.embeddings_url, work.rerank_url) == (None,) * 8


def test_the_app_s_services_follow_its_data_folder_and_servers(tmp_path):
    environ = {"CHUNK_INSPECTOR_DATA": str(tmp_path / "a"), "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    first = launch_config([], environ).services
    assert first == launch_config([], dict(environ)).services, "equal settings: one key"
    assert first.data == str(tmp_path / "a") and first.chunk_sets == str(tmp_path / "a" / "chunk-sets")
    assert first.embeddings_url == "http://127.0.0.1:9/v1"
    other = launch_config([], {**environ, "CHUNK_INSPECTOR_DATA": str(tmp_path / "b")}).services
    assert other != first and hash(other) != hash(first), "another data folder: another workspace"
    assert pickle.loads(pickle.dumps(first)) == first
