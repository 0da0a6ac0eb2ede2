"""The user's store asked itself: each question embedded by the embeddings server the test starts
(the same hashed vectors the store was filled with), the store's own query API answering, its
chunks mapped back to their spans: the ranking is the store's nearest neighbours, in the report
and the gate as "your search"."""

from __future__ import annotations

import json

import pytest

from inspector.chunks.sets import make_chunk_set
from inspector.cli import main
from inspector.errors import StoreError
from inspector.reports.golden_table import format_golden
from inspector.retrieval.ranking import Question
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.stores import parse_store, read_store
from inspector.stores.search import store_retriever
from tests.support import stores
from tests.support.embedding import EmbeddingServer, hashed_vector
from tests.support.paths import SAMPLE

QUESTIONS = ["Which port does replication use?", "How many days of parental leave are there?",
             "What does hbl status print?"]
FILLERS = {"qdrant": (stores.fill_qdrant, "cosine"), "lancedb": (stores.fill_lancedb, "l2"),
           "milvus": (stores.fill_milvus, "l2"), "chroma": (stores.fill_chroma, "l2")}


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
    assert main(["check", str(SAMPLE), "--keep-front-matter", "--store", uri, "--golden", golden]) == 2
    assert "asking qdrant docs itself needs the embedder your pipeline uses" in capsys.readouterr().err


def test_a_store_naming_an_address_and_a_secret_sends_nothing_and_stays_byte_identical(
        handbook, chunks, tmp_path, monkeypatch, capsys):
    """Chroma records the embedding function a collection was made with, its address and the
    variable its key is read from included: whoever writes the folder chooses both. Asking the
    store needs the operator's embedder; the recorded one is never used, and nothing is written."""
    import chromadb
    from chromadb.utils.embedding_functions import OpenAIEmbeddingFunction

    from inspector.stores.chroma import own_embedding

    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("CHUNK_INSPECTOR_DATABASE_PASSWORD", "the-operator-s-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator")
    golden = str(SAMPLE / "golden-paraphrase.csv")
    with EmbeddingServer(width=stores.WIDTH) as listener, EmbeddingServer(width=stores.WIDTH) as operator:
        with monkeypatch.context() as filling:
            filling.setenv("CHUNK_INSPECTOR_DATABASE_PASSWORD", "x")  # Chroma checks the variable is set
            function = OpenAIEmbeddingFunction(model_name="test-embed", api_base=listener.url,
                                               api_key_env_var="CHUNK_INSPECTOR_DATABASE_PASSWORD")
            client = chromadb.PersistentClient(path=str(tmp_path / "c"))
            collection = client.create_collection("docs", embedding_function=function)
            collection.add(ids=[f"c{i}" for i in range(len(chunks))], documents=[c.page_content for c in chunks],
                           metadatas=[c.metadata for c in chunks],
                           embeddings=[hashed_vector(c.page_content, stores.WIDTH) for c in chunks])
            del collection, client
        uri = f"chroma:{tmp_path / 'c'}?collection=docs"
        before = stores.tree_digest(tmp_path / "c")
        for command in ("report", "check"):
            assert main([command, str(SAMPLE), "--keep-front-matter", "--store", uri,
                         "--golden", golden]) == 2
            said = capsys.readouterr().err.strip().splitlines()
            assert len(said) == 1 and "needs the embedder your pipeline uses: pass --retriever dense:openai:MODEL" \
                in said[0] and "records Chroma's openai embedding function (test-embed)" in said[0], said
        found = read_store(parse_store(uri), list(handbook.documents))
        with pytest.raises(StoreError, match="needs the embedder your pipeline uses"):
            store_retriever(found, parse_retriever("bm25"))
        # With the operator's embedder, questions go to the operator's server with the operator's key.
        assert main(["check", str(SAMPLE), "--keep-front-matter", "--store", uri, "--golden", golden,
                     "--retriever", "dense:openai:test-embed", "--embeddings-url", operator.url,
                     "--min", "recall@2000=0"]) == 0
        capsys.readouterr()
        assert operator.requests and {h["Authorization"] for h in operator.headers} == {"Bearer sk-operator"}
        assert listener.requests == [], "nothing reaches the address the store names"
        assert not any("the-operator-s-secret" in json.dumps(h) for h in operator.headers + listener.headers)
    own = own_embedding(parse_store(uri))
    assert (own.name, own.model) == ("openai", "test-embed") and not hasattr(own, "api_base"), \
        "the recorded function is a name and a model, nothing that says where to send"
    assert stores.tree_digest(tmp_path / "c") == before, "every file of the store byte-identical"
