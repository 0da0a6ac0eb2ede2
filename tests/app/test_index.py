"""The sidebar's "Your index" under AppTest: the stores the server was started with, read onto the
corpus as the splitter every page measures; a link picks one by name and never by host or path;
a refused setting is a warning; an Orphan Test round shows the stored text exactly."""

from __future__ import annotations

import html
import json

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Workspace, load_corpus
from inspector.chunks.sets import make_chunk_set
from inspector.review.rounds import ReviewRound, draw
from inspector.stores import parse_store, read_store
from inspector.stores.served import ENV_STORES
from tests.support import stores
from tests.support.paths import ROOT

SAMPLE = Workspace(load_corpus(ROOT / "sample_corpus"))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[str, list]:
    chunks = stores.app_chunks()
    return stores.fill_chroma(tmp_path_factory.mktemp("index") / "chroma", chunks), chunks


@pytest.fixture
def served(store, isolated_app, monkeypatch):
    uri, chunks = store
    monkeypatch.setenv(ENV_STORES, f"handbook={uri}")
    placed = read_store(parse_store(uri), list(SAMPLE.documents), headings=SAMPLE.headings)
    chunk_set = make_chunk_set("your index handbook", SAMPLE.fingerprint, SAMPLE.documents, placed.result.chunks)
    return f"imported:{chunk_set.id}", chunks, isolated_app


def opened(params=None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def captions(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption).replace("\\", "")


def test_reading_your_index_makes_it_the_splitter(served):
    spec, chunks, data = served
    at = opened()
    assert at.selectbox(key="index_pick").options == ["handbook (chroma, docs)"]
    at.button(key="index_read").click().run()
    assert not at.exception
    assert at.selectbox(key="kind").value == spec and at.query_params["spec"] == spec
    assert f"{len(chunks):,} of {len(chunks):,} stored chunks of handbook placed" in captions(at)
    kept = json.loads((data / "chunk-sets" / f"{spec.split(':')[1]}.json").read_text())
    assert kept["name"] == "your index handbook"


def test_a_link_picks_an_index_by_name_and_never_by_address(served, tmp_path):
    spec, _, _ = served
    at = opened({"index": "handbook"})
    assert at.selectbox(key="kind").value == spec
    for wrong in ("elsewhere", f"chroma:{tmp_path}?collection=docs", "../../etc/passwd"):
        at = opened({"index": wrong})
        assert at.selectbox(key="kind").value == "structured"
        assert any("offers no index named" in w.value for w in at.sidebar.warning)


def test_a_store_refused_at_start_is_a_warning_not_a_traceback(isolated_app, monkeypatch):
    monkeypatch.setenv(ENV_STORES, "prod=postgresql://app:s3cret@db/rag?table=t;=chroma:/x")
    at = opened()
    shown = " ".join(w.value for w in at.warning)
    assert "carries a password" in shown and "s3cret" not in shown
    assert "index_pick" not in [s.key for s in at.selectbox]


def test_an_orphan_round_on_your_index_shows_the_stored_text(served, store):
    spec, chunks, _ = served
    workspace = Workspace(load_corpus(ROOT / "sample_corpus"))
    placed = read_store(parse_store(store[0]), list(workspace.documents), headings=workspace.headings)
    workspace.add_chunk_set(make_chunk_set("your index handbook", workspace.fingerprint, workspace.documents,
                                           placed.result.chunks))
    review_round = ReviewRound.create(workspace, spec, size=3, seed=4)
    at = opened({"index": "handbook", **review_round.to_query_params()})
    at = at.switch_page("app_pages/orphan_test.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_input(key="orphan_reviewer").input("Dana").run()
    assert not at.exception, [e.value for e in at.exception]
    first = draw(review_round, workspace)[0]
    assert first.text in {c.page_content for c in chunks}, "the chunk as stored"
    card = next(h.value for h in at.html if "Chunk 1 of 3" in h.value)
    assert html.escape(first.text) in card


def test_a_round_drawn_from_what_your_index_answers_travels_by_link(served, store, monkeypatch):
    from inspector.data_folder import data_folder
    from inspector.retrieval.questions import QUESTION_SETS, QuestionSetStore, load_questions
    from tests.support.embedding import EmbeddingServer

    spec, chunks, _ = served
    asked = load_questions(b'{"question": "Which port does replication use?"}\n'
                           b'{"question": "How many days of leave are there?"}\n', name="mine.jsonl")
    QuestionSetStore(data_folder() / QUESTION_SETS).put(asked)
    workspace = Workspace(load_corpus(ROOT / "sample_corpus"))
    review_round = ReviewRound(workspace.fingerprint, spec, size=3, seed=2, source="questions", k=3,
                               retriever="dense:openai:test-embed", questions=asked.id, index="handbook")
    with EmbeddingServer(width=stores.WIDTH) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("CHUNK_INSPECTOR_EMBED_MODELS", "test-embed")
        monkeypatch.setenv("CHUNK_INSPECTOR_PROCESSES", "0")
        at = opened({"index": "handbook", **review_round.to_query_params()})
        at = at.switch_page("app_pages/orphan_test.py").run()
        assert not at.exception, [e.value for e in at.exception]
        held = " ".join(m.value for m in at.sidebar.markdown)  # opened from its link: its settings fixed
        assert "handbook asked itself" in held and "orphan_index" not in [s.key for s in at.selectbox]
        assert at.query_params["round"] == review_round.id
        assert any("This page will send 2 texts" in c.value.replace("\\", "") for c in at.caption), \
            "the questions, not the chunks"
        assert "orphan_reviewer" in [t.key for t in at.text_input], [e.value for e in at.error]
        at.text_input(key="orphan_reviewer").input("Dana").run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    assert [r["input"] for r in server.requests] == [[q.text for q in asked.items]]
    card = next(h.value for h in at.html if "Chunk 1 of" in h.value)
    assert any(html.escape(c.page_content) in card for c in chunks), "a stored chunk, as stored"
    assert any("your index handbook answers in its top 3" in c.value for c in at.markdown)


@pytest.fixture
def embedder(monkeypatch):
    """The loopback embeddings server, the only model this server allows, pages computed in the
    script thread and no click asked for: the pages ask your index with it."""
    from tests.support.embedding import EmbeddingServer

    with EmbeddingServer(width=stores.WIDTH) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("CHUNK_INSPECTOR_EMBED_MODELS", "test-embed")
        monkeypatch.setenv("CHUNK_INSPECTOR_PROCESSES", "0")
        monkeypatch.setenv("CHUNK_INSPECTOR_CONFIRM_ABOVE", "100000 texts")
        yield server


def test_the_import_page_asks_your_index_itself_for_the_golden_set(served, embedder):
    spec, _, _ = served
    at = opened({"index": "handbook", "retriever": "dense:openai:test-embed"})
    at = at.switch_page("app_pages/import_chunks.py").run()
    at.button(key="golden_paraphrase").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows = next(d.value for d in at.dataframe if "context budget" in d.value.columns)
    assert set(rows["chunks from"]) == {spec, "your search handbook"}
    searched = rows[rows["chunks from"] == "your search handbook"]
    assert list(searched["questions"].unique()) == [25]
    assert any(len(body["input"]) == 25 and "?" in body["input"][0] for body in embedder.requests), \
        "the golden questions embedded to ask the store"


def test_compare_asks_your_index_itself_the_probe_s_queries(served, embedder):
    spec, _, _ = served
    at = opened({"index": "handbook", "retriever": "dense:openai:test-embed", "cmp": [spec, "structured:800"]})
    at = at.switch_page("app_pages/compare.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table_b = next(d.value for d in at.dataframe if "answer@5" in d.value.columns)
    assert list(table_b["splitter"]) == ["imported: your index handbook", "structured 800", "your search handbook"]
    searched = table_b.iloc[2]
    assert 0 <= searched["answer@5"] <= 1 and searched["ctx tokens"] > 0
    queries = {q.text for q in SAMPLE.queries()}
    sent = [text for body in embedder.requests for text in body["input"] if text in queries]
    assert len(sent) == 2 * len(queries), "each query embedded for table b's dense ranking, and to ask the store"


def test_a_viewer_is_refused_the_store_and_nothing_is_read(served, monkeypatch):
    spec, _, data = served
    monkeypatch.setenv("CHUNK_INSPECTOR_ROLES", "admin=dana@acme.com;viewer=*")
    at = opened({"index": "handbook"})
    assert at.selectbox(key="kind").value == "structured" and at.query_params.get("spec") != spec
    warned = [w.value.replace("\\", "") for w in at.sidebar.warning]
    assert any(w.startswith("handbook was not read: To open a vector store you need the admin role; you are a "
                            "viewer") for w in warned), warned
    assert not (data / "chunk-sets").exists() or not list((data / "chunk-sets").glob("*.json")), "nothing kept"
