"""The user's store asked itself: each question embedded by the embeddings server the test starts
(the same hashed vectors the store was filled with), the store's own query API answering, its
chunks mapped back to their spans: the ranking is the store's nearest neighbours, in the report
and the gate as "your search"."""

from __future__ import annotations

import json

import pytest

from inspector import Workspace, load_corpus
from inspector.chunks.sets import make_chunk_set
from inspector.cli import main
from inspector.errors import StoreError
from inspector.reports.golden_table import format_golden
from inspector.retrieval.ranking import Question
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.stores import parse_store, read_store
from inspector.stores.search import store_retriever
from tests.support import stores
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE

QUESTIONS = ["Which port does replication use?", "How many days of parental leave are there?",
             "What does hbl status print?"]
FILLERS = {"qdrant": (stores.fill_qdrant, "cosine"), "lancedb": (stores.fill_lancedb, "l2"),
           "milvus": (stores.fill_milvus, "l2"), "chroma": (stores.fill_chroma, "l2")}


@pytest.fixture(scope="module")
def handbook():
    return Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))


@pytest.fixture(scope="module")
def chunks():
    return stores.langchain_chunks(SAMPLE / "handbook")


@pytest.mark.parametrize("kind", list(FILLERS))
def test_the_ranking_is_the_store_s_own_nearest_neighbours(kind, handbook, chunks, tmp_path):
    fill, metric = FILLERS[kind]
    uri = fill(tmp_path / ("s.db" if kind == "milvus" else "s"), chunks)
    found = read_store(parse_store(uri), list(handbook.documents))
    ranked, retriever, sent = stores.asked(handbook, found, QUESTIONS)
    assert ranked == [stores.nearest(question, chunks, metric, 5) for question in QUESTIONS]
    assert retriever.unplaced == 0 and retriever.asked == len(QUESTIONS)
    assert [r["input"] for r in sent] == [QUESTIONS], "each question embedded once, by the server named"


def test_a_store_answering_chunks_that_were_not_placed_counts_them(handbook, chunks, tmp_path):
    uri = stores.fill_qdrant(tmp_path / "q", chunks)
    found = read_store(parse_store(uri), list(handbook.documents))
    spec = handbook.add_chunk_set(make_chunk_set("s", handbook.fingerprint, handbook.documents, found.result.chunks))
    places = found.places()
    for chunk_id in list(places)[::2]:
        del places[chunk_id]
    with EmbeddingServer(width=stores.WIDTH) as server:
        retriever = store_retriever(found, parse_retriever("dense:openai:test-embed"), base_url=server.url)
        retriever.placed = places
        ranked = retriever.rank([Question.of(QUESTIONS[0])], handbook.pool(spec), 10)
    assert retriever.unplaced > 0 and len(ranked[0]) == 10 - retriever.unplaced


def test_report_and_check_ask_your_store_beside_the_splitters(chunks, tmp_path, monkeypatch, capsys):
    import mlflow

    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)  # where MLflow keeps a SQL store's artifacts
    tracking = f"sqlite:///{tmp_path / 'runs.db'}"
    uri = stores.fill_qdrant(tmp_path / "q", stores.langchain_chunks())
    golden = str(SAMPLE / "golden-paraphrase.csv")
    with EmbeddingServer(width=stores.WIDTH) as server:
        common = [str(SAMPLE), "--keep-front-matter", "--store", uri, "--golden", golden,
                  "--retriever", "dense:openai:test-embed", "--embeddings-url", server.url]
        assert main(["report", *common, "--spec", "recursive:400", "--budgets", "800", "--json", "--quiet",
                     "--mlflow", tracking]) == 0
        report = json.loads(capsys.readouterr().out)
        rows = {row["splitter"]: row for row in report["golden"][0]["rows"]}
        assert list(rows) == ["recursive 400", "your index", "your search"]
        assert rows["your search"]["searched"] == uri and "searched" not in rows["your index"]
        assert rows["your search"]["spec"] == rows["your index"]["spec"]
        client = mlflow.MlflowClient(tracking)
        runs = {r.info.run_name: r for r in client.search_runs(
            [client.get_experiment_by_name("chunk-inspector").experiment_id])}
        logged = runs[rows["your index"]["spec"]].data.metrics
        assert logged["recall_2000"] == rows["your index"]["recall"]["2000"]
        assert logged["search.recall_2000"] == rows["your search"]["recall"]["2000"]
        assert "search.recall_2000" not in runs["recursive:400"].data.metrics
        table = "\n".join(format_golden(report["golden"][0]))
        assert f"your search: {uri} asked itself, questions embedded by dense:openai:test-embed" in table
        assert main(["check", *common, "--min", "recall@2000=0", "--json"]) == 0
        checked = json.loads(capsys.readouterr().out)
        assert any(note.startswith(f"recall asks {uri} itself") for note in checked["notes"])
        assert checked["measures"]["recall@2000"] == rows["your search"]["recall"]["2000"]
    assert main(["check", str(SAMPLE), "--keep-front-matter", "--store", uri, "--golden", golden]) == 0
    assert "is not asked itself: asking qdrant:" in capsys.readouterr().err


def test_a_collection_made_with_an_openai_embedding_function_is_asked_with_it(handbook, chunks, tmp_path, monkeypatch,
                                                                              capsys):
    """Chroma keeps the embedding function a collection was made with; without --retriever naming
    one, the questions are embedded by it, at its own address, with the key from its variable."""
    import chromadb
    from chromadb.utils.embedding_functions import OpenAIEmbeddingFunction

    from inspector.stores.chroma import own_embedding

    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    with EmbeddingServer(width=stores.WIDTH) as server:
        monkeypatch.setenv("CHROMA_OPENAI_API_KEY", "sk-own")
        function = OpenAIEmbeddingFunction(model_name="test-embed", api_base=server.url)
        collection = chromadb.PersistentClient(path=str(tmp_path / "c")).create_collection(
            "docs", embedding_function=function)
        collection.add(ids=[f"c{i}" for i in range(len(chunks))], documents=[c.page_content for c in chunks],
                       metadatas=[c.metadata for c in chunks])
        uri = f"chroma:{tmp_path / 'c'}?collection=docs"
        own = own_embedding(parse_store(uri))
        assert (own.name, own.model, own.api_base, own.key_variable) == ("openai", "test-embed", server.url,
                                                                         "CHROMA_OPENAI_API_KEY")
        found = read_store(parse_store(uri), list(handbook.documents))
        spec = handbook.add_chunk_set(make_chunk_set("s", handbook.fingerprint, handbook.documents,
                                                     found.result.chunks))
        asked_before = len(server.requests)
        retriever = store_retriever(found, parse_retriever("bm25"))
        (ranked,) = retriever.rank([Question.of(QUESTIONS[0])], handbook.pool(spec), 5)
        assert str(retriever.spec) == "dense:openai:test-embed" and len(ranked) == 5
        assert server.requests[asked_before]["input"] == [QUESTIONS[0]]
        assert server.headers[asked_before]["Authorization"] == "Bearer sk-own"
    plain = stores.fill_chroma(tmp_path / "plain", chunks[:3])
    with pytest.raises(StoreError, match="needs the embedder your pipeline uses"):
        store_retriever(read_store(parse_store(plain), list(handbook.documents)), parse_retriever("bm25"))
